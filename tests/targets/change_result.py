"""Toy target changing results: wraps every result in a tuple (-> MISMATCH_RESULT)."""


def jit(fn):
    def traced(*args):
        return ("tampered", fn(*args))
    return traced
