# After a crash, the next input runs in a fresh worker (OK).
def make():
    return ([1, 2, 3],)


def program(xs):
    return sum(xs), len(xs)
