"""bench/throughput.py: the measurements of bench/throughput (run it through that script).

argv: BUILD COUNT SEED LOOP_RUNS [LIBFUZZER_FLAG...]. Generates COUNT programs (`tracefuzz gen`, as bytes for
tf_fuzz and as source for the eager pass: program i is the same in both), then measures
in this one run, as CPU time (user+sys) per input:

  - tf_fuzz over the programs (libFuzzer `-runs=0 DIR`: each input executed once), on
    `builtin` without faults and on `identity`;
  - tf_fuzz's fuzzing loop, LOOP_RUNS runs from corpus/seed (mutated inputs), both targets;
  - an eager-only pass in CPython (the same interpreter the harness embeds): compile each
    program (without its __main__ block, as tf_fuzz does) + one eager protocol run;
    and the same with two protocol runs (what the fast protocol runs per input: eager 1,
    then the target's run, which calls make/between and the program through the target).

The start-up of a tf_fuzz process (CPython, the target, libFuzzer, one empty input) is
measured with an empty corpus and subtracted."""
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

MAIN_BLOCK = '\nif __name__ == "__main__":\n'


def cpu_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def cpu_self():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


EXTRA = []   # libFuzzer flags for every run (argv after the first four)
ARTIFACTS = []   # -artifact_prefix into the bench's temporary directory (set by main)


def run_fuzzer(fuzzer, target, args, extra_env=None):
    """CPU seconds of one tf_fuzz process, and its stderr."""
    args = EXTRA + ARTIFACTS + args   # slow or crashing inputs land in the temp dir
    env = dict(os.environ, TRACEFUZZ_TARGET=target, TRACEFUZZ_QUIET="1", **(extra_env or {}))
    env.pop("TRACEFUZZ_FAULTS", None)
    # stderr into a file, not a pipe: libFuzzer flushes a dozen write()s per status
    # line, and each woke a reader blocked on a pipe (6% of the loop's CPU, most of it
    # system time). `tracefuzz fuzz` reads its jobs' pipes in pauses (cmd_fuzz_jobs.c,
    # READ_PAUSE_NS), so none of that is the tool's cost either.
    with tempfile.TemporaryFile(mode="w+") as err:
        before = cpu_children()
        p = subprocess.run([fuzzer] + args, env=env, stdout=subprocess.DEVNULL, stderr=err)
        cpu = cpu_children() - before
        err.seek(0)
        text = err.read()
    if p.returncode != 0:
        sys.exit("bench/throughput: %s %s failed (%d):\n%s"
                 % (fuzzer, " ".join(args), p.returncode, text[-3000:]))
    return cpu, text


def eager_pass(sources, runs):
    """CPU seconds of compiling each source and running the protocol `runs` times."""
    start = cpu_self()
    for src in sources:
        code = compile(src, "<tfprog>", "exec")
        for _ in range(runs):
            ns = {"__name__": "tfprog", "__builtins__": __builtins__}
            exec(code, ns)
            f, make = ns["program"], ns["make"]
            between, make_other = ns.get("between"), ns.get("make_other")
            args = make()
            for step in (1, 2, 3):
                if step == 2 and between is not None:
                    between(*args)
                if step == 3:
                    args = (make_other or make)()
                try:
                    f(*args)
                except Exception:
                    pass
    return cpu_self() - start


def main():
    build, count, seed, loop = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    EXTRA.extend(sys.argv[5:])
    fuzzer = os.path.join(build, "tf_fuzz")
    tracefuzz = os.path.join(build, "tracefuzz")
    tmp = tempfile.mkdtemp(prefix="tf-bench-")
    ARTIFACTS.append("-artifact_prefix=" + tmp + "/")
    try:
        tf_dir, py_dir, empty = (os.path.join(tmp, d) for d in ("tf", "py", "empty"))
        os.mkdir(empty)
        for out, extra in ((tf_dir, []), (py_dir, ["--py"])):
            subprocess.run([tracefuzz, "gen", "--count", str(count), "--seed", str(seed),
                            "--out", out] + extra, check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        names = sorted(os.listdir(py_dir))
        sources = []
        for n in names:
            with open(os.path.join(py_dir, n)) as f:
                src = f.read()
            cut = src.find(MAIN_BLOCK)
            sources.append(src[:cut + 1] if cut >= 0 else src)
        lines = sum(s.count("\n") for s in sources) / len(sources)
        sizes = [os.path.getsize(os.path.join(tf_dir, n)) for n in os.listdir(tf_dir)]

        rows, notes = [], []
        eager1 = eager_pass(sources, 1)
        eager2 = eager_pass(sources, 2)
        rows.append(("eager-only: compile + 1 protocol run (python3.11)", count / eager1))
        rows.append(("eager: compile + 2 protocol runs", count / eager2))
        rate = {}
        for target in ("builtin", "identity"):
            base, _ = run_fuzzer(fuzzer, target, ["-runs=0", empty])
            cpu, _ = run_fuzzer(fuzzer, target, ["-runs=0", tf_dir])
            rate[target] = count / max(cpu - base, 1e-9)
            rows.append(("tf_fuzz %s, the same %d programs" % (target, count), rate[target]))
        for target in ("builtin", "identity"):
            base, _ = run_fuzzer(fuzzer, target, ["-runs=0", empty])
            work = os.path.join(tmp, "loop-" + target)
            os.mkdir(work)
            cpu, err = run_fuzzer(fuzzer, target, ["-runs=%d" % loop, "-seed=1",
                                                   "-dict=corpus/tracefuzz.dict", work,
                                                   "corpus/seed"])
            rate["loop-" + target] = loop / max(cpu - base, 1e-9)
            rows.append(("tf_fuzz %s, fuzzing loop (%d runs from corpus/seed)"
                         % (target, loop), rate["loop-" + target]))
            counts = [l for l in err.splitlines() if "reused compiled code" in l]
            if counts:
                notes.append("loop %s: %s" % (target, counts[-1].split(": ", 1)[1]))

        e1 = count / eager1
        print("bench/throughput  %s  %d programs of seed %d (%.0f lines, %.0f bytes each on "
              "average), %s%s" % (time.strftime("%Y-%m-%d %H:%M"), count, seed, lines,
                                  sum(sizes) / len(sizes), build,
                                  "  flags: " + " ".join(EXTRA) if EXTRA else ""))
        print("%-62s %10s %8s" % ("what", "execs/s/core", "/eager"))
        for what, r in rows:
            print("%-62s %10.0f %8.2f" % (what, r, r / e1))
        print("ratio builtin / eager-only (same programs): %.2f" % (rate["builtin"] / e1))
        print("ratio identity / eager-only (same programs): %.2f" % (rate["identity"] / e1))
        for n in notes:
            print(n)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
