#tracefuzz-py
# functools.cached_property computes once per instance (then the instance dict
# serves it); a getter raising AttributeError falls back to __getattr__.
import functools

LOG = []


class Box:
    def __init__(self):
        self.n = 1

    @functools.cached_property  # tf: desc=cached_prop
    def cached(self):
        LOG.append("cached")
        return [self.n]

    @property  # tf: desc=prop_attrerror
    def broken(self):
        LOG.append("broken")
        raise AttributeError("broken")

    def __getattr__(self, name):  # tf: desc=getattr_hook
        LOG.append(("getattr", name))
        return ("fallback", name)


def make():
    return (Box(),)


def program(b):
    # tf: access=identity
    same = b.cached is b.cached
    # tf: access=try_attrerror
    return same, b.broken, b.missing
