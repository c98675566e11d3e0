# A wrong expectation: change_result.py changes the result, so the run must fail.
# expect[tests/targets/change_result.py:jit]: OK
def make():
    return (2,)


def program(n):
    return n.real + 1
