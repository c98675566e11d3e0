"""tfjit.last_trace(): the text built on demand from the recorded entries
(tracer/tr_trace.c), and what the kept trace may hold.

- numbering and the line cap: 20000 numbered lines, then "... N more operations";
- the text is stable: asking twice gives the same text, a failed call keeps its trace;
- the kept trace holds no traced object: a type made by the program, a str subclass
  used as an attribute name, are released when the call ends (the trace keeps copies),
  and a type renamed during the call prints its name of the moment;
- attribute names that UTF-8 cannot encode (lone surrogates) are traced like any other.
"""
import gc
import re
import sys
import weakref

import tfjit

failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)


class Box:
    def __init__(self):
        self.x = 1


# ---- numbering and the cap ----
def loop(o, n):
    t = 0
    for _ in range(n):
        t += o.x
    return t


tfjit.jit(loop)(Box(), 30000)
text = tfjit.last_trace()
lines = text.split("\n")
expect(text.endswith(" more operations\n"), "capped trace ends with the count")
numbered = [ln for ln in lines if re.match(r"\d+ ", ln)]
expect(len(numbered) == 20000, "20000 numbered lines, got %d" % len(numbered))
expect([int(ln.split(" ", 1)[0]) for ln in numbered] == list(range(1, 20001)),
       "lines numbered 1..20000 in order")
m = re.search(r"\n\.\.\. (\d+) more operations\n$", text)
expect(m is not None and int(m.group(1)) > 10000, "dropped count %r" % (m and m.group(1)))
tfjit.jit(loop)(Box(), 3)
short = tfjit.last_trace()
expect(short.endswith("\n") and "more operations" not in short, "short trace uncapped")
expect(re.search(r"^\d+ LOAD_ATTR x -> int INPUT\[0\]\.x via inst_dict$", short, re.M),
       "attribute line format: %r" % short)
expect(re.search(r"^\d+ RETURN -> int ", short, re.M), "RETURN line")
expect(tfjit.last_trace() == short, "asking twice gives the same text")


# ---- a failed call keeps how far it got ----
def fails(o):
    o.x
    return o.missing


try:
    tfjit.jit(fails)(Box())
except AttributeError:
    pass
t = tfjit.last_trace()
expect(re.search(r"^\d+ RAISE AttributeError in fails line \d+$", t, re.M), "RAISE line: %r" % t)
expect("RETURN" not in t, "no RETURN after a failure")


# ---- the kept trace holds no traced object ----
def make_kind():
    class Kind:
        pass
    return Kind()


r = tfjit.jit(make_kind)()
wr = weakref.ref(type(r))
del r
gc.collect()
expect(wr() is None, "a type made in the call dies with its last instance")
expect(re.search(r"^\d+ CALL Kind \(class\) -> Kind ", tfjit.last_trace(), re.M),
       "the copied type name is printed: %r" % tfjit.last_trace())


# a type renamed during the call: later lines print its new name
class Kind2:
    pass


def rename():
    a = Kind2()
    Kind2.__name__ = "Renamed"
    b = Kind2()
    return a, b


tfjit.jit(rename)()
t = tfjit.last_trace()
expect(re.search(r"^\d+ CALL Kind2 \(class\) -> Kind2 ", t, re.M)
       and re.search(r"^\d+ CALL Renamed \(class\) -> Renamed ", t, re.M),
       "renamed type: %r" % t)

deleted = []


class Name(str):
    def __del__(self):
        deleted.append(str(self))


def by_name(o, n):
    return getattr(o, n)


n = Name("x")
tfjit.jit(by_name)(Box(), n)
del n
gc.collect()
expect(deleted == ["x"], "a str subclass name is released with the call: %r" % deleted)
expect(re.search(r"^\d+ LOAD_ATTR x -> int INPUT\[0\]\.x via inst_dict$", tfjit.last_trace(),
                 re.M), "the name's text is printed: %r" % tfjit.last_trace())


# ---- names UTF-8 cannot encode ----
class Hooked:
    def __getattr__(self, name):
        return len(name)


odd = "a\udc80"
eager = by_name(Hooked(), odd)
try:
    traced = tfjit.jit(by_name)(Hooked(), odd)
except Exception as e:
    traced = "%s: %s" % (type(e).__name__, e)
expect(traced == eager, "surrogate attribute name: eager %r traced %r" % (eager, traced))
expect(("LOAD_ATTR " + odd) in tfjit.last_trace(), "the name is printed as is")

for f in failures:
    print("FAIL", f)
print("%d failures" % len(failures))
sys.exit(1 if failures else 0)
