#!/usr/bin/env bash
# hostile_test.sh TRACEFUZZ NAME SIGNATURE_ERE GEN50 CLEAN [run options...]
#
# Runs tests/hostile/targets/NAME.py on tests/hostile/trigger.py (the input it
# misbehaves on) followed by the 50 generated inputs in GEN50, in a scratch working
# directory, and checks (issue 13):
#   - the trigger's signature matches SIGNATURE_ERE (from its start);
#   - the 50 later inputs' lines equal CLEAN's (a run of GEN50 with --target identity);
#   - the summary is printed and the exit status is that of findings (0 or 1);
#   - no process of the run is left (found by a marker in argv or the environment);
#   - the caller's working directory is untouched.
set -u
tf=$(realpath "$1"); name="$2"; want="$3"; gen="$4"; clean="$5"; shift 5
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
mark="tfhostile_${name}_$$"
cleanup() {
  for p in $(procs); do kill -9 "$p" 2>/dev/null; done
  chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"
}
# Processes carrying the marker in their command line or environment (the pattern
# does not match itself: grep's own argv holds it).
procs() {
  grep -lsa "tfhostile_${name}[_]$$" /proc/[0-9]*/cmdline /proc/[0-9]*/environ |
    sed 's|/proc/\([0-9]*\)/.*|\1|' | sort -u | grep -vx "$$"
}
trap cleanup EXIT
cp "$here/targets/$name.py" "$tmp/$mark.py"
cp "$here/targets/_hostile.py" "$tmp/"
mkdir "$tmp/cwd"
echo "the caller's file" > "$tmp/cwd/keep.txt"
mkdir "$tmp/cwd/sub" && echo more > "$tmp/cwd/sub/more.txt"
listing() { (cd "$tmp/cwd" && find . -printf '%p %s %m %T@\n' | sort); }
before=$(listing)
start=$(date +%s.%N)
(cd "$tmp/cwd" && TF_HOSTILE_MARK="$mark" "$tf" run --target "$tmp/$mark.py:jit" "$@" \
    "$here/trigger.py" "$gen" >"$tmp/out" 2>"$tmp/err")
rc=$?
secs=$(echo "$(date +%s.%N) - $start" | bc)
fail=0
complain() { echo "CHECK FAILED: $*"; fail=1; }
case "$rc" in 0|1) ;; *) complain "exit status $rc (want 0 or 1: findings only)";; esac
line=$(grep -a "^$here/trigger.py: " "$tmp/out")
echo "$line" | sed "s|^$here/trigger.py: [A-Z_]*  ||" | grep -Eq -- "^($want)" ||
  complain "the hostile input's line is '$line', want /$want/"
grep -a "^$gen/" "$tmp/out" > "$tmp/later"
n=$(wc -l < "$tmp/later")
[ "$n" = 50 ] || complain "$n lines for the 50 later inputs"
changed=$(diff <(sort "$clean" | grep "^$gen/") <(sort "$tmp/later") | grep -c '^[<>]')
[ "$changed" = 0 ] || { complain "$changed lines differ from the clean run"; diff <(sort "$clean" | grep "^$gen/") <(sort "$tmp/later") | head -20; }
grep -Eaq '^[0-9]+ passed, [0-9]+ failed$' <(tail -n 1 "$tmp/out") || complain "no summary line"
sleep 0.3
left=$(procs)
[ -z "$left" ] || { complain "processes left: $(echo $left)"; for p in $left; do tr '\0' ' ' < /proc/$p/cmdline; echo; done; }
[ "$before" = "$(listing)" ] || complain "the caller's working directory changed: $(diff <(echo "$before") <(listing))"
echo "$name: $line  ($n later inputs, $changed changed, ${secs}s)"
if [ "$fail" != 0 ]; then
  echo "---- stdout"; head -c 20000 "$tmp/out"; echo "---- stderr (first 100 lines)"; head -n 100 "$tmp/err" | cut -c1-300
fi
exit $fail
