"""Toy target whose jit(fn) itself raises: the target failed to set up (-> TARGET_CRASH)."""


def jit(fn):
    raise RuntimeError(f"cannot prepare {fn.__name__}")
