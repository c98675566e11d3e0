/* tr_attr_desc.c: running one descriptor, as its type's tp_descr_get/tp_descr_set
 * slot would, with Python-level code interpreted.
 *
 * Mirrors Objects/descrobject.c (property_descr_get, property_descr_set,
 * member_get/member_set, getset_get), Objects/funcobject.c (func_descr_get,
 * cm_descr_get, sm_descr_get) and Objects/typeobject.c (slot_tp_descr_get,
 * slot_tp_descr_set, call_attribute, vectorcall_method) of CPython 3.11.
 * Differences: where CPython would call Python code (a property's fget, a class's
 * __get__/__set__/__delete__), the tracer calls it through tr_call so it is
 * interpreted and its result keeps its provenance; C-level descriptors whose
 * behaviour is fixed and runs no user code (member, getset, function binding,
 * staticmethod, method descriptors) are called directly, which also gives their
 * error messages verbatim. Error paths that CPython reports without running user
 * code (a property without a getter) are delegated to CPython itself for the
 * exact message.
 */
#include <string.h>

#include "tr_attr_int.h"
#include "tr_faults.h"
#include <structmember.h>   /* T_OBJECT, T_OBJECT_EX */

TrSlotFuncs tr_slot_funcs;
static PyObject *probe_globals;   /* keeps the probe classes alive for the process */

/* Classes whose slots CPython fills with its slot_tp_* functions. Accessing an
 * attribute of GetattributeProbe once makes slot_tp_getattr_hook (which finds no
 * __getattr__) replace itself by slot_tp_getattro. */
static const char probe_src[] =
    "class GetattrProbe:\n"
    "    def __getattr__(self, name): raise AttributeError(name)\n"
    "class GetattributeProbe:\n"
    "    def __getattribute__(self, name): return None\n"
    "GetattributeProbe().x\n"
    "class SetattrProbe:\n"
    "    def __setattr__(self, name, value): pass\n"
    "class DescrProbe:\n"
    "    def __get__(self, obj, cls=None): return None\n"
    "    def __set__(self, obj, value): pass\n";

TrAttrNames tr_names;

/* Interns the dunder names the protocol looks up (kept for the process). */
static int intern_names(void)
{
    struct { PyObject **slot; const char *s; } table[] = {
        {&tr_names.get, "__get__"}, {&tr_names.set, "__set__"},
        {&tr_names.delete_, "__delete__"}, {&tr_names.getattr, "__getattr__"},
        {&tr_names.getattribute, "__getattribute__"}, {&tr_names.setattr, "__setattr__"},
        {&tr_names.delattr, "__delattr__"}, {&tr_names.class_, "__class__"},
        {&tr_names.dict, "__dict__"}, {&tr_names.thisclass, "__thisclass__"},
        {&tr_names.self_, "__self__"}, {&tr_names.self_class, "__self_class__"},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (*table[i].slot == NULL && (*table[i].slot = PyUnicode_InternFromString(table[i].s)) == NULL)
            return -1;
    }
    return 0;
}

/* Returns a borrowed reference to the probe class called name. */
static PyTypeObject *probe_class(PyObject *g, const char *name)
{
    PyObject *cls = PyDict_GetItemString(g, name);
    if (cls == NULL || !PyType_Check(cls)) {
        fprintf(stderr, "tfjit: probe class %s missing\n", name);
        abort();
    }
    return (PyTypeObject *)cls;
}

int tr_attr_is_ready;

int tr_attr_ready_slow(void)
{
    if (probe_globals != NULL)
        return 0;
    PyObject *g = PyDict_New();
    if (g == NULL)
        return -1;
    if (PyDict_SetItemString(g, "__builtins__", PyEval_GetBuiltins()) < 0 ||
        PyDict_SetItemString(g, "__name__", Py_None) < 0) {
        Py_DECREF(g);
        return -1;
    }
    PyObject *res = PyRun_String(probe_src, Py_file_input, g, g);
    if (res == NULL) {
        Py_DECREF(g);
        return -1;
    }
    Py_DECREF(res);
    if (intern_names() < 0) {
        Py_DECREF(g);
        return -1;
    }
    TrSlotFuncs s;
    s.getattr_hook = probe_class(g, "GetattrProbe")->tp_getattro;
    s.getattro = probe_class(g, "GetattributeProbe")->tp_getattro;
    s.setattro = probe_class(g, "SetattrProbe")->tp_setattro;
    s.descr_get = probe_class(g, "DescrProbe")->tp_descr_get;
    s.descr_set = probe_class(g, "DescrProbe")->tp_descr_set;
    /* The protocol's dispatch relies on these being CPython's distinct slot_* functions. */
    if (s.getattr_hook == NULL || s.getattro == NULL || s.getattr_hook == s.getattro ||
        s.getattr_hook == PyObject_GenericGetAttr || s.setattro == NULL ||
        s.setattro == PyObject_GenericSetAttr || s.descr_get == NULL || s.descr_set == NULL) {
        fprintf(stderr, "tfjit: unexpected CPython slot layout in the probe classes\n");
        abort();
    }
    tr_slot_funcs = s;
    probe_globals = g;
    tr_attr_is_ready = 1;
    return 0;
}

/* Reads a C-level field of a builtin descriptor (property.fget, classmethod.__func__)
 * through the member descriptor of the builtin type itself, so that neither a
 * subclass attribute nor user code can interfere. Returns a new reference. */
static PyObject *builtin_member(PyTypeObject *builtin, PyObject *descr, const char *field)
{
    PyObject *key = PyUnicode_InternFromString(field);
    if (key == NULL)
        return NULL;
    PyObject *member = _PyType_Lookup(builtin, key);   /* borrowed */
    Py_DECREF(key);
    if (member == NULL || Py_TYPE(member)->tp_descr_get == NULL) {
        fprintf(stderr, "tfjit: %s.%s is not a member\n", builtin->tp_name, field);
        abort();
    }
    return Py_TYPE(member)->tp_descr_get(member, descr, (PyObject *)builtin);
}

/* A TrValue for a callee found while resolving site.name (its provenance says so). */
static int callee_value(PyObject *callee, TrProv *site, PyObject *name, TrResolution how,
                        const char *detail, TrValue *out)
{
    TrProv *p = tr_prov_attr(site, name, how, detail);
    if (p == NULL)
        return -1;
    *out = tr_value_new(Py_NewRef(callee), p);
    return 0;
}

/* property_descr_get: obj None/NULL gives the property itself; no getter raises
 * CPython's own error (delegated); else fget(obj), interpreted. */
static int property_get(TrRun *run, PyObject *descr, TrValue obj, PyObject *type,
                        TrProv *site, PyObject *name, TrValue *out, const char **detail)
{
    if (obj.obj == NULL || obj.obj == Py_None) {
        *detail = "property";
        out->obj = Py_NewRef(descr);
        return 0;
    }
    *detail = "property.fget";
    PyObject *fget = builtin_member(&PyProperty_Type, descr, "fget");
    if (fget == NULL)
        return -1;
    int rc = -1;
    if (fget == Py_None) {
        /* "property 'x' of 'C' object has no getter": CPython's message, no user code. */
        PyObject *r = Py_TYPE(descr)->tp_descr_get(descr, obj.obj, type);
        if (r != NULL) {
            out->obj = r;
            rc = 0;
        }
        goto done;
    }
    TrValue callee = {0};
    if (callee_value(fget, site, name, TR_RES_DATA_DESC, "property.fget", &callee) < 0)
        goto done;
    rc = tr_call(run, callee, &obj, 1, NULL, out);
    tr_value_clear(&callee);
done:
    Py_DECREF(fget);
    return rc;
}

/* The mechanism name of a Python-level descriptor class, for the provenance. */
static const char *python_descr_detail(PyTypeObject *dt, int setting, PyObject *value)
{
    const char *n = _PyType_Name(dt);
    if (strcmp(n, "cached_property") == 0)
        return "cached_property";
    if (strcmp(n, "partialmethod") == 0)
        return "partialmethod";
    if (setting)
        return value ? "__set__" : "__delete__";
    return "__get__";
}

/* slot_tp_descr_get: type(descr).__get__(descr, obj or None, type or None). */
static int python_get(TrRun *run, PyObject *descr, TrValue obj, PyObject *type,
                      TrProv *site, PyObject *name, TrValue *out, const char **detail)
{
    PyTypeObject *dt = Py_TYPE(descr);
    *detail = python_descr_detail(dt, 0, NULL);
    PyObject *get = _PyType_Lookup(dt, tr_names.get);
    if (get == NULL) {
        /* Someone deleted __get__ from the class after it was made: CPython returns self. */
        out->obj = Py_NewRef(descr);
        return 0;
    }
    Py_INCREF(get);
    int rc = -1;
    TrResolution how = PyDescr_IsData(descr) ? TR_RES_DATA_DESC : TR_RES_NONDATA_DESC;
    TrValue callee = {0};
    TrValue args[3] = {{0}, {0}, {0}};
    if (callee_value(get, site, name, how, *detail, &callee) < 0 ||
        callee_value(descr, site, name, TR_RES_CLASS_ATTR, "descriptor", &args[0]) < 0)
        goto done;
    args[1] = obj.obj ? tr_value_dup(obj) : tr_value_new(Py_NewRef(Py_None), NULL);
    args[2] = tr_value_new(Py_NewRef(type ? type : Py_None), NULL);
    rc = tr_call(run, callee, args, 3, NULL, out);
done:
    tr_value_clear(&callee);
    for (int i = 0; i < 3; i++)
        tr_value_clear(&args[i]);
    Py_DECREF(get);
    return rc;
}

/* cm_descr_get (3.11 chains): the wrapped callable's own __get__(type, type) if it
 * has one, else a method bound to the class. */
static int classmethod_get(TrRun *run, PyObject *descr, TrValue obj, PyObject *type,
                           TrProv *site, PyObject *name, TrValue *out, const char **detail)
{
    PyObject *callable = builtin_member(&PyClassMethod_Type, descr, "__func__");
    if (callable == NULL)
        return -1;
    int rc = -1;
    *detail = "classmethod";
    if (callable == Py_None) {
        /* Uninitialised classmethod: CPython's error, no user code. */
        PyObject *r = Py_TYPE(descr)->tp_descr_get(descr, obj.obj, type);
        if (r != NULL) {
            out->obj = r;
            rc = 0;
        }
        goto done;
    }
    if (type == NULL)
        type = (PyObject *)Py_TYPE(obj.obj);
    /* Fault classmethod_binds_instance: on instance access the method is bound to
     * the instance, as if the classmethod were a plain function. */
    PyObject *bind_to = type;
    if (TR_FAULT_ON(run, TR_FAULT_CLASSMETHOD_BINDS_INSTANCE) && obj.obj != NULL &&
        obj.obj != Py_None)
        bind_to = obj.obj;
    if (Py_TYPE(callable)->tp_descr_get != NULL) {
        const char *inner;
        TrValue cls = tr_value_new(bind_to, NULL);   /* borrowed for the call */
        rc = tr_descr_get(run, callable, cls, type, site, name, out, &inner);
        if (rc == 0 && strcmp(inner, "method") != 0)
            *detail = "classmethod.chained";
        goto done;
    }
    out->obj = PyMethod_New(callable, bind_to);
    rc = out->obj ? 0 : -1;
done:
    Py_DECREF(callable);
    return rc;
}

int tr_descr_get(TrRun *run, PyObject *descr, TrValue obj, PyObject *type,
                 TrProv *site, PyObject *name, TrValue *out, const char **detail)
{
    descrgetfunc f = Py_TYPE(descr)->tp_descr_get;
    *out = tr_value_new(NULL, NULL);
    if (f == NULL) {
        *detail = "class_attr";
        out->obj = Py_NewRef(descr);
        return 0;
    }
    if (f == PyProperty_Type.tp_descr_get)
        return property_get(run, descr, obj, type, site, name, out, detail);
    if (f == tr_slot_funcs.descr_get)
        return python_get(run, descr, obj, type, site, name, out, detail);
    if (f == PyClassMethod_Type.tp_descr_get)
        return classmethod_get(run, descr, obj, type, site, name, out, detail);

    /* Builtin descriptors that run no user code: called directly. */
    if (f == PyFunction_Type.tp_descr_get)
        *detail = (obj.obj == NULL || obj.obj == Py_None) ? "function" : "method";
    else if (f == PyStaticMethod_Type.tp_descr_get)
        *detail = "staticmethod";
    else if (f == PyMemberDescr_Type.tp_descr_get)
        *detail = tr_member_holds_object(descr) ? "slot" : "member";
    else if (f == PyGetSetDescr_Type.tp_descr_get)
        *detail = "getset";
    else if (f == PyMethodDescr_Type.tp_descr_get || f == PyClassMethodDescr_Type.tp_descr_get ||
             f == PyWrapperDescr_Type.tp_descr_get)
        *detail = "c_method";
    else {
        /* An extension's descriptor: it may run anything. */
        *detail = "c_descr";
        tr_attr_note_escape(run);
    }
    out->obj = f(descr, obj.obj, type);
    /* Fault unset_slot_is_none: an empty __slots__ member reads as None (the NULL
     * in the object's storage taken for "no value", T_OBJECT's rule, instead of
     * T_OBJECT_EX's AttributeError). */
    if (out->obj == NULL && TR_FAULT_ON(run, TR_FAULT_UNSET_SLOT_IS_NONE) &&
        f == PyMemberDescr_Type.tp_descr_get && obj.obj != NULL && obj.obj != Py_None &&
        ((PyMemberDescrObject *)descr)->d_member->type == T_OBJECT_EX &&
        PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear();
        out->obj = Py_NewRef(Py_None);
        *detail = "slot.unset";   /* not cached: the bug stays quiet, no assertion */
    }
    return out->obj ? 0 : -1;
}

int tr_member_holds_object(PyObject *descr)
{
    if (!Py_IS_TYPE(descr, &PyMemberDescr_Type))
        return 0;
    int t = ((PyMemberDescrObject *)descr)->d_member->type;
    return t == T_OBJECT || t == T_OBJECT_EX;
}

int tr_is_cached_property(PyObject *descr)
{
    PyTypeObject *dt = Py_TYPE(descr);
    return dt->tp_descr_get == tr_slot_funcs.descr_get &&
           strcmp(_PyType_Name(dt), "cached_property") == 0;
}

int tr_cached_property_rerun(TrRun *run, PyObject *descr, TrValue obj, PyObject *name,
                             TrValue *out, const char **detail)
{
    /* The wrapped function is cached_property's instance attribute "func", read
     * from its __dict__ so no user code runs. */
    PyObject **dp = _PyObject_GetDictPtr(descr);
    PyObject *func = dp != NULL && *dp != NULL ? PyDict_GetItemString(*dp, "func") : NULL;
    if (func == NULL || !PyCallable_Check(func))
        return 1;
    Py_INCREF(func);
    TrValue callee = {0};
    int rc = -1;
    *detail = "cached_property";
    if (callee_value(func, obj.prov, name, TR_RES_NONDATA_DESC, "cached_property", &callee) < 0)
        goto done;
    rc = tr_call(run, callee, &obj, 1, NULL, out);
done:
    tr_value_clear(&callee);
    Py_DECREF(func);
    return rc;
}

/* property_descr_set: fset(obj, value) / fdel(obj) interpreted; a missing one
 * raises CPython's own message (delegated). */
static int property_set(TrRun *run, PyObject *descr, TrValue obj, const TrValue *value,
                        TrProv *site, PyObject *name, const char **detail)
{
    *detail = value ? "property.fset" : "property.fdel";
    PyObject *func = builtin_member(&PyProperty_Type, descr, value ? "fset" : "fdel");
    if (func == NULL)
        return -1;
    int rc = -1;
    if (func == Py_None) {
        rc = Py_TYPE(descr)->tp_descr_set(descr, obj.obj, value ? value->obj : NULL);
        goto done;
    }
    TrValue callee = {0}, res = {0};
    TrValue args[2];
    args[0] = obj;
    if (value)
        args[1] = *value;
    if (callee_value(func, site, name, TR_RES_DATA_DESC, *detail, &callee) < 0)
        goto done;
    rc = tr_call(run, callee, args, value ? 2 : 1, NULL, &res);
    tr_value_clear(&res);
    tr_value_clear(&callee);
done:
    Py_DECREF(func);
    return rc;
}

/* slot_tp_descr_set: type(descr).__set__(descr, obj, value) or
 * type(descr).__delete__(descr, obj), via vectorcall_method (AttributeError naming
 * the method when the class lacks it). */
static int python_set(TrRun *run, PyObject *descr, TrValue obj, const TrValue *value,
                      TrProv *site, PyObject *name, const char **detail)
{
    PyTypeObject *dt = Py_TYPE(descr);
    PyObject *mname = value ? tr_names.set : tr_names.delete_;
    *detail = python_descr_detail(dt, 1, value ? value->obj : NULL);
    PyObject *meth = _PyType_Lookup(dt, mname);
    if (meth == NULL) {
        PyErr_SetObject(PyExc_AttributeError, mname);
        return -1;
    }
    Py_INCREF(meth);
    int rc = -1;
    TrValue self = {0}, res = {0};
    TrValue args[2];
    args[0] = obj;
    if (value)
        args[1] = *value;
    if (callee_value(descr, site, name, TR_RES_CLASS_ATTR, "descriptor", &self) < 0)
        goto done;
    rc = tr_call_bound(run, meth, self, args, value ? 2 : 1, site, name, &res);
    tr_value_clear(&res);
done:
    tr_value_clear(&self);
    Py_DECREF(meth);
    return rc;
}

int tr_descr_set(TrRun *run, PyObject *descr, TrValue obj, const TrValue *value,
                 TrProv *site, PyObject *name, const char **detail)
{
    descrsetfunc f = Py_TYPE(descr)->tp_descr_set;
    if (f == NULL) {
        fprintf(stderr, "tfjit: tr_descr_set on a non-data descriptor\n");
        abort();
    }
    if (f == PyProperty_Type.tp_descr_set)
        return property_set(run, descr, obj, value, site, name, detail);
    if (f == tr_slot_funcs.descr_set)
        return python_set(run, descr, obj, value, site, name, detail);
    if (f == PyMemberDescr_Type.tp_descr_set)
        *detail = "slot";
    else if (f == PyGetSetDescr_Type.tp_descr_set)
        *detail = "getset";
    else {
        *detail = "c_descr";
        tr_attr_note_escape(run);
    }
    return f(descr, obj.obj, value ? value->obj : NULL);
}

int tr_call_bound(TrRun *run, PyObject *attr, TrValue self, const TrValue *args,
                  Py_ssize_t nargs, TrProv *site, PyObject *name, TrValue *out)
{
    TrValue stack[4];
    TrValue callee = {0}, bound = {0};
    int rc = -1;
    *out = tr_value_new(NULL, NULL);
    if (nargs > 3) {
        fprintf(stderr, "tfjit: tr_call_bound with %zd arguments\n", nargs);
        abort();
    }
    if (PyType_HasFeature(Py_TYPE(attr), Py_TPFLAGS_METHOD_DESCRIPTOR)) {
        /* Unbound call with self first, as vectorcall_method does for functions. */
        if (callee_value(attr, site, name, TR_RES_NONDATA_DESC, "method", &callee) < 0)
            goto done;
        stack[0] = self;
        for (Py_ssize_t i = 0; i < nargs; i++)
            stack[i + 1] = args[i];
        rc = tr_call(run, callee, stack, nargs + 1, NULL, out);
        goto done;
    }
    if (Py_TYPE(attr)->tp_descr_get != NULL) {
        const char *detail;
        if (tr_descr_get(run, attr, self, (PyObject *)Py_TYPE(self.obj), site, name, &bound,
                         &detail) < 0)
            goto done;
        TrProv *p = tr_attr_prov(site, name, TR_RES_NONDATA_DESC, detail, bound.prov);
        if (p == NULL)
            goto done;
        tr_prov_decref(bound.prov);
        bound.prov = p;
        rc = tr_call(run, bound, args, nargs, NULL, out);
        goto done;
    }
    if (callee_value(attr, site, name, TR_RES_CLASS_ATTR, "class_attr", &callee) < 0)
        goto done;
    rc = tr_call(run, callee, args, nargs, NULL, out);
done:
    tr_value_clear(&callee);
    tr_value_clear(&bound);
    return rc;
}
