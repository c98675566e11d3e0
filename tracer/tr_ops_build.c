/* tr_ops_build.c: the BUILD_* family and the container opcodes of displays and
 * comprehensions (LIST_APPEND, LIST_EXTEND, SET_ADD, SET_UPDATE, MAP_ADD, DICT_UPDATE,
 * DICT_MERGE, LIST_TO_TUPLE), shared by tr_eval.c and tr_replay.c (tr_ops.h).
 *
 * Each mirrors its case in Python/ceval.c (3.11): the items in stack order, the same
 * C-API calls (so the same hash and equality calls in the same order) and the same
 * messages. Items are borrowed: the caller pops and releases the stack slice after
 * the call, whether it succeeded or not, as ceval does.
 */
#include "tr_frame.h"
#include "tr_ops.h"

/* BUILD_TUPLE: (v*n -- tuple) */
PyObject *tr_op_build_tuple(const TrValue *items, int n)
{
    PyObject *r = PyTuple_New(n);
    if (r == NULL)
        return NULL;
    for (int i = 0; i < n; i++)
        PyTuple_SET_ITEM(r, i, Py_NewRef(items[i].obj));
    return r;
}

/* BUILD_LIST: (v*n -- list) */
PyObject *tr_op_build_list(const TrValue *items, int n)
{
    PyObject *r = PyList_New(n);
    if (r == NULL)
        return NULL;
    for (int i = 0; i < n; i++)
        PyList_SET_ITEM(r, i, Py_NewRef(items[i].obj));
    return r;
}

/* BUILD_SET: (v*n -- set). ceval stops adding at the first error. */
PyObject *tr_op_build_set(const TrValue *items, int n)
{
    PyObject *r = PySet_New(NULL);
    if (r == NULL)
        return NULL;
    for (int i = 0; i < n; i++) {
        if (PySet_Add(r, items[i].obj) < 0) {
            Py_DECREF(r);
            return NULL;
        }
    }
    return r;
}

/* BUILD_MAP: (k v * n -- dict), _PyDict_FromItems: keys set in order, a later equal
 * key replacing the value. */
PyObject *tr_op_build_map(const TrValue *items, int n)
{
    PyObject *r = _PyDict_NewPresized(n);
    if (r == NULL)
        return NULL;
    for (int i = 0; i < n; i++) {
        if (PyDict_SetItem(r, items[2 * i].obj, items[2 * i + 1].obj) < 0) {
            Py_DECREF(r);
            return NULL;
        }
    }
    return r;
}

/* BUILD_CONST_KEY_MAP: (v*n keys -- dict) */
PyObject *tr_op_build_const_key_map(const TrValue *values, PyObject *keys, int n)
{
    if (!PyTuple_CheckExact(keys) || PyTuple_GET_SIZE(keys) != n) {
        PyErr_SetString(PyExc_SystemError, "bad BUILD_CONST_KEY_MAP keys argument");
        return NULL;
    }
    PyObject *r = _PyDict_NewPresized(n);
    if (r == NULL)
        return NULL;
    for (int i = 0; i < n; i++) {
        if (PyDict_SetItem(r, PyTuple_GET_ITEM(keys, i), values[i].obj) < 0) {
            Py_DECREF(r);
            return NULL;
        }
    }
    return r;
}

/* BUILD_STRING: (s*n -- str), the pieces of an f-string joined (ceval's
 * _PyUnicode_JoinArray over the stack slice; here through a tuple, as the slice holds
 * TrValues). */
PyObject *tr_op_build_string(const TrValue *items, int n)
{
    PyObject *empty = NULL, *pieces = NULL, *r = NULL;
    empty = PyUnicode_New(0, 0);
    if (empty == NULL)
        goto done;
    pieces = PyTuple_New(n);
    if (pieces == NULL)
        goto done;
    for (int i = 0; i < n; i++)
        PyTuple_SET_ITEM(pieces, i, Py_NewRef(items[i].obj));
    r = PyUnicode_Join(empty, pieces);
done:
    Py_XDECREF(pieces);
    Py_XDECREF(empty);
    return r;
}

/* BUILD_SLICE: (start stop [step] -- slice) */
PyObject *tr_op_build_slice(PyObject *start, PyObject *stop, PyObject *step)
{
    return PySlice_New(start, stop, step);
}

/* LIST_TO_TUPLE: (list -- tuple) */
PyObject *tr_op_list_to_tuple(PyObject *list)
{
    return PyList_AsTuple(list);
}

/* LIST_APPEND: (list ... v -- list ...) */
int tr_op_list_append(PyObject *list, PyObject *v)
{
    return PyList_Append(list, v);
}

/* LIST_EXTEND: (list ... iterable -- list ...), [*it]: a TypeError of a non-iterable
 * gets the message of the starred display. */
int tr_op_list_extend(PyObject *list, PyObject *iterable)
{
    PyObject *none = _PyList_Extend((PyListObject *)list, iterable);
    if (none != NULL) {
        Py_DECREF(none);
        return 0;
    }
    if (PyErr_ExceptionMatches(PyExc_TypeError) && Py_TYPE(iterable)->tp_iter == NULL &&
        !PySequence_Check(iterable)) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "Value after * must be an iterable, not %.200s",
                     Py_TYPE(iterable)->tp_name);
    }
    return -1;
}

/* SET_ADD: (set ... v -- set ...) */
int tr_op_set_add(PyObject *set, PyObject *v)
{
    return PySet_Add(set, v);
}

/* SET_UPDATE: (set ... iterable -- set ...) */
int tr_op_set_update(PyObject *set, PyObject *iterable)
{
    return _PySet_Update(set, iterable);
}

/* MAP_ADD: (dict ... k v -- dict ...) */
int tr_op_map_add(PyObject *dict, PyObject *key, PyObject *v)
{
    return PyDict_SetItem(dict, key, v);
}

/* DICT_UPDATE: (dict ... m -- dict ...), {**m}: an AttributeError (no keys()) becomes
 * "not a mapping". */
int tr_op_dict_update(PyObject *dict, PyObject *m)
{
    if (PyDict_Update(dict, m) == 0)
        return 0;
    if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "'%.200s' object is not a mapping", Py_TYPE(m)->tp_name);
    }
    return -1;
}

/* DICT_MERGE: (func ... dict ... m -- same), f(**m): duplicate keys are errors, with
 * the messages of format_kwargs_error naming func. */
int tr_op_dict_merge(PyObject *func, PyObject *dict, PyObject *m)
{
    if (_PyDict_MergeEx(dict, m, 2) == 0)
        return 0;
    return tr_op_dict_merge_error(func, m);
}
