# Same results, but the getter's event is lost in the target run: MISMATCH_EVENTS.
# expect[identity]: OK
# expect[tests/targets/drop_event.py:jit]: MISMATCH_EVENTS

LOG = []


class C:
    @property  # tf: desc=prop_stable
    def value(self):
        LOG.append("value")
        return 7


def make():
    return (C(),)


def program(c):
    return c.value
