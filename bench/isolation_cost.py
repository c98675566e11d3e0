#!/usr/bin/python3.11
"""bench/isolation_cost.py: what per-input isolation costs (issue 13), from one run.

    /usr/bin/python3.11 bench/isolation_cost.py [--count N] [--seed S] [--repeat K]
                                                [--target T] [--tracefuzz PATH]

Generates N programs (`tracefuzz gen --count N --seed S`) and runs them with
`tracefuzz run --target T` under `--isolation shared` (every input in one warm
worker) and `--isolation fork` (every input in a process forked from the warm worker,
the default), K times each, interleaved (shared, fork, shared, fork ...) so that a
change of machine load hits both alike. Prints, per mode, the median of the K runs of
wall time and of CPU time (user + sys of tracefuzz and every process below it), per
input, and the ratios fork / shared: what the isolation costs per input. The load
average before and after is printed with the table: the machine is shared.

Not a ctest: timings are not pass/fail.
"""
import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def children_cpu():
    """User + sys seconds of every waited-for descendant so far."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def run_once(tf, target, mode, files):
    """(wall s, CPU s, verdict summary line) of one `tracefuzz run` over files."""
    cmd = [tf, "run", "--quiet", "--target", target, "--isolation", mode] + files
    c0, w0 = children_cpu(), time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    wall, cpu = time.monotonic() - w0, children_cpu() - c0
    if p.returncode not in (0, 1):
        sys.exit(f"isolation_cost: {' '.join(cmd[:6])} ... exited {p.returncode}")
    lines = p.stdout.strip().splitlines()
    return wall, cpu, lines[-1] if lines else ""


def loadavg():
    return os.getloadavg()[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=200, help="programs (default 200)")
    ap.add_argument("--seed", type=int, default=7, help="gen seed (default 7)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per mode (default 3)")
    ap.add_argument("--target", default="builtin", help="run's --target (default builtin)")
    ap.add_argument("--tracefuzz", default=None,
                    help="the binary (default build/release/tracefuzz, else build/dev/)")
    a = ap.parse_args()
    tf = a.tracefuzz
    if tf is None:
        for b in ("release", "dev"):
            tf = os.path.join(ROOT, "build", b, "tracefuzz")
            if os.access(tf, os.X_OK):
                break
    if not os.access(tf, os.X_OK):
        sys.exit(f"isolation_cost: no tracefuzz binary at {tf} (build the release preset)")
    load0 = loadavg()
    with tempfile.TemporaryDirectory(prefix="tf-isolation-") as tmp:
        subprocess.run([tf, "gen", "--count", str(a.count), "--seed", str(a.seed),
                        "--out", tmp], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        files = sorted(os.path.join(tmp, f) for f in os.listdir(tmp))
        res = {"shared": [], "fork": []}
        summary = {}
        for _ in range(a.repeat):
            for mode in ("shared", "fork"):
                wall, cpu, last = run_once(tf, a.target, mode, files)
                res[mode].append((wall, cpu))
                summary[mode] = last
    n = len(files)
    med = {m: (statistics.median(w for w, _ in r), statistics.median(c for _, c in r))
           for m, r in res.items()}
    print(f"bench/isolation_cost.py  {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}  "
          f"load average {load0:.2f} at start, {loadavg():.2f} at end (2 cores)")
    print(f"{n} programs (gen --seed {a.seed}), target {a.target}, median of {a.repeat} "
          f"interleaved runs per mode\n")
    print("| isolation | wall ms/input | CPU ms/input | verdicts |")
    print("|---|---|---|---|")
    for m in ("shared", "fork"):
        print(f"| {m} | {1000 * med[m][0] / n:.1f} | {1000 * med[m][1] / n:.1f} | {summary[m]} |")
    print(f"| fork / shared | {med['fork'][0] / med['shared'][0]:.2f}x | "
          f"{med['fork'][1] / med['shared'][1]:.2f}x | |")
    if summary["shared"] != summary["fork"]:
        print("\nnote: the two modes' verdict counts differ (see `tracefuzz run` on the "
              "programs)")


if __name__ == "__main__":
    main()
