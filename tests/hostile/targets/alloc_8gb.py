"""Allocates 8 GB (more than the default memory limit): OOM."""
from _hostile import hostile

_keep = []
jit = hostile(lambda: _keep.append(bytearray(8 << 30)))
