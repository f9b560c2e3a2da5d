#!/usr/bin/env python3
"""Regenerates the parameter table in docs/profile.md from `qcesim profile scenarios/sm8650.json`
(Repository.ProfileDocIsTheGeneratedTable checks it). Usage: scripts/gen-profile-doc.py [qcesim]"""
import subprocess
import sys

qcesim = sys.argv[1] if len(sys.argv) > 1 else "build/release/qcesim"
lines = open("docs/profile.md").read().split("\n")
start = next(i for i, l in enumerate(lines) if l.startswith("| parameter |"))
end = start
while end < len(lines) and lines[end].startswith("|"):
    end += 1
table = subprocess.run([qcesim, "profile", "scenarios/sm8650.json"], capture_output=True, text=True,
                       check=True).stdout.rstrip("\n").split("\n")
lines[start:end] = table
open("docs/profile.md", "w").write("\n".join(lines))
