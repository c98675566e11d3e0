#!/usr/bin/env bash
# toy_finds.sh TRACEFUZZ WORKDIR TOY SECONDS: `tracefuzz fuzz` finds the bug of the
# toy JIT tests/targets/TOY.py from an empty corpus (no seeds) within SECONDS on one
# core: exit 1, a finding whose report names a MISMATCH_* verdict. Prints the
# seconds to the first finding (libFuzzer's first artifact, written when found;
# the findings files are written at the end).
set -u
tf="$1" work="$2" toy="$3" secs="$4"
rm -rf "$work"
mkdir -p "$work/empty"
start=$(date +%s.%N)
"$tf" fuzz --first --target "tests/targets/$toy.py:jit" --seeds "$work/empty" --time "$secs" \
    --out "$work/o" >"$work/stdout" 2>"$work/stderr"
rc=$?
cat "$work/stdout"
[ $rc -eq 1 ] || { echo "toy_finds: exit status $rc, expected 1"; tail -20 "$work/stderr"; exit 1; }
report=$(ls "$work/o/findings/"*.report 2>/dev/null | head -1)
[ -n "$report" ] || { echo "toy_finds: no finding files"; exit 1; }
grep -q 'MISMATCH_' "$report" || { echo "toy_finds: $report names no mismatch"; head -5 "$report"; exit 1; }
first=$(stat -c %.3Y "$work/o/artifacts/"crash-* 2>/dev/null | sort -n | head -1)
[ -n "$first" ] || first=$(date +%s.%N)
awk -v s="$start" -v f="$first" 'BEGIN { printf "toy_finds: first finding after %.1f s\n", f - s }'
echo "toy_finds: $toy OK"
