#!/bin/sh
# bench/trace_instr.sh BUILD_DIR PROGRAM MODE N [LAYOUTS]: instructions per call
# (callgrind, the count of a process making N calls minus that of the same process
# making none, divided by N; PYTHONHASHSEED=0), the mean over heap layouts 0..LAYOUTS-1
# (default 4; bench/trace_instr.py), each layout's figure after it. BUILD_DIR's python/ (the tfjit module) is loaded by
# /usr/bin/python3.11: valgrind 3.19 cannot read clang's DWARF 5, so use a build
# without -g (the release preset) or with -gdwarf-4. See bench/trace_instr.py.
set -e
b=$1; p=$2; m=$3; n=$4; nl=${5:-4}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
all=""; sum=0
for l in $(seq 0 $((nl - 1))); do
  for k in 0 "$n"; do
    PYTHONHASHSEED=0 PYTHONPATH="$b/python" valgrind --tool=callgrind \
      --callgrind-out-file="$tmp/cg.$k" /usr/bin/python3.11 "$here/trace_instr.py" "$p" "$m" "$k" "$l" \
      >/dev/null 2>"$tmp/log.$k" || { cat "$tmp/log.$k" >&2; exit 1; }
  done
  c0=$(grep -m1 '^summary:' "$tmp/cg.0" | awk '{print $2}')
  cn=$(grep -m1 '^summary:' "$tmp/cg.$n" | awk '{print $2}')
  v=$(( (cn - c0) / n )); all="$all $v"; sum=$((sum + v))
done
echo "$p $m $((sum / nl)) ($all )"
rm -rf "$tmp"
