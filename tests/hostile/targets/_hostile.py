"""Shared by the hostile targets (tests/hostile): the wrapper that misbehaves only
on the program that carries the TF_HOSTILE marker (tests/hostile/trigger.py) and is
the identity on every other input."""
import functools


def hostile(misbehave, after=False, on_call=None):
    """A jit(fn) calling misbehave() before (after=True: after) each call of a
    marked program, or only on call number on_call (1..3)."""
    def jit(fn):
        if not fn.__globals__.get("TF_HOSTILE"):
            return fn
        calls = [0]

        @functools.wraps(fn)
        def traced(*args):
            calls[0] += 1
            now = on_call is None or calls[0] == on_call
            if now and not after:
                misbehave()
            result = fn(*args)
            if now and after:
                misbehave()
            return result
        return traced
    return jit
