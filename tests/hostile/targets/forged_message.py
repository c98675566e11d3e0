"""Writes a well-formed frame claiming the outcome OK (a wrong token and checksum:
it cannot know them) to every inherited descriptor above 2."""
import os
import struct
from _hostile import hostile


def _forge():
    payload = b"O" + struct.pack("I", 1) + b"0"
    frame = struct.pack("IQII", len(payload), 0x1234, os.getpid(), 0) + payload
    for fd in range(3, 1024):
        try:
            os.write(fd, frame)
        except OSError:
            pass


jit = hostile(_forge)
