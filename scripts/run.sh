#!/usr/bin/env bash
# Installs what is missing, builds, and runs the main job: the seed replay of the SM8650
# measurement (50000 x 4096-byte SHA-256 on the ARMv8 CE, through QCE with and without the
# BAM-locking series), every request with real data and a checked digest.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release >/dev/null
exec build/release/qcesim run scenarios/sm8650-seed.json --json build/release/sm8650-seed.json "$@"
