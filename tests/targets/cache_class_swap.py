"""Toy target (issue 10, pattern class_swap_read): the honest caching JIT of
_cachejit.py, except that `obj.__class__ = Other` does not drop its cache (it is
taken for a store of the attribute `__class__` only), so a read served by the old
class is returned again after the swap."""
from _cachejit import Runtime, make_jit


class _Rt(Runtime):
    ignore_class_swap = True


jit = make_jit(_Rt)
