"""Toy target: when the program defines a class with a property, every call fails
with an AssertionError raised 40 frames deep inside the target (a JIT's long
traceback); otherwise behaves as identity. The report keeps the innermost frames
and the exception, and says how many lines of outer frames it cut."""


def _has_property(fn):
    for value in list(fn.__globals__.values()):
        if isinstance(value, type):
            if any(isinstance(v, property) for v in vars(value).values()):
                return True
    return False


def _down(depth):
    if depth == 0:
        raise AssertionError("deep_crash: nothing left at the bottom")
    return _further(depth - 1)


def _further(depth):   # two functions in turn: CPython folds no repeated line
    return _down(depth)


def jit(fn):
    if not _has_property(fn):
        return fn

    def traced(*args):
        return _down(40)
    return traced
