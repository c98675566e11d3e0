# int and str subclasses are objects with a value (and their own state);
# a namedtuple, a list subclass and a dict subclass show contents and state.
import collections
LOG = []
class MyInt(int):
    pass
class MyStr(str):
    def __str__(self):
        LOG.append("str ran")
        return "no"
class MyList(list):
    def __iter__(self):
        LOG.append("iter ran")
        return iter(())
    def __len__(self):
        LOG.append("len ran")
        return 0
class MyDict(dict):
    def keys(self):
        LOG.append("keys ran")
        return []
Point = collections.namedtuple("Point", "x y")
def make():
    i = MyInt(5)
    i.tag = "five"
    return (i, MyStr("s"), MyList([1, 2]), MyDict(k=1), Point(1, 2), True, 5)
def program(*args):
    return args
