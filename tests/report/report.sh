#!/usr/bin/env bash
# Report.OpensInAHeadlessBrowserOffline: `qcesim report` pages opened in Debian's headless
# Chromium with the network cut off (tests/report/check_report.py): the seed scenario with
# intervals and sensitivity (its numbers held to a separate `qcesim run --json`), a sweep, and a
# scenario whose free text is markup (escaped: no element, request or script comes of it).
# Screenshots at 1280 and 390 px stay in OUT for a look.
# Usage: report.sh QCESIM SOURCE_DIR OUT
set -euo pipefail
q=$1
src=$2
out=$3
rm -rf "$out"
mkdir -p "$out"
cd "$out"
check=("$src/tests/report/check_report.py")
"$q" run sm8650-seed --timing-only --set workload.messages=2000 --json run.json >/dev/null 2>run.err
"$q" report sm8650-seed --timing-only --set workload.messages=2000 --uncertainty 4 --sensitivity 2 \
  -o seed.html --json seed.json 2>report.err
python3 "${check[@]}" seed.html seed.json . --run run.json
"$q" report study-lock-iommu -o lock-iommu.html 2>sweep.err
python3 "${check[@]}" lock-iommu.html - . --sections summary,charts,analysis,table
# Free text that is markup: the scenario's about and a --set value.
python3 - "$src" <<'PY'
import json, sys
d = json.load(open(sys.argv[1] + "/scenarios/sm8650-seed.json"))
d["about"] = '</p><script>alert(1)</script><img src="http://example.com/x.png" onerror="alert(2)"> & "q" \'a\''
d["profile"] = sys.argv[1] + "/scenarios/sm8650.json"
json.dump(d, open("hostile.json", "w"))
PY
"$q" report hostile.json --timing-only --set workload.messages=300 --set 'workload.about=<style>*{display:none}</style>' \
  -o hostile.html --json hostile.out.json 2>hostile.err || { cat hostile.err; exit 1; }
if grep -q -e '<script' -e '<img' -e '<style>\*' hostile.html; then echo "FAIL: markup from the input reached the page"; exit 1; fi
python3 "${check[@]}" hostile.html hostile.out.json .
echo "report: three pages checked in $(/usr/lib/chromium/chromium --version 2>/dev/null || echo chromium)"
