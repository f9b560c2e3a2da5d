#!/usr/bin/env bash
# Issue 2's speed target: `qcesim hash --engine qce` on a 256 MiB file against
# `openssl dgst -sha256` on the same file, alternated on the same machine, best of N each.
# Usage: bench/hash_throughput.sh [build dir] [repetitions]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
reps=${2:-5}
file=$(mktemp /tmp/qcesim-bench-XXXXXX)
trap 'rm -f "$file"' EXIT
head -c $((256 << 20)) /dev/zero | openssl enc -aes-128-ctr -K 00112233445566778899aabbccddeeff \
  -iv 00000000000000000000000000000000 -nosalt > "$file"
cat "$file" > /dev/null  # warm the page cache for both

best() { sort -g | head -1; }
secs() { /usr/bin/time -f %e "$@" 2>&1 >/dev/null | tail -1; }
o=(); q=(); b=()
for _ in $(seq "$reps"); do
  o+=("$(secs openssl dgst -sha256 "$file")")
  q+=("$(secs "$build/qcesim" hash --engine qce --reg-io mmio "$file")")
  b+=("$(secs "$build/qcesim" hash --engine qce --reg-io bam "$file")")
done
to=$(printf '%s\n' "${o[@]}" | best)
tq=$(printf '%s\n' "${q[@]}" | best)
tb=$(printf '%s\n' "${b[@]}" | best)
want=$(openssl dgst -sha256 "$file" | awk '{print $2}')
got=$("$build/qcesim" hash --engine qce "$file" | awk '{print $1}')
[ "$want" = "$got" ] || { echo "digest mismatch: $got vs $want" >&2; exit 1; }
awk -v o="$to" -v q="$tq" -v b="$tb" 'BEGIN {
  mb = 268435456 / 1e6
  printf "file: 256 MiB, best of runs, seconds (MB/s)\n"
  printf "openssl dgst -sha256        %6.3f (%6.0f)\n", o, mb / o
  printf "qcesim hash --reg-io mmio   %6.3f (%6.0f)  ratio to openssl %.2f\n", q, mb / q, o / q
  printf "qcesim hash --reg-io bam    %6.3f (%6.0f)  ratio to openssl %.2f\n", b, mb / b, o / b
  printf "target: ratio >= 0.50 -> %s\n", (o / q >= 0.5 && o / b >= 0.5) ? "met" : "NOT met"
}'
