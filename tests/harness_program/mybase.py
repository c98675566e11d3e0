"""Stand-ins for user base classes (--base mybase:Module, --base mybase:MiniModule).

Module only needs its __init__ to run. MiniModule mimics the attribute protocol of
torch.nn.Module (which is not installed here): __init__ creates the _parameters,
_buffers and _modules dicts through object.__setattr__, __setattr__ routes
Parameter and MiniModule values into them, __getattr__ serves them and raises
AttributeError otherwise, __delattr__ removes from them first."""


class Module:
    def __init__(self):
        self.training = True


class Parameter(list):
    """A tensor stand-in: what MiniModule.__setattr__ routes into _parameters."""


class MiniModule:
    def __init__(self):
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_buffers", {})
        object.__setattr__(self, "_modules", {})

    def __getattr__(self, name):
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            if store in d and name in d[store]:
                return d[store][name]
        raise AttributeError("%r object has no attribute %r" % (type(self).__name__, name))

    def __setattr__(self, name, value):
        if isinstance(value, Parameter):
            self.__dict__["_parameters"][name] = value
        elif isinstance(value, MiniModule):
            self.__dict__["_modules"][name] = value
        else:
            object.__setattr__(self, name, value)

    def __delattr__(self, name):
        for store in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__.get(store, ()):
                del self.__dict__[store][name]
                return
        object.__delattr__(self, name)
