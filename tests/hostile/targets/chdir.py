"""Changes directory (to its parent, wiping it, then to /) and stays there."""
import os
from _hostile import hostile


def _move():
    os.chdir("..")
    for name in os.listdir("."):
        try:
            os.unlink(name)
        except OSError:
            pass
    os.chdir("/")


jit = hostile(_move, on_call=1)
