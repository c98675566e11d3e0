"""Toy target declaring what it cannot trace with its own exception; run it with
--unsupported tests/targets/unsupported.py:Unsupported (-> UNSUPPORTED)."""


class Unsupported(Exception):
    pass


def jit(fn):
    def traced(*args):
        raise Unsupported(f"cannot trace {fn.__name__}")
    return traced
