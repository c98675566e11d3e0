"""Toy target running fn against a copy of its module globals: `jit(fn)` builds
a new function from fn's code, defaults and closure whose globals are a snapshot
(`dict(fn.__globals__)`) taken when jit is called, as a JIT that compiles into
its own namespace might. Reads of globals see the same objects (mutable globals
such as LOG or a COUNTS dict are shared), but a `global N; N += 1` in fn rebinds
the snapshot's N, so the module's counter never moves: MISMATCH_STATE, seen only
because the observation reads the program's data globals (tfobs 2). Everything
else fn does is CPython's own."""
import types


def jit(fn):
    g = dict(fn.__globals__)
    copy = types.FunctionType(fn.__code__, g, fn.__name__, fn.__defaults__,
                              fn.__closure__)
    copy.__kwdefaults__ = fn.__kwdefaults__
    return copy
