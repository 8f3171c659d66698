#!/usr/bin/env python3
"""tools/ci/same_bodies.py: the real tree passes, a function copied into a second file fails,
and the same copy marked `// same body: WHY` passes."""

import os
import shutil
import subprocess
import sys
import tempfile

root = os.path.abspath(sys.argv[1])
script = os.path.join(root, "tools", "ci", "same_bodies.py")
COPY = """
namespace {

int clamp_to_ten(int v) {
    if (v < 0) return 0;
    if (v > 10) return 10;
    const int doubled = v * 2;
    return doubled / 2;
}

}  // namespace
"""


def run(tree):
    return subprocess.run([sys.executable, script, tree], capture_output=True, text=True)


failures = 0
real = run(root)
if real.returncode != 0:
    print("the tree has a copied function:\n" + real.stderr)
    failures += 1

with tempfile.TemporaryDirectory() as scratch:
    os.makedirs(os.path.join(scratch, "src", "a"))
    os.makedirs(os.path.join(scratch, "src", "b"))
    for name in ("a/one.cpp", "b/two.cpp"):
        with open(os.path.join(scratch, "src", name), "w", encoding="utf-8") as f:
            f.write(COPY)
    bad = run(scratch)
    if bad.returncode != 1 or "src/a/one.cpp:4 clamp_to_ten()" not in bad.stderr:
        print(f"a copied function was not refused (exit {bad.returncode}):\n" + bad.stderr)
        failures += 1
    with open(os.path.join(scratch, "src", "b/two.cpp"), "w", encoding="utf-8") as f:
        f.write(COPY.replace("int clamp_to_ten", "// same body: a test oracle\nint clamp_to_ten"))
    if run(scratch).returncode != 0:
        print("a copy marked '// same body:' was refused")
        failures += 1

print(f"{3 - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)
