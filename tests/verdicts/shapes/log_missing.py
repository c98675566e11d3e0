# The getter's event is lost in the target run (drop_event.py pops the last LOG
# entry): shape `log-missing:get`, the event's tag.
# expect[identity]: OK
# expect[tests/targets/drop_event.py:jit]: MISMATCH_EVENTS
LOG = []


class Base:
    @property  # tf: desc=prop_stable
    def value(self):
        LOG.append(("get", "Base.value"))
        return 7


def make():
    return (Base(),)


def program(a):
    return a.value
