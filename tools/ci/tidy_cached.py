#!/usr/bin/env python3
"""clang-tidy with a result cache: the files whose preprocessed source (and the .clang-tidy
config and clang-tidy's version) match a previous clean run are skipped, the rest are checked.

    tools/ci/tidy_cached.py BUILD_DIR REGEX [--record]

REGEX picks the project's sources among the compile database's files. In a unity build
(CANITRUN_UNITY=ON, as CI configures it) the database holds CMake's unity batches instead, and
a batch is checked when the sources it includes match REGEX: the standard library, nlohmann/json
and Catch2 are then parsed and matched once per batch rather than once per file, which is most
of clang-tidy's time. For a batch, findings in the included sources are reported (the header
filter widened to .cpp files), the sources' own .clang-tidy applies (tests/.clang-tidy for the
test batches), and bugprone-suspicious-include is left to .ci/run's grep, since including .cpp
files is what a batch is.

CI runs in a fresh clone each time, on a machine with no cache. Two records of clean runs are
read: the machine's cache ($CANITRUN_TIDY_CACHE, default ~/.cache/canitrun-tidy), like ccache's
for the compiler, and the repository's tools/ci/tidy_clean.txt, the keys of the tree as last
checked whole. `--record` rewrites that file with every file's key after a run in which all were
clean; a commit that carries it lets CI check only what changed since (a cold clang-tidy run of
the whole tree is about 270 s of CI's 900 on 2 cores). A key is the SHA-256 of the file's
preprocessed text, its flags, the .clang-tidy config and clang-tidy's version, so a file is
checked again whenever anything it includes, or the checker, changes: a stale record costs time,
never a finding. Exit code 1 when any file has findings (they are printed), else 0.
"""
import concurrent.futures
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys


def preprocessed_key(entry, config, root, build):
    args = shlex.split(entry["command"]) if "command" in entry else list(entry["arguments"])
    out = []
    skip = False
    for a in args:  # drop the output and dependency-file options; keep every flag that matters
        if skip:
            skip = False
            continue
        if a in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
            continue
        if a in ("-c", "-MD", "-MMD"):
            continue
        out.append(a)
    out[0] = "clang++-16"
    text = subprocess.run(out + ["-E", "-P"], cwd=entry["directory"], capture_output=True)
    if text.returncode != 0:
        return None
    # Paths of this clone (fixture folders in test macros, __FILE__) are not what is checked:
    # with them replaced, a fresh clone elsewhere finds the same keys.
    normalized = text.stdout.replace(build.encode(), b"@BUILD@").replace(root.encode(), b"@SRC@")
    h = hashlib.sha256(config)
    # The flags too (warnings become clang-diagnostic findings), with the same paths replaced.
    h.update(" ".join(out).replace(build, "@BUILD@").replace(root, "@SRC@").encode())
    h.update(normalized)
    return h.hexdigest()


UNITY_INCLUDE = re.compile(r'^#include "(.*)"$', re.M)
HEADER_FILTER = r"(include/canitrun|src|tests|fuzz|bench|tools/speed)/.*\.(hpp|cpp)$"


def unity_sources(path):
    """The sources a CMake unity batch includes, or None when `path` is not a batch."""
    if "/Unity/unity_" not in path:
        return None
    with open(path) as f:
        return UNITY_INCLUDE.findall(f.read())


def own_checks(source, root):
    """The Checks of the .clang-tidy nearest `source` below the root's, for a batch of such
    sources: the batch's main file lies in the build folder, where clang-tidy finds only the
    root's configuration."""
    d = os.path.dirname(os.path.abspath(source))
    while d.startswith(root) and d != root:
        config = os.path.join(d, ".clang-tidy")
        if os.path.exists(config):
            with open(config) as f:
                m = re.search(r"^Checks:\s*'([^']*)'", f.read(), re.M)
            return m.group(1) if m else None
        d = os.path.dirname(d)
    return None


def tidy_args(entry, pattern, root):
    """clang-tidy's extra arguments for an entry, or None when the entry is not checked."""
    sources = unity_sources(entry["file"])
    if sources is None:
        return [] if pattern.search(entry["file"]) else None
    if not sources or not all(pattern.search(s) for s in sources):
        return None
    checks = "-bugprone-suspicious-include"
    extra = own_checks(sources[0], root)
    if extra:
        checks += "," + extra
    return ["--header-filter=" + HEADER_FILTER, "--checks=" + checks]


RECORD = os.path.join("tools", "ci", "tidy_clean.txt")
RECORD_HEADER = ("# clang-tidy keys (tools/ci/tidy_cached.py) of every file of the tree as last "
                 "checked clean whole;\n# rewritten by `tidy_cached.py BUILD REGEX --record`.\n")


def recorded_keys():
    if not os.path.exists(RECORD):
        return set()
    with open(RECORD) as f:
        return {line.strip() for line in f if line.strip() and not line.startswith("#")}


def write_record(keys):
    with open(RECORD, "w") as f:
        f.write(RECORD_HEADER)
        f.writelines(k + "\n" for k in sorted(keys))


def main():
    record = "--record" in sys.argv[3:]
    build, pattern = sys.argv[1], re.compile(sys.argv[2])
    cache = os.environ.get("CANITRUN_TIDY_CACHE", os.path.expanduser("~/.cache/canitrun-tidy"))
    os.makedirs(cache, exist_ok=True)
    committed = recorded_keys()
    with open(".clang-tidy", "rb") as f:
        config = f.read()
    # The checker's version is part of the key: a new clang-tidy checks everything again.
    config += subprocess.run(["clang-tidy-16", "--version"], capture_output=True).stdout
    root = os.getcwd()
    build_dir = os.path.abspath(build)
    args = {}
    with open(os.path.join(build, "compile_commands.json")) as f:
        for e in json.load(f):
            a = tidy_args(e, pattern, root)
            if a is not None:
                args[e["file"]] = a
    with open(os.path.join(build, "compile_commands.json")) as f:
        entries = [e for e in json.load(f) if e["file"] in args]
    # The extra arguments are part of the key, as the configuration is.
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        computed = list(pool.map(lambda e: preprocessed_key(
            e, config + " ".join(args[e["file"]]).encode(), root, build_dir), entries))
    todo, keys = [], {}
    for e, key in zip(entries, computed):
        if key is None or (key not in committed and not os.path.exists(os.path.join(cache, key))):
            todo.append(e["file"])
            keys[e["file"]] = key
    print(f"clang-tidy: {len(entries) - len(todo)} of {len(entries)} files unchanged since a "
          f"clean run, {len(todo)} to check")
    every_key = [k for k in computed if k]
    if not todo:
        if record and len(every_key) == len(computed):
            write_record(every_key)
        return 0
    # One clang-tidy per file, two at a time; each clean file is recorded at once, so one
    # finding does not cost the rest of the run its cache.
    def check(path):
        r = subprocess.run(["clang-tidy-16", "-p", build, "-quiet", *args[path], path],
                           capture_output=True, text=True)
        if r.returncode == 0 and keys[path]:
            open(os.path.join(cache, keys[path]), "w").close()
        return path, r
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for path, r in pool.map(check, todo):
            if r.returncode != 0:
                failed += 1
                sys.stdout.write(r.stdout)
                sys.stderr.write(r.stderr)
    print(f"clang-tidy: {len(todo) - failed} clean, {failed} with findings")
    if record and not failed and len(every_key) == len(computed):
        write_record(every_key)
        print(f"clang-tidy: {len(every_key)} keys recorded in {RECORD}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
