#tracefuzz-py
# torch.nn.Module's attribute protocol in miniature: __setattr__ routes parameters
# into a dict that __getattr__ serves; a class attribute changed between calls.
LOG = []


class Module:  # tf: desc=module_like
    scale = 2  # tf: desc=class_attr

    def __init__(self):
        object.__setattr__(self, "_parameters", {})

    def __setattr__(self, name, value):
        if name.startswith("param_"):
            self._parameters[name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        params = self.__dict__["_parameters"]
        if name in params:
            return params[name]
        raise AttributeError(name)


def make():
    m = Module()
    m.param_w = [1.0]
    return (m,)


def program(m):
    # tf: access=repeat_read
    return m.param_w is m.param_w, m.scale, getattr(m, "param_x", "missing")


def between(m):  # tf: between=rebind_class_attr
    Module.scale = 3
