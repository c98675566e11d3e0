"""Toy target (issue 10, pattern shadow_read): the honest caching JIT of
_cachejit.py, except that a store into a dict (`vars(obj)[k] = v`,
`obj.__dict__[k] = v`) drops only the cached reads that came from an instance dict.
A read served by the class (a class attribute, a class-level list) stays cached, so
after an instance-dict entry starts shadowing it the re-read returns the class's
value."""
from _cachejit import Runtime, make_jit


class _Rt(Runtime):
    dict_store_keeps_class = True


jit = make_jit(_Rt)
