"""Writes garbage bytes to every inherited descriptor above 2 (tracefuzz's channel
is one of them)."""
import os
from _hostile import hostile


def _garble():
    for fd in range(3, 1024):
        try:
            os.write(fd, b"\x09\x00\x00\x00garbage!!")
        except OSError:
            pass


jit = hostile(_garble)
