# Regression case for the tracer fault skip_getter_on_replay (docs/FAULTS.md): it catches a tracer that
# gets this wrong as the fault does:
#  The trace keeps the result of each getter it ran (property, `__get__`,
#  `__getattr__`, metaclass descriptors) and a replay returns it instead of running the
#  getter again.
# Reduced by `tracefuzz reduce` from a generated finding (gen --seed 5, gen-5-000001.tf), signature
# "MISMATCH_RESULT 2 stale write".
# expect[identity]: OK
# expect[builtin]: OK
# expect[builtin faults=skip_getter_on_replay]: MISMATCH_RESULT

class Meta(type):
    def meta_prop(cls):  # tf: desc=meta_prop
        pass

class Base(metaclass=Meta):
    pass

def make():
    return (Base(),)

def program(a):
    out = []  # tf: collect=appended
    type(a).meta_prop  # tf: access=side_effect_read desc=meta_prop
    out.append(type(a).meta_prop)
    return tuple(out)
