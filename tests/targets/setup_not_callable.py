"""Toy target returning something that is not callable from jit(fn) (a common
mistake: forgetting to return the wrapper). A problem of the target: exit 2."""


def jit(fn):
    def wrapper(*args):
        return fn(*args)
    # forgot: return wrapper
