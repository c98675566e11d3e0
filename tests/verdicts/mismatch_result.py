# A target returning something else than the program: MISMATCH_RESULT.
# expect[identity]: OK
# expect[tests/targets/change_result.py:jit]: MISMATCH_RESULT


class C:
    def __init__(self):
        self.x = 20


def make():
    return (C(),)


def program(c):
    return c.x + 1
