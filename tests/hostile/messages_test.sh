#!/usr/bin/env bash
# messages_test.sh TRACEFUZZ CASE: what tracefuzz prints about odd inputs (issue 13).
#   odd_name        a file name with a newline and an escape byte: one verdict line,
#                   the bytes escaped
#   unreadable_dir  an unreadable directory among the inputs is a per-input ERROR
#                   line, like an unreadable file; the other inputs run (exit 2)
#   slow_program    a valid program slower than --timeout is TIMEOUT naming the limit
#   report_cap      a 3,000-line program with control bytes: its report echoes the
#                   first and last 200 lines, escaped
set -u
tf=$(realpath "$1"); case_="$2"
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'chmod -R u+rwx "$tmp"; rm -rf "$tmp"' EXIT
fail=0
complain() { echo "CHECK FAILED: $*"; fail=1; }
ok="$src/tests/verdicts/ok_plain.py"
case "$case_" in
odd_name)
  name=$(printf 'odd\nname\033[31m.py')
  mkdir "$tmp/in" && cp "$ok" "$tmp/in/$name"
  "$tf" run --target identity "$tmp/in" >"$tmp/out" 2>"$tmp/err"; rc=$?
  [ "$rc" = 0 ] || complain "exit status $rc"
  grep -Fxq "$tmp/in/odd\\nname\\x1b[31m.py: OK  OK - - -" "$tmp/out" || complain "no escaped verdict line"
  ! grep -q $'\033' "$tmp/out" || complain "a raw escape byte on stdout"
  [ "$(grep -c ': OK ' "$tmp/out")" = 1 ] || complain "not one verdict line";;
unreadable_dir)
  command -v setpriv >/dev/null && [ "$(id -u)" = 0 ] || { echo "SKIPPED: needs root and setpriv to drop to nobody"; exit 77; }
  chmod 755 "$tmp"
  mkdir "$tmp/locked" && cp "$ok" "$tmp/locked/a.py" && cp "$ok" "$tmp/b.py" && chmod 000 "$tmp/locked"
  setpriv --reuid 65534 --regid 65534 --clear-groups "$tf" run --target identity \
    "$tmp/locked" "$tmp/b.py" >"$tmp/out" 2>"$tmp/err"; rc=$?
  [ "$rc" = 2 ] || complain "exit status $rc, want 2 (an input could not be read)"
  grep -q "^$tmp/locked: ERROR  .*Permission denied" "$tmp/out" || complain "no ERROR line for the directory"
  grep -q "^$tmp/b.py: OK " "$tmp/out" || complain "the readable input did not run"
  grep -q "^1 passed, 1 failed$" "$tmp/out" || complain "no summary";;
slow_program)
  "$tf" run --timeout 0.5 --target identity "$src/tests/hostile/inputs/slow.py" >"$tmp/out" 2>"$tmp/err"; rc=$?
  [ "$rc" = 1 ] || complain "exit status $rc"
  grep -q "slow.py: TIMEOUT  TIMEOUT " "$tmp/out" || complain "not TIMEOUT"
  # the CPU limit, or on a machine too loaded to give it the CPU, the wall-clock one
  grep -Eq "CPU time limit of 0.5 s|within 5 s of wall-clock time" "$tmp/err" || complain "the report does not name the limit";;
report_cap)
  { cat "$src/tests/verdicts/mismatch_result.py"
    for i in $(seq 3000); do printf '# line %d \a\033[2J\001 junk\n' "$i"; done; } > "$tmp/big.py"
  "$tf" run --target "$src/tests/targets/change_result.py:jit" "$tmp/big.py" >"$tmp/out" 2>"$tmp/err"; rc=$?
  [ "$rc" = 1 ] || complain "exit status $rc"
  grep -q "lines left out" "$tmp/err" || complain "the program was not cut"
  ! grep -q $'[\a\033\001]' "$tmp/err" || complain "raw control bytes in the report"
  grep -q 'line 3000 \\x07\\x1b\[2J\\x01 junk' "$tmp/err" || complain "the last lines are missing or unescaped"
  ! grep -q '# line 1500 ' "$tmp/err" || complain "the middle was echoed"
  [ "$(wc -l < "$tmp/err")" -lt 600 ] || complain "$(wc -l < "$tmp/err") lines of report";;
*) echo "unknown case $case_"; exit 2;;
esac
if [ "$fail" != 0 ]; then echo "---- stdout"; head -c 5000 "$tmp/out"; echo "---- stderr"; head -c 5000 "$tmp/err"; fi
exit $fail
