# The reducer's input for tests/targets/drift.py (tests/cli/reduce_test.sh): a
# program with much that does not matter, a try: around the statement that does,
# and helper_b, whose removal would change the failure (TARGET_CRASH ->
# MISMATCH_RESULT).
import functools

LOG = []


class Unused:
    """Nobody reads this class."""

    def method(self):
        return 1

    @property
    def prop(self):
        return [2]


class Point:
    """What program() reads."""

    scale = 2

    def __init__(self, x, y):
        self.x = x
        self.y = y

    @functools.cached_property
    def norm(self):
        LOG.append("norm")
        return self.x * self.x + self.y * self.y

    @staticmethod
    def origin():
        return (0, 0)


def helper_a(v):
    return v + 1


def helper_b(v):
    return v - 1


def make():
    p = Point(1, 2)
    q = Point(3, 4)
    return (p, q)


def program(p, q):
    out = []
    try:
        out.append(p.x * p.scale + q.y)
    except (AttributeError, TypeError) as e:
        out.append(("raised", type(e).__name__))
    out.append(helper_a(q.x))
    out.append(p.norm)
    for i in range(2):
        out.append(q.origin())
    return tuple(out)
