#!/usr/bin/env bash
# findings_test.sh TRACEFUZZ CASE: findings are never lost, doubled or mixed up
# (issue 11's data-loss cases). Runs from the source tree.
set -u
tf="$1"; case_="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
T=tests/targets
fail() { echo "FAILED: $*"; ls -la "$tmp"/* 2>/dev/null; exit 1; }
count() { ls "$1" 2>/dev/null | grep -c "$2"; }
case "$case_" in
rerun_same)   # the same run twice into one directory: nothing lost, nothing doubled
    for i in 1 2; do
        "$tf" run --target $T/change_result.py:jit --findings "$tmp/f" \
            tests/cli/inputs/no_expectation.py tests/cli/inputs/bytes16.tf >/dev/null 2>&1
        [ $? = 1 ] || fail "run $i: exit status not 1"
    done
    [ "$(count "$tmp/f" '\.report$')" = 2 ] || fail "want 2 reports after two runs"
    [ "$(count "$tmp/f" '\.tf$')" = 1 ] || fail "want 1 .tf"
    [ "$(count "$tmp/f" '\.py$')" = 2 ] || fail "want 2 .py";;
same_name)    # two inputs of one name in two directories: two findings
    mkdir -p "$tmp/a" "$tmp/b"
    cp tests/cli/inputs/no_expectation.py "$tmp/a/crash.py"
    cp tests/verdicts/ok_plain.py "$tmp/b/crash.py"
    "$tf" run --target $T/change_result.py:jit --findings "$tmp/f" "$tmp/a" "$tmp/b" >/dev/null 2>&1
    [ "$(count "$tmp/f" '\.report$')" = 2 ] || fail "want 2 reports for 2 inputs named crash.py";;
run_findings) # run over a findings directory runs the inputs and skips the reports
    "$tf" run --target $T/change_result.py:jit --findings "$tmp/f" \
        tests/cli/inputs/no_expectation.py tests/cli/inputs/bytes16.tf >/dev/null 2>&1
    out=$("$tf" run --target $T/change_result.py:jit "$tmp/f" 2>/dev/null)
    echo "$out" | grep -q "\.report:" && fail "a .report was run as an input: $out"
    echo "$out" | grep -q "ERROR\|INVALID" && fail "bogus failures: $out"
    [ "$(echo "$out" | grep -c ': MISMATCH_RESULT ')" = 3 ] || fail "want the 3 inputs re-run: $out";;
report_header) # a report records target, faults, versions, command line and time
    "$tf" run --target $T/change_result.py:jit --findings "$tmp/f" \
        tests/cli/inputs/no_expectation.py >/dev/null 2>&1
    r=$(ls "$tmp"/f/*.report)
    for key in "verdict: MISMATCH_RESULT" "signature: MISMATCH_RESULT 1 " \
               "input: tests/cli/inputs/no_expectation.py" "target: $T/change_result.py:jit" \
               "faults: none" "tracefuzz: [0-9]+\.[0-9]+\.[0-9]+ \(decoder version" \
               "command: .*tracefuzz run --target" "time: 20[0-9-]+T"; do
        grep -Eq "^$key" "$r" || fail "report lacks /$key/"
    done
    basename "$r" | grep -Eq '^MISMATCH_RESULT-1-.*-[0-9a-f]{12}\.report$' ||
        fail "report not named by signature and hash: $(basename "$r")";;
expect_path)  # expectation keys match however the target's path is spelled
    for spec in ./$T/memo_silent.py:jit $T/./memo_silent.py:jit "$PWD/$T/memo_silent.py:jit"; do
        out=$("$tf" run --target "$spec" corpus/regression/motivating.py 2>&1)
        echo "$out" | grep -q "^1 passed, 0 failed" || fail "$spec: $out"
    done;;
fuzz_keeps)   # fuzz --out D keeps the findings of earlier runs
    mkdir -p "$tmp/o/findings"
    echo "earlier" > "$tmp/o/findings/EARLIER-000000000000.report"
    "$tf" fuzz --target identity --time 3 --out "$tmp/o" >/dev/null 2>&1
    [ -f "$tmp/o/findings/EARLIER-000000000000.report" ] || fail "fuzz deleted an earlier finding";;
into_existing) # run --findings into a directory that already holds findings: the
    # earlier ones stay byte for byte, the new input's are added beside them, a
    # rerun of an input already there is the same finding (nothing doubled)
    "$tf" run --target $T/change_result.py:jit --findings "$tmp/f" \
        tests/cli/inputs/no_expectation.py >/dev/null 2>&1
    before=$(cd "$tmp/f" && sha1sum * | sort)
    [ "$(echo "$before" | wc -l)" = 2 ] || fail "want 2 files after the first run"
    t1=$(grep -h '^time: ' "$tmp"/f/*.report)
    sleep 1.1   # a rewritten time: would differ
    "$tf" run --target $T/change_result.py:jit --findings "$tmp/f" \
        tests/cli/inputs/bytes16.tf tests/cli/inputs/no_expectation.py >/dev/null 2>&1
    after=$(cd "$tmp/f" && sha1sum * | sort)
    # the earlier files, unchanged but for the report's time:/command: lines
    for name in $(echo "$before" | awk '{print $2}' | grep -v '\.report$'); do
        echo "$after" | grep -qF "$(echo "$before" | grep " $name\$")" || fail "$name changed"
    done
    [ "$(count "$tmp/f" '\.report$')" = 2 ] || fail "want 2 reports (one new, none doubled)"
    [ "$(count "$tmp/f" '\.tf$')" = 1 ] || fail "want the new bytes input's .tf"
    r=$(grep -l '^input: tests/cli/inputs/no_expectation.py' "$tmp"/f/*.report)
    [ "$(grep -h '^time: ' "$r")" = "$t1" ] || fail "the rerun lost when it was first found";;
fuzz_twice)   # fuzz --out D twice: the second run keeps every finding of the first
    "$tf" fuzz --faults assume_stable_attrs --first --time 20 --out "$tmp/o" >/dev/null 2>&1
    first=$(ls "$tmp/o/findings" | sort)
    [ -n "$first" ] || fail "the first fuzz run found nothing"
    "$tf" fuzz --faults assume_stable_attrs --first --time 20 --out "$tmp/o" >/dev/null 2>&1
    second=$(ls "$tmp/o/findings" | sort)
    missing=$(comm -23 <(echo "$first") <(echo "$second"))
    [ -z "$missing" ] || fail "the second fuzz run lost: $missing";;
*) echo "unknown case $case_"; exit 2;;
esac
echo "ok $case_"
