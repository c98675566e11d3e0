#!/usr/bin/env bash
# The main job: builds the fuzzing build (fuzz-fast preset: libFuzzer, -O2, no
# sanitizer) and fuzzes the built-in tracer with `tracefuzz fuzz` (docs/FUZZING.md),
# ending in its summary (execs, execs/s, coverage, findings by signature; findings in
# out/main/findings). Exit 0 when nothing was found.
# Until the tracer has jit(), it falls back to generating COUNT programs and running
# them (`tracefuzz gen` + `tracefuzz run`).
# Usage: scripts/main.sh [SECONDS] [JOBS]     defaults: 300 seconds, 1 job
#   TRACEFUZZ_TARGET / TRACEFUZZ_FAULTS choose another target or inject faults.
set -euo pipefail
if [ "${1:-}" = "--help" ]; then sed -n '2,9p' "$0"; exit 0; fi
secs="${1:-300}"
jobs="${2:-1}"
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --preset fuzz-fast >/dev/null
cmake --build --preset fuzz-fast
target="${TRACEFUZZ_TARGET:-builtin}"
faults=()
if [ -n "${TRACEFUZZ_FAULTS:-}" ]; then faults=(--faults "$TRACEFUZZ_FAULTS"); fi
if [ "$target" != builtin ] || build/fuzz-fast/tfpython -c 'import tfjit; tfjit.jit' 2>/dev/null; then
    exec build/fuzz-fast/tracefuzz fuzz --target "$target" "${faults[@]}" \
        --time "$secs" --jobs "$jobs" --out out/main
fi
echo "main.sh: the built-in tracer has no jit() yet: generating and running programs instead" >&2
seed="$(date +%Y%m%d)"
out="out/main-$seed"
rm -rf "$out"
build/fuzz-fast/tracefuzz gen --count 2000 --seed "$seed" --out "$out/programs"
exec build/fuzz-fast/tracefuzz run --target identity --findings "$out/findings" "$out/programs"
