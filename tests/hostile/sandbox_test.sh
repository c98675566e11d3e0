#!/usr/bin/env bash
# sandbox_test.sh TRACEFUZZ [setpriv]: --sandbox keeps a target from writing outside
# the worker's directory and from reaching the network (targets/escape.py tries
# both, and raises when either works). Without --sandbox the same target escapes
# (the probe works); with it the input is OK and nothing was written, or, where the
# kernel refuses namespaces, tracefuzz says so on stderr. With "setpriv", the run is
# made as user nobody (a user namespace is needed then).
set -u
tf=$(realpath "$1"); as="${2:-}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
chmod 755 "$tmp"
lpid=
trap '[ -n "$lpid" ] && kill "$lpid" 2>/dev/null; rm -rf "$tmp"' EXIT
pre=()
if [ "$as" = setpriv ]; then
  command -v setpriv >/dev/null && [ "$(id -u)" = 0 ] || { echo "SKIPPED: needs root and setpriv"; exit 77; }
  pre=(setpriv --reuid 65534 --regid 65534 --clear-groups)
  # A clone in a private directory (mktemp -d makes 0700 ones) cannot be entered by
  # nobody: that is the checkout's place, not the sandbox's failure.
  "${pre[@]}" test -x "$tf" -a -r "$here/trigger.py" -a -r "$here/../verdicts/ok_plain.py" ||
    { echo "SKIPPED: user nobody cannot reach $tf or $here"; exit 77; }
  mkdir "$tmp/w" && chmod 777 "$tmp/w"
else
  mkdir "$tmp/w"
fi
cp "$here/targets/escape.py" "$here/targets/_hostile.py" "$tmp/"
python3.11 -c "
import socket, sys, time
s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen()
print(s.getsockname()[1], flush=True); time.sleep(120)" > "$tmp/port" &
lpid=$!
for _ in $(seq 50); do [ -s "$tmp/port" ] && break; sleep 0.1; done
export TF_ESCAPE_PORT=$(cat "$tmp/port") TF_ESCAPE_FILE="$tmp/w/escaped"
fail=0
complain() { echo "CHECK FAILED: $*"; fail=1; }
run() { "${pre[@]}" "$tf" run "$@" --target "$tmp/escape.py:jit" "$here/trigger.py" \
          "$here/../verdicts/ok_plain.py" >"$tmp/out" 2>"$tmp/err"; }
run
grep -q "trigger.py: TARGET_CRASH .*escaped" "$tmp/out" || complain "without --sandbox the probe did not escape"
rm -f "$TF_ESCAPE_FILE"
run --sandbox
echo "with --sandbox: $(grep -a "trigger.py:" "$tmp/out")"
if grep -q "warning: --sandbox: " "$tmp/err"; then
  echo "the kernel refused: $(grep 'warning: --sandbox' "$tmp/err")"
  grep -q "WITHOUT the sandbox\|is NOT" "$tmp/err" || complain "the warning does not say what is not isolated"
else
  grep -q "trigger.py: OK " "$tmp/out" || complain "with --sandbox the target escaped: $(grep trigger.py "$tmp/out")"
  [ ! -e "$TF_ESCAPE_FILE" ] || complain "a file was written outside the worker's directory"
fi
grep -q "ok_plain.py: OK " "$tmp/out" || complain "an ordinary input did not pass under --sandbox"
if [ "$fail" != 0 ]; then echo "---- stdout"; cat "$tmp/out"; echo "---- stderr"; head -50 "$tmp/err"; fi
exit $fail
