"""Toy target that cannot be set up at all: jit(fn) raises for every function, the
trivial preflight program included. `run` and `fuzz` must report that once, as a
problem of the target (exit 2), never as findings."""


def jit(fn):
    raise ImportError("the JIT's backend is not installed")
