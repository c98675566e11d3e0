"""A stand-in for a user base class (--base mybase:Module): its __init__ must run."""


class Module:
    def __init__(self):
        self.training = True
