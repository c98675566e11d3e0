"""A fork bomb, bounded (every process forks on each of 10 rounds: 1024 processes at
most, each ending as a `sleep`): the worker kills the input at its process limit."""
import os
import time
from _hostile import hostile


def _bomb():
    root = os.getpid()
    for _ in range(10):
        try:
            os.fork()
        except OSError:
            break
    if os.getpid() != root:
        try:
            os.execvp("sleep", ["sleep", "120"])
        finally:
            os._exit(0)
    time.sleep(10)   # the input's own process waits while the tree grows


jit = hostile(_bomb, on_call=1)
