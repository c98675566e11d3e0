"""Toy target leaving a trace in the world: sets an extra attribute in each
argument's instance dict after the call (-> MISMATCH_STATE)."""


def jit(fn):
    def traced(*args):
        result = fn(*args)
        for a in args:
            d = getattr(a, "__dict__", None)
            if isinstance(d, dict):
                d["_tampered"] = True
        return result
    return traced
