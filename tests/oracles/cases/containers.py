# Containers: dict insertion order, sets sorted by canonical form, frozensets and
# tuples as values, str and bytes escaped, nested and empty containers.
LOG = []
def make():
    d = {"b": 1, "a": [1, 2], 3: "three", (1, "x y"): None}
    return (d, {"zeta", "alpha", "mid"})
def program(d, s):
    s.add("new")
    LOG.append(frozenset({3, 1, 2}))
    return ({}, [], (), set(), d, s, "quote ' and \\ and \n and \u00e9 and \U0001f600",
            b"\x00\xff'", (1,), [(1, [2])])
