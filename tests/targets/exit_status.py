"""Hostile toy target: ends the process with os._exit(3) on programs that read
attributes: TARGET_CRASH with the exit status (`exit:3`), not a signal."""
import os


def jit(fn):
    def traced(*args):
        if fn.__code__.co_names:
            os._exit(3)
        return fn(*args)
    return traced
