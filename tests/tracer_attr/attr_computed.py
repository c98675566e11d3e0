"""C data descriptors that compute their value must never be cached (tr_cache.c).

Only T_OBJECT / T_OBJECT_EX member descriptors (what __slots__ make) hold a stored
object; a T_DOUBLE member such as complex.real and a getset such as
memoryview.shape build a new object on every read. A tracer that cached them took
the second read for a missed invalidation: "ProvenanceError: attribute real of
complex object out of sync". Each case runs eager vs tfjit.jit without faults.
Usage: tfpython attr_computed.py; one ctest."""
import sys

import tfjit
from attr_common import main, trace_text

CASES = {
    "complex_member_after_hasattr": """
def make(): return (3j,)
def program(x):
    h = hasattr(x, "real")
    return h, x.real, x.real, x.imag, x.real is x.real
""",
    "complex_member_repeat": """
def make(): return (complex(1.5, 2.5),)
def program(x):
    a = x.real
    return a, x.real, getattr(x, "imag"), x.imag
""",
    "getset_fresh_tuple": """
def make(): return (memoryview(b"abcd"),)
def program(m):
    a = m.shape
    return a, m.shape, hasattr(m, "shape"), m.shape is a
""",
    "slot_still_cached": """
class C:
    __slots__ = ("s",)
def make():
    c = C()
    c.s = [1]
    return (c,)
def program(c):
    a = c.s
    return a, c.s, a is c.s
""",
}

# (case, attribute, whether its repeated read must be a cache hit)
CACHING = [("complex_member_after_hasattr", "real", False), ("getset_fresh_tuple", "shape", False),
           ("slot_still_cached", "s", True)]


def check_caching():
    """The trace of one traced call marks cache hits "LOAD_ATTR name [cached]"."""
    bad = 0
    for case, attr, cached in CACHING:
        ns = {"LOG": []}
        exec(CASES[case], ns)
        try:
            tfjit.jit(ns["program"])(*ns["make"]())
        except Exception as e:     # the tracer's ProvenanceError: a wrong cache hit
            print(f"FAIL {case}: {type(e).__name__}: {e}")
            bad += 1
            continue
        hit = f"LOAD_ATTR {attr} [cached]" in trace_text()
        print(f"{'ok  ' if hit == cached else 'FAIL'} {case}: {attr} read from the cache: {hit}")
        bad += hit != cached
    return bad


if __name__ == "__main__":
    tfjit.set_faults("")
    rc = main({"computed": list(CASES.items())})
    sys.exit(1 if check_caching() or rc else 0)
