"""Toy target memoising through class hooks: while fn runs, the class of every
module-like argument (one that overrides `__setattr__` and has a `__getattr__`,
the nn.Module pattern: `__setattr__` routes values into `_modules` /
`_parameters`, `__getattr__` serves them back) gets wrapped hooks, restored when
the call ends. The wrapped `__setattr__` runs the class's own and remembers the
value; the wrapped `__getattr__` serves a name stored in this call from that
memory instead of asking the class's hook, as a JIT that special-cases module
attribute stores does ("what the hook stored is what it will serve"). The value
is right, but the `__getattr__` call CPython makes is skipped: a program whose
hook logs onto the class (`Module.log`) differs only in that class-level log
(MISMATCH_STATE, seen only because the observation reads class dicts, tfobs 2; a
hook logging into LOG gives MISMATCH_EVENTS). `__delattr__` forgets the name.
Arguments are passed unchanged (no proxy): everything else is CPython's own."""

_HOOKS = ("__setattr__", "__getattr__", "__delattr__")


def _static(cls, name):
    """The class attribute `name` found along the MRO without running any code:
    (the class whose dict has it, the raw value), or (None, None)."""
    for k in type.__getattribute__(cls, "__mro__"):
        d = type.__getattribute__(k, "__dict__")
        if name in d:
            return k, d[name]
    return None, None


def _module_like(cls):
    owner, _ = _static(cls, "__setattr__")
    return owner is not object and _static(cls, "__getattr__")[0] is not None


def _patch(cls, memory):
    """Wraps cls's hooks; returns what restores them."""
    saved = {}
    orig = {n: _static(cls, n)[1] for n in _HOOKS}
    d = type.__getattribute__(cls, "__dict__")
    for n in _HOOKS:
        saved[n] = d[n] if n in d else None

    def setattr_hook(self, name, value):
        orig["__setattr__"].__get__(self, type(self))(name, value)
        memory[(id(self), name)] = (self, value)

    def getattr_hook(self, name):
        if (id(self), name) in memory:
            return memory[(id(self), name)][1]   # the bug: the hook is not asked
        return orig["__getattr__"].__get__(self, type(self))(name)

    def delattr_hook(self, name):
        memory.pop((id(self), name), None)
        orig["__delattr__"].__get__(self, type(self))(name)

    for n, f in zip(_HOOKS, (setattr_hook, getattr_hook, delattr_hook)):
        type.__setattr__(cls, n, f)

    def restore():
        for n in _HOOKS:
            if saved[n] is None:
                type.__delattr__(cls, n)
            else:
                type.__setattr__(cls, n, saved[n])
    return restore


def jit(fn):
    def traced(*args):
        memory = {}
        restores = []
        try:
            for cls in dict.fromkeys(type(a) for a in args):
                if _module_like(cls):
                    restores.append(_patch(cls, memory))
            return fn(*args)
        finally:
            for restore in reversed(restores):
                restore()
    return traced
