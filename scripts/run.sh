#!/usr/bin/env bash
# Installs what is missing, builds qcesim (only the binary it runs), and runs the main job: the
# seed replay of the SM8650 measurement (50000 x 4096-byte SHA-256 on the ARMv8 CE, through QCE
# with and without the BAM-locking series), every request with real data and a checked digest.
# Build progress and errors go to stderr; the results table to stdout. Options are passed on to
# `qcesim run` (e.g. --set workload.queue_depth=4).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh --no-guest
echo "run.sh: configuring (build/release)" >&2
cmake --preset release >&2
echo "run.sh: building qcesim (the first build takes a few minutes)" >&2
cmake --build --preset release --target qcesim >&2
exec build/release/qcesim run scenarios/sm8650-seed.json --json build/release/sm8650-seed.json "$@"
