# A zoo of objects a program may return: each prints as documented (containers by
# their C storage, other C objects by type name only) and nothing runs while
# observing (LOG stays as the program left it).
import collections, dataclasses, enum, functools, sys, weakref
LOG = []
class Color(enum.Enum):
    RED = 1
@dataclasses.dataclass
class Point:
    x: int
    y: int = 2
class Lazy:
    @functools.cached_property
    def v(self):
        LOG.append("cached")
        return [1]
def gen():
    yield 1
def make():
    return (Lazy(),)
def program(lazy):
    lazy.v
    cell = (lambda: lazy).__closure__[0]
    return (gen(), iter([1]), range(3), slice(1, 2), type.__dict__["mro"],
            Lazy.__dict__["v"], functools.partial(max, 1), Color.RED, Point(1),
            collections.OrderedDict(a=1), collections.defaultdict(list, b=[2]),
            collections.deque([1, 2]), collections.Counter("aab"), weakref.ref(lazy),
            memoryview(b"ab"), cell, program.__code__, sys._getframe().f_code.co_name,
            bytearray(b"x"), {1: frozenset({(1, "a"), (0, "b")})})
