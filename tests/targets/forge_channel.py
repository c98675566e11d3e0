"""Hostile toy target: writes garbage, then a frame shaped like tracefuzz's, to
every descriptor it can find above 2 (where the worker's channel lives) on programs
that read attributes. The input must be TARGET_CRASH ("the worker's report was
corrupted"), the run must go on, and nothing forged may be taken for a verdict."""
import os
import struct


def jit(fn):
    def traced(*args):
        if fn.__code__.co_names:
            payload = b"O" + struct.pack("I", 1) + b"0"   # an outcome: kind 0 (OK)
            forged = struct.pack("IQII", len(payload), 0, os.getpid(), 0) + payload
            for fd in range(3, 256):
                try:
                    os.write(fd, b"\x09\x00\x00\x00garbage!!" + forged)
                except OSError:
                    pass
        return fn(*args)
    return traced
