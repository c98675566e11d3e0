#tracefuzz-py
# An unset slot raises AttributeError (never None); classmethod binds the class,
# staticmethod binds nothing, a method is a new bound method per read.
LOG = []


class S:
    __slots__ = ("a", "b", "__dict__")

    def meth(self, *args):  # tf: desc=method
        LOG.append("meth")
        return (type(self).__name__, args)

    @classmethod  # tf: desc=classmethod
    def cmeth(cls, *args):
        return (cls.__name__, args)

    @staticmethod  # tf: desc=staticmethod
    def smeth(*args):
        return args


def make():
    s = S()
    s.a = 1  # tf: desc=slot
    return (s,)


def program(s):
    out = [s.a, s.meth is s.meth, s.meth(1), s.cmeth(2), s.smeth(3)]
    try:
        out.append(s.b)
    except AttributeError as e:
        out.append(("unset", str(e)))
    return tuple(out)
