"""tracefuzz repro: runs the program above eagerly and through a JIT, and compares.

Usage:  python3.11 THIS_FILE.py [TARGET]
  TARGET            the JIT to test, a callable jit(fn) -> callable:
                    builtin (tracefuzz's tracer, tfjit.jit), identity,
                    path/to/file.py:attr or package.module:attr
                    (default: $TRACEFUZZ_TARGET, else the target this was found with)
  TRACEFUZZ_FAULTS  faults injected into the built-in tracer, comma-separated
                    ("" for none; default: the faults this was found with)
  TRACEFUZZ_TIMEOUT seconds of wall time before the run counts as hung (100)
  TRACEFUZZ_NO_FORK=1 run in this process (for a debugger): the run is
                    otherwise in a forked child, so a segfault is reported too
Exit status: 0 eager and JIT agree (or the JIT declared the program unsupported),
1 they diverge, the JIT crashed (an exception of its own, a signal) or hung,
2 the target cannot be loaded or the program is not a valid reproducer (it does
not run, or runs differently each time).

What it runs (tracefuzz's run protocol, docs/CLI.md and DESIGN.md): the program
text above the marker line is compiled once, then run twice eagerly and once
through the target, each time in a fresh module namespace:
    f = program  (or target(program))      args = make()         r1 = f(*args)
    between(*args) if defined               r2 = f(*args)
    args2 = make_other() or make()          r3 = f(*args2)
make, between and make_other always run eagerly. Each run is observed without
running program code: r1..r3 (an exception as its type and args), LOG after each
step, then everything reachable from args, args2, LOG, the program's data globals
and the data in its classes' dicts, objects numbered by first appearance so
identity counts and addresses do not. The first line that differs is printed
side by side. Pytest collects test_tracefuzz_repro below if the file is named
test_*.py.
"""
# The program above ran once as this module when the file was loaded: drop its
# names, so none of them (a global named `type` or `list`) shadows the harness's.
for _name in [_n for _n in list(globals()) if not _n.startswith("__")]:
    del globals()[_name]
del _name

import ast
import difflib
import gc
import importlib
import importlib.util
import os
import re
import signal
import sys
import time
import traceback
import types

# The set-up this was found with; tracefuzz fills this line in when it writes the
# script (target spec with absolute paths, faults, unsupported exception, extra
# sys.path directories, where tfjit was found).
FOUND = {}

MARKER = ("# ---- tracefuzz repro: below this line runs the program above eagerly"
          " and through the JIT ----")
MODULE = "tfprog"                       # __name__ of the program's namespace
DRIVER_FILE = "<tracefuzz-driver>"
DRIVER = """\
def __tracefuzz_jit__(target, program):
    return target(program)


def __tracefuzz_call__(f, args):
    return f(*args)


def __tracefuzz_step__(call, f, args):
    return call(f, args)
"""
STEPS = 3
SECTIONS = ("r1", "log1", "r2", "log2", "r3", "log3", "state")
CAP_DEPTH, CAP_ITEMS, CAP_LOG, CAP_OBJECTS, CAP_LINES, CAP_STR = 8, 64, 1024, 2000, 10000, 200
CAP_CLASS_ENTRIES, CAP_GLOBALS = 64, 1024
HEAPTYPE = 1 << 9


class ReproError(Exception):
    """A problem of the set-up (exit 2), not a divergence."""


# ---- reading objects without running their code --------------------------------
# Attributes of types and instances are read through the C descriptors of `type`,
# `object` and the built-in types, never through a class's own __getattribute__,
# property or metaclass.

_type_dict = type.__dict__["__dict__"].__get__
_type_mro = type.__dict__["__mro__"].__get__
_type_flags = type.__dict__["__flags__"].__get__
_type_qualname = type.__dict__["__qualname__"].__get__
_type_module = type.__dict__["__module__"].__get__
_exc_args = BaseException.__dict__["args"].__get__
_func_qualname = types.FunctionType.__dict__["__qualname__"].__get__
_method_func = types.MethodType.__dict__["__func__"].__get__
_method_self = types.MethodType.__dict__["__self__"].__get__
_cfunc_self = types.BuiltinFunctionType.__dict__["__self__"].__get__
_cfunc_name = types.BuiltinFunctionType.__dict__["__name__"].__get__
_ADDR = re.compile(r"0x[0-9a-fA-F]{6,}")


def isa(o, cls):
    """isinstance by the real type: isinstance() may read o.__class__, program code."""
    return issubclass(type(o), cls)


def is_heap(t):
    return bool(_type_flags(t) & HEAPTYPE)


def type_name(t):
    """The qualified name of a class statement, module.name of a built-in type."""
    if is_heap(t):
        return _type_qualname(t)
    mod = _type_module(t)
    return _type_qualname(t) if mod == "builtins" else "%s.%s" % (mod, _type_qualname(t))


def mro_lookup(t, name):
    """What `name` names along t's MRO, read from the class dicts; None if absent."""
    for k in _type_mro(t):
        d = _type_dict(k)
        if name in d:
            return d[name]
    return None


def instance_dict(o):
    """The raw instance dict of o, or None: through the `__dict__` getset of the
    class that made it, skipping anything else a class put under that name."""
    for k in _type_mro(type(o)):
        desc = _type_dict(k).get("__dict__")
        if type(desc) is types.GetSetDescriptorType:
            try:
                d = desc.__get__(o)
            except (AttributeError, TypeError):
                return None
            return d if type(d) is dict else None
    return None


def slots(o):
    """(name, value or None when unset) of the object members of o's heap types,
    in MRO order: __slots__, and the fields of heap C types such as partial."""
    out = []
    for k in _type_mro(type(o)):
        if not is_heap(k):
            continue
        for name, desc in _type_dict(k).items():
            if type(desc) is not types.MemberDescriptorType or name.startswith("__"):
                continue
            try:
                out.append((name, True, desc.__get__(o)))
            except AttributeError:
                out.append((name, False, None))
    return out


def is_identifier(k):
    return type(k) is str and k.isascii() and k.isidentifier()


def is_dunder(k):
    return type(k) is str and len(k) > 4 and k.startswith("__") and k.endswith("__")


def int_text(o):
    """Decimal, hexadecimal beyond 4096 bits (str() of such ints is limited)."""
    return hex(o) if int.bit_length(o) > 4096 else int.__repr__(o)


def cap_text(s):
    return s if len(s) <= CAP_STR else s[:CAP_STR] + "...<cap str %d>" % len(s)


def scalar(o, scrub=False, space=False):
    """The text of a plain value, or None when o is not one."""
    t = type(o)
    if o is None or o is True or o is False or o is Ellipsis or o is NotImplemented:
        return repr(o)
    if t is int:
        return cap_text(int_text(o))
    if t is float or t is complex:
        return t.__repr__(o)
    if t is str:
        s = cap_text(o)
        if scrub:
            s = _ADDR.sub("0x<addr>", s)
        text = ascii(s)
        return text.replace(" ", "\\x20") if space else text
    if t is bytes:
        return bytes.__repr__(o[:CAP_STR]) + ("" if len(o) <= CAP_STR else "...<cap str %d>" % len(o))
    return None


# ---- the observation ------------------------------------------------------------

class Observer:
    """One run's observation: section name -> list of "PATH = VALUE" lines, one
    numbering of objects over all sections (docs/OBSERVATION.md; a simpler text
    than oracles/or_observe.c's, with the same roots, order, caps and numbering)."""

    def __init__(self, ns):
        self.ns = ns
        self.numbers = {}          # id -> number
        self.keep = []             # numbered objects, alive while observing
        self.lines = None
        self.stopped = False
        self.scrub = 0
        self.seen_types = {}       # id(type) -> expanded?
        self.type_refs = []        # the types examined, alive while observing
        self.cap = CAP_ITEMS       # the item cap of the current root container
        self.classes = []          # the program's classes met, in order

    # -- numbering and the world's classes
    def number(self, o):
        if len(self.keep) >= CAP_OBJECTS:
            return 0
        self.keep.append(o)
        self.numbers[id(o)] = len(self.keep)
        self.note(o if isa(o, type) else type(o))
        return len(self.keep)

    def mark_type(self, t):
        if not is_heap(t):
            return False
        if id(t) not in self.seen_types:
            self.seen_types[id(t)] = False
            self.type_refs.append(t)
            mod = _type_dict(t).get("__module__")
            if type(mod) is str and mod == MODULE:
                self.classes.append(t)
        return True

    def note(self, t):
        """t, the rest of its MRO, what each of those reaches, then its metaclass."""
        if not self.mark_type(t) or self.seen_types[id(t)]:
            return
        self.seen_types[id(t)] = True
        bases = [b for b in _type_mro(t)[1:] if isa(b, type)]
        for b in bases:
            self.mark_type(b)
        for b in bases:
            self.note(b)
        self.note(type(t))

    def is_data(self, k, v):
        if is_dunder(k):
            return False
        if isa(v, type):
            self.note(v)
            return False
        if isa(v, (types.FunctionType, types.ModuleType, types.BuiltinFunctionType,
                          types.MethodType)):
            return False
        return mro_lookup(type(v), "__get__") is None

    # -- lines
    def line(self, path, text):
        if self.stopped:
            return False
        if len(self.lines) >= CAP_LINES:
            self.lines.append("<cap lines>")
            self.stopped = True
            return False
        self.lines.append("%s = %s" % (path, text))
        return True

    def node(self, path, o, depth, prefix=""):
        if self.stopped:
            return
        cap = self.cap if depth == 0 else CAP_ITEMS
        s = scalar(o, self.scrub > 0)
        if s is not None:
            self.line(path, prefix + s)
            return
        t = type(o)
        if t is tuple or t is frozenset:
            n = len(o)
            if depth >= CAP_DEPTH:
                self.line(path, "%s%s[%d] <cap depth>" % (prefix, t.__name__, n))
                return
            self.line(path, "%s%s[%d]" % (prefix, t.__name__, n))
            if t is tuple:
                self.items(path, list(o), depth, "[%d]", cap)
            else:
                self.items(path, self.sorted_set(o, depth), depth, "{%d}", cap)
            return
        n = self.numbers.get(id(o))
        if n is not None:
            self.line(path, prefix + "#%d" % n)
            return
        n = self.number(o)
        head = "%s %s" % ("#%d" % n if n else "<cap objects>", type_name(t) + self.detail(o))
        self.line(path, prefix + head)
        if n and depth < CAP_DEPTH:
            self.contents(path, o, depth)
        elif n:
            self.lines[-1] += " <cap depth>"

    def detail(self, o):
        if isa(o, type):
            return " " + type_name(o)
        if isa(o, types.FunctionType):
            return " " + _func_qualname(o)
        if isa(o, types.ModuleType):
            return " " + str(types.ModuleType.__dict__["__dict__"].__get__(o).get("__name__"))
        if isa(o, types.BuiltinFunctionType):
            return " " + _cfunc_name(o)
        for base, rep in ((int, int_text), (float, float.__repr__), (complex, complex.__repr__)):
            if isa(o, base):
                return " " + cap_text(rep(o))
        if isa(o, str):
            return " " + ascii(cap_text(str.__str__(o)))
        if isa(o, (bytes, bytearray)):
            return " " + repr(bytes(memoryview(o)[:CAP_STR]))
        for base in (list, dict, set, frozenset, tuple):
            if isa(o, base):
                return "[%d]" % base.__len__(o)
        return ""

    def contents(self, path, o, depth):
        if isa(o, BaseException):
            self.scrub += 1
            self.node(path + ".args", _exc_args(o), depth + 1)
            self.scrub -= 1
            return
        if isa(o, (type, types.FunctionType, types.ModuleType)):
            return
        if isa(o, types.MethodType):
            self.node(path + ".__func__", _method_func(o), depth + 1)
            self.node(path + ".__self__", _method_self(o), depth + 1)
            return
        if isa(o, types.BuiltinFunctionType):
            s = _cfunc_self(o)
            if s is not None and not isa(s, types.ModuleType):
                self.node(path + ".__self__", s, depth + 1)
            return
        if isa(o, (list, tuple)):
            base = list if isa(o, list) else tuple
            self.items(path, [base.__getitem__(o, i) for i in range(base.__len__(o))],
                       depth, "[%d]", self.cap if depth == 0 else CAP_ITEMS)
        elif isa(o, dict):
            self.dict_items(path, dict.items(o), depth, self.cap if depth == 0 else CAP_ITEMS)
        elif isa(o, (set, frozenset)):
            self.items(path, self.sorted_set(o, depth), depth, "{%d}",
                       self.cap if depth == 0 else CAP_ITEMS)
        if is_heap(type(o)):
            self.instance_state(path, o, depth)

    def items(self, path, seq, depth, fmt, cap):
        for i, item in enumerate(seq):
            if i == cap:
                self.line(path + "[%d:]" % cap, "<cap items %d>" % len(seq))
                break
            self.node(path + fmt % i, item, depth + 1)

    def dict_items(self, path, items, depth, cap, ident=None):
        items = list(items)
        for i, (k, v) in enumerate(items):
            if i == cap:
                self.line(path + "[%d:]" % cap, "<cap items %d>" % len(items))
                break
            self.node(path + self.key_step(k, ident), v, depth + 1)

    def key_step(self, k, ident):
        if ident is not None and is_identifier(k):
            return ident + k
        return ("%s[" % ("" if ident is None else ".__dict__")) + self.key(k, True) + "]"

    def instance_state(self, path, o, depth):
        d = instance_dict(o)
        if d is not None:
            self.dict_items(path, dict.items(d), depth, CAP_ITEMS, ident=".")
        for name, is_set, value in slots(o):
            if is_set:
                self.node(path + "." + name, value, depth + 1)
            else:
                self.line(path + "." + name, "<unset>")

    # -- inline form: dict keys and the canonical order of sets
    def key(self, o, assign, depth=0, state=False):
        """One-line form: plain values, tuples, sorted frozensets, "#n" for an object
        numbered (assign numbers new ones: dict keys), else "#? Type" and, for a
        set's sort key (state), one level of an instance's state."""
        s = scalar(o, space=True)
        if s is not None:
            return s
        t = type(o)
        if depth >= CAP_DEPTH:
            return "<cap depth>"
        if t is tuple:
            inner = ", ".join(self.key(x, assign, depth + 1, state) for x in o)
            return "(" + inner + ("," if len(o) == 1 else "") + ")"
        if t is frozenset:
            inner = sorted(self.key(x, assign, depth + 1, state) for x in o)
            return "frozenset({%s})" % ", ".join(inner)
        n = self.numbers.get(id(o))
        if n is not None:
            return "#%d" % n
        if assign:
            n = self.number(o)
            return "#%d %s" % (n, type_name(t)) if n else "<cap objects> " + type_name(t)
        text = "#? " + type_name(t)
        if state and is_heap(t) and not isa(o, (type, BaseException)):
            d = instance_dict(o) or {}
            parts = ["%s=%s" % (self.key(k, False, depth + 1), self.key(v, False, depth + 1))
                     for k, v in list(dict.items(d))[:CAP_ITEMS]]
            parts += ["%s=%s" % (nm, self.key(v, False, depth + 1) if ok else "<unset>")
                      for nm, ok, v in slots(o)]
            text += "{" + ", ".join(parts) + "}"
        return text

    def sorted_set(self, o, depth):
        base = set if isa(o, set) else frozenset
        if base.__len__(o) > 4096:     # too many to sort: only their number
            return []
        elems = list(base.__iter__(o))
        keyed = [(self.key(e, False, depth + 1, True), i, e) for i, e in enumerate(elems)]
        keyed.sort(key=lambda x: (x[0].encode("utf-8", "backslashreplace"), x[1]))
        return [e for _, _, e in keyed]

    # -- the sections
    def observe(self, raw):
        """raw: RunRaw of a finished (or ended) run -> {section: [lines]}."""
        out = {}
        was_enabled = gc.isenabled()
        gc.disable()   # no finalizer (program code) runs while we read
        try:
            for i in range(STEPS):
                self.lines, self.stopped, self.cap = [], False, CAP_ITEMS
                name = "r%d" % (i + 1)
                if i >= raw.steps_done:
                    self.line(name, "<not run>")
                elif raw.exc[i] is not None:
                    self.node(name, raw.exc[i], 0, "raise ")
                else:
                    self.node(name, raw.result[i], 0)
                out[name] = self.lines
                self.lines, self.stopped, self.cap = [], False, CAP_LOG
                name = "log%d" % (i + 1)
                snap = raw.log_after[i]
                if i >= raw.steps_done:
                    self.line(name, "<not run>")
                elif type(snap) is list:   # a fresh copy: its identity means nothing
                    self.line(name, "list[%d]" % len(snap))
                    self.items(name, snap, 0, "[%d]", CAP_LOG)
                else:
                    self.line(name, "<none>")
                out[name] = self.lines
            self.lines, self.stopped = [], False
            for name, o, cap in (("args", raw.args, CAP_ITEMS), ("args2", raw.args2, CAP_ITEMS),
                                 ("LOG", raw.ns.get("LOG") if raw.ns else None, CAP_LOG)):
                self.cap = cap
                if o is None:
                    self.line(name, "<none>")
                else:
                    self.node(name, o, 0)
            self.observe_world(raw.ns)
            out["state"] = self.lines
        finally:
            if was_enabled:
                gc.enable()
        return out

    def observe_world(self, ns):
        if ns is None:
            return
        self.cap = CAP_LOG
        total = 0
        for k, v in list(dict.items(ns)):
            if (type(k) is str and k == "LOG") or not self.is_data(k, v):
                continue
            total += 1
            if total <= CAP_GLOBALS:
                self.node("global:" + (k if is_identifier(k) else "[%s]" % self.key(k, True)), v, 0)
        if total > CAP_GLOBALS:
            self.line("global:[%d:]" % CAP_GLOBALS, "<cap items %d>" % total)
        c = 0
        while c < len(self.classes) and not self.stopped:
            t = self.classes[c]
            c += 1
            qual = "class:" + type_name(t).replace(" ", "\\x20")
            entries = [(k, v) for k, v in list(_type_dict(t).items()) if self.is_data(k, v)]
            if entries:
                self.cap = CAP_ITEMS
                self.node(qual, t, 0)
            for i, (k, v) in enumerate(entries):
                if i == CAP_CLASS_ENTRIES:
                    self.line(qual + ".__dict__[%d:]" % i, "<cap items %d>" % len(entries))
                    break
                self.cap = CAP_LOG
                step = "." + k if is_identifier(k) else ".__dict__[%s]" % self.key(k, True)
                self.node(qual + step, v, 0)


# ---- the run protocol -------------------------------------------------------------

class RunRaw:
    """What one run left: results, exceptions, LOG snapshots, the world."""

    def __init__(self):
        self.ns = None
        self.result = [None] * STEPS
        self.exc = [None] * STEPS
        self.log_after = [None] * STEPS
        self.args = self.args2 = None
        self.steps_done = 0
        self.ended = None          # (kind, exception) when the target ended the run


def snapshot_log(ns):
    log = ns.get("LOG")
    if log is None:
        return None
    try:
        return list(log)
    except Exception:
        return None


def as_args(made, who):
    if type(made) is tuple:
        return made
    try:
        return tuple(made)
    except Exception:
        raise TypeError("%s() must return a tuple of arguments, not %s"
                        % (who, type(made).__name__)) from None


class Invalid(Exception):
    """The program does not follow the contract (eager runs only)."""


def run_once(code, filename, target=None, classify=None):
    """One run of the protocol in a fresh namespace; eager when target is None.
    classify(exc, step) says whether a target's exception ends the run (a kind) or
    is the step's result (None)."""
    raw = RunRaw()
    ns = raw.ns = {"__name__": MODULE, "__builtins__": __builtins__
                   if isa(__builtins__, dict) else __builtins__.__dict__}
    exec(code, ns)
    make, program = ns.get("make"), ns.get("program")
    between, make_other = ns.get("between"), ns.get("make_other")
    if make is None or program is None:
        raise Invalid("the program defines no %s()" % ("make" if make is None else "program"))
    exec(compile(DRIVER, DRIVER_FILE, "exec"), ns)   # the callers live in the program's module
    step_fn, call_fn = ns["__tracefuzz_step__"], ns["__tracefuzz_call__"]
    if target is None:
        f = program
    else:
        try:
            f = ns["__tracefuzz_jit__"](target, program)
        except BaseException as e:
            if isa(e, (KeyboardInterrupt, SystemExit)):
                raise
            raw.ended = (classify(e, 0) or "TARGET_CRASH", e, 0)
            return raw
    raw.args = as_args(make(), "make")
    for step in range(1, STEPS + 1):
        args = raw.args
        if step == 2 and between is not None:
            between(*raw.args)
        if step == 3:
            raw.args2 = as_args((make_other or make)(), "make_other" if make_other else "make")
            args = raw.args2
        try:
            raw.result[step - 1] = step_fn(call_fn, f, args)
        except BaseException as e:
            if isa(e, (KeyboardInterrupt, SystemExit)):
                raise
            kind = classify(e, step) if target is not None else None
            if kind is not None:
                raw.ended = (kind, e, step)
                return raw
            raw.exc[step - 1] = e
        raw.log_after[step - 1] = snapshot_log(ns)
        raw.steps_done = step
    return raw


def first_difference(a, b):
    """(section, index) of the first line that differs, or None."""
    for s in SECTIONS:
        la, lb = a[s], b[s]
        for i in range(max(len(la), len(lb))):
            if i >= len(la) or i >= len(lb) or la[i] != lb[i]:
                return s, i
    return None


def side_by_side(a, b, section, i, left, right):
    la, lb = a[section], b[section]
    lo, hi = max(0, i - 3), min(max(len(la), len(lb)), i + 4)
    width = 56

    def cell(lines, j):
        s = lines[j] if j < len(lines) else ""
        return s if len(s) <= width else s[:width - 1] + "~"

    out = ["  %-*s | %s" % (width, left, right)]
    for j in range(lo, hi):
        same = j < len(la) and j < len(lb) and la[j] == lb[j]
        out.append("%s %-*s %s %s" % (" " if same else ">", width, cell(la, j),
                                        "|" if same else "!", cell(lb, j)))
    out.append("")
    out.append("%s: %s" % (left, la[i] if i < len(la) else "(no line)"))
    out.append("%s: %s" % (right, lb[i] if i < len(lb) else "(no line)"))
    return "\n".join(out)


def log_diff(a, b, name):
    """The LOG events the jit lacks or adds, in context (one line per event)."""
    if type(a) is not list or type(b) is not list:
        return ""
    ob = Observer(None)
    ka = [ob.key(x, False) for x in a]
    kb = [ob.key(x, False) for x in b]
    out = ["", "%s, event by event (- only eager, + only jit):" % name]
    shown = 0
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, ka, kb, autojunk=False).get_opcodes():
        if op == "equal":
            ctx = list(range(i1, i2))
            if shown == 0:
                ctx = ctx[-2:]
            elif len(ctx) > 4:
                ctx = ctx[:2]
            out += ["    [%d] %s" % (i, ka[i]) for i in ctx]
            continue
        out += ["  - [%d] %s" % (i, ka[i]) for i in range(i1, i2)]
        out += ["  + [%d] %s" % (j, kb[j]) for j in range(j1, j2)]
        shown += 1
        if shown >= 5:
            out.append("  ...")
            break
    return "\n".join(out)


def statements(source):
    """The statements of a generated program(): [(first line, lines, loop count)],
    one per `try:  # tf: access=...` block, and whether items are stored by index."""
    out, cur, stored, inside = [], None, False, False
    for n, line in enumerate(source.splitlines(), 1):
        if line.startswith("def "):
            inside = line.startswith("def program(")
            continue
        if not inside:
            continue
        code, _, tag = line.partition("# tf:")
        if tag and "out = [None]" in code:
            stored = True
        elif tag and code.strip() == "try:":
            cur = [n, [(n, line)], 0]
            out.append(cur)
        elif cur is not None:
            if code.strip().startswith("except EXPECTED"):
                cur = None
                continue
            cur[1].append((n, line))
            if code.strip().startswith("for i in range(") and not stored:
                cur[2] = int(re.match(r"\s*for i in range\((\d+)", code).group(1))
    return out, stored


def involved(source, section, path, result):
    """The program() statement that made the result item at path (generated
    programs: one `try:  # tf:` block per item, a loop one item per iteration
    until it raises), as lines to print; "" when there is none."""
    m = re.match(r"r\d\[(\d+)\]", path)
    if not section.startswith("r") or m is None or type(result) is not tuple:
        return ""
    index = int(m.group(1))
    stmts, stored = statements(source)
    raised = [type(x) is tuple and len(x) == 2 and x[0] == "raised" for x in result]
    pos = 0
    for first, lines, loop in stmts:
        take = 1
        if loop and not stored:
            take = 0
            while take < loop and pos + take < len(result):
                take += 1
                if raised[pos + take - 1]:
                    break
        if index < pos + take:
            tag = lines[0][1].partition("# tf:")[2].strip()
            body = "\n".join("  %5d | %s" % (n, line) for n, line in lines)
            return "\nthe statement of %s (program line %d, %s):\n%s" % (path, first, tag, body)
        pos += take
    return ""


def difference(a, b):
    """What kind of difference two lines show (as or_report.c's `difference:`)."""
    if a is None or b is None or a.partition(" = ")[0] != b.partition(" = ")[0]:
        return "structure: an entry on one side only"
    va, vb = a.partition(" = ")[2], b.partition(" = ")[2]
    if va.startswith("raise ") != vb.startswith("raise "):
        return "exception: one side raises"
    new_a, new_b = re.fullmatch(r"#\d+ .*", va), re.fullmatch(r"#\d+ .*", vb)
    old_a, old_b = re.fullmatch(r"#\d+", va), re.fullmatch(r"#\d+", vb)
    if new_a and old_b:
        return "identity: eager has a new object where the jit has one seen before (%s)" % vb
    if old_a and new_b:
        return "identity: the jit has a new object where eager has one seen before (%s)" % va
    return "value"


def verdict_of(section, la, lb, i):
    if section.startswith("r"):
        raising = any(" = raise " in x[i] for x in (la, lb) if i < len(x))
        return "MISMATCH_EXCEPTION" if raising else "MISMATCH_RESULT"
    return "MISMATCH_EVENTS" if section.startswith("log") else "MISMATCH_STATE"


# ---- the target -------------------------------------------------------------------

def load_file_module(path):
    path = os.path.abspath(path)
    for m in list(sys.modules.values()):
        if getattr(m, "__file__", None) == path:
            return m
    name = re.sub(r"\W", "_", os.path.basename(path)[:-3])
    if name in sys.modules:
        name = "tftarget_" + name
    d = os.path.dirname(path)
    if d not in sys.path:
        sys.path.insert(0, d)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None:
        raise ImportError("cannot load %s as a module" % path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    try:
        spec.loader.exec_module(mod)
    except BaseException:
        del sys.modules[name]
        raise
    return mod


def resolve(spec):
    """The object MODULE:ATTR or FILE.py:ATTR names (ATTR may be dotted)."""
    mod, sep, attrs = spec.rpartition(":")
    if not sep or not mod or not attrs:
        raise ValueError("'%s' is not MODULE:ATTR or FILE.py:ATTR" % spec)
    obj = load_file_module(mod) if mod.endswith(".py") else importlib.import_module(mod)
    for a in attrs.split("."):
        obj = getattr(obj, a)
    return obj


def import_tfjit():
    try:
        return importlib.import_module("tfjit")
    except ImportError:
        where = FOUND.get("tfjit_dir")
        if not where:
            raise
        sys.path.append(where)
        return importlib.import_module("tfjit")


def load_target(spec, faults, unsupported_spec):
    """(jit, unsupported exception or None, extra exceptions by kind)."""
    for d in FOUND.get("python_path", ()):
        if d not in sys.path:
            sys.path.append(d)
    venv = os.environ.get("VIRTUAL_ENV")
    if venv:
        sp = os.path.join(venv, "lib", "python%d.%d" % sys.version_info[:2], "site-packages")
        if os.path.isdir(sp):
            import site
            site.addsitedir(sp)
    kinds = {}
    unsupported = None
    if spec == "identity":
        jit = lambda fn: fn  # noqa: E731
    elif spec == "builtin":
        tfjit = import_tfjit()
        tfjit.set_faults(faults or "")
        jit, unsupported = tfjit.jit, tfjit.Unsupported
    else:
        jit = resolve(spec)
    try:   # tfjit's own exceptions, whichever target raises them
        tfjit = sys.modules.get("tfjit") or import_tfjit()
        kinds = {"PROVENANCE": tfjit.ProvenanceError, "TIMEOUT": tfjit.LimitExceeded}
    except ImportError:
        pass
    if unsupported_spec:
        unsupported = resolve(unsupported_spec)
        if not (isa(unsupported, type) and issubclass(unsupported, BaseException)):
            raise ValueError("--unsupported %s: not an exception class" % unsupported_spec)
    if not callable(jit):
        raise TypeError("target %s: %s object is not callable" % (spec, type(jit).__name__))
    return jit, unsupported, kinds


def format_exc(e, filename, program_lines):
    """e's traceback without this harness's own frames (those below the marker)."""
    frames = [f for f in traceback.extract_tb(e.__traceback__)
              if not (f.filename == filename and (f.lineno or 0) > program_lines)]
    text = "Traceback (most recent call last):\n" if frames else ""
    text += "".join(traceback.format_list(frames))
    text += "".join(traceback.format_exception_only(type(e), e))
    return text.rstrip()


def own_frame(e, filename):
    """Whether the innermost frame of e's traceback is not the program's: the target
    raised it from its own code."""
    tb = e.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame.f_code.co_filename != filename


# ---- main -------------------------------------------------------------------------

def program_text(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    at = text.find("\n" + MARKER + "\n")
    if at < 0:
        raise ReproError("%s has no tracefuzz repro marker line" % path)
    return text[:at + 1]


def main(argv=None):
    """The exit status: 0 agree, 1 diverge or crash, 2 set-up problem."""
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in ("-h", "--help"):
        print(usage())
        return 0
    spec = (argv[0] if argv else None) or os.environ.get("TRACEFUZZ_TARGET") or \
        FOUND.get("target") or "builtin"
    faults = os.environ.get("TRACEFUZZ_FAULTS")
    if faults is None:
        faults = FOUND.get("faults") or ""
    unsupported_spec = FOUND.get("unsupported") if spec == FOUND.get("target") else None
    print("==== tracefuzz repro: %s, target %s%s" % (
        os.path.basename(__file__), spec,
        ", faults " + faults if spec == "builtin" and faults else ""))
    return isolated(repro, spec, faults, unsupported_spec)


def isolated(fn, *args):
    """fn(*args) in a forked child, so that a target that kills the process (a
    segfault) or hangs is reported and exits 1 rather than ending the script;
    TRACEFUZZ_NO_FORK=1 runs it in this process (under a debugger)."""
    if not hasattr(os, "fork") or os.environ.get("TRACEFUZZ_NO_FORK"):
        return fn(*args)
    timeout = float(os.environ.get("TRACEFUZZ_TIMEOUT") or 100)
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        rc = 3
        try:
            import faulthandler
            faulthandler.enable()   # a crash prints the Python frames it happened in
            sys.stdout.reconfigure(line_buffering=True)   # what was printed survives it
            rc = fn(*args)
        except BaseException:
            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(rc)
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            print("TIMEOUT: the run took more than %g s (TRACEFUZZ_TIMEOUT)" % timeout)
            return 1
        time.sleep(0.02)
    if os.WIFSIGNALED(status):
        print("TARGET_CRASH: the process died of %s"
              % signal.Signals(os.WTERMSIG(status)).name)
        return 1
    return os.WEXITSTATUS(status)


def repro(spec, faults, unsupported_spec):
    filename = os.path.abspath(__file__)
    try:
        source = program_text(filename)
        code = compile(source, filename, "exec")
        nlines = source.count("\n")
    except (OSError, SyntaxError, ReproError) as e:
        print("cannot read the program: %s" % e)
        return 2
    try:
        jit, unsupported, kinds = load_target(spec, faults, unsupported_spec)
    except Exception as e:
        print("cannot load target %s: %s" % (spec, "".join(
            traceback.format_exception_only(type(e), e)).strip()))
        return 2
    eager = []
    for n in (1, 2):
        try:
            raw = run_once(code, filename)
        except Exception:
            print("the program is not a valid reproducer: eager run %d raised\n%s"
                  % (n, traceback.format_exc()))
            return 2
        eager.append((raw, Observer(raw.ns).observe(raw)))
    if first_difference(eager[0][1], eager[1][1]) is not None:
        s, i = first_difference(eager[0][1], eager[1][1])
        print("the program is nondeterministic (its two eager runs differ):")
        print(side_by_side(eager[0][1], eager[1][1], s, i, "eager 1", "eager 2"))
        return 2
    e1 = eager[0][0]

    def classify(e, step):
        if (kinds.get("PROVENANCE") and isa(e, kinds["PROVENANCE"])) or any(
                _type_qualname(k).rpartition(".")[2] == "ProvenanceError"
                for k in _type_mro(type(e))):
            return "PROVENANCE"
        if unsupported is not None and isa(e, unsupported):
            return "UNSUPPORTED"
        if kinds.get("TIMEOUT") and isa(e, kinds["TIMEOUT"]):
            return "TIMEOUT"
        if step >= 1 and e1.exc[step - 1] is None and own_frame(e, filename):
            return "TARGET_CRASH"
        return None

    try:
        t = run_once(code, filename, jit, classify)
    except Exception:
        # make/between/make_other ran eagerly in the target run and raised: the
        # target changed the world they read
        print("TARGET_CRASH: the program's set-up raised in the target run\n%s"
              % traceback.format_exc())
        return 1
    if t.ended is not None:
        kind, e, step = t.ended
        where = "target(program)" if step == 0 else "step %d" % step
        print("%s: the target raised in %s:" % (kind, where))
        print(format_exc(e, filename, nlines))
        if kind == "UNSUPPORTED":
            print("the target declared the program unsupported: not a divergence")
            return 0
        return 1
    ot = Observer(t.ns).observe(t)
    oe = eager[0][1]
    diff = first_difference(oe, ot)
    if diff is None:
        print("OK: eager and jit agree (%d observation lines)" % sum(len(v) for v in oe.values()))
        return 0
    s, i = diff
    step = s[-1] if s[-1].isdigit() else "end"
    print("%s at step %s: first divergence in [%s], line %d" % (
        verdict_of(s, oe[s], ot[s], i), step, s, i + 1))
    line = oe[s][i] if i < len(oe[s]) else ot[s][i]
    print("difference: " + difference(oe[s][i] if i < len(oe[s]) else None,
                                      ot[s][i] if i < len(ot[s]) else None))
    print(side_by_side(oe, ot, s, i, "eager", "jit"))
    more = ""
    if s.startswith("r") and e1.exc[int(s[1]) - 1] is None:
        more = involved(source, s, line.partition(" = ")[0], e1.result[int(s[1]) - 1])
    elif s.startswith("log"):
        k = int(s[-1]) - 1
        more = log_diff(e1.log_after[k], t.log_after[k], s)
    if more:
        print(more)
    for k in range(STEPS):
        e = t.exc[k]
        if e is not None and e1.exc[k] is None:
            print("\nthe jit raised in step %d where eager did not:" % (k + 1))
            print(format_exc(e, filename, nlines))
    return 1


def usage():
    """The docstring right after the marker line (the module's is the program's)."""
    with open(os.path.abspath(__file__), encoding="utf-8") as f:
        text = f.read()
    return ast.get_docstring(ast.parse(text.partition("\n" + MARKER + "\n")[2])) or ""


def test_tracefuzz_repro():
    assert main([]) == 0


if __name__ == "__main__":
    sys.exit(main())
