"""Shared by the memo_* toy targets: run fn with its arguments replaced by proxies
that memoise attribute reads per (object, name), like a tracer that assumes
`obj.x` returns the same object every time (the motivating bug's assumption)."""


class _Proxy:
    __slots__ = ("_tf_obj", "_tf_cache", "_tf_check")

    def __init__(self, obj, check):
        object.__setattr__(self, "_tf_obj", obj)
        object.__setattr__(self, "_tf_cache", {})
        object.__setattr__(self, "_tf_check", check)

    def __getattr__(self, name):
        obj = object.__getattribute__(self, "_tf_obj")
        cache = object.__getattribute__(self, "_tf_cache")
        if name in cache:
            cached = cache[name]
            if object.__getattribute__(self, "_tf_check"):
                fresh = getattr(obj, name)
                if fresh is not cached:
                    raise AssertionError(
                        f"attribute {name} of {type(obj).__name__} object out of sync: "
                        f"{cached} vs. {fresh}")
            return cached
        value = getattr(obj, name)
        cache[name] = value
        return value

    def __setattr__(self, name, value):
        object.__getattribute__(self, "_tf_cache").pop(name, None)
        setattr(object.__getattribute__(self, "_tf_obj"), name, value)

    def __delattr__(self, name):
        object.__getattribute__(self, "_tf_cache").pop(name, None)
        delattr(object.__getattribute__(self, "_tf_obj"), name)


def _unwrap(value):
    if isinstance(value, _Proxy):
        return object.__getattribute__(value, "_tf_obj")
    if type(value) is tuple:
        return tuple(_unwrap(v) for v in value)
    if type(value) is list:
        return [_unwrap(v) for v in value]
    return value


def _wrap(value, check):
    # Values of builtin types (ints, strings, tuples ...) are not objects whose
    # attribute reads a tracer would cache: they pass as they are.
    if type(value).__module__ == "builtins":
        return value
    return _Proxy(value, check)


def memo_jit(fn, check):
    def traced(*args):
        return _unwrap(fn(*(_wrap(a, check) for a in args)))
    return traced
