"""Toy target (issue 10, collect mode stored: re-reads in later statements): the
honest caching JIT of _cachejit.py, except that `del obj.k` of a plain instance-dict
entry does not drop the cached read of obj.k (it counts on the re-read going through
a call such as getattr(obj, k, default), which drops the cache anyway). Programs
that end every statement in out.append(...) never show it; a program that stores
its results without calls re-reads a value cached in an earlier statement after the
del, and gets the deleted value back."""
from _cachejit import Runtime, make_jit


class _Rt(Runtime):
    ignore_plain_del = True


jit = make_jit(_Rt)
