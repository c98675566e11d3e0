#!/usr/bin/env bash
# toy_check.sh TRACEFUZZ WORKDIR TOY SEED COUNT TAG...
#   Generates COUNT programs (gen --py) from SEED and splits them by whether a
#   `# tf:` tag names one of TAGs (e.g. access=dict_write_read, collect=stored).
#   Checks that tests/targets/TOY.py:jit
#     - fails some program with the pattern, each failure a MISMATCH_* verdict
#       (a wrong observation, not a crash of the toy);
#     - passes the first 40 programs without it (correct apart from its bug);
#   and that the honest JIT the toy is built on (_cachejit.py) passes the
#   programs with the pattern (the failures are the toy's bug, not the base's).
set -u
tf="$1" work="$2" toy="$3" seed="$4" count="$5"
shift 5
re=$(IFS='|'; echo "$*")
rm -rf "$work"
mkdir -p "$work/with" "$work/without"
"$tf" gen --count "$count" --seed "$seed" --py --out "$work/all" >/dev/null || exit 1
for f in "$work"/all/*.py; do
    if grep -Eq "# tf: .*\\b($re)\\b" "$f"; then mv "$f" "$work/with/"; else mv "$f" "$work/without/"; fi
done
# Programs without the pattern: the first 40 are enough to show the toy is not
# wrong everywhere (and keep the test at a few seconds).
ls "$work/without" | sort | tail -n +41 | while read -r f; do rm "$work/without/$f"; done
nwith=$(ls "$work/with" | wc -l) nwithout=$(ls "$work/without" | wc -l)
echo "toy_check: $toy: $nwith programs with ($re), $nwithout without"
[ "$nwith" -gt 0 ] && [ "$nwithout" -gt 0 ] || { echo "toy_check: need both kinds"; exit 1; }
run() {   # run TARGET DIR LOG
    # the toys change no interpreter state: one shared worker is enough (and 10x cheaper)
    "$tf" run --quiet --isolation shared --target "tests/targets/$1.py:jit" "$2" >"$3" 2>&1
}
run "$toy" "$work/with" "$work/with.log"
rc=$?
tail -n 1 "$work/with.log" | sed "s/^/toy_check: with the pattern: /"
[ $rc -eq 1 ] || { echo "toy_check: expected failures with the pattern (exit $rc)"; tail -20 "$work/with.log"; exit 1; }
if grep -E '^[^ =]*: [A-Z_]+ ' "$work/with.log" | grep -v ': OK ' | grep -qv ': MISMATCH_'; then
    echo "toy_check: a failure other than MISMATCH_*:"
    grep -E '^[^ =]*: [A-Z_]+ ' "$work/with.log" | grep -v ': OK ' | grep -v ': MISMATCH_' | head -5
    exit 1
fi
run "$toy" "$work/without" "$work/without.log"
rc=$?
tail -n 1 "$work/without.log" | sed "s/^/toy_check: without the pattern: /"
[ $rc -eq 0 ] || { echo "toy_check: the toy fails a program without its pattern"; grep -v ': OK ' "$work/without.log" | head -20; exit 1; }
run _cachejit "$work/with" "$work/base.log"
rc=$?
tail -n 1 "$work/base.log" | sed "s/^/toy_check: the honest base with the pattern: /"
[ $rc -eq 0 ] || { echo "toy_check: the honest base fails"; grep -v ': OK ' "$work/base.log" | head -20; exit 1; }
echo "toy_check: $toy OK"
