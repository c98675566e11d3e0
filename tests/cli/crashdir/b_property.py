# A property: the segfault toy target kills the worker (TARGET_CRASH).
class C:
    @property
    def x(self):
        return 1


def make():
    return (C(),)


def program(c):
    return c.x
