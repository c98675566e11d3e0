"""Toy target: correct, but the first call of its life in the directory named by
TF_SLOW_ONCE_DIR burns 2 s of CPU (a cold cache, a first compilation), later ones
are fast. With --timeout 1 the input times out once and must pass on its second try
in a fresh worker (then OK, not TIMEOUT)."""
import os
import time


def _burn(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def jit(fn):
    marker = os.path.join(os.environ["TF_SLOW_ONCE_DIR"], "warm")

    def traced(*args):
        if fn.__code__.co_names and not os.path.exists(marker):
            open(marker, "w").close()
            _burn(2.0)
        return fn(*args)
    return traced
