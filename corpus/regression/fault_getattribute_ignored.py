# Regression case for the tracer fault getattribute_ignored (docs/FAULTS.md): it catches a tracer that
# gets this wrong as the fault does:
#  A class's Python-level `__getattribute__` override is skipped: the generic algorithm
#  (`object.__getattribute__`) resolves the attribute instead.
# Reduced by `tracefuzz reduce` from a generated finding (gen --seed 5, gen-5-000010.tf), signature
# "MISMATCH_RESULT 1 raises reread".
# expect[identity]: OK
# expect[builtin]: OK
# expect[builtin faults=getattribute_ignored]: MISMATCH_RESULT

class Base:
    def __getattribute__(self, name):  # tf: desc=getattribute_hook
        pass

def make():
    return (Base(),)

def program(a):
    out = []  # tf: collect=appended
    try:  # tf: access=identity desc=getattribute_hook
        out.append(a.hooked is a.hooked)
    except AttributeError as e:
        out.append(("raised", type(e).__name__))
    return tuple(out)
