# nn.Module style (issue 10): the modules keep their event log on the class
# (`Module.log`), not in LOG. `__setattr__` routes parameters and submodules into
# `_parameters` / `_modules` and logs; `__getattr__` serves them back and logs.
# A JIT that makes an extra `__getattr__` probe of its own, or skips the re-read
# after a `__setattr__` (serving the stored value itself), returns the same values
# as CPython: only the class-level log differs, which the observation reads since
# tfobs 2 (before, these were OK).
# expect[identity]: OK
# expect[builtin]: OK
# expect[tests/targets/probe_getattr.py:jit]: MISMATCH_STATE
# expect-report[tests/targets/probe_getattr.py:jit]: class:Module.log
# expect[tests/targets/forward_store.py:jit]: MISMATCH_STATE
# expect[tests/targets/globals_copy.py:jit]: OK


class Parameter:
    def __init__(self, value):
        self.value = value


class Module:
    log = []
    calls = 0

    def __init__(self):
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_modules", {})

    def __getattr__(self, name):
        Module.log.append(("getattr", type(self).__name__, name))
        d = object.__getattribute__(self, "__dict__")
        if name in d["_parameters"]:
            return d["_parameters"][name]
        if name in d["_modules"]:
            return d["_modules"][name]
        raise AttributeError(name)

    def __setattr__(self, name, value):
        Module.log.append(("setattr", type(self).__name__, name))
        if isinstance(value, Parameter):
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._modules[name] = value
        else:
            object.__setattr__(self, name, value)

    def __call__(self, x):
        Module.calls += 1
        return self.forward(x)


class Linear(Module):
    def __init__(self, w):
        super().__init__()
        self.weight = Parameter(w)

    def forward(self, x):
        return self.weight.value * x


class Net(Module):
    def __init__(self):
        super().__init__()
        self.fc = Linear(2)
        self.scale = 3

    def forward(self, x):
        return self.fc(x) * self.scale


def make():
    return (Net(),)


def program(net):
    net.fc = Linear(5)   # routed into _modules by __setattr__
    y = net.fc(1)        # read back through __getattr__
    return y, net.forward(2)
