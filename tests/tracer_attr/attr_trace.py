"""Each load records how it was resolved: tfjit.last_trace() names the mechanism
("... via property.fget"). One program per resolution kind / detail; each must
also agree with eager. Usage: tfpython attr_trace.py"""
import re
import sys

import tfjit
from attr_common import run, trace_text

PRELUDE = """
import functools
LOG = []
class Meta(type):
    @property
    def mprop(cls): return "mp"
    def mmeth(cls): return 1
    mplain = 3
class N:
    def __get__(self, o, t=None): return "n"
class D:
    def __get__(self, o, t=None): return "d"
    def __set__(self, o, v): LOG.append(v)
class Base(metaclass=Meta):
    k = 1
    n = N()
    d = D()
    @property
    def p(self): return object()
    @p.setter
    def p(self, v): LOG.append(v)
    def m(self): return 1
    @classmethod
    def cm(cls): return cls
    @staticmethod
    def sm(): return 2
    @functools.cached_property
    def cp(self): return [1]
    pm = functools.partialmethod(m)
class C(Base):
    __slots__ = ("s",)
    def m(self): return super().m()
class G(Base):
    def __getattr__(self, name): return name
class GA(Base):
    def __getattribute__(self, name): return "ga"
def make():
    c = C()
    c.x = 1
    c.s = 2
    return (c, G(), GA())
"""

# (what the program does, regex the trace must contain)
CASES = [
    ("return c.x", r"LOAD_ATTR x -> int INPUT\[0\]\.x via inst_dict"),
    ("return c.x, c.x", r"LOAD_ATTR x \[cached\] -> int INPUT\[0\]\.x via inst_dict"),
    ("return c.s", r"LOAD_ATTR s -> int INPUT\[0\]\.s via slot"),
    ("return c.k", r"LOAD_ATTR k -> int INPUT\[0\]\.k via class_attr"),
    ("return c.p", r"LOAD_ATTR p -> object INPUT\[0\]\.p via property\.fget"),
    ("c.p = 5", r"STORE_ATTR p via property\.fset"),
    ("return c.d", r"LOAD_ATTR d -> str INPUT\[0\]\.d via __get__"),
    ("c.d = 5", r"STORE_ATTR d via __set__"),
    ("return c.n", r"LOAD_ATTR n -> str INPUT\[0\]\.n via __get__"),
    ("return c.m", r"LOAD_ATTR m -> method INPUT\[0\]\.m via method"),
    ("return c.m()", r"LOAD_METHOD m -> function INPUT\[0\]\.m via method\.unbound"),
    ("return c.m()", r"LOAD_ATTR m -> method .*\.m via super\.method"),
    ("return c.cm", r"LOAD_ATTR cm -> method INPUT\[0\]\.cm via classmethod"),
    ("return c.sm", r"LOAD_ATTR sm -> function INPUT\[0\]\.sm via staticmethod"),
    ("return c.cp", r"LOAD_ATTR cp -> list INPUT\[0\]\.cp via cached_property"),
    ("return c.pm", r"LOAD_ATTR pm -> functools\.partial INPUT\[0\]\.pm via partialmethod"),
    ("c.y = 1\n    return c.y", r"STORE_ATTR y via inst_dict"),
    ("c.y = 1\n    del c.y", r"DELETE_ATTR y via inst_dict"),
    ("return g.zz", r"LOAD_ATTR zz -> str INPUT\[1\]\.zz via __getattr__"),
    ("return ga.zz", r"LOAD_ATTR zz -> str INPUT\[2\]\.zz via __getattribute__"),
    ("return type(c).mprop", r"LOAD_ATTR mprop -> str .*\.mprop via property\.fget"),
    ("return type(c).p", r"LOAD_ATTR p -> property .*\.p via property"),
    ("return type(c).k", r"LOAD_ATTR k -> int .*\.k via class_attr"),
    ("return type(c).mplain", r"LOAD_ATTR mplain -> int .*\.mplain via meta_attr"),
    ("return type(c).mmeth", r"LOAD_ATTR mmeth -> method .*\.mmeth via method"),
    ("return functools.partial", r"LOAD_ATTR partial -> type .*\.partial via opaque"),
]


def main():
    failures = 0
    for i, (body, pattern) in enumerate(CASES):
        src = PRELUDE + f"def program(c, g, ga):\n    {body}\n"
        label = f"[{i}] {body.splitlines()[-1].strip()!s} ~ {pattern}"
        ns = {"__name__": "tfcase"}
        exec(compile(src, "<case>", "exec"), ns)
        try:
            tfjit.jit(ns["program"])(*ns["make"]())
        except Exception as e:
            failures += 1
            print(f"FAIL {label}: traced call raised {type(e).__name__}: {e}")
            continue
        text = trace_text()
        if not re.search(pattern, text):
            failures += 1
            print(f"FAIL {label}: not in the trace:\n{text}")
            continue
        if run(src, None) != run(src, tfjit.jit):
            failures += 1
            print(f"FAIL {label}: traced observation differs from eager")
            continue
        print(f"ok   {label}")
    print(f"{len(CASES) - failures} of {len(CASES)} resolutions recorded")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
