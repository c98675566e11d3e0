"""tt_stdlib.py: pure-Python stdlib functions (stdlib_cases.py) under tfjit.jit.

For each case: the name must resolve to a Python function (inspect.isfunction, a
Python code object; frozen modules such as posixpath count); eager and traced runs
(two calls each, fresh arguments each, the second traced call reusing the trace) must
give equal observations (results or exceptions with their tracebacks, and the
arguments' final state, through tt_driver's canonicaliser). Prints
how many cases traced without tfjit.Unsupported; fails on any mismatch and on any
Unsupported not listed in UNSUPPORTED_OK (generator functions are accepted: the
tracer may declare generators Unsupported).
Options as the snippet driver: --only NAME, -v, --identity, --require-jit, --no-fork.
"""
import importlib
import inspect
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import tt_driver  # noqa: E402
from stdlib_cases import CASES, UNSUPPORTED_OK  # noqa: E402

tt_driver.DRIVER_FILES.add(__file__)


def resolve(dotted):
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for p in parts[i:]:
            obj = getattr(obj, p)
        return obj
    raise ImportError(dotted)


def observe(fn, make, kw, post, target, detect_gen=False):
    f = fn if target is None else target(fn)
    used_gen = False
    cn = tt_driver.Canon()
    secs = []
    unsupported = None
    for step in range(2):
        args = tuple(make())
        if detect_gen:
            out, g = tt_driver.call_detecting_generators(lambda *a: f(*a, **kw), args)
            used_gen = used_gen or g
        else:
            out = tt_driver.call(lambda *a: f(*a, **kw), args)
        if out[0] == "ok" and post is not None:
            out = tt_driver.call(post, (out[1],))
        if out[0] == "raise" and tt_driver.is_unsupported(out[1]) and unsupported is None:
            unsupported = out[1]
        secs.append((f"r{step + 1}", tt_driver.canon_outcome(cn, out)))
        secs.append((f"args{step + 1}", cn.section(args)))
        if out[0] == "raise":
            secs.append((f"traceback{step + 1}", " > ".join(tt_driver.tb_entries(out[1]))))
    return secs, unsupported, used_gen


def check_case(name, make, kw, post, target, verbose):
    try:
        fn = resolve(name)
    except Exception as e:
        return "table", f"cannot resolve: {e!r}"
    code = getattr(fn, "__code__", None)
    if not inspect.isfunction(fn) or not inspect.iscode(code):   # frozen modules count
        return "table", "not a Python-level function"
    e0, _, _ = observe(fn, make, kw, post, None)
    e1, _, _ = observe(fn, make, kw, post, tt_driver.identity)
    d = tt_driver.first_diff(e0, e1)
    if d:
        return "table", f"nondeterministic at {d[0]}: {tt_driver.clip(d[1])} vs {tt_driver.clip(d[2])}"
    if target is None:
        return "pass", ""
    t, unsup, _ = observe(fn, make, kw, post, target)
    d = tt_driver.first_diff(e0, t)
    if d is None:
        return "pass", ""
    if unsup is not None:
        reason = UNSUPPORTED_OK.get(name)
        if reason is None and inspect.isgeneratorfunction(fn):
            reason = "generator function"
        if reason:
            return "unsupported_ok", f"Unsupported ({reason}): {tt_driver.safe_str(unsup)}"
        return "unsupported", f"UNSUPPORTED: {tt_driver.safe_str(unsup)}"
    msg = f"differs at {d[0]}:\n    eager : {tt_driver.clip(d[1])}\n    tracer: {tt_driver.clip(d[2])}"
    if verbose:
        msg += "\n  eager:\n" + "\n".join(f"    [{n}] {x}" for n, x in e0)
        msg += "\n  tracer:\n" + "\n".join(f"    [{n}] {x}" for n, x in t)
    return "fail", msg


def main():
    opts = tt_driver.parser("Stdlib functions under the tracer.").parse_args()
    target, desc = tt_driver.pick_target(opts)
    print(f"target: {desc}")
    counts = {"pass": 0, "unsupported_ok": 0, "unsupported": 0, "fail": 0, "table": 0}
    modules = set()
    failing = []
    ran = 0
    for i, (name, make, kw, post) in enumerate(CASES):
        label = f"{name}#{i}"
        if opts.only and not any(o in (name, label) or (o.endswith("*") and name.startswith(o[:-1]))
                                 for o in opts.only):
            continue
        ran += 1
        modules.add(name.split(".")[0])
        st, msg, _ = tt_driver.run_isolated(
            lambda: check_case(name, make, kw, post, target, opts.verbose), fork=not opts.no_fork)
        counts[st] += 1
        if st not in ("pass",) or opts.verbose:
            print(f"{st:14} {label}" + (f": {msg}" if msg else ""))
        if st not in ("pass", "unsupported_ok"):
            failing.append(label)
    traced = counts["pass"]
    print(f"{ran} cases from {len(modules)} modules ({', '.join(sorted(modules))})")
    if target is not None:
        print(f"traced without tfjit.Unsupported: {traced + counts['fail']} of {ran}; "
              f"Unsupported: {counts['unsupported'] + counts['unsupported_ok']} "
              f"({counts['unsupported_ok']} accepted)")
    if failing:
        print("failing cases: " + " ".join(failing))
    npass = counts["pass"] + counts["unsupported_ok"]
    print(f"{npass} passed, {len(failing)} failed")
    return 1 if failing or ran == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
