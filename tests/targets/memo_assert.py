"""Toy target: memoises attribute reads and, on a repeated read, asserts the fresh
value is the cached one, like Thunder's wrap_attribute. On the motivating program:
AssertionError "attribute test of Test object out of sync": TARGET_CRASH."""
from _proxy import memo_jit


def jit(fn):
    return memo_jit(fn, check=True)
