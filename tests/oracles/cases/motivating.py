# The motivating report: a property returning a fresh object; eager returns two
# distinct objects, a tracer that caches would return one twice.
LOG = []
class Test:
    @property
    def test(self):
        LOG.append("get test")
        return object()
    def forward(self):
        return self.test, self.test
def make():
    return (Test(),)
def program(t):
    return t.forward()
