"""Snippets: classes created inside the traced function (class bodies: LOAD_NAME,
STORE_NAME, DELETE_NAME, LOAD_CLASSDEREF, annotations, metaclasses, __init_subclass__,
decorators, dataclasses, enums), imports inside functions (import, from-import,
relative-free submodules, ImportError), module code run as a function (the only way a
traced call executes PRINT_EXPR and IMPORT_STAR)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tt_driver import Table  # noqa: E402

T = Table("classes")

T.add("class_in_program_basic", """
def make(): return (2,)
def program(n):
    class C:
        k = n
        def __init__(self, v): self.v = v
        def total(self): return self.k + self.v
    c = C(3)
    return c.total(), C.__name__, C.__qualname__, sorted(k for k in C.__dict__ if not k.startswith("__"))
""", gen=True)
T.add("class_body_names", """
def make(): return ()
def program():
    class C:
        a = 1
        b = a + 1
        c = [a, b]
        del a
        def m(self): return self.b
    return hasattr(C, "a"), C.b, C.c, C().m()
""")
T.add("class_body_global_and_builtin_reads", """
G = "global"
def make(): return ()
def program():
    class C:
        g = G
        l = len("abc")
    return C.g, C.l
""")
T.add("class_body_classderef", """
def make(): return (5,)
def program(x):
    y = x * 2
    class C:
        a = x
        b = y
        x_local = "shadow"
    return C.a, C.b
""")
T.add("class_body_classderef_shadowed_by_name", """
def make(): return ()
def program():
    v = "outer"
    class C:
        v = "inner"
        w = v
    return C.w
""")
T.add("class_annotations", """
def make(): return ()
def program():
    class C:
        x: int = 1
        y: "list"
        z: dict
    return C.__annotations__, C.x, hasattr(C, "y")
""")
T.add("class_with_bases_and_kwargs", """
class Base:
    def __init_subclass__(cls, tag=None, **kw):
        super().__init_subclass__(**kw)
        LOG.append(("subclass", cls.__name__, tag))
        cls.tag = tag
def make(): return ()
def program():
    class A(Base, tag="a"): pass
    class B(A): pass
    return A.tag, B.tag, [k.__name__ for k in B.__mro__]
""")
T.add("class_metaclass_new", """
class Meta(type):
    def __new__(mcls, name, bases, ns, **kw):
        LOG.append(("meta new", name, sorted(k for k in ns if not k.startswith("__"))))
        ns["added"] = 1
        return super().__new__(mcls, name, bases, ns)
    def __prepare__(name, bases, **kw):
        LOG.append(("prepare", name))
        return {}
def make(): return ()
def program():
    class C(metaclass=Meta):
        x = 1
    return C.added, type(C).__name__
""")
T.add("class_decorator", """
def register(cls):
    LOG.append(cls.__name__)
    cls.registered = True
    return cls
def make(): return ()
def program():
    @register
    class C: pass
    return C.registered
""")
T.add("class_dataclass", """
import dataclasses
def make(): return (1, 2)
def program(a, b):
    @dataclasses.dataclass
    class P:
        x: int
        y: int = 0
    p = P(a, b)
    return p, p == P(a, b), dataclasses.asdict(p), repr(p).replace("program.<locals>.", "")
""")
T.add("class_dataclass_module_level", """
import dataclasses
@dataclasses.dataclass(frozen=True)
class P:
    x: int
    y: list = dataclasses.field(default_factory=list)
def make(): return (P(1),)
def program(p):
    try:
        p.x = 5
    except dataclasses.FrozenInstanceError as e:
        return "frozen", str(e), p.y, dataclasses.replace(p, x=2)
""")
T.add("class_enum_in_program", """
import enum
def make(): return ()
def program():
    class Color(enum.Enum):
        RED = 1
        GREEN = 2
    return Color.RED.name, Color(2).name, [c.value for c in Color]
""")
T.add("class_namedtuple", """
import collections
P = collections.namedtuple("P", "x y")
def make(): return (P(1, 2),)
def program(p):
    x, y = p
    return p.x + p.y, x, p._replace(x=9), p._asdict()
""")
T.add("class_property_defined_in_program", """
def make(): return ()
def program():
    class C:
        def __init__(self): self._n = 0
        @property
        def n(self):
            self._n += 1
            return self._n
    c = C()
    return c.n, c.n, c.n
""")
T.add("class_slots_in_program", """
def make(): return ()
def program():
    class S:
        __slots__ = ("a",)
    s = S()
    s.a = 1
    try:
        s.b = 2
    except AttributeError as e:
        return s.a, str(e)
""")
T.add("class_private_name_mangling", """
class C:
    def __init__(self): self.__secret = 1
    def get(self): return self.__secret
def make(): return (C(),)
def program(c):
    return c.get(), c._C__secret, hasattr(c, "__secret")
""")
T.add("class_attribute_mutation_in_program", """
class C:
    x = 1
def make(): return (C(),)
def program(c):
    C.x += 1
    type(c).y = [C.x]
    del C.y
    return c.x, hasattr(c, "y")
""")
T.add("class_instances_in_containers_identity", """
class Node:
    def __init__(self, v, nxt=None): self.v = v; self.nxt = nxt
def make():
    n = Node(1); n.nxt = Node(2, n)
    return (n,)
def program(n):
    return n, n.nxt.nxt is n, [n, n.nxt]
""")
T.add("class_eq_hash_user", """
class K:
    def __init__(self, k): self.k = k
    def __hash__(self):
        LOG.append(("hash", self.k))
        return hash(self.k)
    def __eq__(self, o): return isinstance(o, K) and o.k == self.k
def make(): return ()
def program():
    d = {K(1): "a"}
    return d[K(1)], K(2) in d, len({K(3), K(3)})
""")
T.add("import_inside_function", """
def make(): return ("a b  c",)
def program(s):
    import textwrap
    import os.path
    return textwrap.shorten(s, 10), os.path.join("x", "y")
""")
T.add("import_from_inside_function", """
def make(): return ([3, 1, 2],)
def program(xs):
    from heapq import heappush, heappop
    from collections import OrderedDict as OD
    h = []
    for x in xs:
        heappush(h, x)
    return [heappop(h) for _ in xs], list(OD(a=1))
""")
T.add("import_missing_module", """
def make(): return ()
def program():
    try:
        import no_such_module_tfsnip
    except ImportError as e:
        return type(e).__name__, e.name
""")
T.add("import_from_missing_name", """
def make(): return ()
def program():
    try:
        from os import no_such_name
    except ImportError as e:
        return str(e).split(" (")[0]
""")
T.add("import_module_attribute_reads", """
def make(): return ()
def program():
    import math, string
    return math.pi, string.ascii_lowercase[:3], math.floor(2.5)
""")
T.add("module_code_as_function_print_expr", """
import sys, types
SRC = compile("[41 + 1, len(LOG)]", "<single>", "single")
def make(): return ()
def program():
    fn = types.FunctionType(SRC, globals())
    old = sys.displayhook
    sys.displayhook = LOG.append
    try:
        fn()
    finally:
        sys.displayhook = old
    return len(LOG)
""")
T.add("module_code_as_function_import_star", """
import types
SRC = compile("from string import *\\nletters = ascii_letters[:3]\\ndel ascii_letters\\n", "<modcode>", "exec")
def make(): return ()
def program():
    ns = {"__builtins__": __builtins__}
    fn = types.FunctionType(SRC, ns)
    fn()
    return ns["letters"], "ascii_letters" in ns, "digits" in ns
""")
T.add("type_three_arg", """
def make(): return ()
def program():
    C = type("C", (object,), {"x": 1, "m": lambda self: self.x + 1})
    return C().m(), C.__name__
""")
T.add("isinstance_with_abc_and_protocols", """
import collections.abc as abc
class MyIter:
    def __iter__(self): return iter(())
def make(): return (MyIter(),)
def program(it):
    return isinstance(it, abc.Iterable), isinstance([], abc.Sequence), isinstance({}, abc.Sequence)
""")
T.add("instance_dict_direct_manipulation", """
class C:
    def __init__(self): self.a = 1
def make(): return (C(),)
def program(c):
    c.__dict__["b"] = 2
    c.__dict__.pop("a")
    vars(c)["c"] = 3
    return c.b, hasattr(c, "a"), c.c, c.__dict__
""")
T.add("object_setattr_direct", """
class C:
    def __setattr__(self, n, v):
        LOG.append(n)
        object.__setattr__(self, n, v + 1)
def make(): return (C(),)
def program(c):
    c.a = 1
    object.__setattr__(c, "b", 1)
    object.__delattr__(c, "a")
    return c.__dict__, object.__getattribute__(c, "b")
""")

if __name__ == "__main__":
    T.main()
