"""last_trace(): one line per operation with provenance chains."""
import re

import tfjit
from tc_util import expect, finish


class Test:
    @property
    def test(self):
        return object()
    def forward(self):
        return self.test, self.test


a, b = tfjit.jit(Test.forward)(Test())
expect(a is not b, "a property returns a new object per read")
text = tfjit.last_trace()
lines = text.splitlines()
expect(all(re.match(r"^\d+ \S", l) for l in lines), f"every line starts with its serial: {lines}")
expect([int(l.split()[0]) for l in lines] == list(range(1, len(lines) + 1)), "serials count up")
expect(sum("INPUT[0].test via property.fget" in l for l in lines) == 2,
       f"two property loads with their provenance:\n{text}")
expect(lines[-1].split()[1:3] == ["RETURN", "->"] and lines[-1].endswith("BUILD"), f"the return is recorded: {lines[-1]}")


def kw(x, *, key):
    return key.real + x
tfjit.jit(kw)(1, key=2)
expect("INPUT[key].real" in tfjit.last_trace(), f"keyword inputs by name:\n{tfjit.last_trace()}")


def uses_global():
    return len([1, 2])
tfjit.jit(uses_global)()
t = tfjit.last_trace()
expect("LOAD_GLOBAL len -> builtin_function_or_method BUILTIN len" in t, f"builtin provenance:\n{t}")
expect("CALL len -> int CALL(BUILTIN len)" in t, f"C call provenance:\n{t}")


def fails(o):
    return o.nope
try:
    tfjit.jit(fails)(1)
except AttributeError:
    pass
expect("CALL fails (interpreted)" in tfjit.last_trace(), "the trace of a failed call is kept")

def handled(d):
    try:
        return d["x"]
    except KeyError:
        return 0
tfjit.jit(handled)({})
t = tfjit.last_trace()
line = handled.__code__.co_firstlineno + 2
expect(f"RAISE KeyError in handled line {line}" in t and "EXCEPT KeyError in handled" in t,
       f"raise and except recorded:\n{t}")

# Chains print to a fixed depth, so an accumulator's provenance stays short.
def accumulate(n):
    s = 0
    for i in range(n):
        s = s + i
    return [s]
tfjit.jit(accumulate)(500)
expect(max(len(l) for l in tfjit.last_trace().splitlines()) < 400, "bounded chain printing")
finish()
