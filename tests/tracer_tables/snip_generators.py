"""Snippets: generators in depth (all gen=True: tfjit.Unsupported is accepted, a wrong
answer is not): dropping a suspended generator, PEP 479, re-entrancy, throw/close through
yield from, yield inside with/try, generator attributes, nested jit calls."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tt_driver import Table  # noqa: E402

T = Table("generators")

T.add("dropped_suspended_runs_finally", """
def g():
    try:
        yield 1
        yield 2
    finally:
        LOG.append("finally")
def make(): return ()
def program():
    it = g()
    first = next(it)
    LOG.append("before drop")
    del it
    LOG.append("after drop")
    return first
""", gen=True)
T.add("pep479_stopiteration_inside", """
def g():
    yield 1
    raise StopIteration("inner")
def make(): return ()
def program():
    try:
        return list(g())
    except RuntimeError as e:
        return str(e), type(e.__cause__).__name__
""", gen=True)
T.add("generator_already_executing", """
def make(): return ()
def program():
    def g():
        yield me_next()
    it = g()
    me_next = lambda: next(it)
    try:
        next(it)
    except ValueError as e:
        return str(e)
""", gen=True)
T.add("send_non_none_to_fresh", """
def g():
    yield 1
def make(): return ()
def program():
    try:
        g().send(5)
    except TypeError as e:
        return str(e)
""", gen=True)
T.add("next_after_exhaustion", """
def g():
    yield 1
    return "done"
def make(): return ()
def program():
    it = g()
    r = [next(it)]
    for _ in range(2):
        try:
            next(it)
        except StopIteration as e:
            r.append(("stop", e.value))
    return r
""", gen=True)
T.add("throw_through_yield_from", """
def inner():
    try:
        yield "i1"
    except KeyError:
        LOG.append("inner caught")
        yield "i2"
def outer():
    r = yield from inner()
    yield ("outer", r)
def make(): return ()
def program():
    it = outer()
    a = next(it)
    b = it.throw(KeyError("k"))
    c = next(it)
    return a, b, c
""", gen=True)
T.add("close_through_yield_from", """
def inner():
    try:
        yield 1
    finally:
        LOG.append("inner closed")
def outer():
    try:
        yield from inner()
    finally:
        LOG.append("outer closed")
def make(): return ()
def program():
    it = outer()
    next(it)
    it.close()
    return "closed"
""", gen=True)
T.add("yield_inside_with", """
class CM:
    def __enter__(self):
        LOG.append("enter")
        return self
    def __exit__(self, *a):
        LOG.append(("exit", a[0].__name__ if a[0] else None))
def g():
    with CM():
        yield 1
        yield 2
def make(): return ()
def program():
    it = g()
    r = next(it)
    it.close()
    return r
""", gen=True)
T.add("generator_attributes", """
def g():
    yield 1
def make(): return ()
def program():
    it = g()
    before = (it.gi_running, it.gi_frame is not None, it.__name__, it.__qualname__)
    next(it)
    list(it)
    return before, it.gi_frame is None, type(it).__name__
""", gen=True)
T.add("generator_iterated_twice", """
def make(): return ([1, 2, 3],)
def program(xs):
    g = (x * 2 for x in xs)
    return list(g), list(g)
""", gen=True)
T.add("generator_sees_later_mutation", """
def make(): return ([1, 2],)
def program(xs):
    g = (x for x in xs)
    xs.append(3)
    return list(g)
""", gen=True)
T.add("generator_attribute_reads_lazily", """
class C:
    def __init__(self): self.n = 0
    @property
    def tick(self):
        self.n += 1
        LOG.append(("tick", self.n))
        return self.n
def make(): return (C(),)
def program(c):
    g = (c.tick for _ in range(3))
    LOG.append("created")
    first = next(g)
    LOG.append("one consumed")
    return first, list(g)
""", gen=True)
T.add("infinite_generator_islice", """
import itertools
def naturals():
    n = 0
    while True:
        yield n
        n += 1
def make(): return ()
def program():
    return list(itertools.islice(naturals(), 5)), next(x for x in naturals() if x > 10)
""", gen=True)
T.add("generator_returned_to_caller", """
def make(): return ([3, 1, 2],)
def program(xs):
    def sorted_gen():
        for x in sorted(xs):
            LOG.append(("yield", x))
            yield x
    return sorted_gen()
""", gen=True)
T.add("nested_jit_call", """
import importlib.util
if importlib.util.find_spec("tfjit") is not None:
    import tfjit
    JIT = getattr(tfjit, "jit", lambda f: f)
else:
    JIT = lambda f: f
class C:
    @property
    def p(self):
        LOG.append("p")
        return [1]
def inner(c):
    return c.p, c.p
def make(): return (C(),)
def program(c):
    a, b = JIT(inner)(c)
    return a is b, a, c.p
""")

if __name__ == "__main__":
    T.main()
