"""Empties sys.path, drops and poisons modules in sys.modules, lowers the recursion
limit: after its call returned, so its own input passes."""
import sys
from _hostile import hostile


def _poison():
    sys.path[:] = ["/nonexistent"]
    for name in ("functools", "collections", "types", "copy"):
        sys.modules[name] = None
    sys.setrecursionlimit(60)


jit = hostile(_poison, after=True)
