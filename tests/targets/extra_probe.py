"""Toy target: before each call probes every argument for an attribute of its own
(`getattr(arg, "_jit_meta", None)`), as JITs look for their own markers. On an
object with a logging `__getattr__` the probe adds an event to the program's LOG:
MISMATCH_EVENTS, shape `log-extra:getattr`."""


def jit(fn):
    def traced(*args):
        for a in args:
            getattr(a, "_jit_meta", None)
        return fn(*args)
    return traced
