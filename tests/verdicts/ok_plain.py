# A program every honest target passes: instance and class attributes, a stable
# property. Toy targets that only memoise reads agree with CPython here.
# expect[identity]: OK
# expect[tests/targets/memo_silent.py:jit]: OK
# expect[tests/targets/memo_assert.py:jit]: OK
# expect[tests/targets/segfault.py:jit]: OK

LOG = []


class Point:
    scale = 2

    def __init__(self, x, y):
        self.x = x
        self.y = y


def make():
    return (Point(1, 2), Point(3, 4))


def program(p, q):
    LOG.append(("read", p.x, q.y))
    return p.x * p.scale + q.y, p.x is p.x
