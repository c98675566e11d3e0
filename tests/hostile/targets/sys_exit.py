"""Raises SystemExit (sys.exit(4)) from the target's frames."""
import sys
from _hostile import hostile
jit = hostile(lambda: sys.exit(4))
