"""Toy targets raising provenance failures: `jit` its own class named
ProvenanceError, `jit_tfjit` the built-in tracer's tfjit.ProvenanceError. Only on programs that
read an attribute or a global (_selective.py): the preflight is not one."""
from _selective import touches_attributes


class ProvenanceError(AssertionError):
    pass


def jit(fn):
    if not touches_attributes(fn):
        return fn

    def traced(*args):
        raise ProvenanceError("value reused from the cache is not the object CPython returns")
    return traced


def jit_tfjit(fn):
    import tfjit
    if not touches_attributes(fn):
        return fn

    def traced(*args):
        raise tfjit.ProvenanceError("toy provenance failure")
    return traced
