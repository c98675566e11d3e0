"""Deletes everything in its working directory and its parent, and leaves files."""
import os
import shutil
from _hostile import hostile


def _try(fn, *args):
    try:
        return fn(*args)
    except OSError:
        return []


def _wipe():
    for d in (".", ".."):
        for name in _try(os.listdir, d):
            p = os.path.join(d, name)
            if os.path.isdir(p) and not os.path.islink(p):
                shutil.rmtree(p, ignore_errors=True)
            else:
                _try(os.unlink, p)
    with open("/tmp/tf-hostile-left-behind-%d" % os.getpid(), "w") as f:
        f.write("junk")   # its own directory is gone: absolute paths are not protected
    os.unlink(f.name)


jit = hostile(_wipe, on_call=1)
