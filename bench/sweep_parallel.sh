#!/usr/bin/env bash
# Issue 4's "sweeps of 100 points use both cores": a 100-point sweep (qce.clock 50..545 MHz, the
# locking variant, 3000 requests a point, every one simulated: sim.fast_forward 0) with -j 1, -j 2
# and the default --jobs, in one run.
# Usage: bench/sweep_parallel.sh [build dir]
set -euo pipefail
cd "$(dirname "$0")/.."
q=${1:-build/release}/qcesim
dir=$(mktemp -d /tmp/qcesim-sweep-bench-XXXXXX)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/s.json" <<JSON
{"sweep": "parallel-check", "scenario": "$PWD/scenarios/sm8650-seed.json", "variants": ["sha256-qce-lock"],
 "set": {"workload.messages": 3000, "sim.fast_forward": 0}, "axes": [{"path": "qce.clock", "range": {"from": 50, "to": 545, "step": 5}}]}
JSON
for j in "-j 1" "-j 2" ""; do
  /usr/bin/time -f "${j:-(default)}: %e s wall, %P CPU" "$q" sweep "$dir/s.json" -o "$dir/out" --fresh $j 2>&1 >/dev/null | tail -1
done
