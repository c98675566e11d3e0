#!/bin/sh
# `tracefuzz run --stats` on generated programs: no failure, and the summed reuse
# statistics show replays, side exits and retraces (docs/REUSE.md).
# usage: run_stats.sh TRACEFUZZ WORKDIR COUNT SEED
set -eu
tf=$1; work=$2; count=$3; seed=$4
rm -rf "$work/progs"
"$tf" gen --count "$count" --seed "$seed" --out "$work/progs" >/dev/null
out=$("$tf" run --target builtin --quiet --stats "$work/progs" 2>/dev/null) || {
    echo "$out"; echo "FAIL: run reported failures"; exit 1; }
echo "$out"
for key in traces replays replays_completed side_exits retraces; do
    n=$(echo "$out" | awk -v k="$key" '$1 == k { print $2 }')
    if [ -z "$n" ] || [ "$n" -le 0 ]; then
        echo "FAIL: $key is ${n:-missing}"; exit 1
    fi
done
echo "$out" | tail -1 | grep -q ' 0 failed$' || { echo "FAIL: summary"; exit 1; }
echo "ok"
