#!/usr/bin/env bash
# Regenerates what the docs show that a command draws: the charts in docs/img/ (sweep --plot)
# and the teaching reports in docs/report/ (qcesim report), from the built binary. Run after a
# change to the model or the charts, then commit what changed (docs/report.md).
# Usage: scripts/make-doc-pages.sh [build/release/qcesim]
set -euo pipefail
cd "$(dirname "$0")/.."
q=$(realpath "${1:-build/release/qcesim}")
root=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# The charts (each doc shows the command beside it).
"$q" sweep "$root/scenarios/study-message-size.json" --plot "$root/docs/img/message-size-latency.svg" >/dev/null
"$q" sweep "$root/scenarios/study-message-size.json" --plot "$root/docs/img/message-size-cpu.svg" \
  --y cpu_us_per_request --log-x --log-y >/dev/null
"$q" sweep "$root/scenarios/study-lock-iommu.json" --plot "$root/docs/img/lock-iommu-cpu.svg" --y cpu_us_per_request >/dev/null
"$q" sweep "$root/scenarios/study-trustzone-rate.json" --plot "$root/docs/img/trustzone-rate.svg" >/dev/null
"$q" sweep "$root/scenarios/study-faults.json" --plot "$root/docs/img/faults-latency.svg" >/dev/null
"$q" sweep "$root/scenarios/study-locking-designs-size.json" --out size --plot "$root/docs/img/locking-size.svg" >/dev/null
"$q" sweep "$root/scenarios/study-locking-designs-depth.json" --out depth --plot "$root/docs/img/locking-depth.svg" >/dev/null

# The teaching reports (docs/teaching.md links each).
mkdir -p "$root/docs/report"
"$q" report "$root/scenarios/sm8650-seed.json" --timing-only --uncertainty 40 --sensitivity 6 \
  -o "$root/docs/report/sm8650-seed.html"
"$q" report "$root/scenarios/sm8650-regio.json" --timing-only -o "$root/docs/report/sm8650-regio.html"
"$q" report "$root/scenarios/ipq40xx-m2-cbc128-16.json" --timing-only -o "$root/docs/report/ipq40xx-cbc-16.html"
"$q" report "$root/scenarios/study-irq-coalescing-polling.json" --timing-only --set workload.messages=5000 \
  -o "$root/docs/report/irq-coalescing-polling.html"
"$q" report "$root/scenarios/study-trustzone.json" --timing-only -o "$root/docs/report/trustzone.html"
"$q" report "$root/scenarios/sm8650-xts-4k.json" --timing-only -o "$root/docs/report/sm8650-xts-4k.html"
"$q" report "$root/scenarios/study-ipsec-mix.json" --timing-only -o "$root/docs/report/ipsec-mix.html"
"$q" report "$root/scenarios/study-message-size.json" -o "$root/docs/report/message-size.html"
"$q" report "$root/scenarios/study-lock-iommu.json" -o "$root/docs/report/lock-iommu.html"
"$q" report "$root/scenarios/study-trustzone-rate.json" -o "$root/docs/report/trustzone-rate.html"
"$q" report "$root/scenarios/study-tcrypt-xts.json" -o "$root/docs/report/tcrypt-xts.html"
"$q" report "$root/scenarios/study-ipq40xx-tcrypt-cbc.json" -o "$root/docs/report/ipq40xx-tcrypt-cbc.html"
echo "make-doc-pages: docs/img/*.svg and docs/report/*.html written" >&2
