#!/usr/bin/python3.11
"""bench/faultzoo.py: how fast fuzzing finds each injected tracer fault (docs/FAULTS.md).

For every fault the tracer knows (tfjit.known_faults(), asked from the built module,
so new faults join without editing this file), and for the fault-free tracer:

  1. seeds: the inputs of corpus/seed that PASS under the fault (`tracefuzz run
     --faults F`); a seed that already triggers it would prove nothing;
  2. fuzz: libFuzzer (build/fuzz-fast/tf_fuzz, TRACEFUZZ_FAULTS=F) on one core from
     those seeds until the first finding or --time seconds: time-to-find (wall
     clock, CPython's start-up included), CPU seconds to find (user + sys of the
     tf_fuzz process, start-up included: what a loaded machine does not inflate),
     execs-to-find (libFuzzer's number_of_executed_units at the crash), and the
     verdict of the finding; with --seeds, once per libFuzzer seed, and a second
     table of medians and means per fault;
  3. rate: the share of --count generated programs (`tracefuzz gen --count N --seed
     5`, generated once and kept) that fail under the fault (`tracefuzz run --faults F
     --quiet`).
The fault-free row fuzzes for the whole budget, restarting after a finding, and
counts the findings (must be 0); its rate is the failures without faults (must be 0).

Not a ctest: timings are not pass/fail. Run it from anywhere; it needs the dev build
(tfpython, tracefuzz) and the fuzz-fast build (tf_fuzz):
  cmake --preset fuzz-fast && cmake --build --preset fuzz-fast -j2
  /usr/bin/python3.11 bench/faultzoo.py [--time S] [--count N] [--faults a,b]
                                        [--parallel 1|2] [--work DIR] [--seed K]
Exit status: 0 when every fault was found and the fault-free tracer had no finding.
"""
import argparse
import concurrent.futures
import json
import os
import re
import statistics
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NONE = "(none)"


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--time", type=float, default=300, help="fuzzing budget per fault, s")
    ap.add_argument("--count", type=int, default=20000, help="generated programs for the rate")
    ap.add_argument("--faults", default="", help="comma-separated subset (default: all)")
    ap.add_argument("--python-targets", default="",
                    help="comma-separated FILE.py:ATTR jit targets fuzzed instead of the "
                         "builtin tracer's faults, each a row (e.g. the faulty toy JITs of "
                         "tests/targets): the feedback that a JIT written in Python gets")
    ap.add_argument("--parallel", type=int, default=1, choices=(1, 2),
                    help="faults fuzzed at once (one core each)")
    ap.add_argument("--work", default=os.path.join(ROOT, "out", "faultzoo"))
    ap.add_argument("--seed", type=int, default=1, help="libFuzzer's -seed")
    ap.add_argument("--seeds", default="",
                    help="several libFuzzer seeds, e.g. 1-8 or 1,3,5: each fault fuzzed once "
                         "per seed, medians and means reported (overrides --seed)")
    ap.add_argument("--json", help="also write every run's figures to this file")
    ap.add_argument("--fuzz-arg", action="append", default=[],
                    help="an extra libFuzzer flag for every run, e.g. --fuzz-arg=-use_counters=0 "
                         "(repeatable; to compare feedback settings)")
    ap.add_argument("--dev", default=os.path.join(ROOT, "build", "dev"))
    ap.add_argument("--fuzz-build", default=os.path.join(ROOT, "build", "fuzz-fast"))
    ap.add_argument("--no-rate", action="store_true", help="skip the generated-programs rate")
    ap.add_argument("--no-fuzz", action="store_true", help="skip fuzzing")
    return ap.parse_args()


def known_faults(tfpython):
    out = subprocess.run([tfpython, "-c", "import tfjit; print(','.join(tfjit.known_faults()))"],
                         check=True, capture_output=True, text=True,
                         env=dict(os.environ, TRACEFUZZ_FAULTS=""))
    return [f for f in out.stdout.strip().split(",") if f]


def is_python_target(row):
    """A --python-targets row: FILE.py:ATTR, fuzzed fault-free."""
    return ".py:" in row


def run_env(fault):
    if is_python_target(fault):
        return dict(os.environ, TRACEFUZZ_TARGET=os.path.abspath(fault), TRACEFUZZ_QUIET="1",
                    TRACEFUZZ_FAULTS="")
    env = dict(os.environ, TRACEFUZZ_TARGET="builtin", TRACEFUZZ_QUIET="1",
               TRACEFUZZ_FAULTS="" if fault == NONE else fault)
    return env


def tracefuzz_run(tracefuzz, fault, paths):
    """Runs `tracefuzz run --quiet` on paths: (failed input paths, passed, failed)."""
    if is_python_target(fault):
        cmd = [tracefuzz, "run", "--target", os.path.abspath(fault), "--quiet"] + paths
    else:
        cmd = [tracefuzz, "run", "--target", "builtin", "--quiet",
               "--faults", "" if fault == NONE else fault] + paths
    p = subprocess.run(cmd, capture_output=True, text=True, env=run_env(fault))
    m = re.search(r"^(\d+) passed, (\d+) failed\s*$", p.stdout, re.M)
    if m is None:
        raise RuntimeError(f"unexpected output of {' '.join(cmd[:6])}: {p.stdout[-500:]}"
                           f"{p.stderr[-500:]}")
    failed = []
    for line in p.stdout.splitlines():
        mm = re.match(r"^(.*?): ([A-Z_]+)\b", line)
        if mm and mm.group(2) != "OK" and os.path.exists(mm.group(1)):
            failed.append(os.path.abspath(mm.group(1)))
    return failed, int(m.group(1)), int(m.group(2))


def passing_seeds(tracefuzz, fault, workdir):
    """Copies the seeds passing under fault into workdir/seeds; returns (kept, total)."""
    seed_dir = os.path.join(ROOT, "corpus", "seed")
    seeds = sorted(os.path.join(seed_dir, n) for n in os.listdir(seed_dir)
                   if not n.startswith("."))
    failed, _, _ = tracefuzz_run(tracefuzz, fault, seeds)
    dest = os.path.join(workdir, "seeds")
    os.makedirs(dest)
    kept = 0
    for s in seeds:
        if os.path.abspath(s) not in failed:
            shutil.copy(s, dest)
            kept += 1
    return kept, len(seeds)


FUZZ_ARGS = []   # --fuzz-arg


def fuzz_once(tf_fuzz, fault, workdir, budget, seed, log_name):
    """One libFuzzer run until a crash or budget seconds: (found, execs, wall, cpu,
    verdict); cpu is the tf_fuzz process's user + sys seconds (wait4's rusage, so
    exact per process even with --parallel 2)."""
    corpus = os.path.join(workdir, "corpus")
    os.makedirs(corpus, exist_ok=True)
    cmd = [tf_fuzz, f"-max_total_time={max(1, int(round(budget)))}", "-timeout=30",
           f"-seed={seed}", "-print_final_stats=1", "-close_fd_mask=1",
           "-dict=" + os.path.join(ROOT, "corpus", "tracefuzz.dict"),
           "-artifact_prefix=" + workdir + "/"] + FUZZ_ARGS + [corpus, os.path.join(workdir, "seeds")]
    log_path = os.path.join(workdir, log_name)
    t0 = time.monotonic()
    with open(log_path, "w") as log:
        log.write(" ".join(cmd) + "\n")
        log.flush()
        p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=run_env(fault))
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - t0
    cpu = ru.ru_utime + ru.ru_stime
    with open(log_path, errors="replace") as f:
        text = f.read()
    m = re.findall(r"stat::number_of_executed_units:\s*(\d+)", text)
    execs = int(m[-1]) if m else None
    found = p.returncode != 0 and ("==== tracefuzz finding" in text or "deadly signal" in text
                                   or "ERROR: libFuzzer" in text)
    v = re.findall(r"==== tracefuzz finding: (\S+)", text)
    verdict = v[-1] if v else ("crash" if found else "")
    return found, execs, wall, cpu, verdict


def fuzz_fault(tf_fuzz, fault, workdir, budget, seed):
    """Fuzzes until found (a fault) or for the whole budget (no fault, findings counted)."""
    if fault != NONE:
        found, execs, wall, cpu, verdict = fuzz_once(tf_fuzz, fault, workdir, budget, seed,
                                                     f"fuzz-seed{seed}.log")
        return {"found": found, "execs": execs, "wall": wall, "cpu": cpu, "verdict": verdict,
                "findings": None}
    findings, execs, spent, cpu, verdicts, k = 0, 0, 0.0, 0.0, [], 0
    while spent < budget - 1:
        found, n, wall, c, verdict = fuzz_once(tf_fuzz, fault, workdir, budget - spent,
                                               seed + k, f"fuzz-seed{seed}-{k}.log")
        spent += wall
        cpu += c
        execs += n or 0
        k += 1
        if not found:
            break
        findings += 1
        verdicts.append(verdict)
    return {"found": findings > 0, "execs": execs, "wall": spent, "cpu": cpu,
            "verdict": ",".join(verdicts), "findings": findings}


def generated(tracefuzz, work, count):
    """The directory of `count` programs of `tracefuzz gen --seed 5`, made once."""
    d = os.path.join(work, f"gen-{count}-seed5")
    marker = os.path.join(d, ".complete")
    if not os.path.exists(marker):
        shutil.rmtree(d, ignore_errors=True)
        subprocess.run([tracefuzz, "gen", "--count", str(count), "--seed", "5", "--out", d],
                       check=True, stdout=subprocess.DEVNULL)
        open(marker, "w").close()
    return d


def one_fault(opts, tools, fault, gen_dir):
    workdir = os.path.join(opts.work, os.path.basename(fault).replace(":", "_").strip("()"))
    shutil.rmtree(workdir, ignore_errors=True)
    os.makedirs(workdir)
    row = {"fault": fault}
    row["seeds_kept"], row["seeds_total"] = passing_seeds(tools["tracefuzz"], fault, workdir)
    if not opts.no_fuzz:
        runs = []
        for seed in opts.seed_list:
            # each seed from the same passing seeds, on an empty corpus
            shutil.rmtree(os.path.join(workdir, "corpus"), ignore_errors=True)
            r = fuzz_fault(tools["tf_fuzz"], fault, workdir, opts.time, seed)
            r["seed"] = seed
            runs.append(r)
        row.update(runs[0])
        row["runs"] = runs
    if gen_dir is not None:
        _, passed, failed = tracefuzz_run(tools["tracefuzz"], fault, [gen_dir])
        row["rate"] = (failed, passed + failed)
    print(f"  done {fault}", file=sys.stderr, flush=True)
    return row


def fmt_row(r, opts):
    seeds = f"{r['seeds_kept']}/{r['seeds_total']}"
    if opts.no_fuzz:
        ttf = etf = found = "-"
    elif r["fault"] == NONE:
        found = f"{r['findings']} findings"
        ttf = f"({r['wall']:.0f} s run)"
        etf = f"({r['execs']} execs)"
    elif r["found"]:
        found = r["verdict"]
        ttf = f"{r['wall']:.1f} s ({r['cpu']:.1f} CPU s)"
        etf = str(r["execs"]) if r["execs"] is not None else "?"
    else:
        found = "NOT FOUND"
        ttf = f"> {opts.time:.0f} s"
        etf = f"> {r['execs']}" if r["execs"] is not None else "?"
    if "rate" in r:
        f, n = r["rate"]
        rate = f"{100.0 * f / n:.2f}% ({f}/{n})" if n else "-"
    else:
        rate = "-"
    return [r["fault"], seeds, found, ttf, etf, rate]


def seed_list(text, default):
    """[1, 2, 3] from "1-3" or "1,2,3"; [default] from ""."""
    seeds = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        a, _, b = part.partition("-")
        seeds.extend(range(int(a), int(b or a) + 1))
    return seeds or [default]


def summary(rows):
    """Per fault over the seeds: found/runs, execs and CPU seconds to find (median,
    mean; a run that did not find counts with its budget, marked by '>')."""
    out = ["| fault | found | execs median | execs mean | CPU s median | CPU s mean "
           "| execs per seed |", "|---|---|---:|---:|---:|---:|---|"]
    for r in rows:
        runs = r.get("runs") or []
        if r["fault"] == NONE or not runs:
            continue
        ex = [x["execs"] or 0 for x in runs]
        cpu = [x["cpu"] for x in runs]
        lost = "" if all(x["found"] for x in runs) else ">"
        nfound = sum(1 for x in runs if x["found"])
        out.append(f"| {r['fault']} | {nfound}/{len(runs)} | {lost}{statistics.median(ex):.0f} "
                   f"| {lost}{statistics.mean(ex):.0f} | {lost}{statistics.median(cpu):.2f} "
                   f"| {lost}{statistics.mean(cpu):.2f} | "
                   + ", ".join(str(e) + ("" if x["found"] else "!") for e, x in zip(ex, runs))
                   + " |")
    return out


def main():
    opts = parse_args()
    FUZZ_ARGS.extend(opts.fuzz_arg)
    opts.seed_list = seed_list(opts.seeds, opts.seed)
    tools = {"tfpython": os.path.join(opts.dev, "tfpython"),
             "tracefuzz": os.path.join(opts.dev, "tracefuzz"),
             "tf_fuzz": os.path.join(opts.fuzz_build, "tf_fuzz")}
    need = ["tfpython", "tracefuzz"] + ([] if opts.no_fuzz else ["tf_fuzz"])
    for k in need:
        if not os.access(tools[k], os.X_OK):
            print(f"faultzoo: {tools[k]} missing: build the dev and fuzz-fast presets "
                  "(cmake --build --preset dev; cmake --preset fuzz-fast && "
                  "cmake --build --preset fuzz-fast)", file=sys.stderr)
            return 2
    faults = known_faults(tools["tfpython"])
    if opts.python_targets:
        faults = [t.strip() for t in opts.python_targets.split(",") if t.strip()]
        missing = [t for t in faults if not os.path.exists(t.split(":")[0])]
        if missing:
            print(f"faultzoo: no such target file: {', '.join(missing)}", file=sys.stderr)
            return 2
    elif opts.faults:
        wanted = [f.strip() for f in opts.faults.split(",") if f.strip()]
        unknown = [f for f in wanted if f not in faults and f not in ("none", NONE)]
        if unknown:
            print(f"faultzoo: unknown faults {unknown}; known: {', '.join(faults)}",
                  file=sys.stderr)
            return 2
        faults = [NONE if f in ("none", NONE) else f for f in wanted]
    else:
        faults = faults + [NONE]
    os.makedirs(opts.work, exist_ok=True)
    gen_dir = None if opts.no_rate else generated(tools["tracefuzz"], opts.work, opts.count)
    print(f"faultzoo: {len(faults)} rows, fuzz budget {opts.time:.0f} s, rate over "
          f"{opts.count} programs (gen --seed 5), {opts.parallel} at once", file=sys.stderr)
    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=opts.parallel) as ex:
        rows = list(ex.map(lambda f: one_fault(opts, tools, f, gen_dir), faults))
    head = ["fault", "seeds kept", "found as", "time-to-find", "execs-to-find",
            f"fails on {opts.count} generated"]
    table = [head] + [fmt_row(r, opts) for r in rows]
    widths = [max(len(str(r[i])) for r in table) for i in range(len(head))]
    print(f"budget: --time {opts.time:.0f} --count {opts.count} --parallel {opts.parallel} "
          f"(libFuzzer -seed={','.join(map(str, opts.seed_list))}; the first seed's run in "
          f"this table); total {time.monotonic() - t0:.0f} s")
    print("| " + " | ".join(h.ljust(w) for h, w in zip(head, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in table[1:]:
        print("| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths)) + " |")
    if len(opts.seed_list) > 1 and not opts.no_fuzz:
        print()
        print("\n".join(summary(rows)))
    if opts.json:
        with open(opts.json, "w") as f:
            json.dump(rows, f, indent=1)
    ok = opts.no_fuzz or all(x["found"] for r in rows if r["fault"] != NONE
                             for x in r.get("runs") or [r])
    clean = all((r.get("findings") or 0) == 0 and ("rate" not in r or r["rate"][0] == 0)
                for r in rows if r["fault"] == NONE)
    return 0 if ok and clean else 1


if __name__ == "__main__":
    sys.exit(main())
