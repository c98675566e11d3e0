"""Reads address 0 through ctypes: SIGSEGV."""
import ctypes
from _hostile import hostile
jit = hostile(lambda: ctypes.string_at(0))
