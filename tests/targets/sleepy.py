"""Toy target: correct, but each call sleeps (a JIT waiting on a compile server, or
a run on a loaded machine): lots of wall time, little CPU time. The time limit is on
CPU time, so with --timeout 1 and 0.6 s of sleep per call (1.8 s per input) every
input must still be OK, not TIMEOUT."""
import time


def jit(fn):
    def traced(*args):
        time.sleep(0.6)
        return fn(*args)
    return traced
