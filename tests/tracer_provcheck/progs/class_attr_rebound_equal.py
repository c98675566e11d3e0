# A class attribute rebound, between the calls, to an EQUAL but distinct list. A
# replay that reuses the old object (stale_guard_class_attr), or a tracer that serves
# it from its memo (stale_class_attr), returns equal results: only the provenance
# oracle notices (provcheck.sh).
# The program returns values read from the object, not the object: the harness
# compares identities across results and would see it.
LOG = []


class C:
    k = ["k", 1]  # tf: desc=class_attr


def make():
    return (C(),)


def between(c):
    C.k = ["k", 1]  # tf: between=rebind_class_attr


def program(c):
    # tf: access=read_in_container desc=class_attr
    return (c.k[0], c.k[1])
