# The program raises (a property raising KeyError); a target that swallows it
# returns None instead: MISMATCH_EXCEPTION.
# expect[identity]: OK
# expect[tests/targets/drop_exception.py:jit]: MISMATCH_EXCEPTION


class C:
    @property  # tf: desc=prop_raises
    def broken(self):
        raise KeyError("broken")


def make():
    return (C(),)


def program(c):
    return c.broken
