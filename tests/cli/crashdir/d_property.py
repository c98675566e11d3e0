# A second crash in the same batch (TARGET_CRASH).
class D:
    @property
    def y(self):
        return [2]


def make():
    return (D(),)


def program(d):
    return d.y
