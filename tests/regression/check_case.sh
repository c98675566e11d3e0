#!/usr/bin/env bash
# check_case.sh TRACEFUZZ FILE: one regression case (a corpus/regression file) against
# every target its `# expect[TARGET( faults=F)]: VERDICT` headers name, each run on
# its own: the case passes when every expectation (and expect-report line) holds.
# Run from the source tree (targets are spelled relative to it). A file without an
# expectation header fails: a regression case must say what it catches.
set -u
tf="$1"; file="$2"
keys=$(grep -o '^# expect\[[^]]*\]' "$file" | sed 's/^# expect\[//; s/\]$//' | sort -u)
[ -n "$keys" ] || { echo "FAILED: $file has no '# expect[TARGET]: VERDICT' header"; exit 1; }
n=0; bad=0
while IFS= read -r key; do
    target=${key%% faults=*}
    faults=""
    [ "$target" != "$key" ] && faults=${key#* faults=}
    out=$(TRACEFUZZ_FAULTS= "$tf" run --target "$target" ${faults:+--faults "$faults"} "$file" 2>&1)
    rc=$?
    n=$((n + 1))
    if [ $rc != 0 ] || ! echo "$out" | grep -q '^1 passed, 0 failed$'; then
        bad=$((bad + 1))
        echo "FAILED [$key] (exit $rc):"
        echo "$out" | head -40
    else
        echo "ok [$key]: $(echo "$out" | grep -m1 "^$file: ")"
    fi
done <<< "$keys"
echo "$file: $((n - bad)) of $n expectations hold"
[ $bad = 0 ]
