# Aliasing survives, addresses do not: r1 returns one object twice, r2 two
# distinct objects, r3 a list holding an object already seen in args.
LOG = []
class Box:
    def __init__(self, v):
        self.v = v
def make():
    shared = Box(1)
    return (shared, [shared, Box(2)])
def program(a, b):
    x = object()
    if len(LOG) == 0:
        LOG.append("same")
        return (x, x)
    if len(LOG) == 1:
        LOG.append("distinct")
        return (x, object())
    LOG.append("args")
    return [a, b[0], b]
