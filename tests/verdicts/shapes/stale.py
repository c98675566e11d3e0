# A read, a write, a read again of one attribute in one call; a target whose memo
# misses the write (stale_writes.py) reads the old value: shape `stale`, family
# `write`. The same after `del` (eager raises AttributeError, the target does not).
# expect[identity]: OK
# expect[tests/targets/stale_writes.py:jit]: MISMATCH_RESULT
EXPECTED = (AttributeError, ArithmeticError, LookupError, TypeError, ValueError)


class Base:
    def __init__(self):
        self.inst_val = 1  # tf: desc=inst_attr


def make():
    return (Base(),)


def program(a):
    out = []
    try:  # tf: access=repeat_read desc=inst_attr
        out.append(a.inst_val)
    except EXPECTED as e:
        out.append(("raised", type(e).__name__))
    try:  # tf: access=write_read desc=inst_attr
        a.inst_val = 2
        out.append(a.inst_val)
    except EXPECTED as e:
        out.append(("raised", type(e).__name__))
    return tuple(out)
