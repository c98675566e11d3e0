"""Snippets: closures and cells, nonlocal, nested functions, lambdas, defaults,
decorators, comprehensions (list, set, dict; generator expressions are generators)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tt_driver import Table  # noqa: E402

T = Table("closures")

T.add("closure_read", """
def make(): return (5,)
def program(n):
    def inner(x):
        return x + n
    return inner(1), inner(2)
""")
T.add("closure_counter_nonlocal", """
def make(): return (0,)
def program(start):
    count = start
    def inc(k=1):
        nonlocal count
        count += k
        return count
    inc(); inc(5)
    return count, inc()
""")
T.add("closure_returned_and_called_outside", """
def make(): return ([1],)
def program(box):
    def get():
        return box
    def put(v):
        box.append(v)
    put(2)
    return get, get(), get() is box
""")
T.add("closure_cell_argument", """
def make(): return (3, 4)
def program(a, b):
    f = lambda: a * b
    a = 10
    return f()
""")
T.add("closure_late_binding_loop", """
def make(): return (3,)
def program(n):
    fs = [lambda: i for i in range(n)]
    gs = [lambda i=i: i for i in range(n)]
    return [f() for f in fs], [g() for g in gs]
""")
T.add("closure_nested_three_levels", """
def make(): return ("a",)
def program(x):
    def l1():
        y = x + "b"
        def l2():
            z = y + "c"
            def l3():
                return x + y + z
            return l3()
        return l2()
    return l1()
""")
T.add("closure_shared_cell_two_functions", """
def make(): return ()
def program():
    v = []
    def add(x): v.append(x)
    def rebind(): 
        nonlocal v
        v = ["new"]
    add(1); rebind(); add(2)
    return v
""")
T.add("closure_delete_deref", """
def make(): return ()
def program():
    x = 1
    def f(): return x
    del x
    try:
        return f()
    except NameError as e:
        return str(e)
""")
T.add("closure_unbound_free_var", """
def make(): return ()
def program():
    def f(): return y
    r = None
    try:
        r = f()
    except NameError as e:
        r = str(e)
    y = 2
    return r, f()
""")
T.add("closure_class_body_free_var", """
def make(): return (7,)
def program(k):
    class C:
        v = k * 2
        w = [v]
    return C.v, C.w
""")
T.add("closure_class_method_uses_outer", """
def make(): return ("pre",)
def program(prefix):
    class C:
        def name(self, s):
            return prefix + s
    return C().name("x")
""")
T.add("closure_dunder_class_cell", """
def make(): return ()
def program():
    class A:
        def who(self): return __class__.__name__
    class B(A):
        def who(self): return "B>" + super().who()
    return B().who()
""")
T.add("lambda_simple", """
def make(): return ([3, 1, 2],)
def program(xs):
    key = lambda v: -v
    return sorted(xs, key=key), (lambda *a, **k: (a, k))(1, z=2)
""")
T.add("lambda_immediate_default", """
def make(): return (2,)
def program(n):
    f = lambda x, y=n: x ** y
    return f(3), f(3, 3), f.__defaults__
""")
T.add("nested_def_defaults_kwdefaults", """
def make(): return ([],)
def program(box):
    def f(a, b=box, *, c=len(box), d):
        return a, b is box, c, d
    return f(1, d=4), f.__kwdefaults__
""")
T.add("nested_def_annotations", """
def make(): return ()
def program():
    def f(a: int, b: "str" = "s") -> list:
        return [a, b]
    return f(1), f.__annotations__
""")
T.add("decorator_wrapping", """
def deco(fn):
    def wrapper(*a, **k):
        LOG.append(("call", fn.__name__, a))
        return fn(*a, **k)
    return wrapper
def make(): return (2,)
def program(n):
    @deco
    def sq(x): return x * x
    return sq(n), sq(x=3)
""")
T.add("decorator_with_args", """
def make(): return ()
def program():
    def times(k):
        def deco(fn):
            def w(x): return fn(x) * k
            return w
        return deco
    @times(3)
    @times(2)
    def ident(x): return x
    return ident(5)
""")
T.add("recursive_inner_function", """
def make(): return (10,)
def program(n):
    def fib(k):
        return k if k < 2 else fib(k - 1) + fib(k - 2)
    return fib(n)
""")
T.add("mutual_recursion_inner", """
def make(): return (7,)
def program(n):
    def even(k): return True if k == 0 else odd(k - 1)
    def odd(k): return False if k == 0 else even(k - 1)
    return even(n), odd(n)
""")
T.add("function_attributes", """
def make(): return ()
def program():
    def f(): pass
    f.tag = "t"
    return f.__name__, f.__qualname__, f.tag, f.__dict__
""")
T.add("listcomp_basic", """
def make(): return ([1, 2, 3, 4],)
def program(xs):
    return [x * 2 for x in xs if x % 2 == 0]
""")
T.add("listcomp_nested_loops", """
def make(): return ("ab", [1, 2])
def program(s, ns):
    return [(c, n) for c in s for n in ns if n != 2 or c == "a"]
""")
T.add("listcomp_closure_capture", """
def make(): return (10,)
def program(base):
    return [base + i for i in range(3)]
""")
T.add("listcomp_nested_comprehension", """
def make(): return (3,)
def program(n):
    return [[i * j for j in range(n)] for i in range(n)]
""")
T.add("listcomp_attr_reads", """
class P:
    def __init__(self, v): self.v = v
    @property
    def double(self):
        LOG.append(self.v)
        return self.v * 2
def make(): return ([P(1), P(2)],)
def program(ps):
    return [p.double for p in ps], [p.v for p in ps]
""")
T.add("setcomp", """
def make(): return ([3, 1, 3, 2],)
def program(xs):
    return {x % 2 for x in xs}, sorted({x for x in xs})
""")
T.add("dictcomp", """
def make(): return (["a", "bb", "ccc"],)
def program(ws):
    return {w: len(w) for w in ws if w != "bb"}
""")
T.add("dictcomp_key_collision_order", """
def make(): return ([("a", 1), ("b", 2), ("a", 3)],)
def program(pairs):
    return {k: v for k, v in pairs}
""")
T.add("comprehension_walrus", """
def make(): return ([1, 5, 2, 8],)
def program(xs):
    big = [y for x in xs if (y := x * 2) > 4]
    return big, y
""")
T.add("comprehension_raises_stopiter_not", """
def make(): return ([[1], [], [2]],)
def program(xss):
    return [xs[0] if xs else None for xs in xss]
""")
T.add("genexpr_sum", """
def make(): return ([1, 2, 3],)
def program(xs):
    return sum(x * x for x in xs)
""", gen=True)
T.add("genexpr_any_all_short_circuit", """
def check(x):
    LOG.append(x)
    return x > 1
def make(): return ([0, 2, 3],)
def program(xs):
    return any(check(x) for x in xs), all(check(x) for x in xs)
""", gen=True)
T.add("genexpr_consumed_by_tuple", """
def make(): return ("abc",)
def program(s):
    g = (c.upper() for c in s)
    first = next(g)
    return first, tuple(g)
""", gen=True)
T.add("genexpr_closure", """
def make(): return (3,)
def program(k):
    return list(x + k for x in range(k))
""", gen=True)
T.add("generator_function_basic", """
def gen(n):
    for i in range(n):
        LOG.append(("yield", i))
        yield i * i
def make(): return (4,)
def program(n):
    return list(gen(n))
""", gen=True)
T.add("generator_send_and_return", """
def acc():
    total = 0
    while True:
        v = yield total
        if v is None:
            return total
        total += v
def make(): return ()
def program():
    g = acc()
    next(g)
    g.send(3); g.send(4)
    try:
        g.send(None)
    except StopIteration as e:
        return e.value
""", gen=True)
T.add("generator_yield_from", """
def inner():
    yield 1
    yield 2
    return "inner-done"
def outer():
    r = yield from inner()
    yield r
def make(): return ()
def program():
    return list(outer())
""", gen=True)
T.add("generator_close_finally", """
def g():
    try:
        yield 1
        yield 2
    finally:
        LOG.append("closed")
def make(): return ()
def program():
    it = g()
    a = next(it)
    it.close()
    return a
""", gen=True)
T.add("generator_throw", """
def g():
    try:
        yield 1
    except KeyError as e:
        LOG.append(str(e))
        yield "handled"
def make(): return ()
def program():
    it = g()
    next(it)
    return it.throw(KeyError("k"))
""", gen=True)
T.add("generator_defined_in_program", """
def make(): return (3,)
def program(n):
    def countdown(k):
        while k:
            yield k
            k -= 1
    return list(countdown(n))
""", gen=True)

if __name__ == "__main__":
    T.main()
