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
  libfdt-dev zlib1g-dev   # qcesim ingest: a board's flattened device tree, a .tar.gz archive
  gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf libc6-dev-arm64-cross libc6-dev-armhf-cross  # board/afalg-bench.c, static
  qemu-system-arm cpio    # the board kit's end-to-end test: Debian's arm64 kernel under QEMU (tests/board)
  help2man dpkg-dev       # the man pages (built from --help) and the .deb (cpack, dpkg-shlibdeps)
  chromium fonts-dejavu-core  # the HTML report checked in a real browser, offline (tests/report)
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

# The board kit's test boots a real arm64 Linux: Debian's own arm64 kernel and busybox-static,
# unpacked (not installed: they are another architecture's) into build/guest-arm64/. apt reads
# the arm64 package lists into a folder of its own there, so the host's apt configuration (its
# architectures, its lists) is left as it was. The kernel's ABI number changes with every
# security update, so the metapackage names it. `--no-guest` (scripts/run.sh) skips this.
[ "${1:-}" = "--no-guest" ] && exit 0
cd "$(dirname "$0")/.."
guest="$PWD/build/guest-arm64"
if [ ! -f "$guest/ok" ]; then
  rm -rf "$guest"
  mkdir -p "$guest/apt/lists/partial" "$guest/apt/cache/archives/partial" "$guest/root"
  touch "$guest/apt/status"
  apt_arm64=(-o APT::Architecture=arm64 -o "APT::Architectures::=arm64" -o "Dir::State::Lists=$guest/apt/lists"
             -o "Dir::Cache=$guest/apt/cache" -o "Dir::State::status=$guest/apt/status" -o Debug::NoLocking=1)
  echo "setup: reading Debian's arm64 package lists into $guest/apt" >&2
  apt-get "${apt_arm64[@]}" update -qq >&2
  kernel=$(apt-cache "${apt_arm64[@]}" depends linux-image-arm64 | sed -n 's/^ *Depends: \(linux-image-[0-9].*-arm64\).*/\1/p' | head -n1)
  if [ -z "$kernel" ]; then
    echo "setup: apt names no arm64 kernel for linux-image-arm64 (the board kit's QEMU test needs one)" >&2
    exit 1
  fi
  echo "setup: unpacking $kernel and busybox-static (arm64) into $guest/root" >&2
  # Downloaded where apt's unprivileged download user may write (a fresh folder under /tmp).
  debs=$(mktemp -d /tmp/qcesim-guest-debs.XXXXXX)
  chmod 755 "$debs"
  if [ "$(id -u)" -eq 0 ] && id _apt >/dev/null 2>&1; then chown _apt "$debs"; fi
  (cd "$debs" && apt-get "${apt_arm64[@]}" download -qq "$kernel" busybox-static >&2)
  for d in "$debs"/*.deb; do dpkg-deb -x "$d" "$guest/root"; done
  rm -rf "$debs" "$guest/apt"
  echo "$kernel" >"$guest/ok"
fi
