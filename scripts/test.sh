#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (ctest: one process per test).
# Under CI (CI set in the environment) warnings are errors and the sanitizer suites and the
# fuzzers run too (scripts/ci-sanitize.sh); a user's newer compiler only warns.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
werror=OFF
if [ -n "${CI:-}" ]; then werror=ON; fi
cmake --preset release -DQCESIM_WERROR="$werror"
cmake --build --preset release
ctest --preset release
if [ -n "${CI:-}" ]; then ./scripts/ci-sanitize.sh; fi
