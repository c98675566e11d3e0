#!/usr/bin/env bash
# Idempotent set-up for a fresh Debian 12 machine: installs with apt only what is missing.
# Usage: scripts/setup.sh            (no options; safe to run any number of times)
set -euo pipefail
if [ "${1:-}" = "--help" ]; then sed -n '2,3p' "$0"; exit 0; fi
pkgs=(clang libclang-rt-14-dev afl++ python3.11 python3.11-dev libpython3.11-dev cmake ninja-build
      python3-yaml)   # tests/ci/workflows_check.py reads the CI recipes
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present (${pkgs[*]})"
  exit 0
fi
echo "setup: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
