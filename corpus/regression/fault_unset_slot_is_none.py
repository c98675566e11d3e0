# Regression case for the tracer fault unset_slot_is_none (docs/FAULTS.md): it catches a tracer that
# gets this wrong as the fault does:
#  Reading a `__slots__` member that was never set (or was deleted) gives `None`
#  instead of raising `AttributeError`; `hasattr` says True and `getattr(o, s, d)`
#  returns None.
# Reduced by `tracefuzz reduce` from a generated finding (gen --seed 5, gen-5-000002.tf), signature
# "MISMATCH_RESULT 1 value slot/probe".
# expect[identity]: OK
# expect[builtin]: OK
# expect[builtin faults=unset_slot_is_none]: MISMATCH_RESULT

class Base:
    __slots__ = "slot_val"
    # slot_val: a __slots__ member, left unset in make()  # tf: desc=slot

def make():
    return (Base(),)

def program(a):
    out = []  # tf: collect=appended
    out.append(hasattr(a, "slot_val"))  # tf: access=hasattr desc=slot
    return tuple(out)
