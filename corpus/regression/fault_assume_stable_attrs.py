# Regression case for the tracer fault assume_stable_attrs (docs/FAULTS.md): it catches a tracer that
# gets this wrong as the fault does:
#  The tracer assumes that reading an attribute twice yields the same object, whatever
#  the attribute is.
# Reduced by `tracefuzz reduce` from a generated finding (gen --seed 5, gen-5-000000.tf), signature
# "PROVENANCE 1 ProvenanceError method".
# expect[identity]: OK
# expect[builtin]: OK
# expect[builtin faults=assume_stable_attrs]: PROVENANCE

class Base:
    def meth(self, *args):  # tf: desc=method
        pass

def make():
    return (Base(),)

def program(a):
    a.meth is a.meth  # tf: access=identity desc=method
