# The target probes an attribute of its own on the argument; the program's
# __getattr__ logs it: shape `log-extra:getattr`.
# expect[identity]: OK
# expect[tests/targets/extra_probe.py:jit]: MISMATCH_EVENTS
LOG = []


class Base:
    def __getattr__(self, name):  # tf: desc=getattr_hook
        LOG.append(("getattr", "Base", name))
        if name == "dynamic":
            return 5
        raise AttributeError(name)


def make():
    return (Base(),)


def program(a):
    return a.dynamic
