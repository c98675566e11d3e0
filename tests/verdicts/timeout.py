# The target never returns (hang.py, killed after --timeout) or runs out of its
# instruction budget (budget.py raises tfjit.LimitExceeded): TIMEOUT.
# expect[tests/targets/hang.py:jit]: TIMEOUT
# expect[tests/targets/budget.py:jit]: TIMEOUT


def make():
    return (1,)


def program(a):
    return a.real * 2
