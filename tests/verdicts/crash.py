# The target crashes: the process dies (segfault.py, as the program defines a
# property), jit(program) itself raises (broken_setup.py), or the target raises an
# exception of its own that eager did not (memo_assert.py's "out of sync"
# assertion, as in the motivating report): TARGET_CRASH.
# expect[tests/targets/segfault.py:jit]: TARGET_CRASH
# expect-report[tests/targets/segfault.py:jit]: signal
# expect[tests/targets/broken_setup.py:jit]: TARGET_CRASH
# expect-report[tests/targets/broken_setup.py:jit]: cannot prepare program
# expect[tests/targets/memo_assert.py:jit]: TARGET_CRASH
# expect-report[tests/targets/memo_assert.py:jit]: out of sync

LOG = []


class Counter:
    def __init__(self):
        self.n = 0

    @property  # tf: desc=prop_counter
    def tick(self):
        self.n += 1
        LOG.append(self.n)
        return [self.n]


def make():
    return (Counter(),)


def program(c):
    return c.tick, c.tick
