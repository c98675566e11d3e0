#!/usr/bin/env bash
# cli_check.sh CASE TRACEFUZZ WORKDIR: `tracefuzz fuzz` end to end.
#   finds    a planted bug (tests/targets/memo_silent.py:jit) from one passing seed:
#            exit 1, a summary with findings, and NAME.tf/.py/.report files
#   clean    identity for 6 s: exit 0, a progress line (every 5 s), "findings  0"
#   missing  --fuzzer pointing at nothing: exit 2 and a message saying what to build
set -u
case_="$1" tf="$2" work="$3"
rm -rf "$work"
mkdir -p "$work"
out="$work/stdout" err="$work/stderr"
case "$case_" in
finds)
    "$tf" fuzz --target tests/targets/memo_silent.py:jit --seeds tests/fuzz/min_seed \
        --time 4 --out "$work/o" >"$out" 2>"$err"
    rc=$?
    cat "$out"
    [ $rc -eq 1 ] || { echo "cli_check: exit status $rc, expected 1"; tail -20 "$err"; exit 1; }
    grep -q '^  findings  [1-9]' "$out" || { echo "cli_check: no findings in the summary"; exit 1; }
    grep -q '^  execs     [1-9]' "$out" || { echo "cli_check: no execs in the summary"; exit 1; }
    for ext in tf py report; do
        ls "$work/o/findings/"*."$ext" >/dev/null 2>&1 ||
            { echo "cli_check: no .$ext finding file"; exit 1; }
    done
    report=$(ls "$work/o/findings/"*.report | head -1)
    grep -q 'MISMATCH_' "$report" || { echo "cli_check: $report names no mismatch"; exit 1; }
    ;;
clean)
    "$tf" fuzz --target identity --time 6 --out "$work/o" >"$out" 2>"$err"
    rc=$?
    cat "$out"
    [ $rc -eq 0 ] || { echo "cli_check: exit status $rc, expected 0"; tail -20 "$err"; exit 1; }
    grep -q '^  findings  0 ' "$out" || { echo "cli_check: findings on identity"; exit 1; }
    grep -q 'tracefuzz fuzz: .*execs' "$err" || { echo "cli_check: no progress line"; exit 1; }
    ;;
missing)
    "$tf" fuzz --fuzzer "$work/nothing" --time 3 --out "$work/o" >"$out" 2>"$err"
    rc=$?
    cat "$err"
    [ $rc -eq 2 ] || { echo "cli_check: exit status $rc, expected 2"; exit 1; }
    grep -q 'build it first' "$err" || { echo "cli_check: no hint"; exit 1; }
    ;;
*)
    echo "cli_check: unknown case $case_"; exit 2 ;;
esac
echo "cli_check: $case_ OK"
