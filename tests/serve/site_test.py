#!/usr/bin/env python3
"""`canitrun site DIR` writes a site a plain static file server can host: served by python3's
http.server on 127.0.0.1, the index, a page per model and per GPU and the JSON documents are
there; each document is the CLI's stdout for the same question, and each page links only to
files of the site (the browser test, serve_browser_test.py, runs its scripts).

Usage: site_test.py CANITRUN_BINARY
"""
import html
import json
import os
import re
import subprocess
import sys
import tempfile
import urllib.request

from serve_support import Failures, cli

binary = sys.argv[1]
f = Failures()
work = tempfile.TemporaryDirectory()
site = os.path.join(work.name, "out")
p = subprocess.run([binary, "site", site], capture_output=True, text=True, timeout=300)
f.check(p.returncode == 0, f"canitrun site: exit {p.returncode} {p.stderr}")
models = [m["id"] for m in json.loads(cli(binary, ["models", "--json"])[1])]
gpus = [g["id"] for g in json.loads(cli(binary, ["gpu-list", "--json"])[1])]
# index.html, 4 assets, 3 lists, a page and a document per model, a page per GPU.
expected_files = 1 + 4 + 3 + 2 * len(models) + len(gpus)
f.check(p.stdout.strip() == f"canitrun: wrote {expected_files} files into {site}",
        f"the summary line: {p.stdout.strip()}")

server = subprocess.Popen([sys.executable, "-m", "http.server", "--bind", "127.0.0.1", "0"],
                          cwd=site, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
try:
    port = int(server.stdout.readline().decode().split("port ")[1].split()[0])

    def get(path):
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/{path}", timeout=10) as r:
            return r.status, r.read()

    status, index = get("index.html")
    f.check(status == 200 and b'data-mode="static"' in index, "the index, in static mode")
    for name in ("models", "gpu-list", "quants"):
        _, body = get(f"api/v1/{name}.json")
        f.check(body == cli(binary, [name, "--json"])[1], f"api/v1/{name}.json is the CLI's")
    for model in ("qwen3.5-35b-a3b", "llama-3.1-8b"):
        _, body = get(f"api/v1/models/{model}.json")
        f.check(body == cli(binary, [model, "--json"])[1], f"{model}.json is the CLI's")
        _, page = get(f"models/{model}.html")
        page = page.decode()
        f.check(f'data-model="{model}" data-mode="static"' in page, f"{model}: the calculator")
        f.check(page.startswith(cli(binary, [model, "--format", "html"])[1].decode()
                                .split("</head>")[0].split("<style>")[0]),
                f"{model}: the CLI's HTML page")
        # Every link or script the page loads is the site's own (the others are <a> links).
        loads = re.findall(r'<(?:script|link)[^>]*(?:src|href)="([^"]+)"', page)
        f.check(loads and all(u.startswith("../assets/") or u.startswith("data:") for u in loads),
                f"{model}: loads only the site's files: {loads}")
    _, page = get("gpus/rtx-4090.html")
    table = cli(binary, ["fit", "--gpu", "rtx-4090"])[1].decode()
    f.check(html.escape(table, quote=True).replace("&#x27;", "&#39;") in page.decode(),
            "gpus/rtx-4090.html holds `canitrun fit --gpu rtx-4090`")
    for model in models:
        f.check(os.path.exists(os.path.join(site, "models", model + ".html")), f"{model}.html")
    for gpu in gpus:
        f.check(os.path.exists(os.path.join(site, "gpus", gpu + ".html")), f"{gpu}.html")
finally:
    server.terminate()
    server.wait(timeout=10)
sys.exit(1 if f.count else 0)
