"""Helpers of the trace-reuse tests (docs/REUSE.md): run a program eagerly and through
tfjit.jit in fresh namespaces, call after call with mutations in between, and compare
results and LOG; read tfjit.stats() differences."""
import sys

import tfjit


def fresh(src):
    ns = {"__name__": "reuse_case"}
    exec(compile(src, "<reuse_case>", "exec"), ns)
    return ns


def run(src, plan, jit):
    """plan: a list of ("call", argsname) and ("do", fname) steps, names looked up in
    the namespace (argsname: a function returning the argument tuple, called once and
    kept). Returns [(step, result-or-exception)], LOG."""
    ns = fresh(src)
    f = tfjit.jit(ns["program"]) if jit else ns["program"]
    worlds = {}
    out = []
    for kind, name in plan:
        if kind == "do":
            ns[name](*worlds.get("make", ns["make"]()))
            continue
        if name not in worlds:
            worlds[name] = tuple(ns[name]())
        try:
            r = f(*worlds[name])
            out.append(("ret", r))
        except Exception as e:  # a program exception is a result
            out.append(("raise", type(e).__name__, str(e)))
    return out, list(ns["LOG"])


def stats_delta(before):
    now = tfjit.stats()
    return {k: v - before.get(k, 0) for k, v in now.items() if v - before.get(k, 0)}


def check(name, src, plan, expect=(), faults=""):
    """Eager vs jit equal (without faults), and every key of expect counted at least
    once in tfjit.stats() during the jit run. Returns (equal, delta)."""
    tfjit.set_faults(faults)
    eager = run(src, plan, False)
    before = tfjit.stats()
    try:
        traced = run(src, plan, True)
    finally:
        tfjit.set_faults("")
    delta = stats_delta(before)
    equal = eager == traced
    ok = True
    if not equal and not faults:
        print(f"FAIL {name}: eager and jit differ\n  eager: {eager}\n  jit  : {traced}")
        ok = False
    for k in expect:
        if delta.get(k, 0) <= 0:
            print(f"FAIL {name}: expected stats key {k} to grow; delta {delta}")
            ok = False
    if ok and not faults:
        print(f"ok   {name}: {delta}")
    return ok, equal, delta


def main(cases, argv):
    names = argv[1:] or list(cases)
    bad = 0
    for n in names:
        if n not in cases:
            print(f"unknown case {n}; known: {' '.join(cases)}")
            return 2
        if not cases[n]():
            bad += 1
    return 1 if bad else 0
