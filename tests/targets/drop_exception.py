"""Toy target swallowing exceptions: returns None where fn raised (-> MISMATCH_EXCEPTION)."""


def jit(fn):
    def traced(*args):
        try:
            return fn(*args)
        except Exception:
            return None
    return traced
