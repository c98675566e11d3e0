# The target declares it cannot trace this (run with
# --unsupported tests/targets/unsupported.py:Unsupported).
# expect[tests/targets/unsupported.py:jit]: UNSUPPORTED


def make():
    return (1,)


def program(a):
    return a.real + 1
