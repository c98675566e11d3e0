# The motivating report (Lightning Thunder): a property returning a fresh object,
# read twice. Eager CPython returns two distinct objects; a tracer that assumes
# attribute reads are stable returns one object twice (silently) or trips its own
# assertion "attribute test of Test object out of sync".
# expect[identity]: OK
# expect[builtin]: OK
# expect[builtin faults=assume_stable_attrs]: PROVENANCE
# expect-report[builtin faults=assume_stable_attrs]: out of sync
# expect[tests/targets/memo_silent.py:jit]: MISMATCH_RESULT
# expect[tests/targets/memo_assert.py:jit]: TARGET_CRASH
# expect-report[tests/targets/memo_assert.py:jit]: out of sync

LOG = []


class Test:
    @property  # tf: desc=prop_fresh
    def test(self):
        LOG.append("test")
        return object()


def make():
    return (Test(),)


def program(t):
    # tf: access=repeat_read
    return t.test, t.test
