#!/usr/bin/env bash
# Builds tracefuzz and runs every test (the README's test command; .ci/run calls it).
# Usage: scripts/test.sh [PRESET]     PRESET: dev (default) or asan
set -euo pipefail
if [ "${1:-}" = "--help" ]; then sed -n '2,3p' "$0"; exit 0; fi
preset="${1:-dev}"
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"
exec ctest --preset "$preset"
