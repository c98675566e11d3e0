# A valid program slower than any limit: TIMEOUT naming the limit, never INVALID.
LOG = []
class A:
    x = 1
def make():
    return (A(),)
def program(a):
    n = 0
    while True:
        n += 1
