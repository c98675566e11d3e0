# Cycles: a list containing itself, an instance whose attribute is itself, a dict
# reachable from its own value. Finite text, back-references by number.
LOG = []
class Node:
    pass
def make():
    l = []
    l.append(l)
    n = Node()
    n.me = n
    n.peer = Node()
    n.peer.back = n
    d = {}
    d["self"] = [d]
    return (l, n, d)
def program(l, n, d):
    LOG.append(n)
    return n
