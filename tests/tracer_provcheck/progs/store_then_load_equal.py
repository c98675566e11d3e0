# A load after a store of an EQUAL but distinct list. A replay whose stores do not
# forget forwarded loads (no_invalidate_on_store) returns the list before the store:
# results built from equal values (the object itself is not returned: the
# harness would see its identity), only the provenance oracle notices.
# The program returns values read from the object, not the object: the harness
# compares identities across results and would see it.
LOG = []


class C:
    pass


def make():
    c = C()
    c.x = [0]
    return (c,)


def between(c):
    pass


def program(c):
    # tf: access=write_read desc=inst_attr
    a = c.x
    c.x = [0]
    return (a == c.x, len(c.x))
