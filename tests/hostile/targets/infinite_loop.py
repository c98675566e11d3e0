"""Never returns: a busy loop."""
from _hostile import hostile


def _spin():
    while True:
        pass


jit = hostile(_spin)
