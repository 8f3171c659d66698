#!/usr/bin/env python3
"""The documents keep their promises (issue #35, item 5):

- README.md is at most 250 lines, and its Quick start is the one CI and users rely on, byte for
  byte (`.ci/run` runs its second command as "the README's test command");
- the README links to every document its former sections moved to (the guide, the method, the
  man page, the developers' and the fuzzing guides);
- every relative link in the README and the guides resolves to a file or folder of the tree, and
  a `#anchor` into a Markdown file to one of its headings (GitHub's slugs);
- docs/DEVELOPING.md names every public header under include/canitrun/ and every schema under
  docs/schema/, so its lists cannot go stale again.

Each check is also run on a planted defect (a missing file, a wrong anchor, a header the list
lacks, a long README), which it must report: a check that cannot fail is no check.

Usage: docs_test.py SOURCE_DIR
"""

import os
import re
import sys
import tempfile

MAX_README_LINES = 250

# The README's Quick start, exactly. Change it only together with .ci/run and the users' habits.
QUICK_START = """## Quick start

On a fresh Debian 12 machine, as root (prefix `sudo` otherwise), from the repository root:

```sh
apt-get update && apt-get install -y cmake g++ make libcli11-dev nlohmann-json3-dev libfmt-dev libcurl4-openssl-dev libcpp-httplib-dev catch2 python3-jsonschema && cmake -S . -B build && cmake --build build -j2 && build/canitrun qwen3.5-35b-a3b
ctest --test-dir build -j2 --output-on-failure
```

The first command installs what is missing, builds, and prints the model page for Qwen 3.5
35B-A3B from the built-in database. The second runs the tests (`python3-jsonschema` is for the
test that checks the JSON output against `docs/schema/`, and its `python3` serves the remote
tests' loopback Hub on 127.0.0.1; no test needs the network). `.ci/run` runs both, plus everything in
"Hardening and tooling" below.
"""

# The hand-written documents whose links are checked.
DOCUMENTS = [
    "README.md",
    "docs/GUIDE.md",
    "docs/METHOD.md",
    "docs/DEVELOPING.md",
    "docs/ARCHITECTURE.md",
    "fuzz/README.md",
]

# Where the README's former sections went: the README links to each.
MOVED_TO = [
    "docs/GUIDE.md",
    "docs/METHOD.md",
    "docs/DEVELOPING.md",
    "docs/canitrun.1",
    "fuzz/README.md",
]

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def without_code(text):
    """The text with fenced code blocks and inline code spans blanked (their brackets are not
    links)."""
    out = []
    fenced = False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            out.append("")
            continue
        out.append("" if fenced else re.sub(r"`[^`]*`", "", line))
    return "\n".join(out)


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation but '-' and '_' dropped, each
    space a '-'."""
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(text):
    seen = {}
    out = set()
    fenced = False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        m = None if fenced else HEADING.match(line)
        if not m:
            continue
        base = slug(m.group(2))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def link_problems(root, document):
    problems = []
    path = os.path.join(root, document)
    text = read(path)
    for target in LINK.findall(without_code(text)):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        if file_part:
            resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part))
        else:
            resolved = path
        if not resolved.startswith(os.path.abspath(root)):
            problems.append(f"{document}: {target} leaves the tree")
            continue
        if not os.path.exists(resolved):
            problems.append(f"{document}: {target}: no such file")
            continue
        if anchor and resolved.endswith(".md") and anchor not in anchors(read(resolved)):
            problems.append(f"{document}: {target}: no heading #{anchor} in "
                            f"{os.path.relpath(resolved, root)}")
    return problems


def readme_problems(root):
    problems = []
    text = read(os.path.join(root, "README.md"))
    lines = text.count("\n")
    if lines > MAX_README_LINES:
        problems.append(f"README.md: {lines} lines, more than {MAX_README_LINES}")
    if QUICK_START not in text:
        problems.append("README.md: the Quick start section is not the one .ci/run relies on")
    targets = {target.partition("#")[0] for target in LINK.findall(without_code(text))}
    for document in MOVED_TO:
        if document not in targets:
            problems.append(f"README.md does not link to {document}")
    return problems


def listing_problems(root):
    """Every public header and every schema is named in docs/DEVELOPING.md (as `name`)."""
    developing = read(os.path.join(root, "docs", "DEVELOPING.md"))
    problems = []
    include = os.path.join(root, "include", "canitrun")
    headers = []
    for folder, _, files in os.walk(include):
        for name in files:
            if name.endswith((".hpp", ".h")):
                headers.append(os.path.relpath(os.path.join(folder, name), include))
    schemas = [n for n in os.listdir(os.path.join(root, "docs", "schema"))
               if n.endswith(".json")]
    for kind, names in (("header", headers), ("schema", schemas)):
        for name in sorted(names):
            if f"`{name}`" not in developing:
                problems.append(f"docs/DEVELOPING.md does not list the {kind} {name}")
    if not headers or not schemas:
        problems.append("no headers or no schemas found: wrong SOURCE_DIR?")
    return problems


def all_problems(root):
    problems = readme_problems(root) + listing_problems(root)
    for document in DOCUMENTS:
        problems += link_problems(root, document)
    return problems


def planted(root):
    """A copy of the documents (and of the trees they link to, as empty files) with one
    defect each; every defect must be reported."""
    failures = []
    with tempfile.TemporaryDirectory() as scratch:
        def write(rel, text):
            path = os.path.join(scratch, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)

        # The tree's files, empty except for the documents and the listed folders.
        for folder, dirs, files in os.walk(root):
            rel_folder = os.path.relpath(folder, root)
            # Build folders, dot folders and the fuzz corpora (10,000 files no document links
            # into) are left out.
            dirs[:] = [d for d in dirs if not d.startswith((".", "build"))
                       and os.path.normpath(os.path.join(rel_folder, d)) != "fuzz/corpus"]
            for name in files:
                rel = os.path.normpath(os.path.join(rel_folder, name))
                keep = rel in DOCUMENTS or rel.endswith(".md")
                write(rel, read(os.path.join(root, rel)) if keep else "")
        if all_problems(scratch):
            failures.append("the copy of the tree should pass: " + "; ".join(all_problems(scratch)))

        cases = [
            ("a public header the list lacks", "include/canitrun/planted_header.hpp", None),
            ("a schema the list lacks", "docs/schema/planted.schema.json", None),
            ("a link to a missing file", "docs/GUIDE.md", "\n[gone](no-such-file.md)\n"),
            ("a link to a missing heading", "docs/METHOD.md", "\n[gone](GUIDE.md#no-such-heading)\n"),
            ("a README over 250 lines", "README.md", "\n" * (MAX_README_LINES + 1)),
        ]
        for what, rel, appended in cases:
            path = os.path.join(scratch, rel)
            before = read(path) if os.path.exists(path) else None
            write(rel, (before or "") + (appended or ""))
            if not all_problems(scratch):
                failures.append(f"{what} ({rel}) was not reported")
            if before is None:
                os.remove(path)
            else:
                write(rel, before)
        # The README without its links to the fuzzing guide.
        readme = read(os.path.join(scratch, "README.md"))
        write("README.md", readme.replace("(fuzz/README.md)", "(fuzz/run.sh)"))
        if not readme_problems(scratch):
            failures.append("a README without a link to fuzz/README.md was not reported")
        write("README.md", readme)
        # The Quick start changed by one character.
        readme = read(os.path.join(scratch, "README.md"))
        write("README.md", readme.replace("-j2 --output-on-failure", "-j4 --output-on-failure"))
        if not readme_problems(scratch):
            failures.append("a changed Quick start was not reported")
    return failures


def main():
    root = os.path.abspath(sys.argv[1])
    problems = all_problems(root)
    for p in problems:
        print(p)
    failures = planted(root)
    for f in failures:
        print("check defect: " + f)
    if problems or failures:
        return 1
    print(f"docs: README.md {read(os.path.join(root, 'README.md')).count(chr(10))} lines; "
          f"{len(DOCUMENTS)} documents' links resolve; headers and schemas all listed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
