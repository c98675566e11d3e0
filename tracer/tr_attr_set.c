/* tr_attr_set.c: attribute stores and deletes (STORE_ATTR, DELETE_ATTR, setattr(),
 * delattr(), object.__setattr__/__delattr__ called explicitly), CPython 3.11's
 * algorithm step by step.
 *
 * Dispatch is on type(obj)->tp_setattro, as PyObject_SetAttr does:
 *   PyObject_GenericSetAttr  -> generic_store (_PyObject_GenericSetAttrWithDict)
 *   type_setattro            -> type_store    (Objects/typeobject.c)
 *   slot_tp_setattro         -> hook_store    (a Python-level __setattr__/__delattr__,
 *                                              interpreted: module-like classes route
 *                                              values into their own dicts there)
 *   anything else            -> PyObject_SetAttr, opaque.
 * Differences from CPython: the data-descriptor step is modelled (property fset/fdel
 * and Python __set__/__delete__ interpreted); the instance-dict step itself is
 * CPython's own (PyObject_GenericSetAttr / type_setattro called once no data
 * descriptor applies), so dict layout, PyType_Modified, slot updates of dunder
 * names and every error message are CPython's. Each store first invalidates the
 * attribute cache (tr_cache_note_store) and records one trace line.
 */
#include "tr_attr_int.h"
#include "tr_core.h"

static int is_wrapper_of(PyObject *attr, void *fn)
{
    return attr != NULL && Py_IS_TYPE(attr, &PyWrapperDescr_Type) &&
           ((PyWrapperDescrObject *)attr)->d_wrapped == fn;
}

/* _PyObject_GenericSetAttrWithDict (dict NULL): a data descriptor on the type
 * (tp_descr_set) takes the store; otherwise the instance dict, done by CPython. */
static int generic_store(TrRun *run, TrValue obj, PyObject *name, const TrValue *value,
                         const char **detail)
{
    PyTypeObject *tp = Py_TYPE(obj.obj);
    int rc;
    if (tp->tp_dict == NULL && PyType_Ready(tp) < 0)
        return -1;
    PyObject *descr = Py_XNewRef(_PyType_Lookup(tp, name));
    if (descr != NULL && Py_TYPE(descr)->tp_descr_set != NULL)
        rc = tr_descr_set(run, descr, obj, value, obj.prov, name, detail);
    else {
        /* No data descriptor: the same lookup again finds none, then the dict. */
        *detail = "inst_dict";
        rc = PyObject_GenericSetAttr(obj.obj, name, value ? value->obj : NULL);
    }
    Py_XDECREF(descr);
    return rc;
}

/* type_setattro: immutable types refuse; a Python-level data descriptor of the
 * metatype (a metaclass property with a setter, a custom __set__) is interpreted
 * and the type marked modified; everything else is type_setattro itself. */
static int type_store(TrRun *run, TrValue obj, PyObject *name, const TrValue *value,
                      const char **detail)
{
    PyTypeObject *type = (PyTypeObject *)obj.obj;
    PyTypeObject *meta = Py_TYPE(obj.obj);
    int rc;
    if (type->tp_flags & Py_TPFLAGS_IMMUTABLETYPE) {
        PyErr_Format(PyExc_TypeError, "cannot set %R attribute of immutable type '%s'",
                     name, type->tp_name);
        return -1;
    }
    PyObject *descr = Py_XNewRef(_PyType_Lookup(meta, name));
    descrsetfunc f = descr ? Py_TYPE(descr)->tp_descr_set : NULL;
    if (f != NULL && (f == PyProperty_Type.tp_descr_set || f == tr_slot_funcs.descr_set)) {
        rc = tr_descr_set(run, descr, obj, value, obj.prov, name, detail);
        if (rc == 0)
            PyType_Modified(type);
    }
    else {
        *detail = "type_dict";
        rc = PyType_Type.tp_setattro(obj.obj, name, value ? value->obj : NULL);
    }
    Py_XDECREF(descr);
    return rc;
}

/* slot_tp_setattro: type(obj).__setattr__(obj, name, value) or
 * type(obj).__delattr__(obj, name) through vectorcall_method; object's and type's
 * own slot wrappers are the generic and type algorithms. */
static int hook_store(TrRun *run, TrValue obj, PyObject *name, const TrValue *value,
                      const char **detail)
{
    PyObject *mname = value ? tr_names.setattr : tr_names.delattr;
    PyObject *meth = _PyType_Lookup(Py_TYPE(obj.obj), mname);
    int rc;
    if (meth == NULL) {
        PyErr_SetObject(PyExc_AttributeError, mname);
        return -1;
    }
    Py_INCREF(meth);
    if (is_wrapper_of(meth, (void *)PyObject_GenericSetAttr))
        rc = generic_store(run, obj, name, value, detail);
    else if (is_wrapper_of(meth, (void *)PyType_Type.tp_setattro))
        rc = type_store(run, obj, name, value, detail);
    else if (Py_IS_TYPE(meth, &PyWrapperDescr_Type)) {
        /* A C base class's __setattr__: its wrapper checks and calls it. */
        *detail = "opaque";
        tr_attr_note_escape(run);
        PyObject *r = PyObject_CallFunctionObjArgs(meth, obj.obj, name,
                                                   value ? value->obj : NULL, NULL);
        rc = r ? 0 : -1;
        Py_XDECREF(r);
    }
    else {
        TrValue args[2], res = {0};
        *detail = value ? "__setattr__" : "__delattr__";
        args[0] = tr_value_new(name, NULL);   /* borrowed */
        if (value)
            args[1] = *value;
        rc = tr_call_bound(run, meth, obj, args, value ? 2 : 1, obj.prov, mname, &res);
        tr_value_clear(&res);
    }
    Py_DECREF(meth);
    return rc;
}

/* The one trace line of a store: "STORE_ATTR x via property.fset" or "DELETE_ATTR x
 * via inst_dict" (the interpreter leaves attribute lines to the protocol; the line
 * says how the protocol carried the store out). */
static int record(TrRun *run, PyObject *name, const TrValue *value, const char *detail)
{
    return tr_trace_record_name(run, value ? "STORE_ATTR" : "DELETE_ATTR", name, " via ",
                                detail, value);
}

static int check_name(PyObject *name)
{
    if (!PyUnicode_Check(name)) {
        PyErr_Format(PyExc_TypeError, "attribute name must be string, not '%.200s'",
                     Py_TYPE(name)->tp_name);
        return -1;
    }
    return tr_attr_ready();
}

/* PyObject_SetAttr / PyObject_DelAttr. */
static int store(TrRun *run, TrValue obj, PyObject *name, const TrValue *value)
{
    if (check_name(name) < 0)
        return -1;
    tr_cache_note_store(run, obj.obj, name);
    setattrofunc sa = Py_TYPE(obj.obj)->tp_setattro;
    const char *detail = "opaque";
    int rc;
    if (sa == PyObject_GenericSetAttr)
        rc = generic_store(run, obj, name, value, &detail);
    else if (sa == PyType_Type.tp_setattro)
        rc = type_store(run, obj, name, value, &detail);
    else if (sa == tr_slot_funcs.setattro)
        rc = hook_store(run, obj, name, value, &detail);
    else {
        tr_attr_note_escape(run);
        rc = PyObject_SetAttr(obj.obj, name, value ? value->obj : NULL);
    }
    if (rc < 0)
        return -1;
    return record(run, name, value, detail);
}

int tr_attr_set(TrRun *run, TrValue obj, PyObject *name, TrValue value)
{
    return store(run, obj, name, &value);
}

int tr_attr_del(TrRun *run, TrValue obj, PyObject *name)
{
    return store(run, obj, name, NULL);
}

/* Whether object.__setattr__ applies to obj as is: CPython's hackcheck refuses it
 * when a C base class between type(obj) and object overrides tp_setattro (types,
 * for one). Python classes in between do not count. */
static int generic_setattr_applies(PyObject *obj)
{
    for (PyTypeObject *t = Py_TYPE(obj); t != NULL; t = t->tp_base) {
        if (t->tp_setattro == tr_slot_funcs.setattro)
            continue;
        return t->tp_setattro == PyObject_GenericSetAttr;
    }
    return 1;
}

/* object.__setattr__(obj, name, value) / object.__delattr__(obj, name) called
 * explicitly (super().__setattr__ in a module-like class): the generic algorithm,
 * whatever type(obj) overrides. Where CPython's wrapper refuses (hackcheck), the
 * wrapper itself is called for its exact TypeError. */
int tr_attr_generic_set(TrRun *run, TrValue obj, PyObject *name, const TrValue *value)
{
    if (check_name(name) < 0)
        return -1;
    tr_cache_note_store(run, obj.obj, name);
    const char *detail = "opaque";
    int rc;
    if (generic_setattr_applies(obj.obj))
        rc = generic_store(run, obj, name, value, &detail);
    else {
        PyObject *w = PyObject_GetAttr((PyObject *)&PyBaseObject_Type,
                                       value ? tr_names.setattr : tr_names.delattr);
        if (w == NULL)
            return -1;
        PyObject *r = PyObject_CallFunctionObjArgs(w, obj.obj, name,
                                                   value ? value->obj : NULL, NULL);
        Py_DECREF(w);
        rc = r ? 0 : -1;
        Py_XDECREF(r);
    }
    if (rc < 0)
        return -1;
    return record(run, name, value, detail);
}
