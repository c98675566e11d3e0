#tracefuzz-py
# A metaclass data descriptor beats the class dict on class access; a user
# __getattribute__ sees every read.
LOG = []


class MetaDesc:  # tf: desc=meta_data_desc
    def __get__(self, obj, owner=None):
        return ("meta", obj.__name__ if obj is not None else None)

    def __set__(self, obj, value):
        raise AttributeError("read-only")


class Meta(type):
    kind = MetaDesc()

    @property  # tf: desc=meta_prop
    def label(cls):
        return [cls.__name__]


class K(metaclass=Meta):
    kind = "class dict"

    def __getattribute__(self, name):  # tf: desc=getattribute_hook
        LOG.append(("ga", name))
        return object.__getattribute__(self, name)


def make():
    k = K()
    k.v = 3
    return (k,)


def program(k):
    # tf: access=class_read
    return K.kind, k.kind, K.label is K.label, k.v
