"""Shared driver of the attribute-protocol tests (run with tfpython).

A case is a program in the project's .py form (DESIGN.md "The program contract"):
module source defining make(), program(*args), optionally between(*args) and
make_other(), with descriptor bodies appending to a module-level LOG. run_case()
runs the protocol eagerly and through tfjit.jit, each run in a fresh namespace,
and compares the two observations exactly: results, LOG after each step, final
state of everything reachable, objects numbered by first appearance (so `a is b`
is kept and addresses are not), exceptions as (type name, args).
"""
import sys
import types

import tfjit

MAX_DEPTH = 8


class Observer:
    """Canonical form of values; objects numbered by first appearance."""

    def __init__(self):
        self.ids = {}
        self.keep = []          # keeps numbered objects alive so ids stay unique

    def canon(self, v, depth=0):
        if v is None or isinstance(v, (bool, int, str)) and type(v) in (bool, int, str):
            return v
        if type(v) is float:
            return ("float", repr(v))
        if type(v) is tuple:
            return ("tuple",) + tuple(self.canon(x, depth + 1) for x in v)
        if isinstance(v, BaseException):
            return ("exc", type(v).__name__, self.canon(v.args, depth + 1))
        key = id(v)
        if key in self.ids:
            return ("ref", self.ids[key])
        n = self.ids[key] = len(self.ids)
        self.keep.append(v)
        if depth > MAX_DEPTH:
            return ("obj", type(v).__name__, n, "...")
        return ("obj", type(v).__name__, n, self.state(v, depth))

    def state(self, v, depth):
        if isinstance(v, list):
            return [self.canon(x, depth + 1) for x in v]
        if isinstance(v, dict):
            return [(self.canon(k, depth + 1), self.canon(x, depth + 1)) for k, x in v.items()]
        if isinstance(v, (set, frozenset)):
            return sorted(repr(self.canon(x, depth + 1)) for x in v)
        if isinstance(v, (types.FunctionType, type, types.ModuleType)):
            return getattr(v, "__qualname__", getattr(v, "__name__", "?"))
        if isinstance(v, types.MethodType):
            return (v.__func__.__qualname__, self.canon(v.__self__, depth + 1))
        if isinstance(v, (int, str)):
            return repr(v)
        out = []
        try:
            d = object.__getattribute__(v, "__dict__")
        except (AttributeError, TypeError):
            d = None
        if isinstance(d, dict):
            out.extend((k, self.canon(x, depth + 1)) for k, x in d.items())
        for cls in type(v).__mro__:
            for slot in cls.__dict__.get("__slots__", ()):
                if slot in ("__dict__", "__weakref__"):
                    continue
                member = cls.__dict__.get(slot)
                try:
                    out.append(("slot:" + slot, self.canon(member.__get__(v, cls), depth + 1)))
                except AttributeError:
                    out.append(("slot:" + slot, "<unset>"))
        return out


def call(f, args):
    try:
        return f(*args)
    except Exception as e:      # an exception raised by program is a result
        return e


def run(source, target):
    """One run of the protocol; target is None (eager) or a jit(fn) -> callable."""
    code = compile(source, "<case>", "exec")
    ns = {"__name__": "tfcase"}
    exec(code, ns)
    f = ns["program"] if target is None else target(ns["program"])
    logs = []
    args = ns["make"]()
    r1 = call(f, args)
    logs.append(list(ns.get("LOG", [])))
    if "between" in ns:
        ns["between"](*args)
    r2 = call(f, args)
    logs.append(list(ns.get("LOG", [])))
    args2 = ns["make_other"]() if "make_other" in ns else ns["make"]()
    r3 = call(f, args2)
    logs.append(list(ns.get("LOG", [])))
    obs = Observer()
    return {
        "results": obs.canon((r1, r2, r3)),
        "logs": obs.canon(tuple(tuple(l) for l in logs)),
        "state": obs.canon((args, args2, ns.get("LOG", []))),
    }


def differences(eager, traced):
    return [k for k in ("results", "logs", "state") if eager[k] != traced[k]]


def check_case(name, source, failures):
    """Runs one case eagerly twice (must agree) and through tfjit.jit; appends a
    message to failures on any difference."""
    e1 = run(source, None)
    e2 = run(source, None)
    if e1 != e2:
        failures.append(f"{name}: eager runs disagree (the case is nondeterministic)")
        return
    try:
        t = run(source, tfjit.jit)
    except Exception as exc:    # the tracer itself failed, not the program
        failures.append(f"{name}: traced run failed: {type(exc).__name__}: {exc}")
        return
    diff = differences(e1, t)
    if diff:
        lines = [f"{name}: traced run differs in {', '.join(diff)}"]
        for k in diff:
            lines.append(f"  eager  {k}: {e1[k]!r}")
            lines.append(f"  traced {k}: {t[k]!r}")
        failures.append("\n".join(lines))
    else:
        # A result that is an exception must be one: the tracer's own exceptions
        # (ProvenanceError, Unsupported) would also differ from eager, caught above.
        print(f"ok   {name}")


def main(cases, argv=None):
    """cases: {group: [(name, source), ...]}; argv: the groups to run (all if none)."""
    argv = sys.argv[1:] if argv is None else argv
    groups = argv or sorted(cases)
    failures = []
    count = 0
    for g in groups:
        if g not in cases:
            print(f"unknown group {g}; known: {', '.join(sorted(cases))}")
            return 2
        for name, src in cases[g]:
            count += 1
            check_case(f"{g}/{name}", src, failures)
    for f in failures:
        print("FAIL " + f)
    print(f"{count - len(failures)} of {count} cases agree")
    return 1 if failures or count == 0 else 0


def trace_text():
    """The last traced call's trace as one string (tfjit.last_trace())."""
    t = tfjit.last_trace()
    return t if isinstance(t, str) else "\n".join(t)
