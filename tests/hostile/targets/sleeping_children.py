"""Leaves children that sleep: a fork that sleeps, and a `sleep` subprocess."""
import os
import subprocess
import time
from _hostile import hostile


def _spawn():
    if os.fork() == 0:
        time.sleep(600)
        os._exit(0)
    subprocess.Popen(["sleep", "600"])


jit = hostile(_spawn, on_call=1)
