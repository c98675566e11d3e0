"""Closes every descriptor, tracefuzz's channel included, then goes on."""
import os
from _hostile import hostile
jit = hostile(lambda: os.closerange(0, 65536))
