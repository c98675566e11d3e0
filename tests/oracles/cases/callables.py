# Callables by name: functions by qualname, classes by qualname, bound methods as
# (function, self), builtin functions and builtin methods with their self.
import math
LOG = []
class C:
    def m(self):
        return 1
    @classmethod
    def cm(cls):
        return 2
    @staticmethod
    def sm():
        return 3
def make():
    return (C(),)
def program(c):
    def inner():
        return 0
    l = []
    return (c.m, c.m, C.m, c.cm, c.sm, C, type(c), inner, len, l.append, math, type,
            lambda: 1)
