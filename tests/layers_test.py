#!/usr/bin/env python3
"""tools/ci/layers.py: the real tree passes, and a planted upward include fails (a copy of the
tree's layout in a scratch folder with one include from base/ to plan/)."""

import os
import shutil
import subprocess
import sys
import tempfile

root = os.path.abspath(sys.argv[1])
script = os.path.join(root, "tools", "ci", "layers.py")


def run(tree):
    return subprocess.run([sys.executable, script, tree], capture_output=True, text=True)


failures = 0
real = run(root)
if real.returncode != 0:
    print("the tree has an upward include:\n" + real.stderr)
    failures += 1

with tempfile.TemporaryDirectory() as scratch:
    for part in ("src/core", "include/canitrun"):
        shutil.copytree(os.path.join(root, part), os.path.join(scratch, part))
    planted = os.path.join(scratch, "src/core/base/strings.cpp")
    with open(planted, "a", encoding="utf-8") as f:
        f.write('#include "canitrun/plan_views.hpp"\n')
    bad = run(scratch)
    if bad.returncode != 1 or "base includes plan_views.hpp (plan)" not in bad.stderr:
        print(f"a planted include from base/ to plan/ was not refused (exit {bad.returncode}):\n"
              + bad.stderr)
        failures += 1
    # A header with no layer is refused too: the check must not skip what it cannot place.
    open(os.path.join(scratch, "include/canitrun/orphan.hpp"), "w").close()
    if "orphan.hpp: no layer" not in run(scratch).stderr:
        print("a header with no layer was not named")
        failures += 1

print(f"{3 - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)
