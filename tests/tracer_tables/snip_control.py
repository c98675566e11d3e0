"""Snippets: control flow: if/elif/else, boolean short-circuit, conditional
expressions, for/while loops with break/continue/else, nested loops, long jumps
(EXTENDED_ARG), chained comparisons, and match statements (literal, capture, sequence,
mapping, class, guard, or, as, wildcard, value patterns)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tt_driver import Table  # noqa: E402

T = Table("control")

T.add("if_elif_else", """
def make(): return ([-1, 0, 1, 5],)
def program(xs):
    out = []
    for x in xs:
        if x < 0: out.append("neg")
        elif x == 0: out.append("zero")
        elif x > 3: out.append("big")
        else: out.append("small")
    return out
""")
T.add("bool_short_circuit", """
def t(v):
    LOG.append(v)
    return v
def make(): return ()
def program():
    return (t(0) and t(1)), (t(2) or t(3)), (t(None) or t("") or t("x")), (t(1) and t([]) and t(9))
""")
T.add("not_and_truthiness_of_user", """
class B:
    def __init__(self, v): self.v = v
    def __bool__(self):
        LOG.append(("bool", self.v))
        return self.v
class L:
    def __len__(self): return 0
def make(): return (B(True), B(False), L())
def program(t, f, l):
    return not t, not f, bool(l), (1 if l else 2), [x for x in (t, f) if x] == [t]
""")
T.add("bool_raises", """
class Bad:
    def __bool__(self): raise ValueError("no truth")
def make(): return (Bad(),)
def program(b):
    if b:
        return 1
""")
T.add("conditional_expression", """
def make(): return (4,)
def program(n):
    return ["even" if i % 2 == 0 else "odd" for i in range(n)], (n if n > 3 else -n)
""")
T.add("compare_chain", """
def make(): return (1, 2, 3)
def program(a, b, c):
    return a < b < c, a < c < b, a == 1 != b, 0 <= a <= b <= c <= 3
""")
T.add("compare_chain_evaluates_once", """
def v(x):
    LOG.append(x)
    return x
def make(): return ()
def program():
    return v(1) < v(2) < v(0) < v(5)
""")
T.add("is_and_in_operators", """
def make(): return ([1, 2], None, "abc")
def program(l, n, s):
    return n is None, l is not None, 2 in l, 3 not in l, "b" in s, {} is {}
""")
T.add("for_break_else", """
def make(): return ([1, 3, 5, 6, 7],)
def program(xs):
    for x in xs:
        if x % 2 == 0:
            found = x
            break
    else:
        found = None
    for y in []:
        pass
    else:
        LOG.append("empty else")
    return found
""")
T.add("for_continue", """
def make(): return (10,)
def program(n):
    out = []
    for i in range(n):
        if i % 3:
            continue
        out.append(i)
    return out
""")
T.add("while_loop_else", """
def make(): return (5,)
def program(n):
    i = 0
    acc = []
    while i < n:
        i += 1
        if i == 2:
            continue
        acc.append(i)
    else:
        acc.append("else")
    while True:
        i -= 1
        if i < 2:
            break
    return acc, i
""")
T.add("while_with_attr_condition", """
class C:
    def __init__(self): self.left = 3
    @property
    def more(self):
        self.left -= 1
        return self.left >= 0
def make(): return (C(),)
def program(c):
    n = 0
    while c.more:
        n += 1
    return n, c.left
""")
T.add("nested_loops_break_inner", """
def make(): return (4,)
def program(n):
    pairs = []
    for i in range(n):
        for j in range(n):
            if j > i:
                break
            pairs.append((i, j))
    return pairs
""")
T.add("loop_over_dict_items_and_enumerate", """
def make(): return ({"b": 2, "a": 1},)
def program(d):
    return [(i, k, v) for i, (k, v) in enumerate(d.items())], list(zip(d, d.values()))
""")
T.add("loop_over_custom_iterator", """
class Count:
    def __init__(self, n): self.n = n; self.i = 0
    def __iter__(self): return self
    def __next__(self):
        if self.i >= self.n:
            LOG.append("stop")
            raise StopIteration
        self.i += 1
        return self.i
def make(): return (Count(3),)
def program(c):
    return [x for x in c], list(c)
""")
T.add("loop_iterator_raises", """
class Bad:
    def __iter__(self): return self
    def __next__(self): raise KeyError("iter broke")
def make(): return (Bad(),)
def program(b):
    for x in b:
        pass
""")
T.add("loop_getitem_protocol", """
class Seq:
    def __getitem__(self, i):
        if i >= 3: raise IndexError
        return i * 10
def make(): return (Seq(),)
def program(s):
    return list(s), [x for x in s], 20 in s
""")
T.add("loop_modifies_list", """
def make(): return ([1, 2, 3],)
def program(xs):
    for x in xs:
        if x < 3:
            xs.append(x + 10)
    return xs
""")
T.add("long_function_extended_arg", """
def make(): return (1,)
def program(x):
    y = 0
    if x:
""" + "".join(f"        y = y + {i} * x\n        LOG.append(y) if y % 97 == 0 else None\n"
              for i in range(300)) + """
    return y
""")
T.add("long_constant_list_display", """
def make(): return ()
def program():
    return [""" + ", ".join(f"{i}.5" for i in range(300)) + """][-1]
""")
T.add("match_literal_and_wildcard", """
def make(): return ([0, 1, "two", None, 3.5],)
def program(xs):
    out = []
    for x in xs:
        match x:
            case 0: out.append("zero")
            case 1 | 2: out.append("one-two")
            case "two": out.append("str")
            case None: out.append("none")
            case _: out.append("other")
    return out
""")
T.add("match_capture_and_guard", """
def make(): return ([5, -5, 0],)
def program(xs):
    out = []
    for x in xs:
        match x:
            case n if n > 0: out.append(("pos", n))
            case n if n < 0: out.append(("neg", n))
            case n: out.append(("zero", n))
    return out
""")
T.add("match_sequence_patterns", """
def make(): return ([[1], [1, 2], [1, 2, 3, 4], (), "ab", [[1, 2]]],)
def program(xs):
    out = []
    for x in xs:
        match x:
            case [a]: out.append(("one", a))
            case [a, b]: out.append(("two", a, b))
            case [a, *rest]: out.append(("many", a, rest))
            case [] : out.append("empty")
            case _: out.append("nope")
    return out
""")
T.add("match_nested_sequence_as", """
def make(): return ([[1, [2, 3]], [1, [2]]],)
def program(xs):
    out = []
    for x in xs:
        match x:
            case [1, [2, 3] as inner]: out.append(("inner", inner))
            case [1, other]: out.append(("other", other))
    return out
""")
T.add("match_mapping_patterns", """
def make(): return ([{"t": "a", "v": 1}, {"t": "b", "x": 2, "y": 3}, {"v": 0}, 5],)
def program(xs):
    out = []
    for x in xs:
        match x:
            case {"t": "a", "v": v}: out.append(("a", v))
            case {"t": "b", **rest}: out.append(("b", rest))
            case {}: out.append("map")
            case _: out.append("no")
    return out
""")
T.add("match_class_patterns", """
class Pt:
    __match_args__ = ("x", "y")
    def __init__(self, x, y): self.x = x; self.y = y
def make(): return ([Pt(0, 0), Pt(1, 0), Pt(2, 3), 7, "s"],)
def program(xs):
    out = []
    for p in xs:
        match p:
            case Pt(0, 0): out.append("origin")
            case Pt(x=1): out.append("x1")
            case Pt(a, b): out.append(("pt", a, b))
            case int(n): out.append(("int", n))
            case str() as s: out.append(("str", s))
    return out
""")
T.add("match_class_property_read", """
class P:
    __match_args__ = ("v",)
    @property
    def v(self):
        LOG.append("v read")
        return [1]
def make(): return (P(),)
def program(p):
    match p:
        case P(v=[1]): return "matched"
    return "no"
""")
T.add("match_value_pattern_dotted", """
import enum
class Color(enum.Enum):
    RED = 1
    BLUE = 2
def make(): return ([Color.RED, Color.BLUE, 1],)
def program(xs):
    out = []
    for c in xs:
        match c:
            case Color.RED: out.append("red")
            case Color.BLUE: out.append("blue")
            case _: out.append("?")
    return out
""")
T.add("match_class_too_many_positional", """
class P:
    __match_args__ = ("a",)
    a = 1
def make(): return (P(),)
def program(p):
    match p:
        case P(x, y): return x
""")
T.add("match_or_with_bindings", """
def make(): return ([(1, 2), [3, 1], (9, 9)],)
def program(xs):
    out = []
    for x in xs:
        match x:
            case (1, v) | (v, 1): out.append(v)
            case _: out.append(None)
    return out
""")
T.add("ternary_chains_and_walrus", """
def make(): return ([3, 8, 15],)
def program(xs):
    out = []
    for x in xs:
        out.append("fizzbuzz" if x % 15 == 0 else "buzz" if x % 5 == 0 else "fizz" if x % 3 == 0 else x)
    if (n := len(out)) > 2:
        out.append(n)
    return out
""")
T.add("while_is_none_loops", """
class Node:
    def __init__(self, v, nxt=None): self.v = v; self.nxt = nxt
def make(): return (Node(1, Node(2, Node(3))),)
def program(n):
    vals = []
    while n is not None:
        vals.append(n.v)
        n = n.nxt
    m = None
    k = 0
    while m is None:
        k += 1
        m = k if k > 2 else None
    return vals, m
""")
T.add("pass_and_ellipsis", """
def make(): return ()
def program():
    if True:
        pass
    ...
    return ...
""")
T.add("return_none_implicit", """
def make(): return ([],)
def program(l):
    l.append(1)
""")

if __name__ == "__main__":
    T.main()
