# make() raises in the eager run: not a program (INVALID), never a finding.
# expect[identity]: INVALID


def make():
    raise ValueError("no world today")


def program(*args):
    return 1
