#!/usr/bin/python3.11
"""bench/perf.py: issue 14's one benchmark command, one table from one run.

    /usr/bin/python3.11 bench/perf.py [--count N] [--loop-runs R] [--pairs P] [--fuzz-time T]
                                      [--fuzz-runs F] [--rss-execs E]
                                      [--repeat K] [--faultzoo SECONDS] [--json FILE]
                                      [--dev DIR] [--fuzz-build DIR]

Rows (every rate per CPU second of the process measured, user + sys, so per core
whatever else the machine runs; every ratio from this same run):

  reference    compile + exec + make() + two calls of one fixed 30-line descriptor
               program (REFERENCE below, never edited): programs/s, the mean of
               rounds of 2,000 run before and after every fuzzing loop (Reference:
               the machine's speed moves within seconds). Divide any other rate by
               it to compare machines.
  raw          the same for the N generated programs of `tracefuzz gen --seed 7`
               (without their __main__ block, as tf_fuzz runs them): programs/s, and
               the share of it that is compile().
  fuzz         tf_fuzz (fuzz-fast build) over those N programs once (`-runs=0 DIR`) and
               its fuzzing loop (R runs from corpus/seed, -seed=1, the dictionary), on
               `builtin` (P times, each between two reference rounds, and each run's
               rate divided by theirs: the median of those is the loop's ratio) and
               `identity`: execs/s, start-up (CPython, target, libFuzzer) measured
               with an empty corpus and subtracted (bench/throughput.py); and
               builtin's loop again with TRACEFUZZ_SMALL=tiny (docs/PROGRAMS.md,
               "Program size": fresh programs cut too, a size the zoo does not allow).
  fuzz cmd     `tracefuzz fuzz --target builtin --jobs 1 --time T --seed K` (default
               30 s, K = 1..F, F = 3; the command the acceptance names, seeds included,
               past its warm-up): its execs per CPU second of tracefuzz and its engine,
               each run divided by the mean of four reference rounds before and four
               after it; the median of those ratios.
  tracer       per program of bench/reuse_bench.py (descriptor set) and
               bench/attr_programs.py (attribute-heavy set): traced/eager and
               replayed/eager (median CPU time of K calls each), traced with 200 older jit
               objects alive / traced, and the attribute set's geomeans.
  rss          tf_fuzz builtin's RSS growth over E execs of the fuzzing loop (libFuzzer's
               `rss:` after INITED, at E/2 and at DONE); when E < 100,000 also the second
               half's slope scaled to 100,000 execs, labelled an estimate (the code
               cache's 8,192 pieces and the corpus fill first, so the whole run's growth
               scaled linearly would overstate it).
  faultzoo     with --faultzoo S: bench/faultzoo.py --time S --count 2000 (slow: about
               S seconds per fault), its table appended and its found/total in the main
               table.

Needs the dev build (tfpython) and the fuzz-fast build (tf_fuzz, tracefuzz); builds what
is missing. Not a ctest: timings are not pass/fail. `uptime`'s load average is printed
with the table (the machine is shared: say it next to any figure you quote).
"""
import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import throughput  # noqa: E402  (run_fuzzer, MAIN_BLOCK: reused, not copied)
import jobs_scaling  # noqa: E402  (fuzz_once: one `tracefuzz fuzz` and its summary)

# The machine-speed reference: fixed forever (a change makes old tables incomparable).
REFERENCE = '''LOG = []
class Desc:
    def __init__(self, name):
        self.name = name
    def __get__(self, obj, owner=None):
        LOG.append(("get", self.name))
        return self if obj is None else obj.__dict__.get("_" + self.name, 0)
    def __set__(self, obj, value):
        LOG.append(("set", self.name))
        obj.__dict__["_" + self.name] = value
class Base:
    d = Desc("d")
    k = 3
    @property
    def p(self):
        return self.k * 2
    def m(self, x):
        return x + self.k
class Child(Base):
    k = 5
    def __getattr__(self, name):
        return len(name)
def make():
    c = Child()
    c.d = 4
    return (c, Base())
def program(a, b):
    a.d = a.d + b.p
    return (a.d, a.p, a.m(1), b.m(2), a.missing, b.k, len(LOG))
'''

RSS_RE = re.compile(r"#(\d+)\s+(INITED|DONE|pulse|NEW|REDUCE)\b.*?rss: (\d+)Mb")


def cpu_self():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def load():
    return open("/proc/loadavg").read().split()[0]


def run_programs(codes, calls=2):
    """exec + make() + `calls` calls of program per code object."""
    for code in codes:
        ns = {"__name__": "tfprog", "__builtins__": __builtins__}
        exec(code, ns)
        f, args = ns["program"], ns["make"]()
        for _ in range(calls):
            try:
                f(*args)
            except Exception:
                pass


def per_cpu_second(fn, n, rounds=3):
    """n per CPU second over `rounds` runs of fn (their mean, as Reference)."""
    t0 = cpu_self()
    for _ in range(rounds):
        fn()
    return n * rounds / max(cpu_self() - t0, 1e-9)


FUZZ_CMD_ROUNDS = 4   # reference rounds before and after `tracefuzz fuzz`


class Reference:
    """The reference measured in rounds spread over the whole bench run: one before
    and one after every fuzzing loop, FUZZ_CMD_ROUNDS before and after every run of
    `tracefuzz fuzz`. This machine's speed moves by up to 2x within
    seconds (rounds of identical work took 0.36 to 0.68 CPU s, no page fault, load
    0.2): a 1.5 CPU s loop averages over that, a 0.4 s round catches a fast or a slow
    moment. So the reference is a mean over its rounds (all programs / all CPU
    seconds), like every other rate here, and each loop is also compared with the
    rounds just before and after it. The fastest round alone (what this bench
    reported until session 14: the least CPU time of three rounds in a row) is kept
    as best() to compare with older tables."""
    N = 2000

    def __init__(self):
        self.rounds = []   # (programs, CPU s)

    def round(self):
        """Runs one round; its rate."""
        t0 = cpu_self()
        run_programs([compile(REFERENCE, "<reference>", "exec") for _ in range(self.N)])
        self.rounds.append((self.N, max(cpu_self() - t0, 1e-9)))
        return self.N / self.rounds[-1][1]

    def rate(self):
        return sum(n for n, _ in self.rounds) / sum(t for _, t in self.rounds)

    def best(self):
        return max(n / t for n, t in self.rounds)


def embedded_reference(dev, rounds=3):
    """The reference's rate (mean of `rounds` rounds) in tfpython, which embeds the
    shared libpython as tf_fuzz does."""
    code = ("import sys; sys.path.insert(0, %r); import perf; r = perf.Reference(); "
            "[r.round() for _ in range(%d)]; print(r.rate())" % (os.path.join(ROOT, "bench"), rounds))
    p = subprocess.run([os.path.join(dev, "tfpython"), "-c", code], capture_output=True, text=True,
                       env=dict(os.environ, TRACEFUZZ_FAULTS=""))
    if p.returncode != 0:
        sys.exit("bench/perf: the reference in tfpython failed:\n" + p.stderr[-2000:])
    return float(p.stdout.split()[-1])


def raw_rates(sources):
    """(compile + exec + make + 2 calls) and compile alone, programs/s."""
    n = len(sources)

    def both():
        run_programs([compile(s, "<tfprog>", "exec") for s in sources])

    def comp():
        for s in sources:
            compile(s, "<tfprog>", "exec")
    return per_cpu_second(both, n), per_cpu_second(comp, n)


def ensure_builds(dev, fast):
    for preset, tree, targets in (("dev", dev, ["tfpython"]),
                                  ("fuzz-fast", fast, ["tf_fuzz", "tracefuzz"])):
        if not all(os.path.exists(os.path.join(tree, t)) for t in targets):
            if os.path.abspath(tree) != os.path.join(ROOT, "build", preset):
                sys.exit(f"bench/perf.py: {tree} lacks {' '.join(targets)}")
            subprocess.run(["cmake", "--preset", preset], cwd=ROOT, check=True,
                           stdout=subprocess.DEVNULL)
            subprocess.run(["cmake", "--build", "--preset", preset, "-j2", "--target"]
                           + targets, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    return dev, fast


def fuzz_rates(fast, tmp, tf_dir, count, loop, ref, pairs):
    """The rates of tf_fuzz; a reference round (ref) before and after every fuzzing
    loop. builtin's loop runs `pairs` times (the same trajectory: -seed=1): its rate
    is over all of them, and each run is also divided by the mean of the reference
    rounds on either side of it (rates["pairs"])."""
    fuzzer = os.path.join(fast, "tf_fuzz")
    empty = os.path.join(tmp, "empty")
    os.makedirs(empty, exist_ok=True)
    rates, startup = {}, {}
    flags = ["-seed=1", "-dict=" + os.path.join(ROOT, "corpus", "tracefuzz.dict")]

    def one_loop(name, target, env=None):
        """CPU seconds of one loop run from corpus/seed, start-up subtracted."""
        work = os.path.join(tmp, name)
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        cpu, _ = throughput.run_fuzzer(fuzzer, target, ["-runs=%d" % loop] + flags + [
            work, os.path.join(ROOT, "corpus", "seed")], env)
        rates["corpus-" + name] = len(os.listdir(work))
        return max(cpu - startup[target], 1e-9)

    for target in ("builtin", "identity"):
        base, _ = throughput.run_fuzzer(fuzzer, target, ["-runs=0", empty])
        startup[target] = base
        cpu, _ = throughput.run_fuzzer(fuzzer, target, ["-runs=0", tf_dir])
        rates["programs-" + target] = count / max(cpu - base, 1e-9)
    before = ref.round()
    total, rates["pairs"] = 0.0, []
    for _ in range(pairs):
        cpu = one_loop("builtin", "builtin")
        total += cpu
        after = ref.round()
        rates["pairs"].append((loop / cpu, (before + after) / 2))
        before = after
    rates["loop-builtin"] = loop * pairs / total
    rates["loop-identity"] = loop / one_loop("identity", "identity")
    ref.round()
    # The same loop with tiny programs (docs/PROGRAMS.md, "Program size"): what the
    # rate would be at the size the zoo does not allow, measured beside the default.
    rates["loop-tiny"] = loop / one_loop("tiny", "builtin", {"TRACEFUZZ_SMALL": "tiny"})
    ref.round()
    return rates


def rss_growth(fast, tmp, execs):
    """[(execs, MiB)] of one builtin fuzzing loop: libFuzzer's `rss:` at INITED and on
    every later status line (NEW, REDUCE, pulse, DONE)."""
    work = os.path.join(tmp, "rss")
    os.makedirs(work)
    _, err = throughput.run_fuzzer(os.path.join(fast, "tf_fuzz"), "builtin", [
        "-runs=%d" % execs, "-seed=2", "-dict=" + os.path.join(ROOT, "corpus", "tracefuzz.dict"),
        work, os.path.join(ROOT, "corpus", "seed")])
    series = []
    for m in RSS_RE.finditer(err):
        if series or m.group(2) == "INITED":
            series.append((int(m.group(1)), int(m.group(3))))
    if len(series) < 2:
        sys.exit("bench/perf: no rss figures in tf_fuzz's output:\n" + err[-2000:])
    return series


def rss_at(series, n):
    """MiB at the last status line at or before exec n."""
    return [r for e, r in series if e <= n][-1]


def tracer_rows(dev, repeat):
    p = subprocess.run([os.path.join(dev, "tfpython"), os.path.join(ROOT, "bench", "reuse_bench.py"),
                        "--set", "all", "--repeat", str(repeat), "--alive", "200", "--json"],
                       capture_output=True, text=True, env=dict(os.environ, TRACEFUZZ_FAULTS=""))
    if p.returncode != 0:
        sys.exit("bench/perf: reuse_bench.py failed:\n" + p.stderr[-3000:])
    return [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]


def faultzoo(dev, fast, seconds, tmp):
    p = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "faultzoo.py"),
                        "--time", str(seconds), "--count", "2000", "--dev", dev,
                        "--fuzz-build", fast, "--work", os.path.join(tmp, "faultzoo")],
                       capture_output=True, text=True)
    rows = [l for l in p.stdout.splitlines() if l.startswith("|")]
    return p.returncode, p.stdout, rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=200, help="generated programs (seed 7)")
    ap.add_argument("--loop-runs", type=int, default=2000, help="fuzzing-loop runs per target")
    ap.add_argument("--pairs", type=int, default=3,
                    help="builtin loop runs, each between two reference rounds")
    ap.add_argument("--fuzz-time", type=int, default=30,
                    help="seconds of `tracefuzz fuzz --target builtin` (0: skip that row)")
    ap.add_argument("--fuzz-runs", type=int, default=3,
                    help="runs of it, seeds 1..N, each between reference rounds (median)")
    ap.add_argument("--rss-execs", type=int, default=20000,
                    help="execs of the RSS run (scaled to 100,000 when fewer)")
    ap.add_argument("--repeat", type=int, default=200, help="calls per tracer median")
    ap.add_argument("--faultzoo", type=float, default=0, metavar="SECONDS",
                    help="also run bench/faultzoo.py with this budget per fault")
    ap.add_argument("--json", help="also write the figures to this file")
    ap.add_argument("--dev", default=os.path.join(ROOT, "build", "dev"),
                    help="build tree with tfpython (the tracer rows)")
    ap.add_argument("--fuzz-build", default=os.path.join(ROOT, "build", "fuzz-fast"),
                    help="build tree with tf_fuzz and tracefuzz")
    opts = ap.parse_args()
    dev, fast = ensure_builds(opts.dev, opts.fuzz_build)
    tmp = tempfile.mkdtemp(prefix="tf-perf-")
    throughput.ARTIFACTS.append("-artifact_prefix=" + tmp + "/")
    load_start, started = load(), time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    fig = {}
    try:
        tf_dir, py_dir = os.path.join(tmp, "tf"), os.path.join(tmp, "py")
        for out, extra in ((tf_dir, []), (py_dir, ["--py"])):
            subprocess.run([os.path.join(fast, "tracefuzz"), "gen", "--count", str(opts.count),
                            "--seed", "7", "--out", out] + extra, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        sources = []
        for n in sorted(os.listdir(py_dir)):
            src = open(os.path.join(py_dir, n)).read()
            cut = src.find(throughput.MAIN_BLOCK)
            sources.append(src[:cut + 1] if cut >= 0 else src)
        lines = sum(s.count("\n") for s in sources) / len(sources)

        reference = Reference()
        reference.round()
        fig["raw"], compile_rate = raw_rates(sources)
        fig["raw_compile_share"] = fig["raw"] / compile_rate
        reference.round()
        fig.update(fuzz_rates(fast, tmp, tf_dir, opts.count, opts.loop_runs, reference,
                              opts.pairs))
        fig["fuzz_cmd"] = []
        for k in range(opts.fuzz_runs if opts.fuzz_time > 0 else 0):
            # the command itself for a while: what a fuzzing run sustains once the
            # seeds, cold caches and the first storm of new inputs are behind it;
            # compared with FUZZ_CMD_ROUNDS reference rounds on either side (two alone
            # read 0.331-0.432 of such rates: the machine's speed moves in seconds).
            # Each run with its own seed, on a fresh corpus.
            near = Reference()
            for _ in range(FUZZ_CMD_ROUNDS):
                near.round()
            execs, _, cpu, _, _ = jobs_scaling.fuzz_once(
                os.path.join(fast, "tracefuzz"), "builtin", 1, opts.fuzz_time, 1 + k,
                os.path.join(tmp, "fuzzcmd"))
            for _ in range(FUZZ_CMD_ROUNDS):
                near.round()
            reference.rounds += near.rounds
            fig["fuzz_cmd"].append((execs, cpu, execs / cpu, near.rate()))
        # The same reference in the shared libpython3.11.so, which tfpython (and tf_fuzz
        # outside the fuzz-fast preset) embeds, while /usr/bin/python3.11 and the
        # fuzz-fast tf_fuzz link the static, profile-guided build (TF_FUZZ_STATIC_PYTHON):
        # what the interpreter's build is worth.
        fig["reference_embedded"] = embedded_reference(dev)
        reference.round()
        fig["reference"] = reference.rate()
        fig["reference_best"] = reference.best()
        fig["reference_rounds"] = [n / t for n, t in reference.rounds]
        fig["tracer"] = tracer_rows(dev, opts.repeat)
        series = rss_growth(fast, tmp, opts.rss_execs)
        (e0, r0), (e1, r1) = series[0], series[-1]
        half = e0 + (e1 - e0) // 2
        rh = rss_at(series, half)
        fig["rss_series"] = series
        fig["rss_growth_mib"] = r1 - r0
        fig["rss_execs"] = n = e1 - e0
        # the code cache and libFuzzer's corpus fill first, then growth should stop:
        # the second half's slope is the estimate of what goes on growing
        fig["rss_steady_100k_mib"] = (r1 - rh) * 100000 / max(e1 - half, 1)
        if opts.faultzoo:
            rc, zoo_text, zoo_rows = faultzoo(dev, fast, opts.faultzoo, tmp)
            fig["faultzoo_rc"] = rc
        load_end = load()

        ref = fig["reference"]
        out = []
        out.append(f"bench/perf.py  {started}  load average {load_start} at start, "
                   f"{load_end} at end (`uptime`, 2 cores)")
        out.append(f"{opts.count} generated programs (seed 7, {lines:.0f} lines on average), "
                   f"fuzzing loop {opts.loop_runs} runs from corpus/seed")
        out.append("")
        out.append("| measure | value | unit | / reference |")
        out.append("|---|---|---|---|")

        def row(what, v, unit, ratio=True):
            out.append(f"| {what} | {v:,.0f} | {unit} | {v / ref:.3f} |" if ratio
                       else f"| {what} | {v} | {unit} | |")
        rounds = ", ".join(f"{r:,.0f}" for r in fig["reference_rounds"])
        row(f"reference: fixed 30-line descriptor program, compile + exec + 2 calls; the "
            f"mean of {len(fig['reference_rounds'])} rounds ({rounds})", ref, "programs/CPU s")
        row("the same reference in tfpython (the shared libpython3.11.so; /usr/bin/python3.11 "
            "and the fuzz-fast tf_fuzz link the static one)", fig["reference_embedded"],
            "programs/CPU s")
        row("raw CPython: the generated programs, compile + exec + 2 calls", fig["raw"],
            "programs/CPU s")
        row("raw CPython: of which compile", f"{100 * fig['raw_compile_share']:.0f}", "%", False)
        for t in ("builtin", "identity"):
            row(f"tf_fuzz {t}: the same programs once", fig["programs-" + t], "execs/CPU s")
        for t in ("builtin", "identity"):
            runs = f"{opts.pairs} runs, " if t == "builtin" else ""
            row(f"tf_fuzz {t}: fuzzing loop ({runs}{fig['corpus-' + t]} inputs added)",
                fig["loop-" + t], "execs/CPU s")
        pair_ratios = [l / r for l, r in fig["pairs"]]
        fig["pair_ratio_median"] = statistics.median(pair_ratios)
        row("tf_fuzz builtin: each loop run / the mean of the reference rounds either side "
            "of it: " + ", ".join(f"{x:.3f}" for x in pair_ratios) + " (median)",
            f"{fig['pair_ratio_median']:.3f}", "ratio", False)
        if fig["fuzz_cmd"]:
            runs = fig["fuzz_cmd"]
            ratios = [rate / around for _, _, rate, around in runs]
            fig["fuzz_cmd_ratio_median"] = statistics.median(ratios)
            row(f"tracefuzz fuzz --target builtin --time {opts.fuzz_time} --jobs 1, {len(runs)} "
                f"run(s) of seeds 1..{len(runs)}: "
                + ", ".join(f"{e:,} execs in {c:.1f} CPU s" for e, c, _, _ in runs)
                + " (tracefuzz and its engine)", statistics.median([r for _, _, r, _ in runs]),
                "execs/CPU s (median)")
            row(f"tracefuzz fuzz / the {FUZZ_CMD_ROUNDS} reference rounds on either side of each "
                "run: " + ", ".join(f"{x:.3f}" for x in ratios) + " (median; the acceptance's "
                "0.4x)", f"{fig['fuzz_cmd_ratio_median']:.3f}", "ratio", False)
        row("tf_fuzz builtin: fuzzing loop / the fastest reference round (this table's "
            "ratio until session 14)", f"{fig['loop-builtin'] / fig['reference_best']:.3f}",
            "ratio", False)
        row(f"tf_fuzz builtin: fuzzing loop, TRACEFUZZ_SMALL=tiny ({fig['corpus-tiny']} inputs "
            "added; fresh programs cut too: not the default, a zoo fault found later)",
            fig["loop-tiny"], "execs/CPU s")
        row("tf_fuzz builtin / raw CPython (same programs)",
            f"{fig['programs-builtin'] / fig['raw']:.2f}", "ratio", False)
        for r in fig["tracer"]:
            row(f"tracer {r['set']} {r['name']}: traced / eager, replayed / eager",
                f"{r['trace/eager']:.2f}, {r['replay/eager']:.2f}", "ratio", False)
        for s in ("descr", "attr"):
            sub = [r for r in fig["tracer"] if r["set"] == s]
            gt = statistics.geometric_mean([r["trace/eager"] for r in sub])
            ge = statistics.geometric_mean([r["replay/eager"] for r in sub])
            ga = statistics.geometric_mean([r["alive/traced"] for r in sub])
            fig[f"geomean_{s}"] = (gt, ge, ga)
            row(f"tracer {s} set geomean: traced / eager, replayed / eager "
                f"(targets <= 4, <= 1.3 on attr)", f"{gt:.2f}, {ge:.2f}", "ratio", False)
            row(f"tracer {s} set geomean: traced with 200 older jit objects alive / traced",
                f"{ga:.2f}", "ratio", False)
        row(f"RSS growth over {n:,} execs (builtin loop, after INITED)",
            fig["rss_growth_mib"], f"MiB ({r0} -> {rh} at half -> {r1} MiB)", False)
        if n < 100000:
            row("RSS growth per 100,000 execs, the second half's slope scaled linearly",
                f"{fig['rss_steady_100k_mib']:.1f}", "MiB (an estimate: rerun with "
                "--rss-execs 100000 for the figure)", False)
        if opts.faultzoo:
            row(f"fault zoo ({opts.faultzoo:.0f} s per fault): exit status", fig["faultzoo_rc"],
                "0 = every fault found, no false finding", False)
        print("\n".join(out))
        if opts.faultzoo:
            print()
            print(zoo_text.rstrip())
        if opts.json:
            with open(opts.json, "w") as f:
                json.dump(fig, f, indent=1)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
