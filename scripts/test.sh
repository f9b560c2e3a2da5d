#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (ctest: one process per test).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cmake --preset release
cmake --build --preset release
ctest --preset release
