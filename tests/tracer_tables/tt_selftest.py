"""tt_selftest.py: the tables' driver must catch what a wrong tracer does.

Runs chosen snippets against fake targets written in Python, each imitating one way a
tracer goes wrong, and checks the driver's verdict (libprotobuf-mutator's habit: plant
the bug, require that it is found). Needs no tracer.
"""
import copy
import os
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import tt_driver  # noqa: E402
import tt_collect  # noqa: E402
import snip_calls  # noqa: E402
import snip_closures  # noqa: E402
import snip_descriptors  # noqa: E402
import snip_exceptions  # noqa: E402

tt_driver.DRIVER_FILES.add(__file__)


class FakeUnsupported(Exception):
    pass


FAKE = types.SimpleNamespace(Unsupported=FakeUnsupported)
KEEP = []


def wrap(fn, before=None, after=None, on_exc=None):
    def w(*a):
        if before:
            before(a)
        try:
            r = fn(*a)
        except Exception as e:
            if on_exc:
                on_exc(e)
            raise
        return after(r) if after else r
    return w


def t_copy_results(fn):          # loses aliasing: a is b becomes a == b
    return wrap(fn, after=copy.deepcopy)


def t_replay(fn):                # stale trace: replays the first result
    memo = []

    def w(*a):
        if not memo:
            memo.append(fn(*a))
        return memo[0]
    return w


def t_twice(fn):                 # runs the program twice (side effects doubled)
    def w(*a):
        fn(*a)
        return fn(*a)
    return w


def t_unsupported(fn):           # declares everything Unsupported
    def w(*a):
        raise FakeUnsupported("nothing is supported")
    return w


def t_message(fn):               # right exception type, wrong message
    def w(*a):
        try:
            return fn(*a)
        except Exception as e:
            raise type(e)("changed message") from None
    return w


def t_no_traceback(fn):          # right exception, traceback lost
    def w(*a):
        try:
            return fn(*a)
        except Exception as e:
            raise e.with_traceback(None)
    return w


def t_assertion(fn):             # the motivating report: an assertion inside the tracer
    def w(*a):
        r = fn(*a)
        if isinstance(r, tuple) and len(r) == 2 and r[0] is not r[1]:
            raise AssertionError("attribute test of Test object out of sync")
        return r
    return w


def t_crash(fn):                 # the tracer dies
    def w(*a):
        os.abort()
    return w


def t_leak(fn):                  # a trace cache holding the arguments
    return wrap(fn, before=KEEP.append)


def t_keep_fn(fn):               # a global registry of jitted functions
    KEEP.append(fn)
    return fn


def find(name):
    for mod in (snip_descriptors, snip_exceptions, snip_closures, snip_calls):
        for sn in mod.T.snippets:
            if sn.name == name:
                return sn
    raise KeyError(name)


# (target, snippet, expected status, a word the message must contain)
EXPECT = [
    (tt_driver.identity, "prop_fresh_motivating", "pass", ""),
    (tt_driver.identity, "generator_send_and_return", "pass", ""),
    (t_copy_results, "inst_attr_repeat", "fail", "r2"),
    (t_replay, "prop_counter", "fail", "r2"),
    (t_replay, "prop_fresh_motivating", "fail", "r2"),
    (t_twice, "prop_counter_loop", "fail", "r1"),
    (t_unsupported, "prop_stable", "fail", "UNSUPPORTED"),
    (t_unsupported, "generator_function_basic", "unsupported_ok", "nothing is supported"),
    (t_unsupported, "genexpr_sum", "unsupported_ok", ""),
    (t_message, "err_missing_positional", "fail", "changed message"),
    (t_no_traceback, "raise_uncaught", "fail", "traceback"),
    (t_assertion, "prop_fresh_motivating", "fail", "AssertionError"),
    (t_crash, "inst_attr_repeat", "fail", "CRASH"),
]
COLLECT_EXPECT = [
    (tt_driver.identity, "prop_fresh_motivating", "pass", ""),
    (t_leak, "inst_attr_repeat", "fail", "args[0]"),
    (t_keep_fn, "closure_read", "fail", "program"),
]


def main():
    tt_driver.tfjit = FAKE       # is_unsupported() recognises FakeUnsupported
    npass = nfail = 0
    for target, name, want, word in EXPECT:
        sn = find(name)
        st, msg, _ = tt_driver.run_isolated(lambda: tt_driver.check_snippet(sn, target))
        ok = st == want and word in msg
        npass += ok
        nfail += not ok
        print(f"{'ok' if ok else 'FAIL':4} {target.__name__:16} {name}: {st}"
              + ("" if ok else f" (wanted {want} with {word!r}): {msg}"))
    for target, name, want, word in COLLECT_EXPECT:
        sn = find(name)
        st, msg, _ = tt_driver.run_isolated(lambda: tt_collect.check(sn, target))
        ok = st == want and word in msg
        npass += ok
        nfail += not ok
        print(f"{'ok' if ok else 'FAIL':4} collect/{target.__name__:8} {name}: {st}"
              + ("" if ok else f" (wanted {want} with {word!r}): {msg}"))
    print(f"{npass} passed, {nfail} failed")
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())
