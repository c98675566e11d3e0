# Regression case for the tracer fault stale_dict_write (docs/FAULTS.md): it catches a tracer that
# gets this wrong as the fault does:
#  A write into a dict (`obj.__dict__[k] = v`, `vars(obj)[k] = v`, `del
#  obj.__dict__[k]`, the dict's writing methods) does not invalidate the attribute
#  cache, and an instance-dict entry is served while the object keeps its type and
#  dict, without the dict-version guard or the provenance assertion: a read of `obj.k`
#  after the write returns the value before it.
# Reduced by `tracefuzz reduce` from a generated finding (gen --seed 5, gen-5-000002.tf), signature
# "PROVENANCE 1 ProvenanceError callable_attr".
# expect[identity]: OK
# expect[builtin]: OK
# expect[builtin faults=stale_dict_write]: PROVENANCE

import functools

def call_target(tag, *args):
    pass

class Base:
    callable_attr = functools.partial(call_target, 'c')  # tf: desc=callable_attr

def make():
    return (Base(),)

def program(a):
    a.callable_attr  # tf: access=dict_write_read desc=callable_attr
    a.__dict__["callable_attr"] = 3
    a.callable_attr
