# No expectation header: passed means OK (or UNSUPPORTED without --strict).
class C:
    def __init__(self):
        self.x = 1


def make():
    return (C(),)


def program(c):
    return c.x
