#!/usr/bin/env python3
"""The core's folders are layers: a file may include headers of its own layer and of the
layers below it, never of a layer above. CI runs this; it fails (exit 1) on an upward include
and names the file, the line and both layers.

A header in include/canitrun/ belongs to the layer of the .cpp file of the same name; a header
with no .cpp of its own is placed in HEADER_ONLY below. Every include is counted: a .cpp's
and a header's (a header's includes are its layer's). `--graph` prints the layers and the
edges between them (the drawing in docs/ARCHITECTURE.md is made from it)."""

import os
import re
import sys
from collections import defaultdict

# Lowest first. A layer may use only those before it in this list (and itself).
LAYERS = ["base", "io", "database", "estimate", "engines", "hardware", "plan", "files"]

# Headers with no .cpp of their own, and the layer each serves.
HEADER_ONLY = {
    "error.hpp": "base",
    "limits.hpp": "base",
    "parallel_map.hpp": "base",
    "quant.hpp": "database",
    "database.hpp": "database",
    "embedded_snapshot.hpp": "database",
    "gguf.hpp": "io",
    "gguf_model.hpp": "files",
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"canitrun/([^"]+)"')


def layer_of_headers(root):
    owner = {}
    core = os.path.join(root, "src", "core")
    for folder in os.listdir(core):
        for name in os.listdir(os.path.join(core, folder)):
            if name.endswith(".cpp"):
                owner[name[:-4] + ".hpp"] = folder
    headers = {}
    for name in os.listdir(os.path.join(root, "include", "canitrun")):
        if name in HEADER_ONLY:
            headers[name] = HEADER_ONLY[name]
        elif name in owner:
            headers[name] = owner[name]
        else:
            headers[name] = None
    return headers


def sources(root, headers):
    """(path, layer) of every core source and every public header of a core layer."""
    core = os.path.join(root, "src", "core")
    for folder in sorted(os.listdir(core)):
        for name in sorted(os.listdir(os.path.join(core, folder))):
            if name.endswith((".cpp", ".hpp")):
                yield os.path.join(core, folder, name), folder
    for name, layer in sorted(headers.items()):
        if layer in LAYERS:
            yield os.path.join(root, "include", "canitrun", name), layer


def check(root):
    headers = layer_of_headers(root)
    problems = []
    edges = defaultdict(set)
    for name, layer in headers.items():
        if layer is None:
            problems.append(f"include/canitrun/{name}: no layer (no .cpp of that name in "
                            "src/core/*/ and not in tools/ci/layers.py's HEADER_ONLY)")
    for folder in os.listdir(os.path.join(root, "src", "core")):
        if folder not in LAYERS:
            problems.append(f"src/core/{folder}: a folder that is not a layer")
    for path, layer in sources(root, headers):
        if layer not in LAYERS:
            continue
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = headers.get(m.group(1))
                if target is None or target == layer:
                    continue
                rel = os.path.relpath(path, root)
                if target not in LAYERS or LAYERS.index(target) > LAYERS.index(layer):
                    problems.append(f"{rel}:{number}: {layer} includes {m.group(1)} "
                                    f"({target}), a layer above it")
                else:
                    edges[layer].add(target)
    return problems, edges


def main():
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    args = sys.argv[1:]
    if args and args[0] not in ("--graph",):
        root = os.path.abspath(args.pop(0))
    problems, edges = check(root)
    if "--graph" in args:
        for layer in reversed(LAYERS):
            below = sorted(edges[layer], key=LAYERS.index, reverse=True)
            print(f"{layer:9} -> {', '.join(below) if below else '(nothing)'}")
    for p in problems:
        print(f"layers: {p}", file=sys.stderr)
    if problems:
        print(f"layers: {len(problems)} upward include(s); the order is {' < '.join(LAYERS)}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
