#!/usr/bin/env bash
# The project's habits (issue 23), checked by ctest Habits.ClangTidy: clang-tidy with .clang-tidy
# finds nothing in any project source (bam cli cpu drivers model qce soc studies bench; the
# headers they include). Needs a configured build for compile_commands.json.
# Usage: scripts/check-tidy.sh [BUILD_DIR]     (default build/release)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
tidy=$(command -v clang-tidy-14 || command -v clang-tidy || true)
if [ -z "$tidy" ]; then echo "check-tidy: clang-tidy not found (scripts/setup.sh installs it)" >&2; exit 2; fi
if [ ! -f "$build/compile_commands.json" ]; then echo "check-tidy: no $build/compile_commands.json" >&2; exit 2; fi
root=$(pwd)
mapfile -t files < <(python3 - "$build/compile_commands.json" "$root" <<'PY'
import json, os, sys
root = sys.argv[2] + "/"
for e in json.load(open(sys.argv[1])):
    f = os.path.realpath(os.path.join(e["directory"], e["file"]))
    rel = f[len(root):] if f.startswith(root) else None
    if rel and rel.split("/")[0] in ("bam", "bench", "cli", "cpu", "drivers", "ingest", "model", "qce", "soc", "studies"):
        print(rel)
PY
)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# Two at a time (CI has two cores); each file's report kept whole.
printf '%s\n' "${files[@]}" | sort -u |
  xargs -P 2 -I{} sh -c '"$0" -p "$1" --quiet "$2" >"$3.$$.tmp" 2>&1 || { cat "$3.$$.tmp" >>"$3"; }; rm -f "$3.$$.tmp"' \
    "$tidy" "$build" {} "$log" || true
if grep -q 'error:' "$log"; then
  grep -A3 'error:' "$log" | head -60 >&2
  echo "check-tidy: clang-tidy found the above (.clang-tidy lists the checks)" >&2
  exit 1
fi
echo "check-tidy: ${#files[@]} files, nothing found"
