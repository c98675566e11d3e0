# Expectation lines are selected by the fault set too (--faults or TRACEFUZZ_FAULTS).
# expect[tests/targets/change_result.py:jit]: OK
# expect[tests/targets/change_result.py:jit faults=assume_stable_attrs]: MISMATCH_RESULT
def make():
    return (2,)


def program(n):
    return n.real + 1
