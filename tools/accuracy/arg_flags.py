#!/usr/bin/env python3
"""Holds tests/fixtures/runtime-flags/llama-cpp.json to a llama.cpp common/arg.cpp when the pin
moves: the option spellings one has and the other lacks, and per option the line of its add_opt
call, its environment variable (.set_env) and the programs it is offered to (.set_examples).

Usage: arg_flags.py ARG_CPP FIXTURE [--write]

ARG_CPP is common/arg.cpp of the pinned build (tools/accuracy/run.sh unpacks it from the npm
package's git bundle into $ACCURACY_CACHE/llama.cpp). Without --write it prints the differences
and exits 1 when there are any. With --write it sets line, env and examples from ARG_CPP; options
whose spellings are gone or new are reported for a hand edit (their kind, choices and defaults
need reading, which a pattern cannot do). A spelling added by more than one add_opt (llama-server
and the other programs get different -np options) keeps its env and examples as the fixture has
them.
"""

import json
import re
import sys


def strip_comments(text):
    """// comments blanked out, line count kept (spellings in comments are not options)."""
    return re.sub(r"//[^\n]*", "", text)


def example_lists(text):
    """Named example lists (static std::initializer_list<enum llama_example> NAME = {...})."""
    return {m.group(1): m.group(2) for m in re.finditer(
        r"initializer_list<enum llama_example>\s+(\w+)\s*=\s*(\{[^}]*\})", text)}


def add_opts(text):
    """[(line, spellings, env, examples)] for every add_opt(common_arg({...}, ...) call; the call's
    text runs to the next add_opt, where its chained .set_env / .set_examples end."""
    text = strip_comments(text)
    named = example_lists(text)
    starts = [m.start() for m in re.finditer(r"add_opt\(common_arg\(", text)]
    found = []
    for i, start in enumerate(starts):
        call = text[start:starts[i + 1] if i + 1 < len(starts) else len(text)]
        lists = re.match(r"add_opt\(common_arg\(\s*((?:\{[^{}]*\}\s*,\s*)+)", call)
        if not lists:
            continue
        spellings = [s for group in re.findall(r"\{([^{}]*)\}", lists.group(1))
                     for s in re.findall(r'"(-[^"]*)"', group)]
        env = re.search(r'\.set_env\("([^"]+)"\)', call)
        examples = re.search(r"\.set_examples\((\{[^}]*\}|\w+)\)", call)
        tags = ["common"]
        if examples:
            group = examples.group(1)
            group = named.get(group, "") if not group.startswith("{") else group
            tags = [t.lower() for t in re.findall(r"LLAMA_EXAMPLE_(\w+)", group)]
        found.append((text.count("\n", 0, start) + 1, spellings, env.group(1) if env else None,
                      tags))
    return found


def fixture_spellings(option):
    return list(option["args"]) + list(option.get("args_neg", []))


def main():
    if len(sys.argv) not in (3, 4) or (len(sys.argv) == 4 and sys.argv[3] != "--write"):
        print(__doc__, file=sys.stderr)
        return 2
    arg_cpp, fixture_path = sys.argv[1], sys.argv[2]
    write = len(sys.argv) == 4
    calls = add_opts(open(arg_cpp).read())
    by_spelling = {}
    for call in calls:
        for s in call[1]:
            by_spelling.setdefault(s, []).append(call)
    fixture = json.load(open(fixture_path))
    known = {s for o in fixture["options"] for s in fixture_spellings(o)}
    gone = sorted(known - set(by_spelling))
    new = sorted(set(by_spelling) - known)
    changed = []
    for option in fixture["options"]:
        matches = {id(c): c for s in fixture_spellings(option) for c in by_spelling.get(s, [])}
        if len(matches) != 1:
            continue
        line, _, env, examples = next(iter(matches.values()))
        fields = {"line": line, "env": env, "examples": examples}
        for key, value in fields.items():
            if option.get(key) != value:
                changed.append(f"{option['args'][0]} {key}: {option.get(key)} -> {value}")
                if write:
                    if value is None:
                        option.pop(key, None)
                    else:
                        option[key] = value
    print(f"{arg_cpp}: {len(by_spelling)} spellings; fixture: {len(known)}")
    print(f"in the fixture, not in arg.cpp (removed there): {gone}")
    print(f"in arg.cpp, not in the fixture (added there): {new}")
    moved = [c for c in changed if " line: " in c]
    print(f"options whose add_opt line moved: {len(moved)}")
    for c in changed:
        if " line: " not in c:
            print(f"  {c}")
    if write:
        with open(fixture_path, "w") as f:
            json.dump(fixture, f, indent=1, ensure_ascii=False)  # the file's own layout
        print(f"wrote {fixture_path}")
    return 1 if (gone or new or (changed and not write)) else 0


if __name__ == "__main__":
    sys.exit(main())
