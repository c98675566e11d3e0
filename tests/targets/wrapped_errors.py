"""Toy target: an "interpreter" that wraps every internal error in one exception
type, as real Python JITs do (`raise InterpreterError(...) from e`), over three
different root causes, chosen by what the program's first attribute read finds:

- a property: run "natively" through a table of native implementations that has
  none for it: a KeyError escapes _Interp.run_native;
- a descriptor whose __get__ is not a Python function (classmethod, staticmethod,
  a slot's member descriptor): _Interp.call refuses to call it with a
  NotImplementedError ("calling a non-callable");
- a name found neither on the class nor in the instance dict (a __getattr__ hook,
  a probe of a missing name): an internal assertion in _Interp.load_instance.

Any other read passes through unchanged. Each cause must get its own signature
(docs/OBSERVATION.md, "Signatures"), though all three surface as InterpreterError."""
import types


class InterpreterError(Exception):
    pass


class _Interp:
    natives = {}   # native implementations of properties: none yet

    def run_native(self, prop, obj):
        impl = self.natives[prop.fget.__name__]
        return impl(obj)

    def call(self, fn, *args):
        if not isinstance(fn, types.FunctionType):
            raise NotImplementedError(f"calling a non-callable {type(fn).__name__!r}")
        return fn(*args)

    def load_instance(self, obj, name):
        try:
            d = object.__getattribute__(obj, "__dict__")
        except AttributeError:
            d = {}
        assert name in d, "instance attribute lookup fell through"
        return d[name]


_INTERP = _Interp()


def _lookup(cls, name):
    for k in cls.__mro__:
        if name in k.__dict__:
            return True, k.__dict__[name]
    return False, None


class _Proxy:
    __slots__ = ("_tf_obj",)

    def __init__(self, obj):
        object.__setattr__(self, "_tf_obj", obj)

    def __getattr__(self, name):
        # The interpreter's errors are its own: the program's `except` clauses
        # never see them (they are not part of the program).
        try:
            return self._load(name)
        except Exception as e:
            if _internal(e):
                raise InterpreterError(f"cannot load attribute {name!r}") from e
            raise

    def _load(self, name):
        obj = object.__getattribute__(self, "_tf_obj")
        found, desc = _lookup(type(obj), name)
        if isinstance(desc, property):
            return _INTERP.run_native(desc, obj)
        if found and not isinstance(desc, types.FunctionType) and hasattr(type(desc), "__get__"):
            return _INTERP.call(type(desc).__get__, desc, obj, type(obj))
        if not found:
            return _INTERP.load_instance(obj, name)
        return getattr(obj, name)

    def __setattr__(self, name, value):
        setattr(object.__getattribute__(self, "_tf_obj"), name, value)

    def __delattr__(self, name):
        delattr(object.__getattribute__(self, "_tf_obj"), name)


def _unwrap(value):
    if isinstance(value, _Proxy):
        return object.__getattribute__(value, "_tf_obj")
    if type(value) is tuple:
        return tuple(_unwrap(v) for v in value)
    if type(value) is list:
        return [_unwrap(v) for v in value]
    return value


def _internal(exc):
    """Whether exc was raised by this file's code (not by the program's)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and tb.tb_frame.f_code.co_filename == __file__


def jit(fn):
    def traced(*args):
        # values of builtin types pass as they are: nothing to interpret there
        return _unwrap(fn(*(a if type(a).__module__ == "builtins" else _Proxy(a)
                            for a in args)))
    return traced
