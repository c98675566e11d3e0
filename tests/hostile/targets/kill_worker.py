"""Kills its parent, tracefuzz's worker, with SIGKILL."""
import os
import signal
import time
from _hostile import hostile


def _kill():
    os.kill(os.getppid(), signal.SIGKILL)
    time.sleep(0.2)


jit = hostile(_kill, on_call=1)
