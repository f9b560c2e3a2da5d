#!/usr/bin/env python3
"""Regenerates the parameter tables in docs/profile.md (scenarios/sm8650.json) and docs/ipq40xx.md
(scenarios/ipq40xx.json) from `qcesim profile` (Repository.ProfileDocIsTheGeneratedTable checks
them). Usage: scripts/gen-profile-doc.py [qcesim]"""
import subprocess
import sys

qcesim = sys.argv[1] if len(sys.argv) > 1 else "build/release/qcesim"
for doc, profile in (("docs/profile.md", "scenarios/sm8650.json"), ("docs/ipq40xx.md", "scenarios/ipq40xx.json")):
    lines = open(doc).read().split("\n")
    start = next(i for i, l in enumerate(lines) if l.startswith("| parameter |"))
    end = start
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    # The profile's correlated groups follow the table, each a "Drawn together" line and a table
    # of its own: the generated block runs to the last of them.
    while True:
        j = end
        while j < len(lines) and lines[j] == "":
            j += 1
        if j >= len(lines) or not lines[j].startswith("Drawn together"):
            break
        j += 1
        while j < len(lines) and lines[j] == "":
            j += 1
        while j < len(lines) and lines[j].startswith("|"):
            j += 1
        end = j
    table = subprocess.run([qcesim, "profile", profile], capture_output=True, text=True,
                           check=True).stdout.rstrip("\n").split("\n")
    lines[start:end] = table
    open(doc, "w").write("\n".join(lines))
