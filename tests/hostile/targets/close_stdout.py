"""Closes stdout and stderr (Python's and the descriptors), then behaves."""
import os
import sys
from _hostile import hostile


def _close():
    sys.stdout.close()
    sys.stderr.close()
    os.close(1)
    os.close(2)


jit = hostile(_close, on_call=1)
