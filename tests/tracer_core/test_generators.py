"""Generators interpreted by the tracer (tr_gen.c): next/send/throw/close, yield from
with delegation, PEP 479, finalisation, generator expressions consumed by C code, and a
generator resumed after the run that made it ended."""
import gc

import tfjit
from tc_util import check, expect, finish


def gen(k, log):
    try:
        for i in range(k):
            x = yield i * i
            if x:
                yield ("got", x)
    finally:
        log.append("fin")
    return "done"


def basics():
    log = []
    g = gen(3, log)
    return list(gen(3, log)), next(g), g.send(5), next(g), log
def exhausted():
    g = gen(1, [])
    return list(g), list(g), next(g, "default")
def send_non_none():
    return gen(1, []).send(1)
def close_runs_finally():
    log = []
    g = gen(3, log); next(g); g.close(); g.close()
    return log, list(g)
def throw_caught():
    def catcher():
        while True:
            try:
                yield 1
            except KeyError as e:
                yield ("caught", e.args)
    g = catcher(); next(g)
    return g.throw(KeyError("k")), g.throw(KeyError, KeyError("c")), next(g)
def throw_uncaught():
    g = gen(3, []); next(g)
    g.throw(ValueError("v"))
def yield_from():
    log = []
    def outer():
        r = yield from gen(2, log)
        log.append(r)
        r2 = yield from iter([7, 8])
        return r2
    return list(outer()), log
def yield_from_throw():
    def inner():
        try:
            yield 1
        except KeyError:
            return "inner handled"
    def outer():
        r = yield from inner()
        yield r
    g = outer(); next(g)
    return g.throw(KeyError("x"))
def yield_from_close():
    log = []
    def outer():
        yield from gen(5, log)
    g = outer(); next(g); g.close()
    return log
def pep479():
    def stopper():
        yield 1
        raise StopIteration("s")
    return list(stopper())
def ignores_exit():
    def stubborn():
        try:
            yield 1
        except GeneratorExit:
            yield 2
    g = stubborn(); next(g)
    g.close()
def genexprs(xs):
    return sum(x * 2 for x in xs), any(x > 2 for x in xs), dict((x, x) for x in xs), \
        sorted((x for x in xs), reverse=True)
def running_error():
    def selfref():
        yield next(g)
    g = selfref()
    return next(g)
def exc_info_in_generator():
    import sys
    def g():
        try:
            raise KeyError("in gen")
        except KeyError:
            yield sys.exc_info()[0].__name__
        yield sys.exc_info()[0]
    try:
        raise ValueError("outer")
    except ValueError:
        return list(g())


class Acc:
    def __init__(self):
        self.v = 1
class Wrap:
    def __init__(self, v, acc):
        self.v, self.acc = v, acc
    def __radd__(self, other):   # run natively by sum(), between two resumes
        self.acc.v += 10
        return other + self.v
def c_consumer_mutates_between_resumes():
    acc = Acc()
    return sum(Wrap(acc.v, acc) for _ in range(4)), acc.v


for fn, args in [(c_consumer_mutates_between_resumes, ()), (basics, ()), (exhausted, ()), (send_non_none, ()), (close_runs_finally, ()),
                 (throw_caught, ()), (throw_uncaught, ()), (yield_from, ()),
                 (yield_from_throw, ()), (yield_from_close, ()), (pep479, ()),
                 (ignores_exit, ()), (genexprs, ([1, 2, 3],)), (running_error, ()),
                 (exc_info_in_generator, ())]:
    check(fn, *args)


# A generator returned by the traced call runs after the run ended, in a run of its own.
class Box:
    @property
    def item(self):
        return [1]
def make_gen(b):
    return (b.item for _ in range(3))
g = tfjit.jit(make_gen)(Box())
items = list(g)
expect(type(g).__name__ == "generator" and len(items) == 3 and items[0] is not items[1],
       f"generator resumed after its run: {items}")

# Finalisation closes a suspended generator (its finally runs).
log = []
def suspended(log):
    g = gen(3, log)
    next(g)
    return g
g = tfjit.jit(suspended)(log)
del g
gc.collect()
expect(log == ["fin"], f"collected generator closed: {log}")
finish()
