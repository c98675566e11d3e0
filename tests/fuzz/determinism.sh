#!/bin/sh
# determinism.sh TF_FUZZ_DETERMINISM TRACEFUZZ WORKDIR
# The fuzz target's features depend on the input alone (feature_determinism.c): the
# seeds and 300 generated programs, run in order and reversed after a warm-up, give
# every input the same features both times. Exit 0 when they do.
set -eu
det=$1 tf=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
"$tf" gen --count 300 --seed 11 --out "$work/gen" >/dev/null 2>&1
"$det" -v corpus/seed/* "$work"/gen/* >"$work/out" 2>"$work/err" || true
cat "$work/out"
tail -1 "$work/out" | grep -q "^inputs 336, features [0-9]*, history-dependent 0$"
