# Same results and events, but the target leaves an extra attribute in the
# argument's instance dict: MISMATCH_STATE.
# expect[identity]: OK
# expect[tests/targets/mutate_state.py:jit]: MISMATCH_STATE


class C:
    def __init__(self):
        self.x = 5


def make():
    return (C(),)


def program(c):
    return c.x
