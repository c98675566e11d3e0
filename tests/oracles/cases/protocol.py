# The whole protocol: between mutates the world, make_other builds another shape,
# LOG grows step by step, state shows args and args2 at the end.
LOG = []
class A:
    k = 1
    def __init__(self):
        self.n = 0
    @property
    def get(self):
        LOG.append(("get", self.n))
        return self.n
class B(A):
    pass
def make():
    return (A(),)
def between(a):
    a.n = 10
    LOG.append("between")
def make_other():
    b = B()
    b.__dict__["get"] = "shadow"
    return (b,)
def program(a):
    a.n += 1
    return a.get
