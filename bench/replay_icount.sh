#!/bin/sh
# bench/replay_icount.sh BUILD PROGRAM MODE [N]: instructions per call (callgrind,
# whole process with N calls minus with none; bench/replay_icount.py).
# BUILD is a build directory whose python/ holds the tfjit module (build/release; the
# dev build's tfpython has DWARF 5, which valgrind 3.19 cannot read), run by
# /usr/bin/python3.11.
set -e
build=$(cd "$1" && pwd); prog=$2; mode=$3; n=${4:-200}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
count() {
    PYTHONPATH="$build/python" PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file="$tmp/out.$1" \
        /usr/bin/python3.11 "$here/replay_icount.py" "$prog" "$mode" "$1" >/dev/null 2>"$tmp/err.$1"
    grep -m1 '^summary:' "$tmp/out.$1" | awk '{print $2}'
}
a=$(count 0); b=$(count "$n")
echo "$prog $mode $(( (b - a) / n ))"
rm -rf "$tmp"
