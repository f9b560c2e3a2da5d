#!/usr/bin/env bash
# The largest counts the command line accepts (docs/run.md#numbers-on-the-command-line), each
# run once at its limit: host time and the peak memory of the largest process (GNU time's %M:
# the parent or one of its forked runs). Memory depends on the count, not on the scenario's
# size, so the scenarios are made small where a run's own length would only multiply the time;
# the time per run at full size is in docs/validation.md (run times).
# Usage: bench/limits.sh [build dir]      (about 15 minutes on a 2-core machine)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
q=$(realpath "$build/qcesim")
work=$(mktemp -d /tmp/qcesim-limits-XXXXXX)
trap 'rm -rf "$work"' EXIT
cp scenarios/sm8650.json scenarios/sm8650-seed.json "$work/"
mkdir "$work/v" && cp scenarios/sm8650.json scenarios/sm8650-seed.json "$work/v/"
cd "$work"
measure() {
  local what=$1
  shift
  /usr/bin/time -f "%e %M" -o t.txt "$q" "$@" >/dev/null 2>err.txt || { echo "$what: failed"; tail -3 err.txt; return; }
  read -r s kb <t.txt
  awk -v w="$what" -v s="$s" -v kb="$kb" 'BEGIN { printf "%-58s %8.1f s %8.1f MB\n", w, s, kb / 1024 }'
}
printf '%-58s %10s %11s\n' "limit" "host time" "peak RSS"
measure "run --timing-only, 1e11 requests (1 variant)" run sm8650-seed.json --timing-only --variant sha256-qce-nolock \
  --set workload.messages=100000000000
measure "run --uncertainty 10000 (3 variants, 2000 messages)" run sm8650-seed.json --uncertainty 10000 \
  --set workload.messages=2000
measure "run --seeds 10000 (1 variant, 200 messages)" run sm8650-seed.json --seeds 10000 --variant sha256-qce-nolock \
  --set workload.messages=200
measure "sensitivity --trajectories 500 (1 variant, 200 messages)" sensitivity sm8650-seed.json --trajectories 500 \
  --variant sha256-qce-nolock --set workload.messages=200
measure "validate --samples 10000 (the seed, 200 messages)" validate v --samples 10000 --messages 200
