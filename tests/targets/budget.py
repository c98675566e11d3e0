"""Toy target exhausting its budget: raises tfjit.LimitExceeded (-> TIMEOUT). Only on programs that
read an attribute or a global (_selective.py): the preflight is not one."""
import tfjit
from _selective import touches_attributes


def jit(fn):
    if not touches_attributes(fn):
        return fn

    def traced(*args):
        raise tfjit.LimitExceeded("instruction budget exhausted")
    return traced
