#!/usr/bin/env python3
"""The calculator in a real headless browser (Debian's chromium, over its DevTools protocol):
against `canitrun serve` on 127.0.0.1, the model page loads with no console error and no
request to another host; changing the quantization, the context and the GPU updates the verdict
and the llama-server line to what the CLI prints for the same question; at 390 px nothing is
wider than the screen. Then the same page from `canitrun site`, served by python3's plain
static file server: it loads, shows the precomputed answer, the index's search finds a model.
Without a browser it exits 77 (ctest: skipped).

Usage: serve_browser_test.py CANITRUN_BINARY [--screenshots DIR]
  --screenshots: save the calculator page at 1280 and 390 px (docs/serve-*.png are made so).
"""
import base64
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.parse

from cdp_pipe import Browser, find_browser
from serve_support import Failures, Server, cli

SKIP = 77
MODEL = "qwen3.5-35b-a3b"
binary = sys.argv[1]
shots = sys.argv[sys.argv.index("--screenshots") + 1] if "--screenshots" in sys.argv else None
exe = find_browser()
if exe is None:
    print("SKIP: no headless browser (install Debian's chromium to run this test)")
    sys.exit(SKIP)
f = Failures()


def problems(browser, allowed_host):
    """Console errors, exceptions and requests to another host among the events so far."""
    out = []
    for e in browser.events:
        m, p = e.get("method"), e.get("params", {})
        if m == "Runtime.exceptionThrown":
            out.append("exception: " + json.dumps(p["exceptionDetails"])[:300])
        elif m == "Runtime.consoleAPICalled" and p.get("type") == "error":
            out.append("console error: " + json.dumps(p.get("args"))[:300])
        elif m == "Log.entryAdded" and p["entry"]["level"] == "error":
            out.append("log error: " + p["entry"]["text"][:300])
        elif m == "Network.requestWillBeSent":
            url = urllib.parse.urlsplit(p["request"]["url"])
            if url.scheme in ("http", "https", "ws", "wss") and url.netloc != allowed_host:
                out.append("a request to another host: " + p["request"]["url"])
    return out


def set_viewport(browser, width):
    browser.call("Emulation.setDeviceMetricsOverride",
                 {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 500})


def load(browser, url, ready="document.getElementById('calculator')?.dataset.state === 'done' "
                              "|| !!document.querySelector('#calc-verdict')"):
    browser.events.clear()
    browser.call("Page.navigate", {"url": url})
    time.sleep(0.2)
    return browser.wait_for(f"document.readyState === 'complete' && ({ready})")


INDEX_READY = "document.querySelectorAll('#models li').length > 100"


def calc_state(browser):
    return browser.evaluate("""(() => ({
        query: document.getElementById('calculator').dataset.query || '',
        verdict: document.getElementById('calc-verdict')?.textContent || '',
        command: document.getElementById('calc-command')?.textContent || null}))()""")


def change(browser, script):
    """Runs a change on the page, then waits for the calculator's answer to it."""
    # In a block: a const of one change's script does not clash with the next one's.
    browser.evaluate("document.getElementById('calculator').dataset.state = 'waiting'; {"
                     + script + "}")
    ok = browser.wait_for("document.getElementById('calculator').dataset.state === 'done'")
    f.check(ok, f"the calculator answered: {script}")
    return calc_state(browser)


def cli_doc(args):
    code, out = cli(binary, [MODEL, *args, "--json"])
    f.check(code in (0, 1), f"the CLI answers {args}")
    return json.loads(out)


def overflow(browser):
    return browser.evaluate("""(() => {
        const w = document.documentElement.clientWidth;
        const wide = [...document.querySelectorAll('#calculator *')]
            .filter(e => e.getBoundingClientRect().right > w + 1).map(e => e.tagName + '#' + e.id);
        return {scroll: document.documentElement.scrollWidth, client: w, wide: wide.slice(0, 5)};
    })()""")


def screenshot(browser, path):
    data = browser.call("Page.captureScreenshot", {"format": "png"})["data"]
    with open(path, "wb") as out:
        out.write(base64.b64decode(data))


def live_checks(browser, server):
    host = f"127.0.0.1:{server.port}"
    set_viewport(browser, 1280)
    f.check(load(browser, f"http://{host}/models/{MODEL}"), "the model page loads")
    s = calc_state(browser)
    default = cli_doc([])
    f.check(default["quant"] in s["verdict"], f"the default verdict names {default['quant']}")

    # Each change, and the CLI asked the same question by flags the test writes itself.
    s = change(browser, "const q = document.getElementById('calc-quant'); q.value = 'Q8_0'; "
                        "q.dispatchEvent(new Event('change'));")
    f.check("quant=Q8_0" in s["query"], f"the quantization reaches the API: {s['query']}")
    f.check("Q8_0" in s["verdict"], f"the verdict follows the quantization: {s['verdict']}")
    s = change(browser, "[...document.querySelectorAll('#calculator .presets button')]"
                        ".find(b => b.textContent === '32k').click();")
    f.check("ctx=32768" in s["query"], f"the context preset reaches the API: {s['query']}")
    s = change(browser, "const g = document.getElementById('calc-gpu'); "
                        "g.value = 'NVIDIA GeForce RTX 4090'; g.dispatchEvent(new Event('change'));")
    doc = cli_doc(["--quant", "Q8_0", "--ctx", "32768", "--gpu", "NVIDIA GeForce RTX 4090"])
    f.check(s["command"] == doc["hardware"]["llama_cpp_command"],
            f"the command line is the CLI's: {s['command']!r}")
    f.check(doc["hardware"]["selected"]["plan"] in s["verdict"],
            f"the verdict is the CLI's plan ({doc['hardware']['selected']['plan']}): {s['verdict']}")
    s = change(browser, "const k = document.getElementById('calc-kv'); k.value = 'q4_0'; "
                        "k.dispatchEvent(new Event('change'));")
    doc = cli_doc(["--quant", "Q8_0", "--ctx", "32768", "--gpu", "NVIDIA GeForce RTX 4090",
                   "--kv-type", "q4_0"])
    f.check(s["command"] == doc["hardware"]["llama_cpp_command"],
            f"with --kv-type q4_0 the command line is the CLI's: {s['command']!r}")
    # A second GPU, flash attention and --parallel: the split and the line follow.
    change(browser, "const g = document.getElementById('calc-gpu'); "
                    "g.value = 'NVIDIA GeForce RTX 3090'; g.dispatchEvent(new Event('change'));")
    change(browser, "const a = document.getElementById('calc-fa'); a.value = 'on'; "
                    "a.dispatchEvent(new Event('change'));")
    s = change(browser, "const p = document.getElementById('calc-parallel'); p.value = '2'; "
                        "p.dispatchEvent(new Event('change'));")
    doc = cli_doc(["--quant", "Q8_0", "--ctx", "32768", "--kv-type", "q4_0", "--flash-attn", "on",
                   "--parallel", "2", "--gpu", "NVIDIA GeForce RTX 4090,NVIDIA GeForce RTX 3090"])
    f.check(s["command"] == doc["hardware"]["llama_cpp_command"],
            f"two GPUs, flash attention, --parallel 2: the CLI's line: {s['command']!r}")
    rows = browser.evaluate("document.querySelectorAll('#calc-result tbody tr').length")
    f.check(rows == 3, f"a row per GPU and one for RAM: {rows}")
    browser.drain()
    for p in problems(browser, host):
        f.check(False, "at 1280 px: " + p)
    if shots:
        screenshot(browser, os.path.join(shots, "serve-1280.png"))

    set_viewport(browser, 390)
    f.check(load(browser, f"http://{host}/models/{MODEL}"), "the page loads at 390 px")
    o = overflow(browser)
    f.check(o["scroll"] <= o["client"] and not o["wide"], f"at 390 px nothing overflows: {o}")
    browser.drain()
    for p in problems(browser, host):
        f.check(False, "at 390 px: " + p)
    if shots:
        browser.evaluate("document.getElementById('calculator').scrollIntoView()")
        screenshot(browser, os.path.join(shots, "serve-390.png"))

    set_viewport(browser, 1280)
    f.check(load(browser, f"http://{host}/", INDEX_READY), "the index lists the models")
    browser.evaluate("const s = document.getElementById('search'); s.value = 'qwen3.5-35b'; "
                     "s.dispatchEvent(new Event('input'));")
    links = browser.evaluate("[...document.querySelectorAll('#models a')].map(a => a.href)")
    f.check(any(link.endswith("/models/" + MODEL) for link in links), f"search finds it: {links}")


def static_checks(browser, site):
    http = subprocess.Popen([sys.executable, "-m", "http.server", "--bind", "127.0.0.1", "0"],
                            cwd=site, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        line = http.stdout.readline().decode()
        port = int(line.split("port ")[1].split()[0])
        host = f"127.0.0.1:{port}"
        set_viewport(browser, 1280)
        f.check(load(browser, f"http://{host}/models/{MODEL}.html"), "the static page loads")
        s = calc_state(browser)
        default = cli_doc([])
        f.check(default["quant"] in s["verdict"], f"static: the default answer: {s['verdict']}")
        # The precomputed grid: Q8_0 at 32k is the CLI's matrix cell for the same question.
        s = change(browser, "const q = document.getElementById('calc-quant'); q.value = 'Q8_0'; "
                            "q.dispatchEvent(new Event('change')); [...document.querySelectorAll("
                            "'#calculator .presets button')].find(b => b.textContent === '32k')"
                            ".click();")
        row = next(r for r in default["matrix"] if r["quant"] == "Q8_0")
        c = next(c for c in row["cells"] if c["context"] == 32768)
        f.check(f"Q8_0 at 32k: {c['total_bytes'] / 1e9:.1f} GB, a {c['card_gb']} GB card" in
                s["verdict"], f"static: the grid's Q8_0 at 32k: {s['verdict']}")
        f.check(load(browser, f"http://{host}/index.html", INDEX_READY),
                "the static index lists the models")
        browser.evaluate("const s = document.getElementById('search'); s.value = 'rtx 4090'; "
                         "s.dispatchEvent(new Event('input'));")
        links = browser.evaluate("[...document.querySelectorAll('#gpus a')].map(a => a.href)")
        f.check(any(link.endswith("/gpus/rtx-4090.html") for link in links),
                f"the static search finds a GPU: {links[:3]}")
        browser.drain()
        for p in problems(browser, host):
            f.check(False, "static: " + p)
    finally:
        http.terminate()
        http.wait(timeout=10)


with tempfile.TemporaryDirectory() as tmp:
    server = Server(binary, "--quiet")
    browser = Browser(exe, tmp)
    try:
        browser.open_page()
        live_checks(browser, server)
        site = os.path.join(tmp, "site")
        code = subprocess.run([binary, "site", site, "--quiet"], timeout=300).returncode
        f.check(code == 0, "canitrun site writes the site")
        static_checks(browser, site)
    finally:
        browser.close()
        server.stop()
if not f.count:
    print("ok: the calculator answers as the CLI, live and static, at 1280 and 390 px")
sys.exit(1 if f.count else 0)
