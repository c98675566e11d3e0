# Regression case for the tracer fault no_getattr_after_getter_error (docs/FAULTS.md): it catches a tracer that
# gets this wrong as the fault does:
#  `__getattr__` is called only when the attribute is not found at all; when a getter
#  (a property's fget, a `__get__`) raises `AttributeError`, the error propagates
#  instead of falling back to `__getattr__`, as CPython's `slot_tp_getattr_hook` does
#  for any `AttributeError` out of `__getattribute__`.
# Reduced by `tracefuzz reduce` from a generated finding (gen --seed 5, gen-5-000004.tf), signature
# "MISMATCH_RESULT 1 raises reread".
# expect[identity]: OK
# expect[builtin]: OK
# expect[builtin faults=no_getattr_after_getter_error]: MISMATCH_RESULT

class Base:
    def __getattr__(self, name):  # the fallback of prop_attrerror
        pass
    @property  # tf: desc=prop_attrerror
    def attrerror_prop(self):
        raise AttributeError()  # __getattr__ may take over

def make():
    return (Base(),)

def program(a):
    out = []  # tf: collect=appended
    try:  # tf: access=identity desc=prop_attrerror
        out.append(a.attrerror_prop is a.attrerror_prop)
    except AttributeError as e:
        out.append(("raised", type(e).__name__))
    return tuple(out)
