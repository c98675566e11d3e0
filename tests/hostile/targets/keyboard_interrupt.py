"""Raises KeyboardInterrupt from the target's frames."""
from _hostile import hostile


def _raise():
    raise KeyboardInterrupt


jit = hostile(_raise)
