"""Toy target declaring what it cannot trace with its own exception; run it with
--unsupported tests/targets/unsupported.py:Unsupported (-> UNSUPPORTED). Only on programs that
read an attribute or a global (_selective.py): the preflight is not one."""
from _selective import touches_attributes


class Unsupported(Exception):
    pass


def jit(fn):
    if not touches_attributes(fn):
        return fn

    def traced(*args):
        raise Unsupported(f"cannot trace {fn.__name__}")
    return traced
