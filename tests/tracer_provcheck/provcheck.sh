#!/bin/sh
# One hand-written program under one fault through `tracefuzz run --target builtin`:
# OK without the fault; PROVENANCE with the fault, the report naming CHAIN; OK again
# with the fault but the oracle off (TRACEFUZZ_PROVCHECK=0): the fault would go
# unnoticed without the oracle.
# usage: provcheck.sh TRACEFUZZ PROGRAM FAULT CHAIN
set -u
tf=$1; prog=$2; fault=$3; chain=$4
verdict() { awk -v p="$prog:" '$1 == p { print $2 }'; }
out=$(TRACEFUZZ_FAULTS= "$tf" run --target builtin "$prog" 2>/dev/null)
v=$(echo "$out" | verdict)
[ "$v" = OK ] || { echo "$out"; echo "FAIL: without the fault: ${v:-no verdict}"; exit 1; }
out=$(TRACEFUZZ_FAULTS= "$tf" run --target builtin --faults "$fault" "$prog" 2>&1)
v=$(echo "$out" | verdict)
[ "$v" = PROVENANCE ] || { echo "$out"; echo "FAIL: with $fault: ${v:-no verdict}"; exit 1; }
echo "$out" | grep -F "tfjit.ProvenanceError: provenance $chain resolves to" || {
    echo "$out"; echo "FAIL: the report does not name $chain"; exit 1; }
out=$(TRACEFUZZ_FAULTS= TRACEFUZZ_PROVCHECK=0 "$tf" run --target builtin --faults "$fault" "$prog" 2>/dev/null)
v=$(echo "$out" | verdict)
[ "$v" = OK ] || { echo "$out"; echo "FAIL: with $fault, oracle off: ${v:-no verdict} (expected unnoticed)"; exit 1; }
echo "ok: $fault on $(basename "$prog"): PROVENANCE with the oracle, unnoticed without"
