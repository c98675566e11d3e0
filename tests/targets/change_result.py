"""Toy target changing results: wraps every result in a tuple (-> MISMATCH_RESULT). Only on programs that
read an attribute or a global (_selective.py): the preflight is not one."""
from _selective import touches_attributes


def jit(fn):
    if not touches_attributes(fn):
        return fn

    def traced(*args):
        return ("tampered", fn(*args))
    return traced
