"""Toy target: memoises every attribute read per (object, name) and silently serves
the first value again (a tracer assuming attribute reads are stable). On the
motivating program it returns the same object twice: MISMATCH_RESULT."""
from _proxy import memo_jit


def jit(fn):
    return memo_jit(fn, check=False)
