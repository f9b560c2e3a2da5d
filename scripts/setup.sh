#!/usr/bin/env bash
# Installs the Debian 12 packages qcesim needs to build, test and benchmark.
# Idempotent: asks apt only for what is missing, and does nothing when all is present.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config git
  libsystemc-dev          # SystemC 2.3.4 + TLM-2.0 (pkg-config: systemc, tlm)
  libgtest-dev libgmock-dev googletest
  libspdlog-dev libfmt-dev
  nlohmann-json3-dev
  libcli11-dev
  libssl-dev openssl      # SHA block functions (host SHA instructions) and reference digests
  libbenchmark-dev
  coreutils               # sha256sum/sha1sum, used by the main job to cross-check output
  time                    # /usr/bin/time for bench/hash_throughput.sh and bench/limits.sh
  python3                 # scripts/doctest.py: the docs' commands run as tests
  gnuplot-nox             # qcesim sweep --plot: SVG charts
  clang libclang-rt-14-dev  # CI's sanitizer build and libFuzzer (scripts/ci-sanitize.sh)
  clang-format            # scripts/check-format.sh: the code's layout (.clang-format)
  clang-tidy              # scripts/check-tidy.sh: the checks the code follows (.clang-tidy)
  slurm-wlm munge         # a real single-node Slurm for the sharded-run test (tests/slurm_shards.sh)
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "setup: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
