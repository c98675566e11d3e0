"""Toy target probing its arguments: when called, it asks every argument for a
marker attribute of its own, `getattr(arg, "_jit_probe_", None)`, as real JITs do
to find objects they must not trace (Dynamo's `_torchdynamo_disable`-style flags),
then calls fn with the arguments unchanged. Its one bug: the probe is an attribute
read the program never made, so a class with `__getattr__` (nn.Module style) runs
its hook once more per argument and call. A program whose `__getattr__` logs onto
the class (`type(self).log.append(...)`) rather than into LOG differs from CPython
only in that class-level log: MISMATCH_STATE, seen only because the observation
reads class dicts (tfobs 2). An exception from the hook is swallowed, so the probe
changes nothing else."""


def _probe(arg):
    try:
        getattr(arg, "_jit_probe_", None)
    except Exception:   # a hook refusing the name: the probe stays invisible
        pass


def jit(fn):
    def traced(*args):
        for a in args:
            _probe(a)
        return fn(*args)
    return traced
