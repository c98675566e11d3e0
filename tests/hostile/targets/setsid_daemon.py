"""A daemon (fork, setsid, fork) that holds every inherited descriptor and sleeps,
then a segfault: the input must be TARGET_CRASH, not a TIMEOUT waiting for the
daemon's end of the pipe, and the daemon must not survive the input."""
import ctypes
import os
import time
from _hostile import hostile


def _daemonize_and_crash():
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            time.sleep(600)
        os._exit(0)
    time.sleep(0.1)   # the daemon is up
    ctypes.string_at(0)


jit = hostile(_daemonize_and_crash, on_call=1)
