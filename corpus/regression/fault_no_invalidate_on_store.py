# Regression case for the tracer fault no_invalidate_on_store (docs/FAULTS.md): it catches a tracer that
# gets this wrong as the fault does:
#  The replay forwards instance-dict loads (a load or store of `arg.name` remembered
#  and reused by the next load of it while nothing could have changed the dict); with
#  the fault, `STORE_ATTR` and `DELETE_ATTR` no longer forget the remembered values
#  (nor remember the stored one), so a load after a store returns the value before it.
# Reduced by `tracefuzz reduce` from a generated finding (gen --seed 5, gen-5-000191.tf), signature
# "PROVENANCE 2 ProvenanceError cached_prop+shadow_in_dict".
# expect[identity]: OK
# expect[builtin]: OK
# expect[builtin faults=no_invalidate_on_store]: PROVENANCE

class Base:
    def cached(self):  # tf: desc=cached_prop
        pass

def make():
    return (Base(),)

def between(a):
    a.__dict__["cached"] = 0  # tf: between=shadow_in_dict

def program(a):
    a.cached = 0  # tf: access=write_read desc=cached_prop
    a.cached
    a.cached = 1  # tf: access=write_read desc=cached_prop
    a.cached
