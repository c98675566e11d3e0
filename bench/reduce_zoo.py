#!/usr/bin/python3.11
"""bench/reduce_zoo.py: how small `tracefuzz reduce` makes a finding of each fault.

For every fault the tracer knows (tfjit.known_faults(), as bench/faultzoo.py asks):
  1. a finding from generated programs (not the seed corpus): the first of
     `tracefuzz gen --count N --seed S` (made once) that fails under the fault
     (searched with `tracefuzz run --faults F --isolation shared` 25 at a time,
     confirmed by `run` under fork isolation), in the order gen wrote them;
  2. `tracefuzz reduce` of it (builtin target, the fault, --jobs 1 on one core),
     its program lines (not blank, not comments) and bytes before and after, the
     time and the candidates run, as reduce prints them;
  3. a check that the reduced OUT.tf and OUT.py still give the finding's signature
     under `tracefuzz run`.
Prints a Markdown table (docs/FUZZING.md has one) and the median and maximum of the
reduced sizes. Not a ctest: timings are not pass/fail.
  /usr/bin/python3.11 bench/reduce_zoo.py [--faults a,b] [--count N] [--seed S]
                                          [--time-limit S] [--work DIR]
Exit status: 0 when every fault had a finding, every reduction kept its signature,
each is at most 20 lines and the median at most 12; 1 otherwise.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys

FAILS_NOT = ("OK", "UNSUPPORTED", "INVALID", "NONDETERMINISTIC")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--faults", default="", help="comma-separated subset (default: all)")
    ap.add_argument("--count", type=int, default=300, help="generated programs to search")
    ap.add_argument("--seed", type=int, default=5, help="gen's --seed")
    ap.add_argument("--time-limit", type=float, default=60, help="reduce's --time-limit")
    ap.add_argument("--work", default=os.path.join(ROOT, "out", "reduce_zoo"))
    ap.add_argument("--dev", default=os.path.join(ROOT, "build", "dev"))
    return ap.parse_args()


def known_faults(tfpython):
    out = subprocess.run([tfpython, "-c", "import tfjit; print(','.join(tfjit.known_faults()))"],
                         check=True, capture_output=True, text=True,
                         env=dict(os.environ, TRACEFUZZ_FAULTS=""))
    return [f for f in out.stdout.strip().split(",") if f]


def run_sigs(tracefuzz, fault, paths, isolation="fork"):
    """{path: (verdict, signature)} of `tracefuzz run` over paths."""
    p = subprocess.run([tracefuzz, "run", "--target", "builtin", "--faults", fault,
                        "--isolation", isolation] + paths,
                       capture_output=True, text=True, env=dict(os.environ, TRACEFUZZ_FAULTS=""))
    res = {}
    for line in p.stdout.splitlines():
        m = re.match(r"^(.*?): ([A-Z_]+)  (.*)$", line)
        if m:
            res[m.group(1)] = (m.group(2), m.group(3).strip())
    return res


def main():
    o = parse_args()
    tracefuzz = os.path.join(o.dev, "tracefuzz")
    faults = o.faults.split(",") if o.faults else known_faults(os.path.join(o.dev, "tfpython"))
    gen = os.path.join(o.work, f"gen-{o.count}-seed{o.seed}")
    if not os.path.isdir(gen):
        os.makedirs(o.work, exist_ok=True)
        subprocess.run([tracefuzz, "gen", "--count", str(o.count), "--seed", str(o.seed),
                        "--out", gen], check=True, capture_output=True)
    inputs = sorted(os.path.join(gen, f) for f in os.listdir(gen))
    rows, ok = [], True
    for fault in faults:
        found, sigs = None, {}
        for i in range(0, len(inputs), 25):   # shared isolation to search, fork to confirm
            chunk = run_sigs(tracefuzz, fault, inputs[i:i + 25], "shared")
            for p in inputs[i:i + 25]:
                if p in chunk and chunk[p][0] not in FAILS_NOT:
                    sigs = run_sigs(tracefuzz, fault, [p])
                    if p in sigs and sigs[p][0] not in FAILS_NOT:
                        found = p
                        break
            if found:
                break
        if found is None:
            rows.append((fault, None))
            ok = False
            print(f"{fault}: no finding among {len(inputs)} generated programs", file=sys.stderr)
            continue
        out = os.path.join(o.work, fault, "min")
        shutil.rmtree(os.path.dirname(out), ignore_errors=True)
        os.makedirs(os.path.dirname(out))
        p = subprocess.run([tracefuzz, "reduce", "--quiet", "--target", "builtin",
                            "--faults", fault, "--time-limit", str(o.time_limit), found,
                            "-o", out], capture_output=True, text=True,
                           env=dict(os.environ, TRACEFUZZ_FAULTS=""))
        m = {k: re.search(rf"^{k}\s+(.*)$", p.stdout, re.M) for k in ("before", "after", "time")}
        if p.returncode != 0 or None in m.values():
            print(f"{fault}: reduce failed ({p.returncode}): {p.stderr[-400:]}", file=sys.stderr)
            rows.append((fault, None))
            ok = False
            continue
        nums = lambda s: [int(x) for x in re.findall(r"(\d+) (?:program lines|bytes)", s)]
        lb, bb = nums(m["before"].group(1))
        la, ba = nums(m["after"].group(1))
        secs = float(re.match(r"([\d.]+) s", m["time"].group(1)).group(1))
        cands = int(re.search(r"(\d+) candidates", m["time"].group(1)).group(1))
        check = run_sigs(tracefuzz, fault, [out + ".tf", out + ".py"])
        kept = all(check.get(x, ("", ""))[1] == sigs[found][1] for x in (out + ".tf", out + ".py"))
        ok &= kept
        rows.append((fault, (os.path.basename(found), sigs[found][1], lb, bb, la, ba, secs, cands,
                             kept)))
    print("| fault | finding | signature | lines before | lines after | bytes before -> after "
          "| time (s) | candidates | signature kept |")
    print("|---|---|---|---:|---:|---|---:|---:|---|")
    after = []
    for fault, r in rows:
        if r is None:
            print(f"| {fault} | - | no finding / failed | | | | | | |")
            continue
        name, sig, lb, bb, la, ba, secs, cands, kept = r
        after.append(la)
        print(f"| {fault} | {name} | {sig} | {lb} | {la} | {bb} -> {ba} | {secs:.1f} | {cands} "
              f"| {'yes' if kept else 'NO'} |")
    if after:
        med, mx = statistics.median(after), max(after)
        print(f"\nreduced sizes: median {med:g}, max {mx} program lines over {len(after)} faults")
        ok &= med <= 12 and mx <= 20
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
