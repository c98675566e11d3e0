"""Toy target (issue 10, pattern dict_write_read): the honest caching JIT of
_cachejit.py, except that it misses writes behind the attribute protocol. It caches
plain attribute reads per call and drops them on `obj.k = v`, `del obj.k` and calls,
but treats `vars(obj)[k] = v` / `obj.__dict__[k] = v` (a store into a dict) and
`object.__setattr__(obj, k, v)` (taken for a pure builtin) as writing nothing, so a
re-read after such a write returns the value cached before it."""
from _cachejit import Runtime, make_jit


class _Rt(Runtime):
    ignore_dict_stores = True


jit = make_jit(_Rt)
