"""The provenance replay oracle (docs/REUSE.md, "Provenance oracle").

Each case is a program where an injected fault makes a jit call use a stale object
that is EQUAL to the right one, so eager and jit results agree and nothing else
notices: with the oracle on, the call raises tfjit.ProvenanceError naming the chain;
with it off the fault goes unnoticed; without the fault the oracle stays quiet (and
did check loads). Usage: provcheck_cases.py CASE | switch"""
import re
import sys

import tfjit

# name: (fault, source, chain expected in the message, kind of call that used it)
CASES = {
    # The replay reuses the class attribute the trace saw after C.k was rebound.
    "stale_guard_class_attr": ("stale_guard_class_attr", """
class C:
    k = [1]
def make():
    return (C(),)
def program(c):
    return c.k
def between(c):
    C.k = [1]
""", "INPUT[0].k via class_attr", "replayed trace"),
    # The replay returns the slot value read by the trace, not the one stored since.
    "skip_getter_slot": ("skip_getter_on_replay", """
class S:
    __slots__ = ("v",)
def make():
    s = S()
    s.v = [1]
    return (s,)
def program(s):
    return s.v
def between(s):
    s.v = [1]
""", "INPUT[0].v via slot", "replayed trace"),
    # The replay returns the bound method of the traced call's argument.
    "skip_getter_method": ("skip_getter_on_replay", """
class C:
    def __init__(self):
        self.n = 1
    def get(self):
        return self.n
def make():
    return (C(),)
def make_other():
    return (C(),)
def program(c):
    m = c.get
    return m()
def between(c):
    pass
""", "INPUT[0].get via method", "replayed trace"),
    # A load after a store is forwarded the value before the store.
    "no_invalidate_on_store": ("no_invalidate_on_store", """
class C:
    pass
def make():
    c = C()
    c.x = [0]
    return (c,)
def program(c):
    a = c.x
    c.x = [0]
    return (a, c.x)
def between(c):
    pass
""", "INPUT[0].x via inst_dict", "replayed trace"),
    # A key stored into the instance dict shadows the class attribute the trace reuses.
    "dict_shadow_unguarded": ("dict_shadow_unguarded", """
class C:
    k = [1]
def make():
    return (C(),)
def program(c):
    return c.k
def between(c):
    c.__dict__["k"] = [1]
""", "INPUT[0].k via class_attr", "replayed trace"),
    # The tracer's process-wide memo serves the class attribute of an earlier call.
    "stale_class_attr": ("stale_class_attr", """
class C:
    k = [1]
def make():
    return (C(),)
def program(c):
    return c.k
def between(c):
    C.k = [1]
""", "INPUT[0].k via class_attr", "trace"),
}

MSG = re.compile(r"^provenance (?P<chain>.+) resolves to <.+ at 0x[0-9a-f]+.*>, "
                 r"the (?P<who>replayed trace|trace) used <.+ at 0x[0-9a-f]+.*>$")


def run(src, jit, fault, checks):
    """Calls program, runs between(), calls it again on the same world, then on
    make_other()'s when the program has one (else the same). Returns the list of
    results, or the ProvenanceError raised."""
    ns = {"__name__": "provcheck_case"}
    exec(compile(src, "<provcheck_case>", "exec"), ns)
    args = ns["make"]()
    f = tfjit.jit(ns["program"]) if jit else ns["program"]
    tfjit.set_faults(fault if jit else "")
    tfjit.set_checks(checks)
    out = []
    try:
        out.append(f(*args))
        ns["between"](*args)
        out.append(f(*args))
        out.append(f(*ns.get("make_other", lambda: args)()))
    except tfjit.ProvenanceError as e:
        return e
    finally:
        tfjit.set_faults("")
        tfjit.set_checks(True)
    return out


def case(name):
    fault, src, chain, who = CASES[name]
    ok = True
    eager = run(src, False, "", True)

    # Without the fault: the oracle checks loads and finds nothing.
    tfjit.reset_stats()
    clean = run(src, True, "", True)
    st = tfjit.stats()
    if isinstance(clean, Exception) or clean != eager:
        print(f"FAIL {name}: without the fault jit gave {clean!r}, eager {eager!r}")
        ok = False
    if st["provcheck.checked"] <= 0 or st["provcheck.failures"] != 0:
        print(f"FAIL {name}: without the fault stats {st}")
        ok = False

    # With the fault, oracle off: unnoticed (equal results).
    quiet = run(src, True, fault, False)
    if isinstance(quiet, Exception) or quiet != eager:
        print(f"FAIL {name}: with the oracle off the fault should go unnoticed: {quiet!r}")
        ok = False

    # With the fault, oracle on: ProvenanceError naming the chain.
    tfjit.reset_stats()
    caught = run(src, True, fault, True)
    st = tfjit.stats()
    m = MSG.match(str(caught)) if isinstance(caught, Exception) else None
    if m is None or m["chain"] != chain or m["who"] != who:
        print(f"FAIL {name}: expected ProvenanceError on {chain!r} ({who}), got {caught!r}")
        ok = False
    elif st["provcheck.failures"] != 1:
        print(f"FAIL {name}: provcheck.failures {st['provcheck.failures']}")
        ok = False
    if ok:
        print(f"ok   {name}: {caught}")
    return ok


def switch():
    """set_checks / checks and the environment variable (the ctest sets
    TRACEFUZZ_PROVCHECK to 0 or leaves it unset and passes the expected state)."""
    want = sys.argv[2] == "on"
    if tfjit.checks() != want:
        print(f"FAIL switch: checks() is {tfjit.checks()} at import, expected {want}")
        return False
    tfjit.set_checks(not want)
    if tfjit.checks() == want:
        print("FAIL switch: set_checks did not switch")
        return False
    tfjit.set_checks(want)
    # Off: no load is checked.
    fault, src, _, _ = CASES["stale_guard_class_attr"]
    tfjit.reset_stats()
    ns = {"__name__": "provcheck_case"}
    exec(compile(src, "<provcheck_case>", "exec"), ns)
    tfjit.jit(ns["program"])(*ns["make"]())
    n = tfjit.stats()["provcheck.checked"]
    if (n > 0) != want:
        print(f"FAIL switch: {n} loads checked with checks {want}")
        return False
    print(f"ok   switch {sys.argv[2]}: {n} checked")
    return True


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "switch":
        sys.exit(0 if switch() else 1)
    if len(sys.argv) != 2 or sys.argv[1] not in CASES:
        print(f"usage: provcheck_cases.py CASE|switch on|off ({' '.join(CASES)})")
        sys.exit(2)
    sys.exit(0 if case(sys.argv[1]) else 1)
