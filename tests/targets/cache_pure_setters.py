"""Toy target (issue 10, pattern side_effect_read, setters): the honest caching JIT
of _cachejit.py, except that it assumes a Python setter changes only its own
attribute: `obj.k = v` through a property drops only the cached reads of `k`, so an
attribute the setter also wrote (prop_setdel's `_k` entry) is returned as cached
before the write."""
from _cachejit import Runtime, make_jit


class _Rt(Runtime):
    pure_setters = True


jit = make_jit(_Rt)
