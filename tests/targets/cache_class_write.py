"""Toy target (issue 10, patterns class_write_read and class_del_read): the honest
caching JIT of _cachejit.py, except that writes to classes do not drop its cache:
`type(obj).k = v`, `C.k = v`, `setattr(type(obj), k, v)` and `del type(obj).k`. A
re-read through an instance after a class attribute was rebound or deleted mid-call
returns the value cached before."""
from _cachejit import Runtime, make_jit


class _Rt(Runtime):
    ignore_class_writes = True


jit = make_jit(_Rt)
