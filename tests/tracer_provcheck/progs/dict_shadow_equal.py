# An instance dict entry, stored between the calls, shadows a class attribute with an
# EQUAL but distinct list. A replay without the dict key guard (dict_shadow_unguarded)
# reuses the class attribute: results built from equal values (the object itself is not returned: the
# harness would see its identity), only the provenance oracle notices.
# The program returns values read from the object, not the object: the harness
# compares identities across results and would see it.
LOG = []


class C:
    k = ["k", 1]  # tf: desc=class_attr


def make():
    return (C(),)


def between(c):
    c.__dict__["k"] = ["k", 1]  # tf: between=shadow_in_dict


def program(c):
    # tf: access=read_in_container desc=class_attr
    return (c.k[0], c.k[1])
