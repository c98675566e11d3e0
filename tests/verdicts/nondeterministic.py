# State that survives between runs (an attribute on the sys module) makes the two
# eager runs differ: NONDETERMINISTIC, the generator's bug, never a finding.
# expect[identity]: NONDETERMINISTIC
import sys


def make():
    return ()


def program():
    sys._tf_runs = getattr(sys, "_tf_runs", 0) + 1
    return sys._tf_runs
