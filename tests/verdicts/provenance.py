# The target raises an exception named ProvenanceError (its own class, or tfjit's).
# expect[tests/targets/provenance.py:jit]: PROVENANCE
# expect[tests/targets/provenance.py:jit_tfjit]: PROVENANCE


class C:
    def __init__(self):
        self.x = 1


def make():
    return (C(),)


def program(c):
    return c.x
