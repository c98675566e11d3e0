# No property: the segfault toy target behaves as identity (OK).
def make():
    return (1, 2)


def program(a, b):
    return a + b
