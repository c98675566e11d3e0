# Caps are part of the format: depth 8, 64 items per container, 200 characters
# of a string.
LOG = []
def make():
    deep = []
    cur = deep
    for i in range(12):
        nxt = [i]
        cur.append(nxt)
        cur = nxt
    return (deep, list(range(100)), {i: i for i in range(70)}, "x" * 300,
            set(range(80)))
def program(deep, big, bigd, s, bigset):
    t = (1,)
    for i in range(11):
        t = (t,)
    return t
