# Regression case for the tracer fault cached_property_recomputed (docs/FAULTS.md): it catches a tracer that
# gets this wrong as the fault does:
#  When the instance dict holds the value a `functools.cached_property` stored there,
#  the tracer ignores it and runs the property's function again (as if it were a
#  `property`), on every read after the first.
# Reduced by `tracefuzz reduce` from a generated finding (gen --seed 5, gen-5-000003.tf), signature
# "PROVENANCE 1 ProvenanceError cached_prop".
# expect[identity]: OK
# expect[builtin]: OK
# expect[builtin faults=cached_property_recomputed]: PROVENANCE

import functools

class Base:
    @functools.cached_property  # tf: desc=cached_prop
    def cached(self):
        return [0]  # computed once, then served from the instance dict

def make():
    return (Base(),)

def program(a):
    a.cached is a.cached  # tf: access=identity desc=cached_prop
