# Regression case for the tracer fault stale_class_attr (docs/FAULTS.md): it catches a tracer that
# gets this wrong as the fault does:
#  Class attributes (`class_attr`, and `type_dict` plain values on class access) are
#  served without their guard (the type's version tag and the instance dict) and
#  without the provenance assertion: within a traced call from the attribute cache (a
#  store to a class forgets only the class's own entries, not its instances'), and
#  across traced calls from a process-wide memo per (class, name) filled by earlier
#  calls.
# Reduced by `tracefuzz reduce` from a generated finding (gen --seed 5, gen-5-000002.tf), signature
# "PROVENANCE 1 ProvenanceError callable_attr".
# expect[identity]: OK
# expect[builtin]: OK
# expect[builtin faults=stale_class_attr]: PROVENANCE

import functools

def call_target(tag, *args):
    pass

class Base:
    callable_attr = functools.partial(call_target, 'c')  # tf: desc=callable_attr

def make():
    return (Base(),)

def program(a):
    a.callable_attr  # tf: access=class_del_read desc=callable_attr
    del type(a).callable_attr
    a.callable_attr
