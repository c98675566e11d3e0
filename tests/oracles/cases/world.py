# Class-level state and module globals (docs/OBSERVATION.md, "Globals and
# classes"): logs, counters and caches kept on classes, their bases and their
# metaclasses, and the program's data globals, in one numbering with the rest.
# Code, descriptors and dunders are skipped; nothing runs while observing: every
# hook below would append to LOG or raise.
import functools
LOG = []
COUNTS = {}
EVENTS = []
ALIAS = EVENTS          # the same list: #n again
LIMIT = 3
NOTHING = None
PAIR = (1, "a b")
globals()[7] = "non-identifier key"
from math import pi
def helper():
    return 1
class Noisy:
    """Every hook logs: observing must run none of them."""
    def __eq__(self, other):
        LOG.append("eq")
        return NotImplemented
    def __hash__(self):
        LOG.append("hash")
        return 1
    def __repr__(self):
        LOG.append("repr")
        return "Noisy()"
    def __getattribute__(self, name):
        LOG.append("getattribute " + name)
        return object.__getattribute__(self, name)
class Meta(type):
    registry = []       # metaclass state: every class made with Meta
    def __new__(mcls, name, bases, ns):
        cls = super().__new__(mcls, name, bases, ns)
        mcls.registry.append(name)
        return cls
    def __getattribute__(cls, name):
        LOG.append("meta getattribute " + name)
        return type.__getattribute__(cls, name)
    @property
    def shout(cls):
        LOG.append("shout")
        return "!"
class Desc:
    def __init__(self):
        self.calls = 0
    def __get__(self, obj, objtype=None):
        self.calls += 1
        LOG.append("desc get")
        return 1
class Base(metaclass=Meta):
    log = []            # nn.Module style: the event log on the class
    calls = 0
    cache = {}
    sentinel = Noisy()
    d = Desc()          # a descriptor: skipped
    @property
    def p(self):
        return 1
    @classmethod
    def cm(cls):
        return 2
    @staticmethod
    def sm():
        return 3
    @functools.cached_property
    def cp(self):
        return 4
    partial = functools.partial(max, 1)
    def __getattr__(self, name):
        type(self).log.append(("getattr", name))
        raise AttributeError(name)
    def __setattr__(self, name, value):
        Base.log.append(("setattr", name))
        object.__setattr__(self, name, value)
class Child(Base):
    calls = 10          # shadows Base.calls
    shared = Base.log   # the same list as Base.log
    class Inner:        # a nested class: reached as a class, not data
        depth = 1
setattr(Child, "odd key", 5)
class Unused:           # met only in the namespace
    counter = 0
class Empty:            # no data: no lines
    def f(self):
        return 0
def make():
    c = Child()
    c.x = 1
    return (c,)
def program(c):
    Child.calls += 1
    Base.cache[c.x] = "one"
    Unused.counter += 2
    COUNTS["program"] = COUNTS.get("program", 0) + 1
    EVENTS.append(len(EVENTS))
    try:
        c.missing
    except AttributeError:
        pass
    return c.x
