"""Argument binding of interpreted calls (ceval's initialize_locals) and its messages."""
from tc_util import check, finish


def pos(a, b, c=3): return (a, b, c)
def kwonly(a, *, k, m=2): return (a, k, m)
def star(a, *args, **kw): return (a, args, sorted(kw.items()))
def posonly(a, b, /, c): return (a, b, c)
def posonly_kw(a, /, **kw): return (a, kw)
def many(a, b, c, d): return a


def calls_pos(): return pos(1, 2), pos(1, b=5), pos(c=1, b=2, a=0)
def calls_kwonly(): return kwonly(1, k=2), kwonly(a=1, k=3, m=4)
def calls_star(): return star(1, 2, 3, x=4, y=5), star(*[1, 2], **{"z": 1})
def calls_posonly(): return posonly(1, 2, 3), posonly(1, 2, c=3), posonly_kw(1, a=2)
def calls_ex():
    args, kw = (1,), {"b": 2}
    return pos(*args, **kw), star(*range(3), **dict(q=1))
def missing_one(): return pos(1)
def missing_three(): return many(1)
def missing_two(): return many(1, 2)
def missing_kwonly(): return kwonly(1)
def too_many(): return pos(1, 2, 3, 4)
def too_many_one(): return many(1, 2, 3, 4, 5)
def too_many_with_kwonly(): return kwonly(1, 2, k=3)
def unexpected_kw(): return pos(1, 2, z=3)
def multiple_values(): return pos(1, 2, a=3)
def posonly_as_kw(): return posonly(1, b=2, c=3)
def star_not_iterable(): return pos(*5)
def kw_not_mapping(): return pos(1, **5)
def kw_dup(): return pos(1, **{"b": 1}, **{"b": 2})


class K:
    def m(self, x, y=10): return (self.__class__.__name__, x, y)
    @staticmethod
    def s(x): return x * 2
    @classmethod
    def c(cls, x): return (cls.__name__, x)


def methods(): k = K(); return k.m(1), k.m(x=2, y=3), K.s(4), K.c(5), k.c(6), K.m(k, 7)
def method_missing(): return K().m()
def lambdas(): f = lambda a, b=2, *c, d=4, **e: (a, b, c, d, e); return f(1), f(1, 2, 3, d=5, z=6)
def defaults_shared():
    def f(x, acc=[]): acc.append(x); return len(acc)
    return f(1), f(2), f(3, [])


import functools
def partials():
    p = functools.partial(kwonly, 1, m=5)
    q = functools.partial(p, k=0)
    return p(k=2), p(k=3, m=4), q(), functools.partial(star, 1, 2)(3, z=4)
def partial_errors(): return functools.partial(pos, 1, 2)(3, 4)
def partial_kw_dup(): return functools.partial(pos, 1, b=2)(2)
class PM:
    def m(self, a, b=0): return (type(self).__name__, a, b)
    pm = functools.partialmethod(m, 7)
    sm = staticmethod(lambda x: -x)
def partialmethods(): o = PM(); return o.pm(), o.pm(b=1), PM.__dict__["sm"](3)


for fn in [partials, partial_errors, partial_kw_dup, partialmethods, calls_pos, calls_kwonly, calls_star, calls_posonly, calls_ex, missing_one,
           missing_three, missing_two, missing_kwonly, too_many, too_many_one,
           too_many_with_kwonly, unexpected_kw, multiple_values, posonly_as_kw,
           star_not_iterable, kw_not_mapping, kw_dup, methods, method_missing, lambdas,
           defaults_shared]:
    check(fn)
finish()
