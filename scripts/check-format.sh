#!/usr/bin/env bash
# The project's habits (issue 23), checked by ctest Habits.ClangFormat: every C++ file is as
# clang-format makes it with .clang-format (Google style, 120 columns), so no line runs past 120.
# Usage: scripts/check-format.sh [--fix]     (--fix rewrites the files instead of failing)
set -euo pipefail
cd "$(dirname "$0")/.."
fmt=$(command -v clang-format-14 || command -v clang-format || true)
if [ -z "$fmt" ]; then echo "check-format: clang-format not found (scripts/setup.sh installs it)" >&2; exit 2; fi
mapfile -d '' files < <(find bam bench cli cpu drivers fuzz ingest model qce soc studies tests \
  -type f \( -name '*.cpp' -o -name '*.h' \) -not -path 'tests/vectors/*' -print0 | sort -z)
if [ "${1:-}" = --fix ]; then
  "$fmt" -i "${files[@]}"
  exit 0
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! "$fmt" --dry-run --Werror "${files[@]}" 2>"$log"; then
  grep -m 20 'error:' "$log" >&2 || true
  echo "check-format: files differ from clang-format's layout; scripts/check-format.sh --fix rewrites them" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files as clang-format lays them out"
