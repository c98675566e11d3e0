"""bench/attr_programs.py: the attribute-heavy set of the tracer benchmarks (issue 14).

Plain attribute traffic, no descriptors with user code: what a traced model's forward
mostly does (instance dict reads, slots, chains, class constants, method calls). Each
entry follows the program contract (make() -> args, program(*args)); reuse_bench.py
times them eagerly, traced and replayed. Fixed: the figures of docs/PERFORMANCE.md
compare across commits only while these sources stay as they are."""

ATTR_PROGRAMS = {}

ATTR_PROGRAMS["inst_dict"] = """
class P:
    def __init__(self, x, y):
        self.x = x
        self.y = y
        self.w = 1
def make():
    return (P(3, 4), P(5, 6))
def program(p, q):
    t = 0
    for i in range(40):
        t += p.x * q.y - p.y * q.x + p.w + q.w
    return t
"""

ATTR_PROGRAMS["slots_chain"] = """
class V:
    __slots__ = ("x", "y")
    def __init__(self, x, y):
        self.x = x
        self.y = y
class Seg:
    __slots__ = ("a", "b")
    def __init__(self, a, b):
        self.a = a
        self.b = b
class Box:
    def __init__(self, s):
        self.seg = s
        self.name = "box"
def make():
    return (Box(Seg(V(1, 2), V(3, 4))),)
def program(box):
    t = 0
    for i in range(40):
        t += box.seg.a.x + box.seg.b.y - box.seg.a.y * box.seg.b.x
    return t
"""

ATTR_PROGRAMS["class_methods"] = """
class Base:
    scale = 3
    offset = 7
    def __init__(self, n):
        self.n = n
    def get(self):
        return self.n
    def add(self, k):
        return self.n + k
class Child(Base):
    offset = 9
def make():
    return (Child(5), Base(2))
def program(a, b):
    t = 0
    for i in range(40):
        t += a.scale * a.get() + b.add(a.offset) + b.scale + a.add(i)
    return t
"""

ATTR_PROGRAMS["mixed_store"] = """
class Acc:
    def __init__(self):
        self.total = 0
        self.count = 0
        self.items = []
class Item:
    def __init__(self, v):
        self.v = v
        self.k = 2
def make():
    return (Acc(), [Item(i) for i in range(8)])
def program(acc, items):
    acc.total = 0
    acc.count = 0
    acc.items = []
    for it in items:
        acc.total = acc.total + it.v * it.k
        acc.count = acc.count + 1
        acc.items.append(it.v)
    for it in items:
        acc.total = acc.total - it.k
    return (acc.total, acc.count, len(acc.items))
"""
