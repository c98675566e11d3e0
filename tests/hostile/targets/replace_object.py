"""Replaces builtins.object, builtins.type and builtins.len after its call returned."""
import builtins
from _hostile import hostile


def _replace():
    class Impostor:
        pass
    builtins.object = Impostor
    builtins.len = lambda x: 0
    builtins.isinstance = lambda o, t: False


jit = hostile(_replace, after=True)
