#!/usr/bin/env bash
# check.sh: runs a command and checks its exit status and output (the CLI tests'
# one assertion helper; prints everything it saw when a check fails).
# Usage: check.sh [--status N] [--out ERE]... [--no-out ERE]... [--err ERE]...
#                 [--last ERE] [--count ERE N]... -- COMMAND [ARGS...]
#   --status N      expected exit status (default 0)
#   --out ERE       some stdout line matches the extended regex
#   --no-out ERE    no stdout line matches it
#   --err ERE       some stderr line matches it
#   --last ERE      the last stdout line matches it (whole line)
#   --count ERE N   exactly N stdout lines match it
#   --skip-if-err ERE  exit 77 (ctest: skipped) when stderr matches it, e.g. a
#                   target this build does not have yet
set -u
status=0; outs=(); noouts=(); errs=(); last=""; counts=(); skipre=""
while [ $# -gt 0 ]; do
  case "$1" in
    --status) status="$2"; shift 2;;
    --out) outs+=("$2"); shift 2;;
    --no-out) noouts+=("$2"); shift 2;;
    --err) errs+=("$2"); shift 2;;
    --last) last="$2"; shift 2;;
    --count) counts+=("$2" "$3"); shift 3;;
    --skip-if-err) skipre="$2"; shift 2;;
    --) shift; break;;
    *) echo "check.sh: unknown option $1" >&2; exit 2;;
  esac
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$@" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ -n "$skipre" ] && grep -Eq -- "$skipre" "$tmp/err"; then
  echo "SKIPPED: stderr matches /$skipre/:"; cat "$tmp/err"; exit 77
fi
fail=0
complain() { echo "CHECK FAILED: $*"; fail=1; }
[ "$rc" = "$status" ] || complain "exit status $rc, expected $status"
for re in "${outs[@]+"${outs[@]}"}"; do grep -Eq -- "$re" "$tmp/out" || complain "no stdout line matches /$re/"; done
for re in "${noouts[@]+"${noouts[@]}"}"; do ! grep -Eq -- "$re" "$tmp/out" || complain "a stdout line matches /$re/"; done
for re in "${errs[@]+"${errs[@]}"}"; do grep -Eq -- "$re" "$tmp/err" || complain "no stderr line matches /$re/"; done
if [ -n "$last" ]; then
  l=$(tail -n 1 "$tmp/out")
  [[ "$l" =~ ^($last)$ ]] || complain "last stdout line is '$l', expected /$last/"
fi
i=0
while [ $i -lt ${#counts[@]} ]; do
  re="${counts[$i]}"; want="${counts[$((i+1))]}"
  got=$(grep -Ec -- "$re" "$tmp/out")
  [ "$got" = "$want" ] || complain "$got stdout lines match /$re/, expected $want"
  i=$((i+2))
done
if [ $fail -ne 0 ]; then
  echo "---- command: $*"; echo "---- stdout:"; head -c 20000 "$tmp/out"; echo "---- stderr:"; head -c 20000 "$tmp/err"
  exit 1
fi
tail -n 5 "$tmp/out"
exit 0
