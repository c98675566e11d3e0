#!/usr/bin/env bash
# signal_test.sh TRACEFUZZ SIGNAL: a run interrupted by SIGNAL (INT or TERM) while
# its input hangs must print the summary of what ran, exit 128+signal, and leave
# no worker or input process behind.
set -u
tf="$1"; sig="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# a target of its own, so that pgrep finds only this run's processes
cp tests/targets/hang.py "$tmp/hang_$$.py"
cp tests/targets/_selective.py "$tmp/"
"$tf" run --timeout 60 --target "$tmp/hang_$$.py:jit" tests/verdicts/ok_plain.py \
    tests/verdicts/mismatch_state.py >"$tmp/out" 2>"$tmp/err" &
pid=$!
sleep 3
kill -"$sig" "$pid"
wait "$pid"
rc=$?
sleep 0.5
left=$(pgrep -f "hang_$$.py" | wc -l)
want=$((128 + $(kill -l "$sig")))
fail=0
[ "$rc" = "$want" ] || { echo "exit status $rc, expected $want"; fail=1; }
[ "$left" = 0 ] || { echo "$left processes left behind"; pgrep -af "hang_$$.py"; fail=1; }
grep -q "interrupted by" "$tmp/err" || { echo "no 'interrupted by' message"; fail=1; }
grep -Eq "^0 passed, 0 failed$" "$tmp/out" || { echo "no summary line"; fail=1; }
if [ "$fail" != 0 ]; then echo "---- stdout"; cat "$tmp/out"; echo "---- stderr"; cat "$tmp/err"; fi
exit $fail
