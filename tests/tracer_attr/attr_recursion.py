"""A RecursionError raised in traced code carries CPython's own message.

CPython 3.11 enters a Python frame with an empty suffix ("maximum recursion depth
exceeded"); the tracer used to say "... exceeded in traced code", which the fault-free
zoo run (bench/faultzoo.py) found as MISMATCH_EXCEPTION: a __getattr__ that reads a
missing attribute of self recurses until the limit. Eager vs tfjit.jit, no faults.
Usage: tfpython attr_recursion.py; one ctest."""
import sys

import tfjit
from attr_common import main

CASES = [
    ("getattr_recurses", """
class M:
    def __getattr__(self, name):
        return self.__missing["x"]
def make(): return (M(),)
def program(m):
    try:
        return m.x
    except RecursionError as e:
        return "RecursionError", str(e)
"""),
    ("function_recurses", """
def down(n): return down(n + 1)
def make(): return (0,)
def program(n):
    try:
        return down(n)
    except RecursionError as e:
        return "RecursionError", str(e)
"""),
]

if __name__ == "__main__":
    # What is checked is the message, not the depth: a lower limit keeps both runs
    # hitting CPython's RecursionError before the tracer's C-stack budget, which ASan's
    # larger frames reach first at the default limit of 1000 (docs/TRACER.md, limits).
    sys.setrecursionlimit(250)
    tfjit.set_faults("")
    sys.exit(main({"recursion": CASES}))
