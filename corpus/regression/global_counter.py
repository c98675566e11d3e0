# Module-global state (issue 10): a counter rebound with `global` and a dict of
# what each call saw, beside a counter kept on the class. A JIT that runs the
# function against a copy of its globals keeps its own counter consistent, so the
# results and the class state match CPython's; only the module's CALLS stays at
# 0, which the observation reads since tfobs 2 (before, this was OK).
# expect[identity]: OK
# expect[builtin]: OK
# expect[tests/targets/globals_copy.py:jit]: MISMATCH_STATE
# expect-report[tests/targets/globals_copy.py:jit]: global:CALLS
# expect[tests/targets/probe_getattr.py:jit]: OK
# expect[tests/targets/forward_store.py:jit]: OK

CALLS = 0
SEEN = {}


class Counter:
    hits = 0

    def bump(self):
        type(self).hits += 1
        return type(self).hits


def make():
    return (Counter(),)


def program(c):
    global CALLS
    CALLS += 1
    SEEN[CALLS] = c.bump()
    return CALLS, c.bump()
