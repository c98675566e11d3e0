# Regression case for the tracer fault classmethod_binds_instance (docs/FAULTS.md): it catches a tracer that
# gets this wrong as the fault does:
#  On instance access (`c.m`, `c.m()`), a `classmethod` is bound to the instance
#  instead of `type(c)`: `cls` inside the method is the instance.
# Reduced by `tracefuzz reduce` from a generated finding (gen --seed 5, gen-5-000006.tf), signature
# "MISMATCH_RESULT 1 reused reread".
# expect[identity]: OK
# expect[builtin]: OK
# expect[builtin faults=classmethod_binds_instance]: MISMATCH_RESULT

class Base:
    def meth(self, *args):  # tf: desc=method
        pass
    @classmethod  # tf: desc=classmethod
    def cmeth(cls, *args):
        pass

def make():
    return (Base(),)

def program(a):
    out = []  # tf: collect=appended
    out.append(a.meth)  # tf: access=repeat_read desc=method
    out.append(a.cmeth)  # tf: access=repeat_read desc=classmethod
    return tuple(out)
