"""Hostile toy target: correct on every call, but after the third call of a jitted
function (the end of an input's protocol) it patches the interpreter for whoever
comes next (builtins.hasattr and getattr answer wrongly every other call,
sys.modules gains a module). With a process per input nothing reaches the next
input; in a shared worker every later input that uses hasattr/getattr fails."""
import builtins
import sys
import types


_flips = [0]
_real_hasattr = builtins.hasattr
_real_getattr = builtins.getattr


def _broken_hasattr(obj, name):
    _flips[0] += 1   # wrong every other call: eager runs disagree with each other too
    return _real_hasattr(obj, name) if _flips[0] % 2 else not _real_hasattr(obj, name)


def _broken_getattr(obj, name, *default):
    _flips[0] += 1
    if _flips[0] % 2 == 0 and default:
        return default[0]
    return _real_getattr(obj, name, *default)


def jit(fn):
    calls = []

    def traced(*args):
        result = fn(*args)
        calls.append(1)
        if len(calls) < 3:
            return result
        builtins.hasattr = _broken_hasattr
        builtins.getattr = _broken_getattr
        sys.modules["tf_poisoned"] = types.ModuleType("tf_poisoned")
        return result
    return traced
