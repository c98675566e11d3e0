#tracefuzz-py
# A data descriptor beats the instance dict; a non-data descriptor loses to it;
# writing through __dict__ between two calls must be seen by the second.
LOG = []


class DataDesc:  # tf: desc=data_desc
    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        LOG.append("get")
        return obj.__dict__.get("_d", 0) + 100

    def __set__(self, obj, value):
        LOG.append(("set", value))
        obj.__dict__["_d"] = value


class NonData:  # tf: desc=nondata_desc
    def __get__(self, obj, owner=None):
        return "descriptor"


class C:
    d = DataDesc()
    nd = NonData()


def make():
    c = C()
    c.__dict__["d"] = "shadow?"
    return (c,)


def program(c):
    # tf: access=write_read
    c.d = 5
    return c.d, c.nd


def between(c):  # tf: between=shadow_in_dict
    c.__dict__["nd"] = "instance"
