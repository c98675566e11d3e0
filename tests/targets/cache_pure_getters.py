"""Toy target (issue 10, pattern side_effect_read, getters): the honest caching JIT
of _cachejit.py, except that it assumes getters write nothing: after running a
property getter (or __getattr__, or any descriptor) natively it keeps its cache, so
another attribute the getter changed (an instance counter, a class-level counter)
is returned as cached before the getter ran."""
from _cachejit import Runtime, make_jit


class _Rt(Runtime):
    pure_getters = True


jit = make_jit(_Rt)
