# The reducer's .py input (tests/cli/reduce_test.sh): the motivating bug of
# docs/FAULTS.md (assume_stable_attrs: a property building a new object, read twice)
# inside a try:, among members, classes and statements that do not matter.
LOG = []
EXPECTED = (AttributeError, TypeError)


class Other:
    """Nobody reads this class."""

    kind = "other"

    def method(self):
        return [1]


class Test:
    """The class of the report."""

    label = "test"

    @property  # tf: desc=prop_fresh
    def test(self):
        LOG.append(("get", "Test.test"))
        return object()

    @staticmethod
    def helper(*args):
        return ("helper", args)

    def __repr__(self):
        return "Test()"


def make():
    t = Test()
    o = Other()
    return (t, o)


def program(t, o):
    out = []
    out.append(o.kind)
    try:  # tf: access=identity desc=prop_fresh
        out.append(t.test is t.test)
    except EXPECTED as e:
        out.append(("raised", type(e).__name__))
    out.append(t.label)
    out.append(t.helper(1))
    for i in range(3):
        out.append(o.method())
    return tuple(out)
