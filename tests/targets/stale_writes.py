"""Toy target: memoises attribute reads per (object, name) for the whole call and
forgets to drop the memo when the program writes or deletes the attribute (a
tracer whose cache misses its own stores). A read after a write or `del` sees the
old value: MISMATCH_RESULT, shape `stale`."""
from _proxy import _Proxy, _unwrap


class _StaleProxy(_Proxy):
    __slots__ = ()

    def __setattr__(self, name, value):
        setattr(object.__getattribute__(self, "_tf_obj"), name, value)

    def __delattr__(self, name):
        delattr(object.__getattribute__(self, "_tf_obj"), name)


def jit(fn):
    def traced(*args):
        # values of builtin types pass as they are: nothing to cache there
        return _unwrap(fn(*(a if type(a).__module__ == "builtins" else _StaleProxy(a, False)
                            for a in args)))
    return traced
