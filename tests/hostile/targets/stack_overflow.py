"""Lifts the recursion limit and overflows the C stack (repr of a list nested a
million deep): SIGSEGV."""
import sys
from _hostile import hostile


def _overflow():
    nested = []
    for _ in range(10 ** 6):
        nested = [nested]
    sys.setrecursionlimit(10 ** 8)
    repr(nested)


jit = hostile(_overflow)
