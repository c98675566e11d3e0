#!/usr/bin/env bash
# The main job: builds the fuzzing build (fuzz-fast preset: libFuzzer, -O2, no
# sanitizer) and fuzzes the built-in tracer with `tracefuzz fuzz` (docs/FUZZING.md),
# ending in its summary (execs, execs/s, coverage, findings by signature; findings in
# out/main/findings). Exit 0 when nothing was found.
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
exec build/fuzz-fast/tracefuzz fuzz --target "$target" "${faults[@]}" \
    --time "$secs" --jobs "$jobs" --out out/main
