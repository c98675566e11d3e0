"""Ends the process with os._exit(3)."""
import os
from _hostile import hostile
jit = hostile(lambda: os._exit(3))
