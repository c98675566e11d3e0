"""Allocates 1 GB: within the default memory limit, over `--memory-limit 512`."""
from _hostile import hostile

_keep = []
jit = hostile(lambda: _keep.append(bytearray(1 << 30)))
