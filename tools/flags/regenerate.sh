#!/usr/bin/env bash
# The man page's OPTIONS section and the three completion scripts are made from the flag table
# (src/cli/flag_rows*.cpp) by the built binary: `canitrun --generate man|complete-bash|...`.
#
#   tools/flags/regenerate.sh BUILD_DIR           writes them into the tree
#   tools/flags/regenerate.sh --check BUILD_DIR   exit 1, with the diff, when one differs (CI)
#
# BUILD_DIR holds the built canitrun (a path to the binary itself is taken too). In
# docs/canitrun.1 only the lines between the two marker comments are replaced; the rest of the
# page is hand-written.
set -euo pipefail

check=0
if [[ ${1:-} == --check ]]; then
    check=1
    shift
fi
if [[ $# -ne 1 ]]; then
    echo "usage: $0 [--check] BUILD_DIR" >&2
    exit 2
fi
bin=$1
[[ -d $bin ]] && bin=$bin/canitrun
if [[ ! -x $bin ]]; then
    echo "$0: no canitrun binary at $bin" >&2
    exit 2
fi
root=$(cd "$(dirname "$0")/../.." && pwd)
begin='.\" BEGIN GENERATED OPTIONS'
end='.\" END GENERATED OPTIONS'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The man page with its OPTIONS between the markers replaced by the generated section.
man=$root/docs/canitrun.1
if [[ $(grep -cF "$begin" "$man") -ne 1 || $(grep -cF "$end" "$man") -ne 1 ]]; then
    echo "$0: docs/canitrun.1 needs one '$begin' line and one '$end' line" >&2
    exit 1
fi
"$bin" --generate man >"$tmp/options"
# (ENVIRON, not awk -v, which would read the backslashes as escapes.)
BEGIN_MARK=$begin END_MARK=$end OPTIONS=$tmp/options awk '
    index($0, ENVIRON["BEGIN_MARK"]) == 1 {
        print
        while ((getline line < ENVIRON["OPTIONS"]) > 0) print line
        skip = 1
        next
    }
    index($0, ENVIRON["END_MARK"]) == 1 { skip = 0 }
    !skip { print }
' "$man" >"$tmp/canitrun.1"
"$bin" --generate complete-bash >"$tmp/canitrun.bash"
"$bin" --generate complete-zsh >"$tmp/_canitrun"
"$bin" --generate complete-fish >"$tmp/canitrun.fish"

status=0
for pair in "canitrun.1:docs/canitrun.1" "canitrun.bash:completions/canitrun.bash" \
    "_canitrun:completions/_canitrun" "canitrun.fish:completions/canitrun.fish"; do
    made=$tmp/${pair%%:*}
    committed=$root/${pair#*:}
    if [[ $check == 1 ]]; then
        if ! diff -u "$committed" "$made" >"$tmp/diff"; then
            cat "$tmp/diff"
            echo "${pair#*:} differs from what the flag table makes;" \
                "run: tools/flags/regenerate.sh BUILD_DIR" >&2
            status=1
        fi
    else
        cp "$made" "$committed"
    fi
done
exit $status
