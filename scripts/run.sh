#!/usr/bin/env bash
# Installs what is missing, builds, and runs the main job: hash a sample through the
# emulated QCE (driver -> BAM descriptors -> engine -> result dump) in both register-I/O
# modes, and check the output with sha256sum -c.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release >/dev/null
out=build/release/sample
mkdir -p "$out"
# A deterministic 64 MiB sample: AES-128-CTR keystream from a fixed key, made by openssl.
if [ ! -s "$out/sample.bin" ]; then
  head -c 67108864 /dev/zero | openssl enc -aes-128-ctr -K 000102030405060708090a0b0c0d0e0f \
    -iv 00000000000000000000000000000000 -nosalt > "$out/sample.bin"
fi
q=build/release/qcesim
echo "== qcesim hash --engine qce --reg-io mmio (mainline register writes)"
$q hash --engine qce --reg-io mmio --stats "$out/sample.bin" | tee "$out/sums-mmio"
echo "== qcesim hash --engine qce --reg-io bam (BAM locking series)"
$q hash --engine qce --reg-io bam --stats "$out/sample.bin" | tee "$out/sums-bam"
echo "== sha256sum -c on both"
sha256sum -c "$out/sums-mmio" "$out/sums-bam"
