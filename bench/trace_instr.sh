#!/bin/sh
# bench/trace_instr.sh BUILD_DIR PROGRAM MODE N: instructions per call (callgrind, the
# count of a process making N calls minus that of the same process making none,
# divided by N; PYTHONHASHSEED=0). BUILD_DIR's python/ (the tfjit module) is loaded by
# /usr/bin/python3.11: valgrind 3.19 cannot read clang's DWARF 5, so use a build
# without -g (the release preset) or with -gdwarf-4. See bench/trace_instr.py.
set -e
b=$1; p=$2; m=$3; n=$4
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
for k in 0 "$n"; do
  PYTHONHASHSEED=0 PYTHONPATH="$b/python" valgrind --tool=callgrind \
    --callgrind-out-file="$tmp/cg.$k" /usr/bin/python3.11 "$here/trace_instr.py" "$p" "$m" "$k" \
    >/dev/null 2>"$tmp/log.$k" || { cat "$tmp/log.$k" >&2; exit 1; }
done
c0=$(grep -m1 '^summary:' "$tmp/cg.0" | awk '{print $2}')
cn=$(grep -m1 '^summary:' "$tmp/cg.$n" | awk '{print $2}')
echo "$p $m $(( (cn - c0) / n ))"
rm -rf "$tmp"
