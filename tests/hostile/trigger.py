# The first input of every tests/hostile run: an ordinary program that carries the
# marker the hostile targets look for (TF_HOSTILE), so that they misbehave on it
# and behave as the identity on the 50 generated inputs that follow.
# It reads attributes with getattr and hasattr (what a patched builtin breaks).
TF_HOSTILE = True
LOG = []


class Point:
    scale = 2

    def __init__(self, x, y):
        self.x = x
        self.y = y

    @property
    def norm(self):
        LOG.append("norm")
        return self.x + self.y


def make():
    return (Point(1, 2), Point(3, 4))


def program(p, q):
    LOG.append(("read", p.x, q.y))
    return (p.x * p.scale + q.y, getattr(p, "norm"), hasattr(q, "z"),
            getattr(q, "z", None))
