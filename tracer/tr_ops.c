/* tr_ops.c: the opcodes of tr_eval.c too long to inline, each mirroring the helper of
 * Python/ceval.c (3.11) it names: unpack_iterable, match_keys, match_class,
 * FORMAT_VALUE, import_name, import_from, format_kwargs_error. Attribute reads that
 * patterns make (MATCH_CLASS) go through the tracer's attribute protocol. */
#include "tr_frame.h"
#include "tr_attr.h"

/* _PyObject_LookupAttr with a C string name: 1 found, 0 not (no exception), -1. */
static int lookup_attr_str(PyObject *obj, const char *name, PyObject **out)
{
    PyObject *n = PyUnicode_InternFromString(name);
    if (n == NULL)
        return -1;
    int rc = _PyObject_LookupAttr(obj, n, out);
    Py_DECREF(n);
    return rc;
}

/* UNPACK_SEQUENCE (after == -1) and UNPACK_EX: out[0] is the value for the top of the
 * stack (the first target). Values get UNPACK provenance. 0 or -1. */
int tr_op_unpack(TrValue seq, int before, int after, TrValue *out)
{
    PyObject *it = PyObject_GetIter(seq.obj);
    int i = 0;
    if (it == NULL) {
        if (PyErr_ExceptionMatches(PyExc_TypeError) && Py_TYPE(seq.obj)->tp_iter == NULL &&
            !PySequence_Check(seq.obj)) {
            PyErr_Format(PyExc_TypeError, "cannot unpack non-iterable %.200s object",
                         Py_TYPE(seq.obj)->tp_name);
        }
        return -1;
    }
    for (; i < before; i++) {
        PyObject *w = PyIter_Next(it);
        if (w == NULL) {
            if (!PyErr_Occurred()) {
                if (after < 0)
                    PyErr_Format(PyExc_ValueError,
                                 "not enough values to unpack (expected %d, got %d)", before, i);
                else
                    PyErr_Format(PyExc_ValueError,
                                 "not enough values to unpack (expected at least %d, got %d)",
                                 before + after, i);
            }
            goto error;
        }
        out[i] = tr_value_new(w, tr_prov_new(TR_PROV_UNPACK, seq.prov, NULL, NULL, i));
    }
    if (after < 0) {
        PyObject *w = PyIter_Next(it);
        if (w == NULL) {
            if (PyErr_Occurred())
                goto error;
            Py_DECREF(it);
            return 0;
        }
        Py_DECREF(w);
        PyErr_Format(PyExc_ValueError, "too many values to unpack (expected %d)", before);
        goto error;
    }
    PyObject *l = PySequence_List(it);
    if (l == NULL)
        goto error;
    Py_ssize_t ll = PyList_GET_SIZE(l);
    if (ll < after) {
        PyErr_Format(PyExc_ValueError, "not enough values to unpack (expected at least %d, got %zd)",
                     before + after, before + ll);
        Py_DECREF(l);
        goto error;
    }
    /* The tail after the starred target comes off the end of the list. */
    for (int j = after - 1; j >= 0; j--) {
        PyObject *w = Py_NewRef(PyList_GET_ITEM(l, ll - after + j));
        out[before + 1 + j] = tr_value_new(
            w, tr_prov_new(TR_PROV_UNPACK, seq.prov, NULL, NULL, before + 1 + j));
    }
    if (PyList_SetSlice(l, ll - after, ll, NULL) < 0) {
        Py_DECREF(l);
        for (int j = 0; j < after; j++)
            tr_value_clear(&out[before + 1 + j]);
        goto error;
    }
    out[before] = tr_value_new(l, tr_prov_new(TR_PROV_UNPACK, seq.prov, NULL, NULL, before));
    Py_DECREF(it);
    return 0;
error:
    for (int j = 0; j < i; j++)
        tr_value_clear(&out[j]);
    Py_DECREF(it);
    return -1;
}

/* MATCH_KEYS: a tuple of the values for keys, None when one is missing; new ref. */
PyObject *tr_op_match_keys(PyObject *map, PyObject *keys)
{
    Py_ssize_t nkeys = PyTuple_GET_SIZE(keys);
    if (nkeys == 0)
        return PyTuple_New(0);
    PyObject *get = NULL, *seen = NULL, *values = NULL, *dummy = NULL, *result = NULL;
    get = PyObject_GetAttrString(map, "get");
    if (get == NULL)
        goto done;
    seen = PySet_New(NULL);
    values = PyList_New(0);
    dummy = PyBaseObject_Type.tp_alloc(&PyBaseObject_Type, 0);   /* a unique sentinel */
    if (seen == NULL || values == NULL || dummy == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < nkeys; i++) {
        PyObject *key = PyTuple_GET_ITEM(keys, i);
        int dup = PySet_Contains(seen, key);
        if (dup < 0 || (dup == 0 && PySet_Add(seen, key) < 0))
            goto done;
        if (dup) {
            PyErr_Format(PyExc_ValueError, "mapping pattern checks duplicate key (%R)", key);
            goto done;
        }
        PyObject *value = PyObject_CallFunctionObjArgs(get, key, dummy, NULL);
        if (value == NULL)
            goto done;
        if (value == dummy) {
            Py_DECREF(value);
            result = Py_NewRef(Py_None);
            goto done;
        }
        int rc = PyList_Append(values, value);
        Py_DECREF(value);
        if (rc < 0)
            goto done;
    }
    result = PyList_AsTuple(values);
done:
    Py_XDECREF(get);
    Py_XDECREF(seen);
    Py_XDECREF(values);
    Py_XDECREF(dummy);
    return result;
}

/* One attribute of a class pattern, through the tracer; AttributeError means "no
 * match" (returns 0), other errors -1. seen collects names for the duplicate check. */
static int match_class_attr(TrRun *run, TrValue subject, PyObject *type, PyObject *name,
                            PyObject *seen, PyObject *attrs)
{
    if (!PyUnicode_CheckExact(name)) {
        PyErr_Format(PyExc_TypeError, "__match_args__ elements must be strings (got %s)",
                     Py_TYPE(name)->tp_name);
        return -1;
    }
    int dup = PySet_Contains(seen, name);
    if (dup < 0 || (dup == 0 && PySet_Add(seen, name) < 0))
        return -1;
    if (dup) {
        PyErr_Format(PyExc_TypeError, "%s() got multiple sub-patterns for attribute %R",
                     ((PyTypeObject *)type)->tp_name, name);
        return -1;
    }
    TrValue v = {NULL, NULL};
    if (tr_attr_get(run, subject, name, &v) < 0) {
        if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
            PyErr_Clear();
            return 0;
        }
        return -1;
    }
    int rc = PyList_Append(attrs, v.obj);
    tr_value_clear(&v);
    return rc < 0 ? -1 : 1;
}

int tr_op_match_class(TrRun *run, TrValue subject, PyObject *type, Py_ssize_t nargs,
                      PyObject *kwargs, PyObject **out)
{
    *out = NULL;
    if (!PyType_Check(type)) {
        PyErr_SetString(PyExc_TypeError, "called match pattern must be a type");
        return -1;
    }
    int inst = PyObject_IsInstance(subject.obj, type);
    if (inst <= 0)
        return inst;
    PyObject *match_args = NULL, *seen = NULL, *attrs = NULL;
    int rc = -1;
    seen = PySet_New(NULL);
    attrs = PyList_New(0);
    if (seen == NULL || attrs == NULL)
        goto done;
    if (nargs) {
        int match_self = 0;
        if (lookup_attr_str(type, "__match_args__", &match_args) < 0)
            goto done;
        if (match_args != NULL) {
            if (!PyTuple_CheckExact(match_args)) {
                PyErr_Format(PyExc_TypeError, "%s.__match_args__ must be a tuple (got %s)",
                             ((PyTypeObject *)type)->tp_name, Py_TYPE(match_args)->tp_name);
                goto done;
            }
        }
        else {
            match_args = PyTuple_New(0);
            if (match_args == NULL)
                goto done;
            match_self = PyType_HasFeature((PyTypeObject *)type, _Py_TPFLAGS_MATCH_SELF);
        }
        Py_ssize_t allowed = match_self ? 1 : PyTuple_GET_SIZE(match_args);
        if (allowed < nargs) {
            PyErr_Format(PyExc_TypeError, "%s() accepts %zd positional sub-pattern%s (%zd given)",
                         ((PyTypeObject *)type)->tp_name, allowed, allowed == 1 ? "" : "s",
                         nargs);
            goto done;
        }
        if (match_self) {
            if (PyList_Append(attrs, subject.obj) < 0)
                goto done;
        }
        else {
            for (Py_ssize_t i = 0; i < nargs; i++) {
                int m = match_class_attr(run, subject, type, PyTuple_GET_ITEM(match_args, i),
                                         seen, attrs);
                if (m <= 0) {
                    rc = m;
                    goto done;
                }
            }
        }
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(kwargs); i++) {
        int m = match_class_attr(run, subject, type, PyTuple_GET_ITEM(kwargs, i), seen, attrs);
        if (m <= 0) {
            rc = m;
            goto done;
        }
    }
    *out = PyList_AsTuple(attrs);
    rc = *out == NULL ? -1 : 1;
done:
    Py_XDECREF(match_args);
    Py_XDECREF(seen);
    Py_XDECREF(attrs);
    return rc;
}

/* FORMAT_VALUE: conversion 0 none, 1 str, 2 repr, 3 ascii; spec borrowed or NULL. */
PyObject *tr_op_format(PyObject *value, int conversion, PyObject *spec)
{
    PyObject *conv;
    switch (conversion) {
    case 1: conv = PyObject_Str(value); break;
    case 2: conv = PyObject_Repr(value); break;
    case 3: conv = PyObject_ASCII(value); break;
    default: conv = Py_NewRef(value); break;
    }
    if (conv == NULL)
        return NULL;
    if (PyUnicode_CheckExact(conv) && spec == NULL)
        return conv;
    PyObject *res = PyObject_Format(conv, spec);
    Py_DECREF(conv);
    return res;
}

/* IMPORT_NAME: builtins.__import__(name, globals, locals, fromlist, level), a C call. */
PyObject *tr_op_import_name(TrFrame *f, PyObject *name, PyObject *fromlist, PyObject *level)
{
    PyObject *import_func = PyDict_GetItemString(f->builtins, "__import__");
    if (import_func == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ImportError, "__import__ not found");
        return NULL;
    }
    PyObject *locals = f->locals != NULL ? f->locals : Py_None;
    return PyObject_CallFunctionObjArgs(import_func, name, f->globals, locals, fromlist, level,
                                        NULL);
}

/* IMPORT_FROM: getattr(module, name), falling back to sys.modules["pkg.name"]. */
PyObject *tr_op_import_from(PyObject *module, PyObject *name)
{
    PyObject *x = NULL, *pkgname = NULL, *fullname = NULL;
    if (_PyObject_LookupAttr(module, name, &x) != 0)
        return x;
    if (lookup_attr_str(module, "__name__", &pkgname) < 0)
        return NULL;
    if (pkgname != NULL && PyUnicode_Check(pkgname)) {
        fullname = PyUnicode_FromFormat("%U.%U", pkgname, name);
        if (fullname == NULL)
            goto done;
        PyObject *modules = PyImport_GetModuleDict();
        x = PyDict_GetItemWithError(modules, fullname);
        if (x != NULL) {
            Py_INCREF(x);
            goto done;
        }
        if (PyErr_Occurred())
            goto done;
    }
    PyErr_Format(PyExc_ImportError, "cannot import name %R from %R (unknown location)", name,
                 pkgname != NULL ? pkgname : Py_None);
done:
    Py_XDECREF(pkgname);
    Py_XDECREF(fullname);
    return x;
}

/* IMPORT_STAR (ceval's import_all_from): the names of __all__, or the public names of
 * the module's __dict__, stored into locals. */
int tr_op_import_star(PyObject *locals, PyObject *v)
{
    PyObject *all = NULL, *dict = NULL;
    int skip_private = 0, rc = -1;
    if (lookup_attr_str(v, "__all__", &all) < 0)
        return -1;
    if (all == NULL) {
        if (lookup_attr_str(v, "__dict__", &dict) < 0)
            return -1;
        if (dict == NULL) {
            PyErr_SetString(PyExc_ImportError, "from-import-* object has no __dict__ and no __all__");
            return -1;
        }
        all = PyMapping_Keys(dict);
        Py_DECREF(dict);
        if (all == NULL)
            return -1;
        skip_private = 1;
    }
    for (Py_ssize_t pos = 0;; pos++) {
        PyObject *name = PySequence_GetItem(all, pos);
        if (name == NULL) {
            if (PyErr_ExceptionMatches(PyExc_IndexError)) {
                PyErr_Clear();
                rc = 0;
            }
            break;
        }
        if (!PyUnicode_Check(name)) {
            PyObject *modname = NULL;
            if (lookup_attr_str(v, "__name__", &modname) >= 0 && modname != NULL &&
                PyUnicode_Check(modname))
                PyErr_Format(PyExc_TypeError, "%s in %U.%s must be str, not %.100s",
                             skip_private ? "Key" : "Item", modname,
                             skip_private ? "__dict__" : "__all__", Py_TYPE(name)->tp_name);
            else if (!PyErr_Occurred())
                PyErr_Format(PyExc_TypeError, "module __name__ must be a string, not %.100s",
                             Py_TYPE(name)->tp_name);
            Py_XDECREF(modname);
            Py_DECREF(name);
            break;
        }
        if (skip_private && PyUnicode_READ_CHAR(name, 0) == '_') {
            Py_DECREF(name);
            continue;
        }
        PyObject *value = PyObject_GetAttr(v, name);
        int err = value == NULL ? -1 : PyObject_SetItem(locals, name, value);
        Py_XDECREF(value);
        Py_DECREF(name);
        if (err < 0)
            break;
    }
    Py_DECREF(all);
    return rc;
}

/* DICT_MERGE / CALL_FUNCTION_EX: the messages of ceval's format_kwargs_error. */
int tr_op_dict_merge_error(PyObject *func, PyObject *arg)
{
    if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear();
        PyObject *fs = _PyObject_FunctionStr(func);
        if (fs != NULL) {
            PyErr_Format(PyExc_TypeError, "%U argument after ** must be a mapping, not %.200s",
                         fs, Py_TYPE(arg)->tp_name);
            Py_DECREF(fs);
        }
    }
    else if (PyErr_ExceptionMatches(PyExc_KeyError)) {
        PyObject *type, *val, *tb;
        PyErr_Fetch(&type, &val, &tb);
        PyErr_NormalizeException(&type, &val, &tb);
        PyObject *args = val != NULL ? PyObject_GetAttrString(val, "args") : NULL;
        if (args != NULL && PyTuple_Check(args) && PyTuple_GET_SIZE(args) == 1) {
            PyObject *key = PyTuple_GET_ITEM(args, 0);
            if (!PyUnicode_Check(key)) {
                PyErr_Format(PyExc_TypeError, "keywords must be strings");
            }
            else {
                PyObject *fs = _PyObject_FunctionStr(func);
                if (fs != NULL) {
                    PyErr_Format(PyExc_TypeError, "%U got multiple values for keyword argument '%S'",
                                 fs, key);
                    Py_DECREF(fs);
                }
            }
            Py_XDECREF(type);
            Py_XDECREF(val);
            Py_XDECREF(tb);
        }
        else {
            PyErr_Restore(type, val, tb);
        }
        Py_XDECREF(args);
    }
    return -1;
}

/* _PyObject_LookupSpecial: the attribute on the type, bound to obj by its __get__ (C
 * binding of functions). New reference, or NULL with or without an exception. */
PyObject *tr_op_lookup_special(PyObject *obj, const char *name)
{
    PyObject *n = PyUnicode_InternFromString(name);
    if (n == NULL)
        return NULL;
    PyObject *res = _PyType_Lookup(Py_TYPE(obj), n);
    Py_DECREF(n);
    if (res == NULL)
        return NULL;
    descrgetfunc get = Py_TYPE(res)->tp_descr_get;
    if (get != NULL)
        return get(res, obj, (PyObject *)Py_TYPE(obj));
    return Py_NewRef(res);
}

PyObject *tr_op_special_function(PyObject *obj, const char *name)
{
    if (!(Py_TYPE(obj)->tp_flags & Py_TPFLAGS_HEAPTYPE))
        return NULL;
    PyObject *n = PyUnicode_InternFromString(name);
    if (n == NULL)
        return NULL;
    PyObject *res = _PyType_Lookup(Py_TYPE(obj), n);   /* borrowed */
    Py_DECREF(n);
    if (res == NULL || !PyFunction_Check(res))
        return NULL;
    return Py_NewRef(res);
}
