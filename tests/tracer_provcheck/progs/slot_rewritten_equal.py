# A __slots__ member rewritten, between the calls, with an EQUAL but distinct list. A
# replay that keeps the traced getter's result (skip_getter_on_replay; a slot is read
# through its member descriptor) returns the old list: results built from equal values (the object itself is not returned: the
# harness would see its identity), only the
# provenance oracle notices.
# The program returns values read from the object, not the object: the harness
# compares identities across results and would see it.
LOG = []


class S:
    __slots__ = ("v",)  # tf: desc=slot


def make():
    s = S()
    s.v = [1]
    return (s,)


def between(s):
    s.v = [1]  # tf: between=slot_toggle


def program(s):
    # tf: access=read_in_container desc=slot
    return s.v[0]
