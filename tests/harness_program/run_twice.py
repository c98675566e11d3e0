"""Runs every generated program in a directory twice as `python prog.py` (separate
processes, so string hashing differs between the runs) and checks that each run
exits cleanly (make, between and make_other never raise), prints the whole
protocol, and prints the same text both times. Then runs the compiled module twice
more in this process, each time in a fresh namespace (as the harness does), and
checks those print the same text too: no state leaks between runs.

usage: run_twice.py DIR [EXTRA_PYTHONPATH]"""
import contextlib
import io
import os
import subprocess
import sys


def run_in_process(code):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(code, {"__name__": "__main__", "__builtins__": __builtins__})
    return buf.getvalue()


def main():
    folder = sys.argv[1]
    env = dict(os.environ)
    if len(sys.argv) > 2:
        env["PYTHONPATH"] = sys.argv[2]
        sys.path.insert(0, sys.argv[2])
    files = sorted(f for f in os.listdir(folder) if f.endswith(".py"))
    failures = 0
    for name in files:
        path = os.path.join(folder, name)
        outs = []
        for run in range(2):
            env["PYTHONHASHSEED"] = str(run + 1)
            p = subprocess.run([sys.executable, path], capture_output=True, text=True,
                               env=env, timeout=60)
            outs.append(p.stdout)
            if p.returncode != 0 or "r3 =" not in p.stdout:
                print("FAIL: %s exited %d\n%s" % (name, p.returncode, p.stderr[-2000:]))
                failures += 1
                break
        else:
            if outs[0] != outs[1]:
                print("FAIL: %s: two runs differ (NONDETERMINISTIC)" % name)
                failures += 1
                continue
            with open(path) as f:
                code = compile(f.read(), path, "exec")
            inproc = [run_in_process(code) for _ in range(2)]
            if inproc[0] != outs[0] or inproc[1] != outs[0]:
                print("FAIL: %s: in-process runs differ from the script's output" % name)
                failures += 1
    print("%d programs, %d failures" % (len(files), failures))
    return 1 if failures or not files else 0


if __name__ == "__main__":
    sys.exit(main())
