"""Reference counts: traced calls leave the refcounts of their inputs, of constants,
globals and of the exceptions they raise where eager calls leave them."""
import gc
import sys

import tfjit
from tc_util import expect, finish


class Obj:
    cls_attr = [1]
    def __init__(self):
        self.items = [1, 2, 3]
    @property
    def prop(self):
        return self.items
    def meth(self, *a, **k):
        return len(a) + len(k)


SENTINEL = object()


def busy(o, s):
    r = [o.prop, o.cls_attr, o.meth(1, 2, k=s), getattr(o, "nope", s)]
    for i in o.items:
        try:
            if i == 2:
                raise KeyError(s)
        except KeyError as e:
            r.append(e.args[0] is s)
    with open(__file__) as fh:
        r.append(len(fh.readline()) > 0)
    d = {"s": s, **{"t": s}}
    x, *y = [s, s, s]
    r.append(f"{len(y)}{d['t'] is s}")
    class Local:
        a = s
    r.append(Local.a is s)
    return [v for v in r if v is not s]


def raises(o, s):
    return o.missing


o = Obj()
f = tfjit.jit(busy)
f(o, SENTINEL)   # warm up caches (interned names, lazily created helpers)
gc.collect()     # classes made by the calls live in reference cycles
before = (sys.getrefcount(o), sys.getrefcount(SENTINEL), sys.getrefcount(Obj),
          sys.getrefcount(o.items))
for _ in range(50):
    f(o, SENTINEL)
gc.collect()
after = (sys.getrefcount(o), sys.getrefcount(SENTINEL), sys.getrefcount(Obj),
         sys.getrefcount(o.items))
expect(before == after, f"refcounts stable over 50 calls: {before} -> {after}")

g = tfjit.jit(raises)
def call_raises():
    try:
        g(o, SENTINEL)
    except AttributeError:
        pass
call_raises()
before = (sys.getrefcount(o), sys.getrefcount(SENTINEL))
for _ in range(50):
    call_raises()
after = (sys.getrefcount(o), sys.getrefcount(SENTINEL))
expect(before == after, f"refcounts stable over 50 failing calls: {before} -> {after}")
# A call moves its arguments into the callee's frame (CPython's CALL does): the
# callee's `del` frees its argument at once.
LOG = []
class Fin:
    def __del__(self):
        LOG.append("del")
def consume(x):
    del x
    LOG.append("after del")
def calls_consume():
    consume(Fin())
    LOG.append("end")
calls_consume()
eager = LOG[:]
LOG.clear()
tfjit.jit(calls_consume)()
expect(LOG == eager == ["del", "after del", "end"], f"argument freed by the callee: {LOG} vs {eager}")
finish()
