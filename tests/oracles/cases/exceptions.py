# Exceptions as (type name, args): raised by program (a result), returned, and
# logged; the raised object keeps its identity across sections.
LOG = []
class MyError(ValueError):
    pass
def make():
    return ([],)
def program(box):
    if not box:
        e = MyError("bad", 3)
        box.append(e)
        LOG.append(e)
        raise e
    if len(box) == 1:
        box.append(KeyError("k"))
        return box[1]
    raise box[0]
