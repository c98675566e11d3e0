"""A correct target that imports extension modules, as a real JIT does (torch's,
thunder's): _decimal and _ctypes are shared objects in lib-dynload that bind to
CPython's API at load time. The smoke test fuzzes it through tf_fuzz, which may link
CPython statically (fuzz/CMakeLists.txt, TF_FUZZ_STATIC_PYTHON): then only the
executable's exported API is there to bind to, and a missing symbol fails the import
at start-up."""
import ctypes
import decimal

_calls = ctypes.c_long(0)


def jit(fn):
    def run(*args):
        _calls.value += 1
        decimal.Decimal(_calls.value).sqrt()
        return fn(*args)
    return run
