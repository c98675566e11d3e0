"""Line numbers of interpreted frames (tracer/tr_lines.c) against CPython's own.

Each case raises, or reads f_lineno, at many places of one function, in an order that
moves the per-code cursor forward and back (loops, nested handlers, several functions
sharing nothing), and compares the traceback's (name, line) list, the frames' f_lineno
seen from inside, and the RAISE lines of tfjit.last_trace() with the eager run.
"""
import re
import sys
import traceback

import tfjit

failures = []


def tb_lines(e):
    return [(fs.name, fs.lineno) for fs in traceback.extract_tb(e.__traceback__)]


def run(fn, *args):
    try:
        return ("return", fn(*args))
    except Exception as e:
        return ("raise", type(e).__name__, tb_lines(e))


def compare(name, fn, *args):
    eager = run(fn, *args)
    traced = run(tfjit.jit(fn), *args)
    # traceback entries below the traced function's own frame (the jit wrapper) differ
    # by design; compare the frames of the program
    if eager[0] == "raise" and traced[0] == "raise":
        e_frames = [x for x in eager[2] if x[0] != "run"]
        t_frames = [x for x in traced[2] if x[0] not in ("run",)]
        t_frames = t_frames[-len(e_frames):] if e_frames else t_frames
        same = eager[1] == traced[1] and e_frames == t_frames
    else:
        same = eager == traced
    if not same:
        failures.append("%s: eager %r traced %r" % (name, eager, traced))


def raise_at(k):
    if k == 0:
        raise KeyError(k)
    if k == 1:
        return {}[k]
    if k == 2:
        return [][k]
    if k == 3:
        raise ValueError(k)
    return 1 // (k - k)


def many(n):
    seen = []
    for i in range(n):
        try:
            raise_at(i % 5)
        except Exception as e:
            seen.append((type(e).__name__, e.__traceback__.tb_lineno,
                         e.__traceback__.tb_next.tb_lineno))
        if i % 3 == 0:
            seen.append(sys._getframe().f_lineno)
    return seen


def backwards(n):
    out = []
    k = n
    while k > 0:
        k -= 1
        try:
            if k % 2:
                raise_at(4)
            else:
                raise_at(0)
        except (ZeroDivisionError, KeyError) as e:
            out.append(e.__traceback__.tb_next.tb_lineno)
    out.append(sys._getframe().f_lineno)
    return out


def nested(k):
    try:
        try:
            raise_at(k)
        finally:
            x = sys._getframe().f_lineno
    except Exception as e:
        return x, tb_lines(e)[-2:]


def escapes(k):
    a = 1
    b = a + 1
    return raise_at(k + b - 2)


for n in (1, 5, 17):
    compare("many(%d)" % n, many, n)
    compare("backwards(%d)" % n, backwards, n)
for k in range(5):
    compare("nested(%d)" % k, nested, k)
    compare("escapes(%d)" % k, escapes, k)

# The RAISE lines of the trace name the line CPython's traceback names.
for k in range(5):
    try:
        escapes(k)
    except Exception as e:
        want = [line for name, line in tb_lines(e) if name in ("raise_at", "escapes")]
    try:
        tfjit.jit(escapes)(k)
    except Exception:
        pass
    got = [int(m.group(2)) for m in re.finditer(r"RAISE \w+ in (raise_at|escapes) line (\d+)",
                                                tfjit.last_trace())]
    if sorted(got) != sorted(want):
        failures.append("trace lines escapes(%d): want %r got %r" % (k, want, got))

for f in failures:
    print("FAIL", f)
print("%d failures" % len(failures))
sys.exit(1 if failures else 0)
