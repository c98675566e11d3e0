"""tt_collect.py: nothing the tracer keeps may keep the traced world alive.

For each snippet of the table (all topics; those with weakref-able objects are the
sample), run the protocol (3 calls) eagerly and under tfjit.jit, taking weak references
to the arguments, to what the program returned or raised (and their elements, two
levels deep) and to what LOG received. Then:

  phase 1: drop the arguments, results and LOG entries, gc.collect(), while the
           (jitted) function and the snippet's namespace stay alive: a trace cached for
           reuse, a provenance record or an attribute cache must not hold them;
  phase 2: drop the function (the jit wrapper) and the namespace too, gc.collect():
           the program function and the snippet's classes must die as well.

A weak reference that eager frees but the traced run keeps alive is a failure (objects
the snippet itself keeps, e.g. in a class attribute, stay alive in both and are not
counted). Options as the snippet driver: --only NAME, -v, --identity, --require-jit.
"""
import gc
import glob
import importlib
import os
import sys
import weakref

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import tt_driver  # noqa: E402


class Refs:
    def __init__(self):
        self.refs = []

    def track(self, label, o, depth=0):
        try:
            self.refs.append((label, weakref.ref(o)))
        except TypeError:
            pass
        if depth >= 2:
            return
        if type(o) in (tuple, list):
            for i, x in enumerate(o):
                self.track(f"{label}[{i}]", x, depth + 1)
        elif type(o) is dict:
            for i, x in enumerate(o.values()):
                self.track(f"{label}{{{i}}}", x, depth + 1)

    def alive(self):
        return sorted(label for label, r in self.refs if r() is not None)

    def labels(self):
        return {label for label, _ in self.refs}


def track_namespace(ns):
    """Weak references to the program function and the snippet's classes (a function,
    so no loop variable of the caller keeps the last one alive)."""
    refs = Refs()
    refs.track("program", ns["program"])
    for k, v in ns.items():
        if isinstance(v, type) and v.__module__ == tt_driver.SNIPPET_MODULE:
            refs.track(f"class {k}", v)
    return refs


def run_world(sn, target):
    """Returns (alive after phase 1, alive after phase 2, number of weakrefs, labels)."""
    ns = sn.namespace()
    refs = Refs()
    make = ns["make"]
    make_other = ns.get("make_other", make)
    between = ns.get("between")
    f = ns["program"] if target is None else target(ns["program"])
    args = tuple(make())
    refs.track("args", args)
    for step in range(sn.calls):
        if step == 1 and between is not None:
            between(*args)
        if step == 2:
            args = tuple(make_other())
            refs.track("args2", args)
        out = tt_driver.call(f, args)
        refs.track(f"r{step + 1}", out[1])
        del out
    log = ns["LOG"]
    refs.track("log", list(log))
    del log[:]
    del args
    sys._getframe().f_locals        # see below
    gc.collect()
    phase1 = refs.alive()
    refs2 = track_namespace(ns)
    del f, make, make_other, between
    ns.clear()
    del ns
    # A program that (wrongly, under a tracer) inspected this frame left a snapshot of
    # its locals on it (frame.f_locals); reading it again drops the deleted names.
    sys._getframe().f_locals
    gc.collect()
    return phase1, refs2.alive(), len(refs.refs) + len(refs2.refs), refs.labels() | refs2.labels()


def check(sn, target):
    try:
        e1, e2, n, elabels = run_world(sn, None)
    except Exception as e:
        return "table", f"eager run failed: {e!r}"
    if n == 0 or target is None:
        return ("skip" if n == 0 else "pass"), ""
    try:
        t1, t2, _, tlabels = run_world(sn, target)
    except Exception as e:
        return "fail", f"traced run failed outside program(): {e!r}"
    # Only objects eager also had: a wrong result (the topic tests' failure) may hold
    # objects that live forever anyway, such as a builtin function.
    kept1 = sorted((set(t1) - set(e1)) & elabels)
    kept2 = sorted((set(t2) - set(e2)) & elabels)
    if kept1 or kept2:
        msg = []
        if kept1:
            msg.append("kept alive after the calls: " + ", ".join(kept1))
        if kept2:
            msg.append("kept alive after dropping the function: " + ", ".join(kept2))
        return "fail", "; ".join(msg)
    note = "" if tlabels == elabels else "; results differ from eager (see the topic tests)"
    return "pass", f"{n} weakrefs" + note


def main():
    opts = tt_driver.parser("Collectability after traced runs.").parse_args()
    target, desc = tt_driver.pick_target(opts)
    print(f"target: {desc}")
    tables = [importlib.import_module(os.path.basename(p)[:-3]).T
              for p in sorted(glob.glob(os.path.join(HERE, "snip_*.py")))]
    npass = nfail = nskip = 0
    failing = []
    for tb in tables:
        for sn in tb.snippets:
            if not tt_driver.selected(sn, opts.only):
                continue
            st, msg, _ = tt_driver.run_isolated(lambda: check(sn, target), fork=not opts.no_fork)
            if st == "skip":
                nskip += 1
                continue
            if st == "pass":
                npass += 1
            else:
                nfail += 1
                failing.append(sn.fullname)
            if opts.verbose or st != "pass":
                print(f"{st:6} {sn.fullname}" + (f": {msg}" if msg else ""))
    print(f"{nskip} snippets without weakref-able objects skipped")
    if failing:
        print("failing snippets: " + " ".join(failing))
    print(f"{npass} passed, {nfail} failed")
    return 1 if nfail or npass == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
