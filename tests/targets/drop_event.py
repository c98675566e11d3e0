"""Toy target losing an event: pops the last entry of the program's LOG after each
call, as a tracer replaying a trace without re-running a getter would
(-> MISMATCH_EVENTS)."""


def jit(fn):
    def traced(*args):
        result = fn(*args)
        log = fn.__globals__.get("LOG")
        if log:
            log.pop()
        return result
    return traced
