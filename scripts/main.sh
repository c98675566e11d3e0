#!/usr/bin/env bash
# The main job: builds tracefuzz (release preset) and fuzzes the built-in tracer with
# sensible defaults, ending in a summary. Exit 0 when nothing failed.
# Usage: scripts/main.sh [COUNT] [SEED]     defaults: 2000 programs, seed from the date
set -euo pipefail
if [ "${1:-}" = "--help" ]; then sed -n '2,4p' "$0"; exit 0; fi
count="${1:-2000}"
seed="${2:-$(date +%Y%m%d)}"
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release
out="out/main-$seed"
rm -rf "$out"
build/release/tracefuzz gen --count "$count" --seed "$seed" --out "$out/programs"
exec build/release/tracefuzz run --target "${TRACEFUZZ_TARGET:-builtin}" --findings "$out/findings" "$out/programs"
