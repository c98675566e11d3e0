"""After its last call returned, a background thread segfaults 20 ms later: the
crash belongs to this input, never to the next one."""
import ctypes
import threading
import time
from _hostile import hostile


def _later():
    time.sleep(0.02)
    ctypes.string_at(0)


jit = hostile(lambda: threading.Thread(target=_later, daemon=True).start(),
              after=True, on_call=3)
