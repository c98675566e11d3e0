# Floats by repr: NaN and -0.0 exact; complex by its parts; ints any size.
LOG = []
def make():
    return ()
def program():
    nan = float("nan")
    LOG.append(-0.0)
    return (nan, -nan, 0.0, -0.0, 1e100, float("inf"), -float("inf"), 0.1,
            complex(1.5, -0.0), 2 ** 70, -(2 ** 5000), True, None, 7)
