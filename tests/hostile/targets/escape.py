"""Tries to reach outside: writes a file at an absolute path ($TF_ESCAPE_FILE) and
connects to a TCP port on the host ($TF_ESCAPE_PORT). Raises if either worked (so
without --sandbox the input is TARGET_CRASH, with it OK)."""
import os
import socket
from _hostile import hostile


def _escape():
    escaped = []
    try:
        with open(os.environ["TF_ESCAPE_FILE"], "w") as f:
            f.write("escaped")
        escaped.append("file")
    except OSError:
        pass
    try:
        socket.create_connection(("127.0.0.1", int(os.environ["TF_ESCAPE_PORT"])),
                                 timeout=2).close()
        escaped.append("network")
    except OSError:
        pass
    if escaped:
        raise RuntimeError("escaped: " + ",".join(escaped))


jit = hostile(_escape, on_call=1)
