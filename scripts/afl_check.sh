#!/usr/bin/env bash
# Checks the AFL++ build (outside ctest: it takes ~2 minutes). Builds the `afl` preset
# (afl-clang-fast: tf_fuzz through AFL++'s libAFLDriver in persistent mode with
# shared-memory input, and the custom mutator library), then runs afl-fuzz with the
# structure-aware mutator twice:
#   1. ~60 s on the default target from corpus/seed: it must run inputs and save no
#      crash (a crash there is a finding against the target, or a harness bug);
#   2. up to 60 s (stopping at the first crash) on the planted toy bug
#      tests/targets/memo_silent.py:jit from one seed the toy passes: afl-fuzz must
#      save a crash (the fuzzer finds bugs).
# Usage: scripts/afl_check.sh [SECONDS]     SECONDS for run 1 (default 60)
# Needs afl++ (Debian: apt-get install afl++; 4.04c checked). Exit 0 when both pass.
set -euo pipefail
if [ "${1:-}" = "--help" ]; then sed -n '2,12p' "$0"; exit 0; fi
secs="${1:-60}"
cd "$(dirname "$0")/.."
root="$PWD"
command -v afl-fuzz >/dev/null || { echo "afl_check: afl-fuzz not installed" >&2; exit 2; }
cmake --preset afl >/dev/null
cmake --build --preset afl
out="$root/build/afl/check"
rm -rf "$out"
mkdir -p "$out"
export AFL_SKIP_CPUFREQ=1 AFL_NO_UI=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1
export AFL_CUSTOM_MUTATOR_LIBRARY="$root/build/afl/libtfafl_mutator.so"
export TRACEFUZZ_QUIET=1

stat_of() { sed -n "s/^$2 *: *//p" "$1/default/fuzzer_stats"; }

echo "afl_check: 1. ${secs}s on ${TRACEFUZZ_TARGET:-the default target} from corpus/seed"
afl-fuzz -i corpus/seed -o "$out/seeds" -V "$secs" -t 30000 -x corpus/tracefuzz.dict \
    -- build/afl/tf_fuzz >"$out/seeds.log" 2>&1 || { tail -30 "$out/seeds.log"; exit 1; }
execs=$(stat_of "$out/seeds" execs_done)
rate=$(stat_of "$out/seeds" execs_per_sec)
crashes=$(stat_of "$out/seeds" saved_crashes)
echo "afl_check:    execs $execs ($rate/s), map $(stat_of "$out/seeds" bitmap_cvg), crashes $crashes"
[ "${execs:-0}" -gt 0 ] || { echo "afl_check: no input ran" >&2; exit 1; }
if [ "${crashes:-0}" -ne 0 ]; then
    echo "afl_check: crashes saved in $out/seeds/default/crashes (findings: replay with" >&2
    echo "  build/dev/tracefuzz run FILE)" >&2
    exit 1
fi

echo "afl_check: 2. the planted bug (tests/targets/memo_silent.py:jit) from one passing seed"
AFL_BENCH_UNTIL_CRASH=1 TRACEFUZZ_TARGET=tests/targets/memo_silent.py:jit \
afl-fuzz -i tests/fuzz/min_seed -o "$out/planted" -V 60 -t 30000 \
    -- build/afl/tf_fuzz >"$out/planted.log" 2>&1 || { tail -30 "$out/planted.log"; exit 1; }
crashes=$(stat_of "$out/planted" saved_crashes)
first=$(ls "$out/planted/default/crashes" | grep '^id:' | head -1 || true)
echo "afl_check:    crashes $crashes, first: $first"
[ "${crashes:-0}" -gt 0 ] || { echo "afl_check: the planted bug was not found" >&2; exit 1; }
echo "afl_check: OK"
