# A property makes a new object per read; a target memoising reads serves the first
# one again: shape `reused`, the statement's access family `reread`.
# expect[identity]: OK
# expect[tests/targets/memo_silent.py:jit]: MISMATCH_RESULT
# expect[tests/targets/wrapped_errors.py:jit]: TARGET_CRASH
EXPECTED = (AttributeError, ArithmeticError, LookupError, TypeError, ValueError)


class Base:
    @property  # tf: desc=prop_fresh
    def fresh_prop(self):
        return object()


def make():
    return (Base(),)


def program(a):
    out = []
    try:  # tf: access=repeat_read desc=prop_fresh
        out.append((a.fresh_prop, a.fresh_prop))
    except EXPECTED as e:
        out.append(("raised", type(e).__name__))
    return tuple(out)
