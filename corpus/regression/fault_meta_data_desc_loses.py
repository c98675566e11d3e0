# Regression case for the tracer fault meta_data_desc_loses (docs/FAULTS.md): it catches a tracer that
# gets this wrong as the fault does:
#  On class access (`C.x`), when the class's MRO has `x` too, the class's own entry
#  wins over a data descriptor of the metaclass written in Python (a `property` or a
#  class with `__set__` on the metaclass).
# Reduced by `tracefuzz reduce` from a generated finding (gen --seed 5, gen-5-000001.tf), signature
# "MISMATCH_RESULT 1 value meta_data_desc/reread".
# expect[identity]: OK
# expect[builtin]: OK
# expect[builtin faults=meta_data_desc_loses]: MISMATCH_RESULT

class MetaDesc:
    def __get__(self, cls, meta=None):
        pass
    def __set__(self, cls, value):
        pass

class Meta(type):
    meta_desc = MetaDesc()  # tf: desc=meta_data_desc

class Base(metaclass=Meta):
    meta_desc = 'm'  # Meta.meta_desc wins on class access

def make():
    return (Base(),)

def program(a):
    out = []  # tf: collect=appended
    out.append(type(a).meta_desc)  # tf: access=repeat_read desc=meta_data_desc
    return tuple(out)
