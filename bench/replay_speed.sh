#!/usr/bin/env bash
# Issue 3's speed and memory targets, measured in one run on this machine:
#  - one full QCE variant (50000 x 4 KiB, real data, digests checked) against
#    `openssl dgst -sha256` over the same 204.8 MB: target within 2x;
#  - --timing-only: target under 0.5 s per 50000-request variant;
#  - 1,000,000 requests with --timing-only: target under 100 MB peak memory.
# Usage: bench/replay_speed.sh [build dir]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
q=$build/qcesim
file=$(mktemp /tmp/qcesim-bench-XXXXXX)
trap 'rm -f "$file"' EXIT
head -c 204800000 /dev/zero | openssl enc -aes-128-ctr -K 00112233445566778899aabbccddeeff \
  -iv 00000000000000000000000000000000 -nosalt > "$file"
cat "$file" >/dev/null
secs() { /usr/bin/time -f %e "$@" 2>&1 >/dev/null | tail -1; }
best() { sort -g | head -1; }
o=(); for _ in 1 2 3; do o+=("$(secs openssl dgst -sha256 "$file")"); done
to=$(printf '%s\n' "${o[@]}" | best)
host1() { "$q" run scenarios/sm8650-seed.json -j 1 "$@" 2>&1 >/dev/null | sed -n 's/.*simulated in \([0-9.]*\) s/\1/p'; }
# Best of three, as for OpenSSL: the machines are shared and noisy.
host() { for _ in 1 2 3; do host1 "$@"; done | best; }
for v in sha256-qce-nolock sha256-qce-lock; do
  real=$(host --variant $v)
  timing=$(host --variant $v --timing-only)
  awk -v v=$v -v r="$real" -v t="$timing" -v o="$to" 'BEGIN {
    printf "%-18s real data %.2f s (%.1fx openssl %.2f s, target <= 2x)   timing-only %.2f s (target < 0.5 s)\n", v, r, r / o, o, t }'
done
rss=$(/usr/bin/time -f %M "$q" run scenarios/sm8650-seed.json -j 1 --timing-only --variant sha256-qce-lock \
        --set workload.messages=1000000 2>&1 >/dev/null | tail -1)
echo "1,000,000 requests, timing only, sha256-qce-lock: peak RSS $((rss / 1024)) MB (target < 100 MB)"
