"""Toy target: never returns (the harness must kill it: TIMEOUT). Only on programs that
read an attribute or a global (_selective.py): the preflight is not one."""
from _selective import touches_attributes


def jit(fn):
    if not touches_attributes(fn):
        return fn

    def traced(*args):
        while True:
            pass
    return traced
