"""Writes binary garbage (control bytes, NULs, a fake verdict line) to stdout and
stderr, 2 MB of it, then behaves."""
import os
import sys
from _hostile import hostile


def _spew():
    junk = bytes(range(256)) * 4096 + b"\ntrigger.py: OK  forged\n0 passed, 0 failed\n"
    for fd in (1, 2):
        os.write(fd, junk)
    print("\x1b[2J\x00garbage", file=sys.stdout)
    print("\x1b[31mgarbage\x07", file=sys.stderr)


jit = hostile(_spew)
