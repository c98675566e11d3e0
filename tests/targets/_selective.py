"""Shared by the toy targets that misbehave on every real program: they do so only
when the function reads an attribute or a global (every program worth testing does).
tracefuzz's preflight program (a call and arithmetic) does neither, so these toys
pass it and their verdicts are findings, not a broken set-up."""


def touches_attributes(fn):
    return bool(fn.__code__.co_names)
