# Lacks program(): not a program (INVALID).
# expect[identity]: INVALID


def make():
    return ()
