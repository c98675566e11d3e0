#tracefuzz-py
# The motivating report (MOTIVATING_BUG.md): a property returning a fresh object, read
# twice. A tracer assuming attribute reads are stable returns one object twice.
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
