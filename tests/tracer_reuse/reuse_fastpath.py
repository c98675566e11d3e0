"""The replay's fast paths (issue 14, docs/REUSE.md "Replay"): each case fails when the
state a shortcut skips changes and the shortcut does not notice.

  dict_memo_value     the dict key guard's memo (TrAttrStep.dict_ver/dict_value): a loop's
                      load reads p.x while a callee changes it through a store, through
                      p.__dict__[...], or by swapping p.__dict__ for an equal-keyed dict:
                      every load sees the new value (as eagerly)
  dict_memo_shadow    a callee puts a key shadowing a class attribute into the instance
                      dict in the middle of a replayed loop: the memoised "key absent"
                      must not hold, the replay leaves at the dict key guard
  slot_in_place       a set slot read in place by the replay: a callee changes it in the
                      loop (every load sees the new value), then deletes it (the slot
                      guard fails, AttributeError as eagerly)
  record_rebind       the recorder shares an instruction's last attribute entry only while
                      its guards hold: a class attribute rebound in the middle of the
                      traced loop gets its own entry, the same call then replays to the end
                      (also the recorder's inline sharing, tr_record_load_fast: checked to
                      fail with its guard check left out)
  entry_unique        the entry check walks the attribute entries made before the first
                      store (once each): a load before the store is checked at entry (a
                      retrace), a load after it only inline (a replay with a side exit)
  oracle_memo         the provenance oracle's memo (TrAttrStep.pc): replays with the world
                      unchanged warm it and stay quiet; then a change a fault makes the
                      replay miss (a class attribute rebound, a slot stored, a store
                      forwarded stale in a loop, a shadowing dict key) must still raise
                      ProvenanceError on the next replay (without the fault: none);
                      shadow_other_owner: the memo keeps the type's part across owners,
                      the dict of each owner is still read (a shadowing key in the
                      third of four owners a loop visits)
  oracle_memo_traced  the traced-mode oracle's memo (tr_provcheck.c's table keyed by the
                      type's tag and the dict's version): traced calls (a fresh jit each)
                      with the world unchanged warm it; then a class attribute rebound
                      (stale_class_attr) or an instance dict entry rewritten through
                      __dict__ (stale_dict_write) to an equal object, which the fault
                      serves stale, must raise ProvenanceError in the next traced call
                      (without the fault: quiet, and equal to eager); checked to fail with
                      the memo (resolve_traced's hit or resolve_instance_memo) ignoring the
                      dict version or the type tag
  record_inline       the recorder's plain steps inline (tr_record_step_fast): an opcode the
                      replayer does not execute (UNPACK_SEQUENCE) still makes the trace
                      unreusable, and under skip_getter_on_replay (which looks at every
                      step) the fault still shows (eager and jit differ)
  cache_name_text     the attribute cache compares names by pointer, then as interned
                      strs, then by text: a store through an equal name built at run time
                      (not interned) is the same name: eager and jit agree, and under
                      stale_dict_write (whose memo only the protocol's own stores reach,
                      found by name) the store still reaches the memo
  cache_slot_read     the cache's re-resolution reads a slot at the member's offset: loads
                      of set slots (an instance of a subclass too) served from the cache
                      agree with eager, raise nothing, and see a slot deleted and set again
  opaque_operands     the tracer's int/float test before tr_is_plain_operands (note_opaque):
                      an int on the left and an object whose __radd__ stores a slot on the
                      right still count as an escape, so the cached slot is forgotten and
                      the next load sees the new value (no ProvenanceError); likewise
                      FOR_ITER's range/list iterator test: a map iterator running a
                      function that stores the slot still counts as an escape
  class_rebind_inline the inline guard's fast path (tr_guard_check_fast) trusts an
                      unchanged version tag: a class attribute rebound by a callee in the
                      middle of a replayed loop changes the tag (a new valid one once
                      read again), the replay leaves at the class_attr guard and agrees
                      with eager
  fused_load          the replay's LOAD_FAST + LOAD_ATTR / LOAD_METHOD in one step (the
                      owner read from the local, never pushed): a callee makes the fused
                      load's guard fail in the middle of a replayed loop (an instance
                      dict key deleted so a class attribute shows, a method rebound on
                      the class, a slot deleted); the replay must leave with the owner
                      on the stack and the tracer finish the call as eagerly
  hoisted_guard       a load's guards, passed for an owner, are not checked again for it
                      until the replay epoch moves (tr_replay.c: every step that may run
                      user code, a getter, a release that may free an object with a
                      finaliser): a class attribute rebound between two iterations of
                      a replayed loop only by a method called on a local (no
                      LOAD_GLOBAL before it), a __del__ run by a local's release, a
                      property getter, or a __bool__ of a branch's condition must
                      still fail the class_attr guard (a side exit, values as eagerly);
                      nested: a hoist made by a nested replay of the same trace ends
                      with it (the callee rebinds after it returns)
  falls_on            the replay's path check answered before the first replay for
                      steps that never jump (TrStep.falls_on): where the recorded run
                      raised (its next step a handler) and the replay does not, and where
                      a recorded branch goes the other way, the replay must still leave
                      the trace (side_exit.other, side_exit.branch) and agree with
                      eager
  dict_find           a load's key found by identity at a remembered entry when the
                      dict version moved (tr_dict_find, for the dict key guard and the
                      oracle): a loop over owners whose dicts hold the key at other
                      entries (combined tables in other orders, split tables, a hole
                      left by a deleted key, a key equal but not identical to the name,
                      a table of the general kind), and an owner stored into on every
                      iteration; between calls the dicts are swapped for reordered ones:
                      values as eagerly, no ProvenanceError
  binary_same_type    BINARY_OP's +, -, * on two exact ints or two exact floats call
                      the type's slot directly: an int subclass with its own __add__ /
                      __radd__ / __sub__ / __rsub__ / __mul__ / __rmul__ on either side,
                      bool, mixed int and float, big ints and in-place forms, all as
                      eagerly (LOG records the subclass's methods)
  call_release        a replayed CALL pops its values through the replay's own pop_call
                      and calls a Python function through its vectorcall slot, BINARY_OP
                      pops its operands through pop_two: values whose last reference the
                      stack or a local holds are released in ceval's order (__del__
                      logs them), with a plain function, a LOAD_METHOD call, a builtin,
                      keyword arguments in parameter order, a user __add__ and a local
                      rebound in a loop; results and LOG
                      as eagerly (keywords out of parameter order are released in
                      another order than eagerly's, before this pass too: left alone)
  dict_layouts        tr_dict_ptr's layouts: a managed dict still held as inline values
                      (a fresh object each call), a positive tp_dictoffset (a function's
                      attribute), a negative one (an int subclass); each call replays to
                      the end with no retrace and no side exit, values changed mid-loop
                      seen as eagerly
"""
import sys

import tfjit
from reuse_common import check, fresh, main, stats_delta

MEMO_SRC = """
LOG = []
class P:
    def __init__(self):
        self.x = 1
        self.y = 2
def bump_store(p):
    p.x = p.x + 10
def bump_dict(p):
    p.__dict__["x"] = p.x + 100
def bump_swap(p):
    p.__dict__ = {"x": p.x + 1000, "y": p.y}
BUMP = bump_store
def make():
    return (P(),)
def program(p):
    t = 0
    for i in range(6):
        t = t * 7 + p.x + p.y
        if i % 2:
            BUMP(p)
    return t
"""


def dict_memo_value():
    ok = True
    for bump in ("bump_store", "bump_dict", "bump_swap"):
        src = MEMO_SRC.replace("BUMP = bump_store", f"BUMP = {bump}")
        plan = [("call", "make")] * 4
        good, _, delta = check(f"dict_memo_value.{bump}", src, plan, ["replays"])
        ok = ok and good
    return ok


SHADOW_SRC = """
LOG = []
class C:
    k = 5
POKE = [-1]
def poke(c, i):
    if i == POKE[0]:
        c.k = 50
def make():
    return (C(),)
def program(c):
    t = 0
    for i in range(6):
        t += c.k
        poke(c, i)
    return t
"""


def dict_memo_shadow():
    # Traced and replayed with the key absent throughout (the memo warm), then each
    # call's fourth iteration shadows C.k from a callee: the replay runs natively into
    # the shadowed load, whose dict key guard must fail.
    ns = fresh(SHADOW_SRC)
    f = tfjit.jit(ns["program"])
    for _ in range(3):
        f(ns["C"]())
    ns["POKE"][0] = 3
    want = ns["program"](ns["C"]())
    before = tfjit.stats()
    got = [f(ns["C"]()) for _ in range(2)]
    delta = stats_delta(before)
    ok = got == [want] * 2 and want != 30 and delta.get("side_exit.guard.dict_key", 0) > 0
    print(("ok   " if ok else "FAIL ") + f"dict_memo_shadow: {got} want {want}; {delta}")
    return ok


SLOT_SRC = """
LOG = []
class S:
    __slots__ = ("v", "w")
    def __init__(self):
        self.v = 1
        self.w = 2
POKE = [-1]
def poke(s, i):
    s.v = s.v + 10
    if i == POKE[0]:
        del s.v
def make():
    return (S(),)
def program(s):
    t = 0
    for i in range(6):
        t = t * 3 + s.v + s.w
        poke(s, i)
    return t
def arm(s):
    POKE[0] = 4
"""


def slot_in_place():
    # A slot read in place (TrAttrStep.slot_set): a callee changes it each iteration
    # (every load sees the new value), then deletes it (the slot guard fails and the
    # load raises AttributeError as eagerly).
    plan = [("call", "make")] * 3 + [("do", "arm")] + [("call", "make")] * 2
    ok, _, delta = check("slot_in_place", SLOT_SRC, plan,
                         ["replays", "side_exit.guard.slot"])
    return ok


REBIND_SRC = """
LOG = []
class C:
    k = 5
def flip(i):
    if i == 3:
        C.k = 7
G = C()
def program(n):
    t = 0
    for i in range(n):
        t = t * 10 + G.k
        flip(i)
    return t
"""


def record_rebind():
    # The recorder shares an instruction's previous attribute entry only while its
    # guards hold: C.k rebound by a callee in the middle of the traced loop must give
    # the later iterations an entry of their own, so the same call replays to the end
    # (sharing the stale entry would leave the trace at its class_attr guard). The
    # owner is a global: an argument's guards would all be checked at entry.
    ns = fresh(REBIND_SRC)
    C = ns["C"]
    f = tfjit.jit(ns["program"])
    want, got = [], []
    for k in range(4):
        C.k = 5
        want.append(ns["program"](6))
        C.k = 5
        if k == 1:
            before = tfjit.stats()
        got.append(f(6))
    delta = stats_delta(before)
    ok = (got == want and delta.get("replays_completed", 0) == 3 and
          "side_exits" not in delta)
    print(("ok   " if ok else "FAIL ") + f"record_rebind: {got} want {want}; {delta}")
    return ok


ENTRY_SRC = """
LOG = []
class C:
    def __init__(self, z):
        self.x = 1
        if z:
            self.z = 3
def make():
    return (C(True),)
def program(c, d):
    a = c.x
    c.y = 2
    return a + d.z
"""


def entry_unique():
    ns = fresh(ENTRY_SRC)
    C = ns["C"]
    f = tfjit.jit(ns["program"])
    f(C(True), C(True))
    ok = True
    # d.z comes after the store: not checked at entry, so a d without z replays and
    # leaves the trace at its inline guard (then raises AttributeError as eagerly).
    before = tfjit.stats()
    try:
        f(C(True), C(False))
        ok = False
    except AttributeError:
        pass
    d1 = stats_delta(before)
    ok = ok and d1.get("replays", 0) == 1 and d1.get("side_exit.guard.dict_key", 0) == 1
    # c.x comes before it: an owner whose dict lacks x fails at entry (a retrace).
    c = C(True)
    del c.x
    before = tfjit.stats()
    try:
        f(c, C(True))
        ok = False
    except AttributeError:
        pass
    d2 = stats_delta(before)
    ok = ok and d2.get("retrace.dict_key", 0) == 1 and "replays" not in d2
    print(("ok   " if ok else "FAIL ") + f"entry_unique: after store {d1}; before {d2}")
    return ok


# name: (fault, source, change made between calls). Each program returns only values
# equal under the fault, so only the oracle can tell.
ORACLE = {
    "class_attr": ("stale_guard_class_attr", """
class C:
    k = [1]
def make():
    return (C(),)
def program(c):
    t = 0
    for i in range(4):
        t += len(c.k)
    return t
def change(c):
    C.k = [1]
""", "INPUT[0].k via class_attr"),
    "slot": ("skip_getter_on_replay", """
class S:
    __slots__ = ("v",)
def make():
    s = S()
    s.v = [1]
    return (s,)
def program(s):
    return s.v
def change(s):
    s.v = [1]
""", "INPUT[0].v via slot"),
    "store_in_loop": ("no_invalidate_on_store", """
class C:
    pass
NEW = [0]
def make():
    c = C()
    c.x = NEW
    return (c,)
def program(c):
    out = []
    for i in range(3):
        out.append(c.x)
        c.x = NEW
    return out
def change(c):
    global NEW
    NEW = [0]
""", "INPUT[0].x via inst_dict"),
    "shadow": ("dict_shadow_unguarded", """
class C:
    k = [1]
def make():
    return (C(),)
def program(c):
    t = 0
    for i in range(4):
        t += len(c.k)
    return t
def change(c):
    c.__dict__["k"] = [1]
""", "INPUT[0].k via class_attr"),
    "shadow_other_owner": ("dict_shadow_unguarded", """
class C:
    k = [1]
ITEMS = [C() for _ in range(4)]
def make():
    return (ITEMS,)
def program(items):
    t = 0
    for c in items:
        t += len(c.k)
    return t
def change(items):
    items[2].__dict__["k"] = [1]
""", ".k via class_attr"),
}


def oracle_case(name, fault, src, chain):
    """(ok, message): quiet while nothing changes, ProvenanceError after the change."""
    tfjit.set_faults(fault)
    try:
        ns = fresh(src)
        args = tuple(ns["make"]())
        f = tfjit.jit(ns["program"])
        before = tfjit.stats()
        for _ in range(4):               # traced once, then replays warm the memo
            f(*args)
        warm = stats_delta(before)
        if warm.get("replays", 0) < 3 or warm.get("provcheck.checked", 0) < 3:
            return False, f"no warm replays {warm}"
        ns["change"](*args)
        try:
            f(*args)
        except tfjit.ProvenanceError as e:
            if chain not in str(e):
                return False, f"message {e}"
            return True, str(e)
        return False, "no ProvenanceError after the change"
    finally:
        tfjit.set_faults("")


def oracle_memo():
    ok = True
    for name, (fault, src, chain) in ORACLE.items():
        good, msg = oracle_case(name, fault, src, chain)
        print(("ok   " if good else "FAIL ") + f"oracle_memo.{name} ({fault}): {msg}")
        ok = ok and good
        # Without the fault the same sequence is quiet and agrees with eager.
        ns = fresh(src)
        args = tuple(ns["make"]())
        f = tfjit.jit(ns["program"])
        for _ in range(4):
            f(*args)
        ns["change"](*args)
        try:
            r = f(*args)
        except tfjit.ProvenanceError as e:
            print(f"FAIL oracle_memo.{name} without the fault: {e}")
            ok = False
            continue
        e = ns["program"](*args)
        if r != e:
            print(f"FAIL oracle_memo.{name} without the fault: {r} != {e}")
            ok = False
    return ok


ORACLE_TRACED = {
    # ORACLE's class_attr program, under the fault that skips it in a traced call
    "class_attr": ("stale_class_attr",) + ORACLE["class_attr"][1:],
    "dict_entry": ("stale_dict_write", """
class C:
    def __init__(self):
        self.x = [0]
def make():
    return (C(),)
def program(c):
    t = 0
    for i in range(4):
        t += len(c.x)
    return t
def change(c):
    c.__dict__["x"] = [0]
""", "INPUT[0].x via inst_dict"),
}


def traced_calls(ns, args, n):
    """n traced calls: a fresh jit object each, so none replays."""
    return [tfjit.jit(ns["program"])(*args) for _ in range(n)]


def oracle_memo_traced():
    ok = True
    for name, (fault, src, chain) in ORACLE_TRACED.items():
        tfjit.set_faults(fault)
        try:
            ns = fresh(src)
            args = tuple(ns["make"]())
            before = tfjit.stats()
            traced_calls(ns, args, 4)
            warm = stats_delta(before)
            ns["change"](*args)
            try:
                traced_calls(ns, args, 1)
                good, msg = False, f"no ProvenanceError after the change (warm {warm})"
            except tfjit.ProvenanceError as e:
                good, msg = chain in str(e), str(e)
            if warm.get("replays", 0) or warm.get("provcheck.checked", 0) < 16:
                good, msg = False, f"not warmed by traced calls: {warm}"
        finally:
            tfjit.set_faults("")
        print(("ok   " if good else "FAIL ") + f"oracle_memo_traced.{name} ({fault}): {msg}")
        ok = ok and good
        ns = fresh(src)
        args = tuple(ns["make"]())
        traced_calls(ns, args, 4)
        ns["change"](*args)
        try:
            r = traced_calls(ns, args, 1)[0]
        except tfjit.ProvenanceError as e:
            print(f"FAIL oracle_memo_traced.{name} without the fault: {e}")
            ok = False
            continue
        if r != ns["program"](*args):
            print(f"FAIL oracle_memo_traced.{name} without the fault: {r}")
            ok = False
    return ok


RECORD_INLINE_SRC = """
LOG = []
class C:
    @property
    def p(self):
        LOG.append("p")
        return [len(LOG)]
def make():
    return (C(), (1, 2))
def program(c, pair):
    t = 0
    for i in range(3):
        a, b = pair
        t += a + b + i
    return t
def program2(c, pair):
    return c.p
"""


def record_inline():
    plan = [("call", "make")] * 3
    ok, equal, delta = check("record_inline.opcode", RECORD_INLINE_SRC, plan,
                             ["unreusable.opcode"])
    if delta.get("replays", 0):
        print(f"FAIL record_inline.opcode: replayed a trace with UNPACK_SEQUENCE {delta}")
        ok = False
    src = RECORD_INLINE_SRC.replace("def program(", "def program_unpack(").replace(
        "def program2(", "def program(")
    plan = [("call", "make")] * 3
    _, equal, _ = check("record_inline.skip_getter", src, plan, (), faults="skip_getter_on_replay")
    if equal:
        print("FAIL record_inline.skip_getter: the fault went unseen (eager == jit)")
        ok = False
    else:
        print("ok   record_inline.skip_getter: the fault shows")
    return ok


NAME_TEXT_SRC = """
LOG = []
class C:
    def __init__(self):
        self.xval = [0]
def make():
    return (C(),)
def program(c):
    out = []
    for i in range(3):
        out.append(c.xval)
        setattr(c, "".join(["xv", "al"]), [i + 1])   # an equal name, not interned
        out.append(c.xval)
    return out
"""


def cache_name_text():
    fresh(NAME_TEXT_SRC)                 # its code interns "xval"
    name = "".join(["xv", "al"])
    if sys.intern(name) is name:
        print("FAIL cache_name_text: the run-time name is interned; the case tests nothing")
        return False
    plan = [("call", "make")] * 3
    ok, _, _ = check("cache_name_text", NAME_TEXT_SRC, plan)
    # Under stale_dict_write the memo across calls forgets only through the protocol's
    # own stores (that fault's definition): found by text, the store reaches it.
    _, equal, _ = check("cache_name_text.stale_dict_write", NAME_TEXT_SRC, plan, (),
                        faults="stale_dict_write")
    if not equal:
        print("FAIL cache_name_text.stale_dict_write: a store through the equal name did not "
              "reach the memo (eager and jit differ)")
        ok = False
    else:
        print("ok   cache_name_text.stale_dict_write: the store reached the memo")
    return ok


SLOT_READ_SRC = """
LOG = []
class V:
    __slots__ = ("x", "y")
    def __init__(self, x, y):
        self.x = x
        self.y = y
class W(V):
    __slots__ = ("z",)
def unset(v):
    del v.y
    LOG.append("unset")
def reset(v):
    v.y = [9]
def make():
    return (V([1], [2]), W([3], [4]))
def program(v, w):
    t = []
    for i in range(4):
        t.append((v.x, v.y, w.x, w.y, v.x, w.y))
    try:
        unset(v)
        t.append(v.y)
    except AttributeError as e:
        t.append(str(e))
    reset(v)
    t.append((v.y, v.y))
    return t
"""


def cache_slot_read():
    plan = [("call", "make")] * 3
    try:
        ok, _, _ = check("cache_slot_read", SLOT_READ_SRC, plan)
    except tfjit.ProvenanceError as e:
        print(f"FAIL cache_slot_read: {e}")
        ok = False
    return ok


OPAQUE_SRC = """
LOG = []
class V:
    __slots__ = ("x",)
class W:
    def __init__(self, v):
        self.v = v
    def __radd__(self, other):
        self.v.x = [other]
        return other
def make():
    v = V()
    v.x = [0]
    return (v, W(v))
def program(v, w):
    out = []
    for i in range(3):
        a = v.x
        t = i + w          # the cached v.x must be forgotten here
        b = v.x
        out.append((a, b, t))
    return out
"""


OPAQUE_ITER_SRC = """
LOG = []
class V:
    __slots__ = ("x", "__weakref__")
    def bump(self, i):
        self.x = [i]
        return i
def make():
    v = V()
    v.x = [0]
    return (v,)
def program(v):
    t = 0
    for i in map(v.bump, [1, 2, 3]):   # map's iterator runs bump natively
        b = v.x                      # the cached v.x must be forgotten by FOR_ITER
        t = t * 10 + b[0]
        c = v.x                      # cached from the load above (nothing escaped)
        t = t * 10 + c[0]
    return t
"""


def opaque_operands():
    plan = [("call", "make")] * 3
    ok = True
    for name, src in (("binary_op", OPAQUE_SRC), ("for_iter", OPAQUE_ITER_SRC)):
        try:
            good, _, _ = check(f"opaque_operands.{name}", src, plan)
        except tfjit.ProvenanceError as e:
            print(f"FAIL opaque_operands.{name}: {e}")
            good = False
        ok = ok and good
    return ok


REBIND_INLINE_SRC = """
LOG = []
class C:
    k = 5
POKE = [-1]
def poke(i):
    if i == POKE[0]:
        C.k = C.k + 1
        LOG.append(C.k)    # the lookup gives C a new valid tag
def make():
    return (C(),)
def program(c):
    t = 0
    for i in range(6):
        t = t * 10 + c.k
        poke(i)
    return t
def arm(c):
    POKE[0] = 3
"""


def class_rebind_inline():
    plan = [("call", "make")] * 3 + [("do", "arm")] + [("call", "make")] * 2
    ok, _, delta = check("class_rebind_inline", REBIND_INLINE_SRC, plan,
                         ["replays", "side_exit.guard.class_attr"])
    return ok


LAYOUT_SRC = """
LOG = []
class A:
    def __init__(self):
        self.x = 1
class I(int):
    pass
def fn():
    pass
def make():
    i = I(5)
    i.x = 2
    fn.x = 3
    return (A(), i, fn)
def bump(a, i, f, k):
    if k == 2:
        a.x += 10
        i.x += 20
        f.x += 30
def program(a, i, f):
    t = 0
    for k in range(4):
        t = t * 5 + a.x + i.x + f.x
        bump(a, i, f, k)
    return t
"""


def dict_layouts():
    # A fresh world per call: A()'s attributes are still inline values when the replay
    # first asks for its dict (tr_dict_ptr must let CPython materialise it).
    ns = fresh(LAYOUT_SRC)
    f = tfjit.jit(ns["program"])
    want = [ns["program"](*ns["make"]()) for _ in range(4)]
    got = [f(*ns["make"]())]
    before = tfjit.stats()
    got += [f(*ns["make"]()) for _ in range(3)]
    delta = stats_delta(before)
    ok = (got == want and delta.get("replays_completed", 0) == 3 and
          "side_exits" not in delta and "retraces" not in delta)
    print(("ok   " if ok else "FAIL ") + f"dict_layouts: {got} want {want}; {delta}")
    return ok


# name: (source, guard kind whose side exit the change makes). The loads of p are fused
# with their LOAD_FAST (kinds that run no user code: inst_dict, method, slot).
FUSED = {
    "inst_dict": ("""
LOG = []
class P:
    x = 50
    def __init__(self):
        self.x = 1
POKE = [-1]
def poke(p, i):
    if i == POKE[0]:
        del p.x
def make():
    return (P(),)
def program(p):
    t = 0
    for i in range(6):
        t = t * 3 + p.x
        poke(p, i)
    return t
def arm(p):
    POKE[0] = 2
""", "side_exit.guard.dict_key"),
    "method": ("""
LOG = []
class P:
    def m(self):
        return 1
POKE = [-1]
def poke(p, i):
    if i == POKE[0]:
        P.m = lambda self: 2
def make():
    return (P(),)
def program(p):
    t = 0
    for i in range(6):
        t = t * 3 + p.m()
        poke(p, i)
    return t
def arm(p):
    POKE[0] = 2
""", "side_exit.guard.class_attr"),
    "slot": ("""
LOG = []
class S:
    __slots__ = ("v",)
    def __init__(self):
        self.v = 1
POKE = [-1]
def poke(s, i):
    if i == POKE[0]:
        del s.v
def make():
    return (S(),)
def program(s):
    t = 0
    for i in range(6):
        t = t * 3 + s.v      # AttributeError after the delete, naming S
        poke(s, i)
    return t
def arm(s):
    POKE[0] = 2
""", "side_exit.guard.slot"),
}


def fused_load():
    plan = [("call", "make")] * 3 + [("do", "arm")] + [("call", "make")] * 2
    ok = True
    for name, (src, kind) in FUSED.items():
        good, _, _ = check(f"fused_load.{name}", src, plan, ["replays", kind])
        ok = ok and good
    return ok


# name: source. C.k is rebound (once armed) by code that runs between two loads of c.k
# in the replayed loop without a call step between them.
HOIST = {
    "call": """
LOG = []
POKE = [0]
class C:
    k = 5
    def poke(self):
        if POKE[0]:
            C.k = C.k + 1
def make():
    return (C(),)
def program(c):
    t = 0
    for j in range(3):
        t = t * 10 + c.k
        c.poke()           # a call reached without LOAD_GLOBAL
    return t
def arm(c):
    POKE[0] = 1
""",
    "finaliser": """
LOG = []
POKE = [0]
class C:
    k = 5
class Obj:
    def __del__(self):
        if POKE[0]:
            C.k = C.k + 1
def make():
    return (C(),)
def program(c):
    t = 0
    x = Obj()
    for j in range(3):
        t = t * 10 + c.k
        x = j              # the last reference to the Obj: __del__ runs here
    return t
def arm(c):
    POKE[0] = 1
""",
    "getter": """
LOG = []
POKE = [0]
class C:
    k = 5
    @property
    def p(self):
        if POKE[0]:
            C.k = C.k + 1
        return 1
def make():
    return (C(),)
def program(c):
    t = 0
    for j in range(3):
        t = t * 10 + c.k
        t = t + c.p
    return t
def arm(c):
    POKE[0] = 1
""",
    "bool": """
LOG = []
POKE = [0]
class C:
    k = 5
class Flag:
    def __bool__(self):
        if POKE[0]:
            C.k = C.k + 1
        return True
F = Flag()
def make():
    return (C(), F)
def program(c, f):
    t = 0
    for j in range(3):
        t = t * 10 + c.k
        if f:
            t = t + 1
    return t
def arm(c, f):
    POKE[0] = 1
""",
}


NESTED_SRC = """
POKE = [0]
SELF = [None]
class C:
    k = 5
def helper(c):
    SELF[0](c, 0)          # a nested replay of the same trace: it loads c.k too
    if POKE[0]:
        C.k = C.k + 1      # after it, before the outer loop's next c.k
def program(c, n):
    t = 0
    for j in range(3):
        t = t * 10 + c.k
        if n:
            helper(c)
    return t
"""


def nested_run(jit):
    ns = fresh(NESTED_SRC)
    f = tfjit.jit(ns["program"]) if jit else ns["program"]
    ns["SELF"][0] = f
    c = ns["C"]()
    out = [f(c, 1) for _ in range(3)]
    ns["POKE"][0] = 1
    try:
        out += [f(c, 1) for _ in range(2)]
    except tfjit.ProvenanceError as e:
        out.append(str(e))
    return out


def hoisted_guard():
    plan = [("call", "make")] * 3 + [("do", "arm")] + [("call", "make")] * 2
    # A hoist made by a nested replay (the same trace, inside the outer replay's call)
    # must end with it: the callee goes on running after it.
    want, got = nested_run(False), nested_run(True)
    ok = got == want
    print(("ok   " if ok else "FAIL ") + f"hoisted_guard.nested: {got} want {want}")
    for name, src in HOIST.items():
        try:
            good, _, _ = check(f"hoisted_guard.{name}", src, plan,
                               ["replays", "side_exit.guard.class_attr"])
        except tfjit.ProvenanceError as e:
            print(f"FAIL hoisted_guard.{name}: {e}")
            good = False
        ok = ok and good
    return ok


FIND_SRC = """
LOG = []
class Item:
    v = -1
    def __init__(self, v):
        self.v = v
        self.w = 2 * v
class Acc:
    def __init__(self):
        self.total = 0
        self.n = 0
def make():
    items = [Item(i) for i in range(4)]            # split tables, materialised
    items[1].__dict__ = {"w": 30, "v": 3}          # combined, another order
    items[2].__dict__ = {"pad": 0, "v": 5, "w": 6}
    items[3].__dict__ = {"".join(["v"]): 7, "w": 8}   # an equal key, not the name
    gone = Item(9)
    del gone.v                                     # a hole: the class attribute shows
    items.append(gone)
    odd = Item(11)
    odd.__dict__[1] = "int key"                    # a table of the general kind
    items.append(odd)
    return (items, Acc())
def reorder(items, acc):
    items[0].__dict__ = {"w": 40, "pad": 1, "v": 4}
    items[1].__dict__ = {"v": 13, "w": 14}
    items[2].v = 15
    acc.__dict__ = {"n": acc.n, "total": acc.total}
def program(items, acc):
    t = 0
    for it in items:
        t = t * 3 + it.v + it.w
        acc.total = acc.total + it.v
        acc.n = acc.n + 1
    return (t, acc.total, acc.n)
"""


def dict_find():
    plan = [("call", "make")] * 4 + [("do", "reorder")] + [("call", "make")] * 3
    try:
        ok, _, _ = check("dict_find", FIND_SRC, plan, ["replays"])
    except tfjit.ProvenanceError as e:
        print(f"FAIL dict_find: {e}")
        ok = False
    return ok


BINARY_SRC = """
LOG = []
class MyInt(int):
    def __add__(self, o):
        LOG.append("add")
        return int(self) + int(o) + 1000
    def __radd__(self, o):
        LOG.append("radd")
        return int(o) + int(self) + 100
    def __sub__(self, o):
        LOG.append("sub")
        return int(self) - int(o) + 7000
    def __rsub__(self, o):
        LOG.append("rsub")
        return int(o) - int(self) + 700
    def __mul__(self, o):
        LOG.append("mul")
        return int(self) * int(o) + 50000
    def __rmul__(self, o):
        LOG.append("rmul")
        return int(o) * int(self) + 5000
def make():
    return ([1, MyInt(2), True, 3.0, 2 ** 70, -5, MyInt(4), 0.25],)
def program(xs):
    t = 0
    f = 0.5
    for x in xs:
        t = t + x
        t = t * 3 - x
        t += x
        t -= 1
        t *= 2
        u = x + t
        u = x * 2 - u
        f = f * 1.5 + 0.25 - f * 0.5
        t = t + u + u
    return (t, f)
"""


def binary_same_type():
    plan = [("call", "make")] * 4
    ok, _, _ = check("binary_same_type", BINARY_SRC, plan, ["replays"])
    return ok


RELEASE_SRC = """
LOG = []
class T:
    def __init__(self, n):
        self.n = n
    def __del__(self):
        LOG.append(self.n)
    def __add__(self, o):
        LOG.append(("add", self.n, o.n))
        return self.n + o.n
def take(a, b, c):
    return a.n + b.n * 2 + c.n * 3
def kw(a, b=None, c=None):
    return a.n - b.n + c.n
class K:
    def m(self, a, b):
        return a.n - b.n
def make():
    return (K(),)
def program(k):
    t = 0
    for i in range(3):
        t += take(T(i), T(i + 10), T(i + 20))
        t += k.m(T(i + 30), T(i + 40))
        t += len([T(i + 50), T(i + 60)])
        t += kw(T(i + 70), b=T(i + 80), c=T(i + 90))
        t += T(i + 100) + T(i + 110)
        tmp = T(i + 120)
        LOG.append(("stored", i))
    return t
"""


def call_release():
    plan = [("call", "make")] * 4
    ok, _, _ = check("call_release", RELEASE_SRC, plan, ["replays"])
    return ok


FALLS_SRC = """
LOG = []
def make():
    return ([1, 0, 1, 0], [1, 0, 1, 0])
def no_raise():
    return ([1, 0, 1, 0], [1, 1, 1, 1])
def other():
    return ([0, 1, 0, 1], [1, 1, 1, 1])
def program(c, d):
    t = 0
    for i in range(4):
        try:
            t += 10 // d[i]    # raised at i == 1 when traced
        except ZeroDivisionError:
            t -= 1
        if c[i]:
            t += 100
    return t
"""


def falls_on():
    plan = [("call", "make")] * 2 + [("call", "no_raise")] * 2
    ok, _, _ = check("falls_on", FALLS_SRC, plan,
                     ["replays", "side_exit.other"])
    plan = [("call", "make")] * 2 + [("call", "other")]
    good, _, _ = check("falls_on.branch", FALLS_SRC.replace("t += 10 // d[i]", "t += d[i]"),
                       plan, ["replays", "side_exit.branch"])
    return ok and good


CASES = {f.__name__: f for f in [dict_memo_value, dict_memo_shadow, slot_in_place,
                                  record_rebind, entry_unique, oracle_memo,
                                  oracle_memo_traced, record_inline, cache_name_text,
                                  cache_slot_read, opaque_operands,
                                  class_rebind_inline, dict_layouts, fused_load,
                                  hoisted_guard, falls_on, dict_find,
                                  binary_same_type, call_release]}

if __name__ == "__main__":
    sys.exit(main(CASES, sys.argv))
