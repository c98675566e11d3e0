"""tt_driver.py: the driver of the tracer's acceptance tables (docs/TRACER_TESTS.md).

A snippet is a tiny program in the form of DESIGN.md's program contract: Python source
defining make() (fresh arguments) and program(*args), optionally between(*args) and
make_other(). The source is compiled once; every run executes it in a fresh namespace
with a fresh module-level LOG, then follows the run protocol:

    f = target(program); args = make(); r1 = f(*args)
    between(*args) if defined;          r2 = f(*args)
    args2 = make_other() or make();     r3 = f(*args2)

(calls=1 stops after r1.) Each run is turned into an observation that keeps aliasing:
objects are numbered by first appearance across the whole run, their content is printed
at their first appearance in each section, so `a is b`, mutation between steps and the
final state all show while addresses do not. A snippet passes when

    eager run == identity run (target = lambda f: f)   else: TABLE bug (never the tracer's)
    eager run == tfjit.jit run                         else: the tracer's divergence

Each snippet runs in a forked child (a crash or hang in the tracer costs one snippet,
not the table) unless --no-fork. Options: --only NAME (repeatable, or a prefix ending in
'*'), -v (print both observations of failures and every snippet's verdict), --identity
(use the identity target even when tfjit.jit exists), --require-jit (fail when the real
tracer is absent; ctest passes it once the interpreter is in the tree).
"""
import argparse
import builtins
import gc
import os
import pickle
import signal
import sys
import textwrap
import traceback
import types

MAX_DEPTH = 12      # deeper structures print "..." (part of the format)
MAX_ITEMS = 64      # longer containers print their first MAX_ITEMS and ",..."
CHILD_TIMEOUT = 30  # seconds per snippet in a forked child
SNIPPET_MODULE = "tfsnip"

try:
    import tfjit
except ImportError:  # the tables also run with a plain python3.11 (identity only)
    tfjit = None


def identity(fn):
    return fn


def real_jit():
    """tfjit.jit if the tracer provides it, else None."""
    return getattr(tfjit, "jit", None) if tfjit is not None else None


def exc_type_name(e):
    t = type(e)
    mod = t.__module__
    return t.__qualname__ if mod == "builtins" else f"{mod}.{t.__qualname__}"


def is_unsupported(e):
    u = getattr(tfjit, "Unsupported", None) if tfjit is not None else None
    return u is not None and isinstance(e, u)


# ---------------------------------------------------------------------------
# The canonical observation.

_VALUE_TYPES = (type(None), bool, int, float, complex, str, bytes, type(Ellipsis),
                type(NotImplemented))
_ADDR_MARK = " at 0x"


class Canon:
    """Canonical text of objects; one numbering for a whole run, content per section."""

    def __init__(self):
        self.num = {}    # id -> number
        self.keep = []   # keeps numbered objects alive so ids stay unique
        self.printed = set()

    def section(self, root):
        self.printed = set()
        return self.c(root, 0)

    def number(self, o):
        n = self.num.get(id(o))
        if n is None:
            n = len(self.num) + 1
            self.num[id(o)] = n
            self.keep.append(o)
        return n

    def c(self, o, depth):
        t = type(o)
        if t in _VALUE_TYPES:
            return repr(o)
        if depth > MAX_DEPTH:
            return "..."
        if t is tuple:
            return "(" + self.items(tuple.__iter__(o), len(o), depth) + ")"
        if t is frozenset:
            return "frozenset{" + self.items(self.set_order(o), len(o), depth) + "}"
        n = self.number(o)
        if n in self.printed:
            return f"#{n}"
        self.printed.add(n)
        return f"#{n}=" + self.body(o, t, depth)

    def items(self, it, length, depth):
        out = []
        for i, x in enumerate(it):
            if i >= MAX_ITEMS:
                out.append("...")
                break
            out.append(self.c(x, depth + 1))
        return ",".join(out)

    def set_order(self, s):
        # Set order depends on hashes (addresses for objects): order by a key that
        # does not: values by repr, numbered objects by number, others by type.
        def key(x):
            if type(x) in _VALUE_TYPES:
                return (0, type(x).__name__, repr(x))
            if type(x) is tuple:
                return (1, "", repr(tuple(key(y) for y in x)))
            n = self.num.get(id(x))
            return (2, type(x).__qualname__, "%09d" % (n or 0))
        return sorted(s, key=key)

    def tname(self, t):
        return t.__qualname__ if t.__module__ in ("builtins", SNIPPET_MODULE) \
            else f"{t.__module__}.{t.__qualname__}"

    def inst_state(self, o, t, depth):
        """Instance dict (raw, insertion order) and slots (MRO order); no user code."""
        parts = []
        try:
            d = object.__getattribute__(o, "__dict__")
        except (AttributeError, TypeError):
            d = None
        if type(d) is dict:
            for k, v in dict.items(d):
                parts.append(f"{k}:{self.c(v, depth + 1)}")
        for klass in t.__mro__:
            slots = klass.__dict__.get("__slots__")
            if slots is None:
                continue
            if isinstance(slots, str):
                slots = (slots,)
            for s in slots:
                if s in ("__dict__", "__weakref__"):
                    continue
                m = klass.__dict__.get(s if not s.startswith("__") or s.endswith("__")
                                       else f"_{klass.__name__.lstrip('_')}{s}")
                if type(m) is not types.MemberDescriptorType:
                    continue
                try:
                    v = m.__get__(o, klass)
                except AttributeError:
                    parts.append(f"{s}:<unset>")
                    continue
                parts.append(f"{s}:{self.c(v, depth + 1)}")
        return "{" + ",".join(parts) + "}"

    def body(self, o, t, depth):
        name = self.tname(t)
        if issubclass(t, BaseException):
            ctx = o.__context__
            cause = o.__cause__
            extra = ""
            if cause is not None:
                extra += " cause=" + self.c(cause, depth + 1)
            if ctx is not None and not o.__suppress_context__:
                extra += " context=" + self.c(ctx, depth + 1)
            sub = ""
            if issubclass(t, BaseExceptionGroup):
                sub = " group=[" + self.items(iter(o.exceptions), len(o.exceptions), depth) + "]"
            return (f"exc {name}" + "(" + self.items(iter(o.args), len(o.args), depth) + ")"
                    + sub + extra + " " + self.inst_state(o, t, depth))
        if issubclass(t, (int, float, str, bytes, complex)) and t.__flags__ & (1 << 9):
            base = next(b for b in t.__mro__ if b in (int, float, str, bytes, complex, bool))
            return f"{name}<{base.__repr__(o)}>" + self.inst_state(o, t, depth)
        if issubclass(t, list):
            return name + "[" + self.items(list.__iter__(o), len(o), depth) + "]" + \
                (self.inst_state(o, t, depth) if t is not list else "")
        if issubclass(t, dict):
            parts = []
            for i, (k, v) in enumerate(dict.items(o)):
                if i >= MAX_ITEMS:
                    parts.append("...")
                    break
                parts.append(self.c(k, depth + 1) + ":" + self.c(v, depth + 1))
            return name + "{" + ",".join(parts) + "}" + \
                (self.inst_state(o, t, depth) if t is not dict else "")
        if issubclass(t, (set, frozenset)):
            return name + "{" + self.items(self.set_order(o), len(o), depth) + "}"
        if t is types.FunctionType:
            return f"function {o.__qualname__}"
        if t is types.MethodType:
            return f"method {self.c(o.__func__, depth + 1)} of {self.c(o.__self__, depth + 1)}"
        if t is types.BuiltinFunctionType:
            s = o.__self__
            if s is None or isinstance(s, types.ModuleType):
                return f"builtin {o.__qualname__}"
            return f"builtin {o.__qualname__} of {self.c(s, depth + 1)}"
        if t is types.ModuleType:
            return f"module {o.__name__}"
        if issubclass(t, type):
            s = f"class {self.tname(o)}"
            if o.__module__ == SNIPPET_MODULE:
                parts = []
                for k, v in type.__dict__["__dict__"].__get__(o).items():
                    if k.startswith("__") and k.endswith("__"):
                        continue
                    parts.append(f"{k}:{self.c(v, depth + 1)}")
                s += "{" + ",".join(parts) + "}"
            return s
        if not t.__flags__ & (1 << 9):   # a C type: its repr if it names no address
            try:
                r = repr(o)
            except Exception:
                r = ""
            if r and _ADDR_MARK not in r:
                return f"{name}:{r}"
            return name
        return name + self.inst_state(o, t, depth)


def canon_outcome(cn, outcome):
    kind, val = outcome
    if kind == "ok":
        return "return " + cn.section(val)
    return "raise " + exc_type_name(val) + ": " + safe_str(val) + " " + cn.section(val)


def safe_str(e):
    try:
        return str(e)
    except Exception as x:  # a broken __str__ is itself observable
        return f"<str raised {type(x).__name__}>"


# ---------------------------------------------------------------------------
# Snippets and the run protocol.

class Snippet:
    def __init__(self, topic, name, src, calls=3, gen=False, unsup=None):
        self.topic = topic
        self.name = name
        self.src = textwrap.dedent(src).strip("\n") + "\n"
        self.calls = calls
        self.gen = gen        # uses generators: tfjit.Unsupported is an accepted answer
        # Why tfjit.Unsupported is an accepted answer (None: it is not).
        self.unsup = unsup or ("generators" if gen else None)
        self._code = None

    @property
    def fullname(self):
        return f"{self.topic}.{self.name}"

    def code(self):
        if self._code is None:
            self._code = compile(self.src, f"<tfsnip {self.fullname}>", "exec")
        return self._code

    def namespace(self):
        ns = {"__name__": SNIPPET_MODULE, "__builtins__": builtins, "LOG": []}
        exec(self.code(), ns)
        return ns


class Table:
    """The snippets of one topic file."""

    def __init__(self, topic):
        self.topic = topic
        self.snippets = []
        self.names = set()

    def add(self, name, src, calls=3, gen=False, unsup=None):
        if name in self.names:
            raise ValueError(f"duplicate snippet name {name}")
        self.names.add(name)
        self.snippets.append(Snippet(self.topic, name, src, calls, gen, unsup))

    def main(self, argv=None):
        sys.exit(main([self], argv))


def call(f, args):
    try:
        return ("ok", f(*args))
    except BaseException as e:  # an exception of the program is a result
        if isinstance(e, KeyboardInterrupt):
            raise
        return ("raise", e)


_GEN_FLAGS = 0x20 | 0x80 | 0x200   # CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR
DRIVER_FILES = {__file__}   # frames of the test machinery, left out of tracebacks


def call_detecting_generators(f, args):
    """call(f, args) and whether a generator frame ran meanwhile (sys.setprofile)."""
    seen = []

    def prof(frame, event, arg):
        if event == "call" and frame.f_code.co_flags & _GEN_FLAGS and not seen:
            seen.append(frame.f_code.co_name)
    old = sys.getprofile()
    sys.setprofile(prof)
    try:
        out = call(f, args)
    finally:
        sys.setprofile(old)
    return out, bool(seen)


def tb_entries(e):
    """The traceback of e as 'file:function:line' entries, without the driver's frames."""
    out = []
    tb = e.__traceback__
    while tb is not None:
        co = tb.tb_frame.f_code
        if co.co_filename not in DRIVER_FILES:
            out.append(f"{co.co_filename}:{co.co_name}:{tb.tb_lineno}")
        tb = tb.tb_next
    return out


def observe(sn, target, detect_gen=False):
    """Runs the protocol with target. Returns (list of (section, text), the first
    tfjit.Unsupported raised or None, whether a generator ran (detect_gen only))."""
    ns = sn.namespace()
    make = ns["make"]
    make_other = ns.get("make_other", make)
    between = ns.get("between")
    log = ns["LOG"]
    cn = Canon()
    secs = []
    unsupported = None
    used_gen = False
    try:
        f = ns["program"] if target is None else target(ns["program"])
    except Exception as e:
        return [("target", "target(program) raised " + exc_type_name(e) + ": " + safe_str(e))], \
            (e if is_unsupported(e) else None), False
    args = tuple(make())
    args2 = None
    results = []
    tbs = []
    for step in range(sn.calls):
        if step == 1 and between is not None:
            between(*args)
        if step == 2:
            args2 = tuple(make_other())
        a = args if step < 2 else args2
        if detect_gen:
            out, g = call_detecting_generators(f, a)
            used_gen = used_gen or g
        else:
            out = call(f, a)
        if out[0] == "raise":
            if is_unsupported(out[1]) and unsupported is None:
                unsupported = out[1]
            tbs.append(f"r{step + 1}: " + " > ".join(tb_entries(out[1])))
        results.append(out)
        secs.append((f"r{step + 1}", canon_outcome(cn, out)))
        secs.append((f"log{step + 1}", cn.section(tuple(log))))
    final = [o[1] for o in results] + [args, args2, log]
    secs.append(("state", cn.section(final)))
    # Tracebacks last: a divergence of results, LOG or state is reported first.
    secs.append(("traceback", " | ".join(tbs)))
    return secs, unsupported, used_gen


def first_diff(a, b):
    for (na, ta), (nb, tb) in zip(a, b):
        if na != nb or ta != tb:
            return na, ta, tb
    if len(a) != len(b):
        return "length", str(len(a)), str(len(b))
    return None


def clip(s, n=600):
    return s if len(s) <= n else s[:n] + f"...(+{len(s) - n})"


def check_snippet(sn, target, verbose=False):
    """Returns (status, message). status: pass, unsupported_ok, fail, table."""
    try:
        e0, _, used_gen = observe(sn, None, detect_gen=True)   # eager: program itself
        e1, _, _ = observe(sn, identity)   # the identity target through the same path
    except Exception:
        return "table", "eager run failed outside program():\n" + traceback.format_exc()
    d = first_diff(e0, e1)
    if d:
        return "table", f"nondeterministic ({d[0]}): {clip(d[1])} vs {clip(d[2])}"
    shown = ""
    if verbose:
        shown = "\n  eager observation:\n" + "\n".join(f"    [{n}] {x}" for n, x in e0)
    if used_gen and not sn.unsup:
        shown += "\n  (runs a generator frame; not marked gen=True: Unsupported is not accepted)"
    if target is None:
        return "pass", shown.lstrip("\n")
    try:
        t, unsup, _ = observe(sn, target)
    except Exception:
        return "fail", "traced run failed outside program():\n" + traceback.format_exc()
    d = first_diff(e0, t)
    if d is None:
        return "pass", shown.lstrip("\n")
    if unsup is not None:
        if sn.unsup:
            return "unsupported_ok", f"tfjit.Unsupported ({sn.unsup}): {safe_str(unsup)}"
        return "fail", f"UNSUPPORTED: {safe_str(unsup)}"
    msg = f"differs at {d[0]}:\n    eager : {clip(d[1])}\n    tracer: {clip(d[2])}"
    if verbose:
        msg += shown
        msg += "\n  tracer observation:\n" + "\n".join(f"    [{n}] {x}" for n, x in t)
    return "fail", msg


# ---------------------------------------------------------------------------
# Isolation: each case in a forked child; a crash or hang costs one case.

def opcode_counts():
    f = getattr(tfjit, "opcode_counts", None) if tfjit is not None else None
    return dict(f()) if f is not None else {}


def run_isolated(fn, fork=True):
    """Runs fn() -> (status, message); in a child process when fork. Also returns the
    opcode counts the case added: (status, message, {opname: count})."""
    if not fork:
        before = opcode_counts()
        try:
            st, msg = fn()
        except Exception:
            st, msg = "fail", "driver error:\n" + traceback.format_exc()
        after = opcode_counts()
        return st, msg, {k: v - before.get(k, 0) for k, v in after.items() if v != before.get(k, 0)}
    sys.stdout.flush()
    sys.stderr.flush()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        code = 0
        try:
            signal.alarm(CHILD_TIMEOUT)
            res = run_isolated(fn, fork=False)
            data = pickle.dumps(res)
        except BaseException:
            data = pickle.dumps(("fail", "child error:\n" + traceback.format_exc(), {}))
            code = 1
        with os.fdopen(w, "wb") as wf:
            wf.write(data)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    os.close(w)
    with os.fdopen(r, "rb") as rf:
        data = rf.read()
    _, status = os.waitpid(pid, 0)
    if data:
        try:
            return pickle.loads(data)
        except Exception:
            pass
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        what = "timeout (SIGALRM)" if sig == signal.SIGALRM else f"signal {signal.Signals(sig).name}"
        return "fail", f"CRASH: child died by {what}", {}
    return "fail", f"CRASH: child exited {os.WEXITSTATUS(status)} without a result", {}


# ---------------------------------------------------------------------------
# Command line.

def parser(prog_desc="Run the tracer's snippet tables."):
    ap = argparse.ArgumentParser(description=prog_desc)
    ap.add_argument("--only", action="append", default=[],
                    help="run only this snippet (name or topic.name; a trailing * is a prefix)")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--identity", action="store_true", help="use the identity target")
    ap.add_argument("--require-jit", action="store_true",
                    help="fail when tfjit.jit is missing instead of using the identity")
    ap.add_argument("--no-fork", action="store_true", help="run every case in this process")
    return ap


def selected(sn, only):
    if not only:
        return True
    for o in only:
        for n in (sn.name, sn.fullname):
            if n == o or (o.endswith("*") and n.startswith(o[:-1])):
                return True
    return False


def pick_target(opts):
    """(target or None for identity-only, description) or exits when required."""
    jit = real_jit()
    if opts.identity:
        return None, "identity (--identity)"
    if jit is None:
        if opts.require_jit:
            print("FAIL: tfjit.jit is missing but --require-jit was given")
            sys.exit(1)
        return None, "identity (tfjit.jit missing: checking the table only)"
    return jit, "tfjit.jit"


def run_tables(tables, opts, counts=None):
    """Runs every selected snippet; returns (npass, nfail, failures list)."""
    target, desc = pick_target(opts)
    print(f"target: {desc}")
    npass = nfail = nunsup = 0
    failures = []
    for tb in tables:
        for sn in tb.snippets:
            if not selected(sn, opts.only):
                continue
            st, msg, cnt = run_isolated(lambda: check_snippet(sn, target, opts.verbose),
                                        fork=not opts.no_fork)
            if counts is not None:
                for k, v in cnt.items():
                    counts[k] = counts.get(k, 0) + v
            if st == "pass":
                npass += 1
            elif st == "unsupported_ok":
                npass += 1
                nunsup += 1
            else:
                nfail += 1
                failures.append((sn.fullname, st, msg))
            if opts.verbose or st not in ("pass", "unsupported_ok"):
                tag = {"pass": "ok", "unsupported_ok": "ok (declared Unsupported)",
                       "table": "TABLE BUG", "fail": "FAIL"}[st]
                print(f"{tag:10} {sn.fullname}" + (f": {msg}" if msg else ""))
    if nunsup:
        print(f"{nunsup} snippets answered tfjit.Unsupported where it is accepted")
    return npass, nfail, failures


def main(tables, argv=None):
    opts = parser().parse_args(argv)
    npass, nfail, failures = run_tables(tables, opts)
    if npass + nfail == 0:
        print("no snippet selected")
        return 1
    if failures:
        print("failing snippets: " + " ".join(n for n, _, _ in failures))
    print(f"{npass} passed, {nfail} failed")
    return 1 if nfail else 0
