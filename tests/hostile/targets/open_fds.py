"""Opens 10,000 descriptors and keeps them (more than the limit of open files)."""
import os
from _hostile import hostile

_keep = []
jit = hostile(lambda: _keep.extend(os.open(os.devnull, os.O_RDONLY)
                                   for _ in range(10000)))
