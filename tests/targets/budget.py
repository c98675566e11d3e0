"""Toy target exhausting its budget: raises tfjit.LimitExceeded (-> TIMEOUT)."""
import tfjit


def jit(fn):
    def traced(*args):
        raise tfjit.LimitExceeded("instruction budget exhausted")
    return traced
