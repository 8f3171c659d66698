#!/usr/bin/env python3
"""The calculator in a real headless browser (Debian's chromium, over its DevTools protocol):
against `canitrun serve` on 127.0.0.1, the model page loads with no console error and no
request to another host; changing the quantization, the context and the GPU updates the verdict
and every command line (llama-server, Ollama, LM Studio; vllm serve with the vLLM engine) to
what the CLI prints for the same question; at 390 px nothing is wider than the screen or
hidden behind a table's scrollbar. Then the same page from `canitrun site`, served by python3's
plain static file server: it loads (at 390 px too), runs on the precomputed grid, the index's
search finds a model; and the same static copy with the API
beside it (a proxy sends /api/ to `canitrun serve`): its calculator turns live and answers as
the CLI. Without a browser it exits 77 (ctest: skipped).

Usage: serve_browser_test.py CANITRUN_BINARY [--screenshots DIR]
  --screenshots: save the calculator page at 1280 and 390 px (ctest: into build/screenshots/,
  which CI keeps as docs/serve-*.png).
"""
import base64
import http.client
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

from cdp_pipe import Browser, find_browser
from serve_support import Failures, Server, cli

SKIP = 77
MODEL = "qwen3.5-35b-a3b"
binary = sys.argv[1]
shots = sys.argv[sys.argv.index("--screenshots") + 1] if "--screenshots" in sys.argv else None
if shots:
    os.makedirs(shots, exist_ok=True)
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


def shown_commands(browser):
    return browser.evaluate(
        "[...document.querySelectorAll('#calc-commands code')].map(e => e.textContent)")


def check_commands(browser, doc, what):
    """Every line the CLI's document gives to run the model is on the page, in its order."""
    want = []
    for c in doc.get("run_commands", []):
        want += [c[k] for k in ("command", "then") if k in c]
    if doc.get("engine") == "vllm":
        want = doc["commands"]
    got = shown_commands(browser)
    f.check(want and got == want, f"{what}: every command line is the CLI's: {got} != {want}")
    engines = {c["engine"] for c in doc.get("run_commands", [])}
    if doc.get("engine") != "vllm":
        f.check({"llama.cpp", "Ollama", "LM Studio"} <= engines,
                f"{what}: the CLI prints llama.cpp, Ollama and LM Studio for {MODEL}: {engines}")


def overflow(browser):
    """What is wider than the screen at this width: the page, an element of it, or content a
    box (a table's) hides behind its own scrollbar."""
    return browser.evaluate("""(() => {
        const w = document.documentElement.clientWidth;
        const all = [...document.querySelectorAll('body *')];
        const name = e => e.tagName + '#' + e.id + '.' + e.className;
        const wide = all.filter(e => e.getBoundingClientRect().right > w + 1).map(name);
        const scrolled = all.filter(e => e.scrollWidth > e.clientWidth + 1 &&
            ['auto', 'scroll', 'hidden'].includes(getComputedStyle(e).overflowX)).map(name);
        return {scroll: document.documentElement.scrollWidth, client: w,
                wide: wide.slice(0, 5), scrolled: scrolled.slice(0, 5)};
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
    check_commands(browser, doc, "Q8_0 at 32k on an RTX 4090")
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
    check_commands(browser, doc, "two GPUs, flash attention, --parallel 2")
    browser.drain()
    for p in problems(browser, host):
        f.check(False, "at 1280 px: " + p)
    if shots:
        screenshot(browser, os.path.join(shots, "serve-1280.png"))

    # vLLM (its --users for the two sequences): on the two GPUs its BF16 checkpoint does not
    # fit, on an H100 it does, with its vllm serve line.
    s = change(browser, "const e = document.getElementById('calc-engine'); e.value = 'vLLM'; "
                        "e.dispatchEvent(new Event('change'));")
    f.check("engine=vllm" in s["query"] and "users=2" in s["query"],
            f"the engine reaches the API: {s['query']}")
    doc = cli_doc(["--engine", "vllm", "--ctx", "32768", "--users", "2",
                   "--gpu", "NVIDIA GeForce RTX 4090,NVIDIA GeForce RTX 3090"])
    f.check(not doc["fits"] and "does not fit" in s["verdict"],
            f"vLLM on the two GPUs: the CLI's verdict: {s['verdict']}")
    change(browser, "document.querySelectorAll('#calc-gpus .chip button')[1].click();")
    change(browser, "document.querySelectorAll('#calc-gpus .chip button')[0].click();")
    s = change(browser, "const g = document.getElementById('calc-gpu'); "
                        "g.value = 'NVIDIA H100 SXM5 80GB'; g.dispatchEvent(new Event('change'));")
    doc = cli_doc(["--engine", "vllm", "--ctx", "32768", "--users", "2", "--gpu", "h100-sxm"])
    f.check(doc["fits"] and "fits" in s["verdict"], f"vLLM on an H100: {s['verdict']}")
    check_commands(browser, doc, "vLLM on an H100")
    browser.drain()
    for p in problems(browser, host):
        f.check(False, "vLLM: " + p)

    set_viewport(browser, 390)
    f.check(load(browser, f"http://{host}/models/{MODEL}"), "the page loads at 390 px")
    o = overflow(browser)
    f.check(o["scroll"] <= o["client"] and not o["wide"] and not o["scrolled"],
            f"at 390 px nothing overflows: {o}")
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
        api = browser.evaluate("document.getElementById('calculator').dataset.api")
        f.check(api == "grid", f"static: no server beside it, the grid ({api})")
        check_commands(browser, default, "static: the default answer")
        set_viewport(browser, 390)
        f.check(load(browser, f"http://{host}/models/{MODEL}.html"), "static: loads at 390 px")
        o = overflow(browser)
        f.check(o["scroll"] <= o["client"] and not o["wide"] and not o["scrolled"],
                f"static: at 390 px nothing overflows: {o}")
        set_viewport(browser, 1280)
        f.check(load(browser, f"http://{host}/models/{MODEL}.html"), "static: loads at 1280 px")
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


def proxied_checks(browser, site, server):
    """The static copy with a canitrun server beside it: /api/ goes to the server, the rest is
    the copy's files. The calculator finds the server and answers live."""
    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a, **kw):
            super().__init__(*a, directory=site, **kw)

        def log_message(self, *a):
            pass

        def proxy(self):
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
            conn.request(self.command, self.path)
            r = conn.getresponse()
            body = r.read()
            self.send_response(r.status)
            for k, v in r.getheaders():
                if k.lower() not in ("connection", "keep-alive", "transfer-encoding"):
                    self.send_header(k, v)
            self.end_headers()
            if self.command == "GET":
                self.wfile.write(body)
            conn.close()

        def do_GET(self):
            return self.proxy() if self.path.startswith("/api/") else super().do_GET()

        def do_HEAD(self):
            return self.proxy() if self.path.startswith("/api/") else super().do_HEAD()

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        host = f"127.0.0.1:{httpd.server_address[1]}"
        set_viewport(browser, 1280)
        f.check(load(browser, f"http://{host}/models/{MODEL}.html"),
                "the static page with a server beside it loads")
        api = browser.evaluate("document.getElementById('calculator').dataset.api")
        f.check(api == "live", f"with a server beside it, the calculator is live ({api})")
        s = change(browser, "const q = document.getElementById('calc-quant'); q.value = 'Q6_K'; "
                            "q.dispatchEvent(new Event('change'));")
        s = change(browser, "const g = document.getElementById('calc-gpu'); "
                            "g.value = 'NVIDIA GeForce RTX 4090'; "
                            "g.dispatchEvent(new Event('change'));")
        doc = cli_doc(["--quant", "Q6_K", "--ctx", str(cli_doc([])["context"]),
                       "--gpu", "NVIDIA GeForce RTX 4090"])
        f.check(s["command"] == doc["hardware"]["llama_cpp_command"],
                f"static, live: the command line is the CLI's: {s['command']!r}")
        check_commands(browser, doc, "static, live: Q6_K on an RTX 4090")
        browser.drain()
        for p in problems(browser, host):
            f.check(False, "static, live: " + p)
    finally:
        httpd.shutdown()
        httpd.server_close()


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
        proxied_checks(browser, site, server)
    finally:
        browser.close()
        server.stop()
if not f.count:
    print("ok: the calculator answers as the CLI, live, static and static beside a server, "
          "at 1280 and 390 px")
sys.exit(1 if f.count else 0)
