#!/usr/bin/python3.11
"""bench/zoo_compare.py: two fault-zoo runs side by side, per fault, with bootstrap intervals.

    /usr/bin/python3.11 bench/zoo_compare.py BEFORE.json AFTER.json [--resamples N] [--markdown]

BEFORE.json and AFTER.json are `bench/faultzoo.py --seeds A-B --json FILE` outputs (the
same faults and seeds, for example two trees or two settings). For each fault it prints
found/runs of both, the median execs-to-find and CPU-seconds-to-find of both, and the
ratio of medians AFTER/BEFORE with a 90% percentile-bootstrap interval (both samples
resampled independently, --resamples times, a fixed seed so the table is reproducible).
A run that did not find its fault counts with its budget (its execs or CPU seconds at
the end), which only makes a ratio look better for the side that misses less.

Exit status 0; 2 on bad input. Not a ctest: it reads measurements, it does not take any.
"""
import argparse
import json
import random
import statistics
import sys


def load(path):
    try:
        with open(path) as f:
            rows = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit("zoo_compare: %s: %s" % (path, e))
    out = {}
    for r in rows:
        if "runs" not in r or r["fault"].startswith("("):
            continue
        out[r["fault"]] = r["runs"]
    return out


def series(runs, key):
    return [r[key] for r in runs if r.get(key) is not None]


def ratio_ci(a, b, resamples, rng):
    """Median(b)/median(a) and its 90% bootstrap interval."""
    point = statistics.median(b) / statistics.median(a)
    rs = []
    for _ in range(resamples):
        ma = statistics.median(rng.choices(a, k=len(a)))
        mb = statistics.median(rng.choices(b, k=len(b)))
        rs.append(mb / ma if ma else float("inf"))
    rs.sort()
    return point, rs[int(0.05 * len(rs))], rs[int(0.95 * len(rs)) - 1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--resamples", type=int, default=2000)
    ap.add_argument("--markdown", action="store_true", help="a Markdown table")
    opts = ap.parse_args()
    a, b = load(opts.before), load(opts.after)
    faults = [f for f in a if f in b]
    if not faults:
        sys.exit("zoo_compare: no fault in both files")
    rng = random.Random(1)
    head = ["fault", "found (before, after)", "execs before", "execs after", "ratio [90% CI]",
            "CPU s before", "CPU s after", "ratio [90% CI]"]
    lines = []
    for f in faults:
        ra, rb = a[f], b[f]
        cells = [f, "%d/%d, %d/%d" % (sum(r["found"] for r in ra), len(ra),
                                      sum(r["found"] for r in rb), len(rb))]
        for key, fmt in (("execs", "%.0f"), ("cpu", "%.3f")):
            xa, xb = series(ra, key), series(rb, key)
            if not xa or not xb:
                cells += ["-", "-", "-"]
                continue
            p, lo, hi = ratio_ci(xa, xb, opts.resamples, rng)
            cells += [fmt % statistics.median(xa), fmt % statistics.median(xb),
                      "%.2f [%.2f, %.2f]" % (p, lo, hi)]
        lines.append(cells)
    if opts.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for c in lines:
            print("| " + " | ".join(c) + " |")
    else:
        w = [max(len(str(r[i])) for r in [head] + lines) for i in range(len(head))]
        for c in [head] + lines:
            print("  ".join(str(x).ljust(w[i]) for i, x in enumerate(c)))


if __name__ == "__main__":
    main()
