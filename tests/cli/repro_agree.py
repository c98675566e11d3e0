#!/usr/bin/python3.11
"""repro_agree.py: the repro script's exit status agrees with `tracefuzz run`'s verdict.

For each target/fault set-up and each input of DIR: `tracefuzz run` gives a verdict
(OK and UNSUPPORTED pass, anything else fails); `tracefuzz repro INPUT` writes the
script, `python3.11 -I SCRIPT` runs it from another directory; the script must exit
0 exactly when run passed (1 or 2 otherwise). Prints one line per set-up with the
counts and every disagreement, and exits 1 if there is any.

  repro_agree.py TRACEFUZZ DIR [--setup TARGET[@FAULTS]]... [--jobs N]
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

PYTHON = "/usr/bin/python3.11"   # the one CPython of the project (ARCHITECTURE.md)


def run_verdicts(tf, target, faults, inputs):
    cmd = [tf, "run", "--target", target, "--faults", faults] + inputs
    p = subprocess.run(cmd, capture_output=True, text=True,
                       env=dict(os.environ, TRACEFUZZ_FAULTS=""))
    verdicts = {}
    for line in p.stdout.splitlines():
        m = re.match(r"^(.*?): ([A-Z_]+)\b", line)
        if m and m.group(1) in inputs:
            verdicts[m.group(1)] = m.group(2)
    missing = [i for i in inputs if i not in verdicts]
    if missing:
        sys.exit("no verdict for %s: %s" % (missing[:3], p.stderr[-2000:]))
    return verdicts


def script_status(tf, target, faults, inp, work):
    out = os.path.join(work, os.path.basename(inp) + ".py")
    subprocess.run([tf, "repro", inp, "--target", target, "--faults", faults, "-o", out],
                   check=True, capture_output=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "TRACEFUZZ_"))}
    p = subprocess.run([PYTHON, "-I", out], capture_output=True, text=True,
                       cwd="/", env=env, timeout=120)
    return p.returncode, p.stdout[-3000:] + p.stderr[-3000:]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tracefuzz")
    ap.add_argument("dir")
    ap.add_argument("--setup", action="append", default=[])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--count", type=int, default=0, help="only the first N inputs")
    a = ap.parse_args()
    tf = os.path.abspath(a.tracefuzz)
    inputs = sorted(os.path.join(a.dir, f) for f in os.listdir(a.dir)
                    if f.endswith((".tf", ".py")))
    if a.count:
        inputs = inputs[:a.count]
    bad = 0
    for setup in a.setup or ["builtin"]:
        target, _, faults = setup.partition("@")
        verdicts = run_verdicts(tf, target, faults, inputs)
        with tempfile.TemporaryDirectory() as work, \
                concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
            status = dict(zip(inputs, ex.map(
                lambda i: script_status(tf, target, faults, i, work), inputs)))
        counts = {}
        disagree = []
        for i in inputs:
            v = verdicts[i]
            rc, text = status[i]
            passed = v in ("OK", "UNSUPPORTED")
            counts[(v, rc)] = counts.get((v, rc), 0) + 1
            if passed != (rc == 0) or rc not in (0, 1, 2):
                disagree.append((i, v, rc, text))
        agree = len(inputs) - len(disagree)
        print("%s: %d inputs, %d agree, %d disagree; verdict/exit: %s" % (
            setup, len(inputs), agree, len(disagree),
            ", ".join("%s/%d %d" % (v, rc, n) for (v, rc), n in sorted(counts.items()))))
        for i, v, rc, text in disagree:
            print("  DISAGREE %s: run %s, script exit %d\n%s" % (i, v, rc, text[-1500:]))
        bad += len(disagree)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
