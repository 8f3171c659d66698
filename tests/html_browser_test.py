#!/usr/bin/env python3
"""Renders canitrun's HTML model page (--format html) in a real headless browser, Debian's
chromium, and checks what only a browser can tell: the page renders, the chart draws both series
with a visible size, the quantization table has its rows, and nothing overflows the viewport at
1280 and 390 pixels wide. The same for a page with a --gpu answer (issue #33): its placement is a
table that scrolls in its own box, not a terminal's lines in a <pre> that broke words and hid
columns at 390 px. Without a browser it prints why and exits 77 (ctest: skipped).

Usage: html_browser_test.py CANITRUN_BINARY [--screenshot PNG]
  --screenshot: also save the whole page at 1280 pixels wide (docs/model-page.png is made so).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
PROBE = """
<script>
window.addEventListener('load', () => {
  const series = [...document.querySelectorAll('polyline[data-series]')].map(p => {
    const b = p.getBBox();
    return {name: p.dataset.series, width: b.width, height: b.height};
  });
  const overflow = [...document.querySelectorAll('main *')].filter(e => {
    const r = e.getBoundingClientRect();
    return r.right > document.documentElement.clientWidth + 1 && !e.closest('.scroll');
  }).map(e => e.tagName + '.' + e.className);
  // The page runs in an iframe of the width under test (a headless window is at least 500
  // pixels wide); the result goes to the parent's title, which --dump-dom prints.
  parent.document.title = 'RESULT:' + JSON.stringify({
    scroll_width: document.documentElement.scrollWidth,
    client_width: document.documentElement.clientWidth,
    height: document.documentElement.scrollHeight,
    series: series,
    quant_rows: document.querySelectorAll('table.quants tbody tr').length,
    answer_rows: document.querySelectorAll('.question table.answer tbody tr').length,
    overflow: overflow.slice(0, 5),
  });
});
</script>
"""


def browser():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def chromium(exe, *args):
    cmd = [exe, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           "--no-first-run", "--disable-dev-shm-usage", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def measure(exe, page_html, width, tmp):
    probe = os.path.join(tmp, f"probe-{width}.html")
    with open(probe, "w", encoding="utf-8") as f:
        f.write(page_html.replace("</body>", PROBE + "</body>"))
    frame = os.path.join(tmp, f"frame-{width}.html")
    with open(frame, "w", encoding="utf-8") as f:
        f.write(f'<!DOCTYPE html><html><head><title>pending</title></head><body style="margin:0">'
                f'<iframe src="probe-{width}.html" width="{width}" height="900" '
                f'style="border:0"></iframe></body></html>')
    run = chromium(exe, "--window-size=1400,1000", "--virtual-time-budget=5000",
                   "--allow-file-access-from-files", "--dump-dom", "file://" + frame)
    m = re.search(r"<title>RESULT:(.*?)</title>", run.stdout, re.S)
    if not m:
        print(f"FAIL the browser gave no result at {width} px: {run.stderr[-500:]}")
        sys.exit(1)
    return json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&"))


def main():
    binary = sys.argv[1]
    shot = sys.argv[sys.argv.index("--screenshot") + 1] if "--screenshot" in sys.argv else None
    exe = browser()
    if exe is None:
        print("SKIP: no headless browser (install Debian's chromium to run this test)")
        return SKIP
    page = subprocess.run([binary, "qwen3.5-35b-a3b", "--format", "html"], capture_output=True,
                          text=True, check=True).stdout
    # Two GPUs and offload-free 32k: a placement of three rows (two GPUs and system RAM).
    answer = subprocess.run([binary, "llama-3.1-8b", "--gpu", "2x3090", "--ctx", "32k",
                             "--format", "html"], capture_output=True, text=True, check=True).stdout
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for width in (1280, 390):
            r = measure(exe, page, width, tmp)
            names = sorted(s["name"] for s in r["series"])
            if names != ["all_attention", "this_model"]:
                failures.append(f"{width} px: chart series {names}")
            for s in r["series"]:
                if s["width"] <= 0 or s["height"] <= 0:
                    failures.append(f"{width} px: series {s['name']} has no size")
            if r["quant_rows"] != 9:  # FP32, BF16, FP16, Q8_0, Q6_K, Q5_K_M, Q4_K_M, Q3_K_M, Q2_K
                failures.append(f"{width} px: {r['quant_rows']} quantization rows")
            if r["scroll_width"] > r["client_width"] or r["overflow"]:
                failures.append(f"{width} px: overflows ({r['scroll_width']} > "
                                f"{r['client_width']}: {r['overflow']})")
            if width == 1280:
                height = r["height"]
            a = measure(exe, answer, width, tmp)
            if a["answer_rows"] != 3:  # GPU 0, GPU 1, System RAM
                failures.append(f"{width} px: the --gpu answer has {a['answer_rows']} table rows")
            if a["scroll_width"] > a["client_width"] or a["overflow"]:
                failures.append(f"{width} px: the --gpu answer overflows ({a['scroll_width']} > "
                                f"{a['client_width']}: {a['overflow']})")
        if shot:
            path = os.path.join(tmp, "page.html")
            with open(path, "w", encoding="utf-8") as f:
                f.write(page)
            run = chromium(exe, f"--window-size=1280,{height}", f"--screenshot={shot}",
                           "file://" + path)
            if not os.path.exists(shot):
                failures.append(f"no screenshot: {run.stderr[-300:]}")
    for f in failures:
        print("FAIL", f)
    if not failures:
        print("ok: the page and a --gpu answer render at 1280 and 390 px, both chart series "
              "drawn, the answer's placement a table, nothing overflows")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
