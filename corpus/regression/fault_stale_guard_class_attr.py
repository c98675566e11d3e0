# Regression case for the tracer fault stale_guard_class_attr (docs/FAULTS.md): it catches a tracer that
# gets this wrong as the fault does:
#  The identity guard on a plain class attribute (the MRO lookup of the name, for
#  instance loads and class access, on the class and on the metatype) is not checked,
#  neither when a trace is chosen nor inline.
# Reduced by `tracefuzz reduce` from a generated finding (gen --seed 5, gen-5-000120.tf), signature
# "PROVENANCE 3 ProvenanceError nondata_desc".
# expect[identity]: OK
# expect[builtin]: OK
# expect[builtin faults=stale_guard_class_attr]: PROVENANCE

class NonDataDesc:
    def __get__(self, obj, objtype=None):
        pass

class Base:
    nondata_attr = NonDataDesc()  # tf: desc=nondata_desc

def make():
    return (Base(),)

def between(a):
    Base.nondata_attr = 0  # tf: between=rebind_class_attr

def program(a):
    a.nondata_attr  # tf: access=class_write_read desc=nondata_desc
    type(a).nondata_attr = (0,)
