# Regression case for the tracer fault dict_shadow_unguarded (docs/FAULTS.md): it catches a tracer that
# gets this wrong as the fault does:
#  The guard that an instance dict key is absent (for a non-data descriptor or a class
#  attribute found on the type) is not checked: after `obj.__dict__[name] = v`, the
#  replay still calls the descriptor's `__get__` (or reuses the class attribute)
#  instead of returning the dict's value.
# Reduced by `tracefuzz reduce` from a generated finding (gen --seed 5, gen-5-000071.tf), signature
# "PROVENANCE 2 ProvenanceError partialmethod".
# expect[identity]: OK
# expect[builtin]: OK
# expect[builtin faults=dict_shadow_unguarded]: PROVENANCE

import functools

def pm_target(self, tag, *args):
    pass

class Base:
    pmeth = functools.partialmethod(pm_target, 'p')  # tf: desc=partialmethod

def make():
    return (Base(),)

def program(a):
    a.pmeth  # tf: access=dict_write_read desc=partialmethod
    vars(a)["pmeth"] = 1
