"""Toy target whose failure changes kind when code is removed (the reducer's test,
tests/cli/reduce_test.sh): while the program's module defines `helper_b` it raises
from inside the target (-> TARGET_CRASH); without it, it changes results (->
MISMATCH_RESULT). A reducer that kept any failing candidate would delete helper_b
and drift to the other signature. Only on programs that read an attribute or a
global (_selective.py), so the preflight passes."""
from _selective import touches_attributes


def jit(fn):
    if not touches_attributes(fn):
        return fn
    g = fn.__globals__

    def traced(*args):
        r = fn(*args)
        if "helper_b" in g:
            raise RuntimeError("drift: helper_b is defined")
        return ("tampered", r)
    return traced
