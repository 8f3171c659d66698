#!/usr/bin/env python3
"""Fails when two source files define a function with the same body: a rule copied instead of
shared (the brief's "one rule per concept, in one place").

Every top-level function definition in src/, tools/speed/, tests/, bench/ and fuzz/ is read
(file-local helpers included; namespace bodies are not indented in this tree, so a definition
starts at column 0), its body compared with comments and whitespace dropped. Bodies shorter than
MIN_LINES lines are skipped: a three-line sum over two different structs is not a rule. A
definition may opt out with a comment starting `// same body: WHY` in the comment above it, for a copy kept
on purpose (a fuzz oracle restating the rule it checks).

Usage: tools/ci/same_bodies.py [ROOT]   (exit 1 and one line per copy when any is found)
"""
import collections
import os
import re
import sys

MIN_LINES = 4
FOLDERS = ("src", "tools/speed", "tests", "bench", "fuzz")
OPT_OUT = "// same body:"
HEAD = re.compile(r"^[\w:<>,*&\s]*?\b([A-Za-z_]\w*)\s*\([^;{}]*\)\s*(?:const\s*)?(?:noexcept\s*)?"
                  r"(?:->\s*[^{;]+)?\{$")
NOT_A_FUNCTION = ("namespace", "}", "#", "struct", "class", "enum", "using", "template",
                  "static_assert", "extern")


def without_comments(line):
    return re.sub(r"//.*", "", line).strip()


def definitions(path):
    """(name, line number, body lines) of each top-level function definition in a file."""
    with open(path, encoding="utf-8") as f:
        raw = f.read().split("\n")
    lines = [without_comments(re.sub(r"/\*.*?\*/", "", l)) for l in raw]
    i = 0
    while i < len(lines):
        text = raw[i]
        if not text or text[0].isspace() or text.startswith(NOT_A_FUNCTION) or not lines[i]:
            i += 1
            continue
        head, j = lines[i], i
        while not head.endswith(("{", ";", "}")) and j + 1 < len(lines) and j - i < 6:
            j += 1
            head += " " + lines[j]
        m = HEAD.match(head)
        if not m:
            i = j + 1
            continue
        depth, body, k = head.count("{") - head.count("}"), [], j + 1
        while k < len(lines) and depth > 0:
            depth += lines[k].count("{") - lines[k].count("}")
            if depth > 0 and lines[k]:
                body.append(lines[k])
            k += 1
        above = i - 1
        while above >= 0 and raw[above].strip().startswith("//") and \
                not raw[above].strip().startswith(OPT_OUT):
            above -= 1
        opted_out = above >= 0 and raw[above].strip().startswith(OPT_OUT)
        if not opted_out:
            yield m.group(1), i + 1, body
        i = k


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    bodies = collections.defaultdict(list)
    for folder in FOLDERS:
        for d, _, files in os.walk(os.path.join(root, folder)):
            for name in sorted(files):
                if not name.endswith(".cpp"):
                    continue
                path = os.path.join(d, name)
                for fn, line, body in definitions(path):
                    if len(body) >= MIN_LINES:
                        bodies["\n".join(body)].append((os.path.relpath(path, root), line, fn))
    copies = [v for v in bodies.values() if len({p for p, _, _ in v}) > 1]
    for v in copies:
        print("same body: " + ", ".join(f"{p}:{l} {fn}()" for p, l, fn in v), file=sys.stderr)
    print(f"{len(copies)} function bodies defined in two files")
    return 1 if copies else 0


sys.exit(main())
