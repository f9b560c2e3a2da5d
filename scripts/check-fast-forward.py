#!/usr/bin/env python3
"""Differential check of the replay's fast-forward (docs/emulator.md#fast-forward-host-speed-only).

Runs random configurations (scenario, variant, queue depth, cores and interrupt affinity,
IOMMU mode, governor and its threshold, idle states, engine clock, message size, direction)
twice, with the fast-forward and with every request simulated (sim.fast_forward=0), and
compares every JSON field but host_seconds, hash_ahead_hits and fast_forward. A difference means
a part of the model keeps state its fingerprint() leaves out. Exit status 1 when any
configuration differs.

Usage: scripts/check-fast-forward.py [--seed S] [--runs N] [--build DIR]
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENARIOS = {
    "sm8650-seed.json": ["sha256-lib", "sha256-qce-lock", "sha256-qce-nolock"],
    "sm8650-cipher.json": ["cpu", "qce-nolock", "qce-lock"],
    "sm8650-xts-4k.json": ["xts-qce-lock", "xts-qce-nolock"],
    "study-ipsec-mix.json": ["esp-qce-lock", "esp-qce-nolock"],
    "ipq40xx-cipher.json": ["qce", "cpu"],
    "study-irq-coalescing-polling.json": ["poll-10us", "irq-one-per-request"],
    "ipq40xx-m2-cbc128-256.json": ["qce", "soft"],
}
IGNORED = ("host_seconds", "hash_ahead_hits", "fast_forward")


def random_sets(rng, scenario):
    sets = ["workload.messages=%d" % rng.choice([1500, 3000, 6000])]
    if rng.random() < 0.5:
        sets.append("workload.queue_depth=%d" % rng.choice([1, 2, 3, 5, 8]))
    if rng.random() < 0.4:
        # The IPQ40xx has four A7s, SM8650 eight cores.
        cpus = [0, 1, 3] if scenario.startswith("ipq40xx") else [0, 2, 7]
        sets += ["cpu.irq_cpu=%d" % rng.choice(cpus)]
    if rng.random() < 0.3:
        sets.append("iommu.mode=" + rng.choice(["strict", "lazy", "passthrough"]))
    governor = rng.random()
    if governor < 0.3:
        sets.append("cpu.governor=schedutil")
    elif governor < 0.5:
        # ondemand (the IPQ40xx's own): skipped between its looks until it settles; near a
        # threshold it never does.
        sets.append("cpu.governor=ondemand")
        if rng.random() < 0.5:
            sets.append("cpu.ondemand.up_threshold=%g" % rng.choice([0.5, 0.6, 0.8]))
    if rng.random() < 0.3:
        sets.append("cpuidle.off=1")
    if rng.random() < 0.3:
        sets.append("qce.clock=%d" % rng.choice([50, 100, 300, 600]))
    if rng.random() < 0.3 and scenario == "sm8650-seed.json":
        sets.append("workload.message_bytes=%d" % rng.choice([64, 1000, 16384, 65536]))
    if rng.random() < 0.2 and scenario in ("sm8650-cipher.json", "sm8650-xts-4k.json", "ipq40xx-cipher.json"):
        sets.append("workload.direction=decrypt")
    return sets


def run(qcesim, scenario, variant, sets, fast_forward, out):
    args = [qcesim, "run", os.path.join(ROOT, "scenarios", scenario), "-j", "1", "--variant", variant,
            "--timing-only", "--json", out, "--set", "sim.fast_forward=%d" % fast_forward]
    for s in sets:
        args += ["--set", s]
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError("%s failed: %s" % (" ".join(args), done.stderr[-400:]))
    with open(out) as f:
        return json.load(f)["variants"][0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--build", default=os.path.join(ROOT, "build", "release"))
    opt = ap.parse_args()
    qcesim = os.path.join(opt.build, "qcesim")
    rng = random.Random(opt.seed)
    differ = repeated = 0
    with tempfile.TemporaryDirectory(prefix="qcesim-ff-") as tmp:
        out = os.path.join(tmp, "r.json")
        for _ in range(opt.runs):
            scenario = rng.choice(sorted(SCENARIOS))
            variant = rng.choice(SCENARIOS[scenario])
            sets = random_sets(rng, scenario)
            ff = run(qcesim, scenario, variant, sets, 1, out)
            full = run(qcesim, scenario, variant, sets, 0, out)
            cycle = ff.get("fast_forward")
            repeated += cycle is not None
            for r in (ff, full):
                for key in IGNORED:
                    r.pop(key, None)
            fields = sorted(k for k in set(ff) | set(full) if ff.get(k) != full.get(k))
            what = "cycle of %d" % cycle["period"] if cycle else "no cycle"
            print("%-6s %s %s %s (%s)" % ("DIFFER" if fields else "same", scenario, variant, " ".join(sets), what))
            if fields:
                differ += 1
                print("       fields: " + ", ".join(fields))
    print("%d configurations, %d fast-forwarded, %d differ" % (opt.runs, repeated, differ))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
