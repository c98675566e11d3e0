# Regression case for the tracer fault dict_before_data_desc (docs/FAULTS.md): it catches a tracer that
# gets this wrong as the fault does:
#  The generic load (`generic_get`, tracer/tr_attr_get.c) asks the instance dict before
#  the type's data descriptors.
# Reduced by `tracefuzz reduce` from a generated finding (gen --seed 5, gen-5-000004.tf), signature
# "PROVENANCE 3 ProvenanceError prop_attrerror".
# expect[identity]: OK
# expect[builtin]: OK
# expect[builtin faults=dict_before_data_desc]: PROVENANCE

class Base:
    @property  # tf: desc=prop_attrerror
    def attrerror_prop(self):
        pass

def make():
    return (Base(),)

def make_other():
    a = Base()
    a.__dict__["attrerror_prop"] = 's'  # the instance dict shadows the class's
    return (a,)

def program(a):
    global RESULTS  # rebound by every call
    RESULTS = out = [None] * 1  # tf: collect=stored
    a.attrerror_prop is a.attrerror_prop  # tf: access=identity desc=prop_attrerror
