#!/usr/bin/env python3
"""The safety table of docs/locking-designs.md from a sweep's CSV (study-locking-designs-safety).

For each variant and TrustZone rate, summed over the sweep's other axes (the arrival seeds):
Linux's wrong digests and failed requests, the other EE's wrong digests, engine errors and
timed-out jobs, and whether every run of the variant came through clean ("yes" only when all five
are zero at every rate).

  scripts/locking-safety-table.py PREFIX.csv
"""
import csv
import sys

COLUMNS = [("digest_mismatches", "wrong"), ("failed_requests", "failed"), ("tz.digest_mismatches", "TZ wrong"),
           ("tz.errors", "TZ errors"), ("tz.timeouts", "TZ timeouts")]


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    try:
        with open(argv[1], newline="") as f:
            rows = [r for r in csv.DictReader(line for line in f if not line.startswith("#"))]
    except OSError as e:
        sys.stderr.write(f"{argv[1]}: {e.strerror}\n")
        return 2
    need = ["variant", "workload.tz.rate_per_s"] + [c for c, _ in COLUMNS]
    missing = [c for c in need if rows and c not in rows[0]]
    if not rows or missing:
        sys.stderr.write(f"{argv[1]}: expected a sweep CSV with columns {', '.join(need)}, "
                         f"found {'no rows' if not rows else 'none of ' + ', '.join(missing)}\n")
        return 2
    variants, rates, sums = [], [], {}
    for r in rows:
        v, rate = r["variant"], float(r["workload.tz.rate_per_s"])
        if v not in variants:
            variants.append(v)
        if rate not in rates:
            rates.append(rate)
        s = sums.setdefault((v, rate), [0] * len(COLUMNS))
        for i, (c, _) in enumerate(COLUMNS):
            s[i] += int(float(r[c]))
    rates.sort()
    head = ["variant"] + [f"{rate:g}/s" for rate in rates] + ["clean?"]
    print("Each rate: " + ", ".join(name for _, name in COLUMNS) + ", summed over the other axes.")
    print()
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for v in variants:
        cells = ["/".join(str(x) for x in sums.get((v, rate), [0] * len(COLUMNS))) for rate in rates]
        clean = all(not any(sums.get((v, rate), [])) for rate in rates)
        print("| " + " | ".join([v] + cells + ["yes" if clean else "no"]) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
