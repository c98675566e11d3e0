# Instance state read raw: the dict in insertion order, slots in MRO order (unset
# shown), never a property, __getattribute__, __getattr__ or __repr__.
LOG = []
class Base:
    __slots__ = ("b1", "b2")
class Slotted(Base):
    __slots__ = ("s1", "__dict__")
    @property
    def p(self):
        LOG.append("property ran")
        return 1
    def __getattribute__(self, name):
        LOG.append("getattribute ran")
        raise RuntimeError("must not run")
    def __getattr__(self, name):
        LOG.append("getattr ran")
        raise RuntimeError("must not run")
    def __repr__(self):
        LOG.append("repr ran")
        return "no"
class Plain:
    def __eq__(self, other):
        LOG.append("eq ran")
        return True
    __hash__ = object.__hash__
def make():
    o = object.__new__(Slotted)
    object.__setattr__(o, "z", 1)
    object.__setattr__(o, "a", 2)
    object.__setattr__(o, "b2", "two")
    object.__setattr__(o, "s1", [])
    p = Plain()
    p.y = 1
    p.x = 2
    p.__dict__["not an identifier"] = 3
    p.__dict__[5] = "int key"
    return (o, p)
def program(o, p):
    return (o, p)
