"""A target written in Python that is correct: it calls fn, after looking at its
code the way a Python-level JIT would before tracing. The smoke test fuzzes it to
exercise the Python line-coverage feedback (hz_pycov.h) with no finding expected."""


def _inspect(code, seen):
    names = []
    for name in code.co_names:
        if name.startswith("__") and name.endswith("__"):
            names.append(("dunder", name))
        elif name in seen:
            names.append(("again", name))
        else:
            seen.add(name)
            names.append(("new", name))
    return names


def jit(fn):
    plan = _inspect(fn.__code__, set())

    def run(*args):
        if len(plan) > 8:
            kind = "long"
        elif any(k == "dunder" for k, _ in plan):
            kind = "dunder"
        else:
            kind = "short"
        del kind
        return fn(*args)

    return run
