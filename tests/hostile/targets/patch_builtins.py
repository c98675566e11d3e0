"""Replaces builtins.getattr and builtins.hasattr with versions that answer wrongly
(hasattr always, getattr at random): its own input fails, and no later input may."""
import builtins
import random
from _hostile import hostile

_hasattr, _getattr = builtins.hasattr, builtins.getattr


def _patch():
    builtins.hasattr = lambda o, n: not _hasattr(o, n)
    builtins.getattr = lambda o, n, *d: (d[0] if d and random.random() < 0.5
                                         else _getattr(o, n, *d))


jit = hostile(_patch)
