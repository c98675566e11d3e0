"""Toy target: crashes the whole process (a segfault through ctypes) when the
program defines a class with a property; otherwise behaves as identity. The harness
must give that input TARGET_CRASH and go on with the next one."""
import os
import signal


def _has_property(fn):
    for value in list(fn.__globals__.values()):
        if isinstance(value, type):
            if any(isinstance(v, property) for v in vars(value).values()):
                return True
    return False


def _crash():
    try:
        import ctypes
        ctypes.string_at(0)          # reads address 0: SIGSEGV
    finally:
        os.kill(os.getpid(), signal.SIGSEGV)


def jit(fn):
    if not _has_property(fn):
        return fn

    def traced(*args):
        _crash()
    return traced
