#!/usr/bin/env bash
# The project's habits (issue 23), checked by ctest Habits.ClangTidy: clang-tidy with .clang-tidy
# finds nothing in any project source (bam bench cli cpu drivers ingest model qce soc studies; the
# headers they include). Needs a configured build for compile_commands.json.
#
# The sources of one library (one set of compile flags) are checked together, up to 24 to a
# unit that #includes them: clang-tidy's matchers walk every declaration of the SystemC, JSON and
# CLI11 headers once per unit, which was most of its time with one unit per file (eight to a
# unit: 62 s on 2 cores; 24: 50 s). A unit is one translation unit, so two files' file-local
# names must differ (sweep.cpp's LineFit, calibrate.cpp's Fit). .clang-tidy's
# HeaderFilterRegex names the project's .cpp files as well as its headers, so what is found in any
# of them is reported under its own file and line (the units live in a temporary folder, so the
# configuration is named: clang-tidy would look for it beside them).
# Usage: scripts/check-tidy.sh [BUILD_DIR]     (default build/release)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
tidy=$(command -v clang-tidy-14 || command -v clang-tidy || true)
if [ -z "$tidy" ]; then echo "check-tidy: clang-tidy not found (scripts/setup.sh installs it)" >&2; exit 2; fi
if [ ! -f "$build/compile_commands.json" ]; then echo "check-tidy: no $build/compile_commands.json" >&2; exit 2; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Writes the units and their compile_commands.json into $work; prints "files units".
counts=$(python3 - "$build/compile_commands.json" "$(pwd)" "$work" <<'PY'
import json, os, re, shlex, sys
db, root, work = sys.argv[1], sys.argv[2] + "/", sys.argv[3]
folders = ("bam", "bench", "cli", "cpu", "drivers", "ingest", "model", "qce", "soc", "studies")
groups = {}
def ours(path):
    rel = path[len(root):] if path.startswith(root) else None
    return bool(rel) and rel.split("/")[0] in folders
for e in json.load(open(db)):
    f = os.path.realpath(os.path.join(e["directory"], e["file"]))
    # A CMake unity source (QCESIM_UNITY) stands for the files it includes.
    if re.fullmatch(r"unity_\d+_cxx\.cxx", os.path.basename(f)):
        members = [os.path.realpath(m) for m in re.findall(r'^#include "(.+)"$', open(f).read(), re.M)]
    else:
        members = [f]
    members = [m for m in members if ours(m)]
    if not members:
        continue
    args = shlex.split(e["command"])
    out = args.index("-o")
    target = os.path.dirname(args[out + 1]).split("/")  # CMakeFiles/<target>.dir/<folder>
    del args[out:out + 2]
    args = [a for a in args if os.path.realpath(os.path.join(e["directory"], a)) != f and a != "-c"]
    key = (e["directory"], target[1] if len(target) > 1 else "", tuple(args))
    groups.setdefault(key, []).extend(members)
entries = []
files = 0
for (directory, target, args), members in sorted(groups.items()):
    members = sorted(set(members))
    files += len(members)
    for i in range(0, len(members), 24):
        unit = os.path.join(work, f"{target or 'unit'}-{i // 24}.cpp")
        with open(unit, "w") as u:
            u.writelines(f'#include "{m}"\n' for m in members[i:i + 24])
        entries.append({"directory": directory, "file": unit,
                        "command": shlex.join(list(args) + ["-c", unit])})
json.dump(entries, open(os.path.join(work, "compile_commands.json"), "w"), indent=1)
print(files, len(entries))
PY
)
read -r files units <<<"$counts"
log=$work/log
# Two at a time (CI has two cores); each unit's report kept whole. malloc on transparent huge
# pages where the kernel offers them (madvise mode): a tenth less time, its page faults mostly.
find "$work" -name '*.cpp' | sort |
  GLIBC_TUNABLES=glibc.malloc.hugetlb=1 xargs -P 2 -I{} sh -c \
    '"$0" -p "$1" --config-file=.clang-tidy --quiet "$2" >"$2.out" 2>&1 || { cat "$2.out" >>"$3"; }' \
    "$tidy" "$work" {} "$log" || true
# A unit's clang-tidy exits non-zero on a finding (WarningsAsErrors) or when it cannot check it.
if [ -s "$log" ]; then
  head -80 "$log" >&2
  echo "check-tidy: clang-tidy found the above (.clang-tidy lists the checks)" >&2
  exit 1
fi
echo "check-tidy: $files files in $units units, nothing found"
