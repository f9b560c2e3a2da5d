#!/usr/bin/env bash
# Issue 12's speed target: `qcesim cipher` (through the engine, both register-I/O modes) with
# cbc(aes) and ctr(aes) on a 256 MiB file against `openssl enc -nopad` with the same cipher on
# the same file, both writing to /dev/null, alternated on the same machine, best of N each.
# Usage: bench/cipher_throughput.sh [build dir] [repetitions]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
reps=${2:-5}
file=$(mktemp /tmp/qcesim-bench-XXXXXX)
trap 'rm -f "$file"' EXIT
key=000102030405060708090a0b0c0d0e0f
iv=f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff
head -c $((256 << 20)) /dev/zero | openssl enc -aes-128-ctr -K "$key" -iv "$iv" -nosalt > "$file"
cat "$file" > /dev/null  # warm the page cache for both

best() { sort -g | head -1; }
secs() { /usr/bin/time -f %e "$@" 2>&1 >/dev/null | tail -1; }
for mode in cbc ctr; do
  o=(); q=(); b=()
  for _ in $(seq "$reps"); do
    o+=("$(secs openssl enc -aes-128-$mode -K "$key" -iv "$iv" -nopad -in "$file")")
    q+=("$(secs "$build/qcesim" cipher --alg "$mode(aes)" --key "$key" --iv "$iv" --reg-io mmio "$file")")
    b+=("$(secs "$build/qcesim" cipher --alg "$mode(aes)" --key "$key" --iv "$iv" --reg-io bam "$file")")
  done
  want=$(openssl enc -aes-128-$mode -K "$key" -iv "$iv" -nopad -in "$file" | sha256sum)
  got=$("$build/qcesim" cipher --alg "$mode(aes)" --key "$key" --iv "$iv" "$file" | sha256sum)
  [ "$want" = "$got" ] || { echo "$mode: output differs from openssl's" >&2; exit 1; }
  awk -v m="$mode" -v o="$(printf '%s\n' "${o[@]}" | best)" -v q="$(printf '%s\n' "${q[@]}" | best)" \
      -v b="$(printf '%s\n' "${b[@]}" | best)" 'BEGIN {
    mb = 268435456 / 1e6
    printf "%s(aes), 256 MiB, best of runs, seconds (MB/s)\n", m
    printf "  openssl enc -aes-128-%s      %6.3f (%6.0f)\n", m, o, mb / o
    printf "  qcesim cipher --reg-io mmio   %6.3f (%6.0f)  ratio to openssl %.2f\n", q, mb / q, o / q
    printf "  qcesim cipher --reg-io bam    %6.3f (%6.0f)  ratio to openssl %.2f\n", b, mb / b, o / b
    printf "  target: ratio >= 0.50 -> %s\n", (o / q >= 0.5 && o / b >= 0.5) ? "met" : "NOT met"
  }'
done
