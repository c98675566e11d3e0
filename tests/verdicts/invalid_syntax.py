# Does not compile: not a program (INVALID).
# expect[identity]: INVALID


def make(:
    return ()
