# The verdict matches but the report lacks the expected text: the run must fail.
# expect[tests/targets/memo_assert.py:jit]: TARGET_CRASH
# expect-report[tests/targets/memo_assert.py:jit]: this text is not in the report
class C:
    @property
    def fresh(self):
        return object()


def make():
    return (C(),)


def program(c):
    return c.fresh is c.fresh
