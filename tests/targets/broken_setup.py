"""Toy target whose jit(fn) itself raises on programs that read an attribute or a
global (_selective.py): the target failed to set up for that program
(-> TARGET_CRASH). On a corpus of such programs it fails every input the same way,
which `run` reports once as a target problem (exit 2)."""
from _selective import touches_attributes


def jit(fn):
    if touches_attributes(fn):
        raise RuntimeError(f"cannot prepare {fn.__name__}")
    return fn
