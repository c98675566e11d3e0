"""Toy targets raising provenance failures: `jit` its own class named
ProvenanceError, `jit_tfjit` the built-in tracer's tfjit.ProvenanceError."""


class ProvenanceError(AssertionError):
    pass


def jit(fn):
    def traced(*args):
        raise ProvenanceError("value reused from the cache is not the object CPython returns")
    return traced


def jit_tfjit(fn):
    import tfjit

    def traced(*args):
        raise tfjit.ProvenanceError("toy provenance failure")
    return traced
