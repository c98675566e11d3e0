/* tr_attr_get.c: attribute loads (LOAD_ATTR, LOAD_METHOD, getattr()), CPython
 * 3.11's algorithm step by step.
 *
 * Dispatch is on type(obj)->tp_getattro, as PyObject_GetAttr does:
 *   PyObject_GenericGetAttr        -> generic_get   (_PyObject_GenericGetAttrWithDict)
 *   type_getattro                  -> type_get      (Objects/typeobject.c)
 *   super_getattro                 -> super_get     (Objects/typeobject.c)
 *   slot_tp_getattr_hook/_getattro -> hook_get      (a class defining __getattribute__
 *                                                    and/or __getattr__ in Python)
 *   anything else (modules, C types) -> opaque_get: PyObject_GetAttr, TR_RES_OPAQUE.
 * Every load ends in finish_load: the result's provenance becomes
 * ATTR(base, name, how, detail) whose arg is the provenance the interpreted getter
 * gave its result, the attribute cache is consulted/filled (tr_cache.c), and one
 * trace line is recorded.
 */
#include <string.h>

#include "tr_attr_int.h"
#include "tr_core.h"
#include "tr_faults.h"

/* Whether attr is the slot wrapper (object.__getattribute__ and friends) of the C
 * function fn. */
static int is_wrapper_of(PyObject *attr, void *fn)
{
    return attr != NULL && Py_IS_TYPE(attr, &PyWrapperDescr_Type) &&
           ((PyWrapperDescrObject *)attr)->d_wrapped == fn;
}

/* set_attribute_error_context (object.c): PyObject_GetAttr stores name and obj on an
 * AttributeError that has neither, for the "Did you mean" suggestions. */
static void attribute_error_context(PyObject *obj, PyObject *name)
{
    if (!PyErr_ExceptionMatches(PyExc_AttributeError))
        return;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (value != NULL && PyErr_GivenExceptionMatches(value, PyExc_AttributeError)) {
        PyAttributeErrorObject *exc = (PyAttributeErrorObject *)value;
        if (exc->name == NULL && exc->obj == NULL) {
            if (PyObject_SetAttrString(value, "name", name) < 0 ||
                PyObject_SetAttrString(value, "obj", obj) < 0) {
                Py_XDECREF(type);
                Py_XDECREF(value);
                Py_XDECREF(tb);
                return;
            }
        }
    }
    PyErr_Restore(type, value, tb);
}

/* _PyObject_GenericGetAttrWithDict (dict NULL, suppress 0): data descriptor on the
 * type, instance dict, non-data descriptor, class attribute, AttributeError. Takes
 * strong references to descr and dict before anything can run user code. */
static int generic_get(TrRun *run, TrValue obj, PyObject *name, TrValue *out,
                       TrResolution *how, const char **detail)
{
    PyObject *o = obj.obj;
    PyTypeObject *tp = Py_TYPE(o);
    PyObject *descr = NULL, *dict = NULL;
    descrgetfunc f = NULL;
    int rc = -1;

    if (tp->tp_dict == NULL && PyType_Ready(tp) < 0)
        return -1;
    descr = Py_XNewRef(_PyType_Lookup(tp, name));
    if (descr != NULL) {
        f = Py_TYPE(descr)->tp_descr_get;
        /* Fault dict_before_data_desc: the instance dict is asked first. */
        if (f != NULL && PyDescr_IsData(descr) &&
            !TR_FAULT_ON(run, TR_FAULT_DICT_BEFORE_DATA_DESC)) {
            rc = tr_descr_get(run, descr, obj, (PyObject *)tp, obj.prov, name, out, detail);
            /* Only a member holding an object is a slot (a stored value); T_DOUBLE
             * and friends are computed like getsets. */
            *how = tr_member_holds_object(descr) ? TR_RES_SLOT : TR_RES_DATA_DESC;
            goto done;
        }
    }
    /* The instance dict (materialised from the inline values if need be). */
    PyObject **dictptr = tr_dict_ptr(o);
    if (dictptr != NULL && *dictptr != NULL) {
        dict = Py_NewRef(*dictptr);
        PyObject *v = tr_dict_get(dict, name);   /* borrowed */
        /* Fault cached_property_recomputed: a cached_property on the type runs its
         * function again, as if it were a property; the dict entry is ignored. */
        if (v != NULL && f != NULL && TR_FAULT_ON(run, TR_FAULT_CACHED_PROPERTY_RECOMPUTED) &&
            tr_is_cached_property(descr)) {
            rc = tr_cached_property_rerun(run, descr, obj, name, out, detail);
            if (rc <= 0) {
                *how = TR_RES_NONDATA_DESC;
                goto done;
            }
            rc = -1;
        }
        if (v != NULL) {
            out->obj = Py_NewRef(v);
            *how = TR_RES_INST_DICT;
            *detail = "inst_dict";
            rc = 0;
            goto done;
        }
        if (PyErr_Occurred())
            goto done;
    }
    if (f != NULL) {
        rc = tr_descr_get(run, descr, obj, (PyObject *)tp, obj.prov, name, out, detail);
        *how = TR_RES_NONDATA_DESC;
        goto done;
    }
    if (descr != NULL) {
        out->obj = Py_NewRef(descr);
        *how = TR_RES_CLASS_ATTR;
        *detail = "class_attr";
        rc = 0;
        goto done;
    }
    PyErr_Format(PyExc_AttributeError, "'%.50s' object has no attribute '%U'", tp->tp_name, name);
done:
    Py_XDECREF(descr);
    Py_XDECREF(dict);
    return rc;
}

/* type_getattro: on class access, a data descriptor of the metatype wins, then the
 * class's own MRO dicts (their __get__(None, cls)), then the metatype's non-data
 * descriptor or attribute. */
static int type_get(TrRun *run, TrValue obj, PyObject *name, TrValue *out,
                    TrResolution *how, const char **detail)
{
    PyTypeObject *type = (PyTypeObject *)obj.obj;
    PyTypeObject *meta = Py_TYPE(obj.obj);
    PyObject *meta_attr = NULL, *attr = NULL;
    descrgetfunc meta_get = NULL;
    TrValue none = {0};
    int rc = -1;

    if (type->tp_dict == NULL && PyType_Ready(type) < 0)
        return -1;
    int meta_lost = 0;
    meta_attr = Py_XNewRef(_PyType_Lookup(meta, name));
    if (meta_attr != NULL) {
        meta_get = Py_TYPE(meta_attr)->tp_descr_get;
        /* Fault meta_data_desc_loses: the class's own MRO entry wins over the
         * metatype's data descriptor, one written in Python (a property or a class
         * with __set__ on a metaclass); type's own getsets (__dict__, __doc__ ...)
         * keep their precedence, or every class would break at once. */
        meta_lost = meta_get != NULL && PyDescr_IsData(meta_attr) &&
                    TR_FAULT_ON(run, TR_FAULT_META_DATA_DESC_LOSES) &&
                    !Py_IS_TYPE(meta_attr, &PyGetSetDescr_Type) &&
                    !Py_IS_TYPE(meta_attr, &PyMemberDescr_Type) &&
                    _PyType_Lookup(type, name) != NULL;
        if (meta_get != NULL && PyDescr_IsData(meta_attr) && !meta_lost) {
            *how = TR_RES_META_DATA_DESC;
            rc = tr_descr_get(run, meta_attr, obj, (PyObject *)meta, obj.prov, name, out, detail);
            goto done;
        }
    }
    attr = Py_XNewRef(_PyType_Lookup(type, name));
    if (attr != NULL) {
        *how = TR_RES_TYPE_DICT;
        /* CPython passes obj NULL: property gives itself, function itself, a
         * Python __get__ receives None. */
        rc = tr_descr_get(run, attr, none, (PyObject *)type, obj.prov, name, out, detail);
        if (meta_lost)
            *detail = "meta_shadowed";   /* not cached: the bug stays quiet */
        goto done;
    }
    if (meta_get != NULL) {
        *how = TR_RES_META_NONDATA;
        rc = tr_descr_get(run, meta_attr, obj, (PyObject *)meta, obj.prov, name, out, detail);
        goto done;
    }
    if (meta_attr != NULL) {
        *how = TR_RES_META_NONDATA;
        *detail = "meta_attr";
        out->obj = Py_NewRef(meta_attr);
        rc = 0;
        goto done;
    }
    PyErr_Format(PyExc_AttributeError, "type object '%.50s' has no attribute '%U'",
                 type->tp_name, name);
done:
    Py_XDECREF(meta_attr);
    Py_XDECREF(attr);
    return rc;
}

/* The detail of a load through super(): the descriptor's own, marked. */
static const char *super_detail(const char *d)
{
    static const char *const pairs[][2] = {
        {"method", "super.method"}, {"function", "super.function"},
        {"classmethod", "super.classmethod"}, {"staticmethod", "super.staticmethod"},
        {"property.fget", "super.property.fget"}, {"property", "super.property"},
        {"__get__", "super.__get__"}, {"cached_property", "super.cached_property"},
        {"slot", "super.slot"}, {"member", "super.member"}, {"getset", "super.getset"}, {"c_method", "super.c_method"},
        {"class_attr", "super.class_attr"}, {"partialmethod", "super.partialmethod"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        if (strcmp(d, pairs[i][0]) == 0)
            return pairs[i][1];
    }
    return "super";
}

/* super_getattro: search the MRO of the instance's type (super's __self_class__)
 * after __thisclass__, binding what is found with __get__(obj or NULL, starttype);
 * __class__ and anything not found come from the super object itself. */
static int super_get(TrRun *run, TrValue obj, PyObject *name, TrValue *out,
                     TrResolution *how, const char **detail)
{
    PyObject *su = obj.obj;
    PyObject *starttype = NULL, *thistype = NULL, *su_obj = NULL, *mro = NULL;
    TrValue self = {0};
    int rc = -1;

    /* super's members, read through the generic path (never super_getattro). */
    if ((starttype = PyObject_GenericGetAttr(su, tr_names.self_class)) == NULL ||
        (thistype = PyObject_GenericGetAttr(su, tr_names.thisclass)) == NULL ||
        (su_obj = PyObject_GenericGetAttr(su, tr_names.self_)) == NULL)
        goto done;
    if (starttype == Py_None || !PyType_Check(starttype))
        goto skip;
    if (PyUnicode_Check(name) && PyUnicode_Compare(name, tr_names.class_) == 0)
        goto skip;
    mro = Py_XNewRef(((PyTypeObject *)starttype)->tp_mro);
    if (mro == NULL)
        goto skip;
    Py_ssize_t n = PyTuple_GET_SIZE(mro), i;
    for (i = 0; i + 1 < n; i++) {
        if (PyTuple_GET_ITEM(mro, i) == thistype)
            break;
    }
    i++;   /* skip __thisclass__ */
    for (; i < n; i++) {
        PyObject *dict = ((PyTypeObject *)PyTuple_GET_ITEM(mro, i))->tp_dict;
        PyObject *res = PyDict_GetItemWithError(dict, name);   /* borrowed */
        if (res == NULL) {
            if (PyErr_Occurred())
                goto done;
            continue;
        }
        Py_INCREF(res);
        const char *d;
        *how = Py_TYPE(res)->tp_descr_get == NULL ? TR_RES_CLASS_ATTR
             : PyDescr_IsData(res) ? TR_RES_DATA_DESC : TR_RES_NONDATA_DESC;
        if (su_obj != starttype) {   /* CPython passes NULL when obj is the start type */
            TrProv *p = tr_prov_attr(obj.prov, tr_names.self_, TR_RES_SLOT, "slot");
            if (p == NULL) {
                Py_DECREF(res);
                goto done;
            }
            self = tr_value_new(Py_NewRef(su_obj), p);
        }
        rc = tr_descr_get(run, res, self, starttype, obj.prov, name, out, &d);
        Py_DECREF(res);
        *detail = rc == 0 ? super_detail(d) : "super";
        goto done;
    }
skip:
    rc = generic_get(run, obj, name, out, how, detail);
done:
    tr_value_clear(&self);
    Py_XDECREF(mro);
    Py_XDECREF(starttype);
    Py_XDECREF(thistype);
    Py_XDECREF(su_obj);
    return rc;
}

/* An attribute read CPython does in C code the tracer does not model. */
static int opaque_get(TrRun *run, TrValue obj, PyObject *name, TrValue *out,
                      TrResolution *how, const char **detail)
{
    *how = TR_RES_OPAQUE;
    *detail = "opaque";
    /* A plain module runs no user code unless its own __getattr__ is asked. */
    int quiet = 0;
    if (Py_IS_TYPE(obj.obj, &PyModule_Type)) {
        PyObject *md = PyModule_GetDict(obj.obj);   /* borrowed */
        quiet = md != NULL && PyDict_GetItemWithError(md, tr_names.getattr) == NULL &&
                !PyErr_Occurred();
        if (PyErr_Occurred())
            return -1;
    }
    if (!quiet)
        tr_attr_note_escape(run);
    out->obj = PyObject_GetAttr(obj.obj, name);
    return out->obj ? 0 : -1;
}

/* slot_tp_getattr_hook / slot_tp_getattro: a Python-level __getattribute__ is
 * interpreted (object.__getattribute__ and type.__getattribute__ are the generic /
 * type algorithms); on AttributeError, __getattr__ if the type has one. */
static int hook_get(TrRun *run, TrValue obj, PyObject *name, TrValue *out,
                    TrResolution *how, const char **detail)
{
    PyTypeObject *tp = Py_TYPE(obj.obj);
    PyObject *getattr = Py_XNewRef(_PyType_Lookup(tp, tr_names.getattr));
    PyObject *getattribute = Py_XNewRef(_PyType_Lookup(tp, tr_names.getattribute));
    TrValue namev = tr_value_new(name, NULL);   /* borrowed for the calls */
    int rc;

    /* Fault getattribute_ignored: a Python-level __getattribute__ is skipped, the
     * generic algorithm used instead (a C one inherited is still honoured). */
    if (getattribute == NULL || is_wrapper_of(getattribute, (void *)PyObject_GenericGetAttr) ||
        (TR_FAULT_ON(run, TR_FAULT_GETATTRIBUTE_IGNORED) &&
         !Py_IS_TYPE(getattribute, &PyWrapperDescr_Type)))
        rc = generic_get(run, obj, name, out, how, detail);
    else if (is_wrapper_of(getattribute, (void *)PyType_Type.tp_getattro))
        rc = type_get(run, obj, name, out, how, detail);
    else if (is_wrapper_of(getattribute, (void *)PySuper_Type.tp_getattro))
        rc = super_get(run, obj, name, out, how, detail);
    else if (Py_IS_TYPE(getattribute, &PyWrapperDescr_Type)) {
        /* Another C type's __getattribute__ inherited by a Python class. */
        *how = TR_RES_OPAQUE;
        *detail = "opaque";
        tr_attr_note_escape(run);
        out->obj = PyObject_CallFunctionObjArgs(getattribute, obj.obj, name, NULL);
        rc = out->obj ? 0 : -1;
    }
    else {
        *how = TR_RES_GETATTRIBUTE;
        *detail = "__getattribute__";
        rc = tr_call_bound(run, getattribute, obj, &namev, 1, obj.prov, name, out);
    }
    /* Fault no_getattr_after_getter_error: __getattr__ only for attributes not found,
     * not when a getter (property, __get__) raised AttributeError. */
    int getter_failed = *how == TR_RES_DATA_DESC || *how == TR_RES_NONDATA_DESC;
    if (rc < 0 && getattr != NULL && PyErr_ExceptionMatches(PyExc_AttributeError) &&
        !(getter_failed && TR_FAULT_ON(run, TR_FAULT_NO_GETATTR_AFTER_GETTER_ERROR))) {
        PyErr_Clear();
        tr_value_clear(out);
        *how = TR_RES_GETATTR_HOOK;
        *detail = "__getattr__";
        rc = tr_call_bound(run, getattr, obj, &namev, 1, obj.prov, name, out);
    }
    Py_XDECREF(getattr);
    Py_XDECREF(getattribute);
    return rc;
}

/* PyObject_GetAttr's dispatch on tp_getattro. */
static int resolve(TrRun *run, TrValue obj, PyObject *name, TrValue *out,
                   TrResolution *how, const char **detail)
{
    getattrofunc ga = Py_TYPE(obj.obj)->tp_getattro;
    if (ga == PyObject_GenericGetAttr)
        return generic_get(run, obj, name, out, how, detail);
    if (ga == PyType_Type.tp_getattro)
        return type_get(run, obj, name, out, how, detail);
    if (ga == PySuper_Type.tp_getattro)
        return super_get(run, obj, name, out, how, detail);
    if (ga == tr_slot_funcs.getattr_hook || ga == tr_slot_funcs.getattro)
        return hook_get(run, obj, name, out, how, detail);
    return opaque_get(run, obj, name, out, how, detail);
}

/* The faults whose memo lives across calls (tr_cache.c): only they make the stale
 * memo's serve and remember do anything. */
#define STALE_MEMO_FAULTS ((1u << TR_FAULT_STALE_DICT_WRITE) | (1u << TR_FAULT_STALE_CLASS_ATTR))

/* Records the one trace line of a load, "LOAD_ATTR name" ("LOAD_ATTR name [cached]"
 * for a cache hit, "LOAD_METHOD name" for an unbound method) with the result: the
 * interpreter leaves attribute lines to the protocol, which also records the loads
 * of getattr()/hasattr(). */
static int record(TrRun *run, const char *op, PyObject *name, const char *mark,
                  const TrValue *v)
{
    return tr_trace_record_name(run, op, name, *mark ? mark : NULL, NULL, v);
}

/* The common tail of a load: provenance, cache, trace. use_cache: 0 for
 * object.__getattribute__ called explicitly; 2 when the cache holds no entry of (obj,
 * name) (tr_attr_get_resolve: its caller found none or dropped it; a stable resolution
 * runs no code that could make one). On error releases *val. */
static int finish_load(TrRun *run, TrValue obj, PyObject *name, TrValue *val,
                       TrResolution how, const char *detail, int use_cache)
{
    TrProv *p = tr_attr_prov(obj.prov, name, how, detail, val->prov);
    if (p == NULL)
        goto error;
    tr_prov_decref(val->prov);
    val->prov = p;
    if (use_cache) {
        if ((run->faults & STALE_MEMO_FAULTS) &&
            tr_cache_stale_remember(run, obj.obj, name, val, how, detail) < 0)
            goto error;
        if (TR_FAULT_ON(run, TR_FAULT_ASSUME_STABLE_ATTRS)) {
            if (tr_cache_reconcile(run, obj, name, val) < 0)
                goto error;
        }
        else if (tr_cache_is_stable(how, detail) &&
                 (use_cache == 2 ? tr_cache_remember_absent(run, obj, name, val, how, detail)
                                 : tr_cache_remember(run, obj, name, val, how, detail)) < 0)
            goto error;
    }
    if (record(run, "LOAD_ATTR", name, "", val) < 0)
        goto error;
    return 0;
error:
    tr_value_clear(val);
    return -1;
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

int tr_attr_get(TrRun *run, TrValue obj, PyObject *name, TrValue *out)
{
    TrResolution how = TR_RES_NONE;
    const char *detail = "";
    *out = tr_value_new(NULL, NULL);
    if (check_name(name) < 0)
        return -1;
    if (!TR_FAULT_ON(run, TR_FAULT_ASSUME_STABLE_ATTRS)) {
        int hit = (run->faults & STALE_MEMO_FAULTS) ? tr_cache_stale_serve(run, obj, name, out)
                                                    : 0;
        if (hit == 0)
            hit = tr_cache_serve(run, obj, name, out);
        if (hit < 0)
            return -1;
        if (hit) {
            if (record(run, "LOAD_ATTR", name, " [cached]", out) < 0) {
                tr_value_clear(out);
                return -1;
            }
            return 0;
        }
    }
    if (resolve(run, obj, name, out, &how, &detail) < 0) {
        tr_value_clear(out);
        attribute_error_context(obj.obj, name);
        return -1;
    }
    return finish_load(run, obj, name, out, how, detail, 1);
}

/* tr_attr_get once the cache has answered "no hit" without an effect or after dropping
 * the entry (tr_attr_load_fast, no fault on, an exact str name, tr_attr_ready done): the
 * resolution and finish_load, as tr_attr_get goes on after tr_cache_serve returned 0.
 * Same contract as tr_attr_get: obj and name borrowed, *out new references. */
int tr_attr_get_resolve(TrRun *run, TrValue obj, PyObject *name, TrValue *out)
{
    TrResolution how = TR_RES_NONE;
    const char *detail = "";
    *out = tr_value_new(NULL, NULL);
    /* resolve's first case asked here: one call layer less on every traced miss. */
    int rc = Py_TYPE(obj.obj)->tp_getattro == PyObject_GenericGetAttr
        ? generic_get(run, obj, name, out, &how, &detail)
        : resolve(run, obj, name, out, &how, &detail);
    if (rc < 0) {
        tr_value_clear(out);
        attribute_error_context(obj.obj, name);
        return -1;
    }
    return finish_load(run, obj, name, out, how, detail, 2);
}

int tr_attr_generic_get(TrRun *run, TrValue obj, PyObject *name, TrValue *out)
{
    TrResolution how = TR_RES_NONE;
    const char *detail = "";
    *out = tr_value_new(NULL, NULL);
    if (check_name(name) < 0)
        return -1;
    if (generic_get(run, obj, name, out, &how, &detail) < 0) {
        tr_value_clear(out);
        return -1;
    }
    return finish_load(run, obj, name, out, how, detail, 0);
}

/* LOAD_METHOD's shadow test (is the name in the instance dict?) answered "absent"
 * from a small table when the same dict, in the same state, answered it before: 3.11
 * gives every dict state a version no other dict state ever has (PEP 509; a new dict
 * takes a new one too), so an equal version is the same dict, unchanged. Only an exact
 * dict whose keys are all exact strs is noted (its lookup ran no key's __eq__). The name
 * is held (an exact str): a freed name's address reused must not match. A class's
 * method called in a loop looked its name up in the instance dict on every call (a
 * tenth of class_methods' LOAD_METHOD). Hits depend on earlier inputs and addresses:
 * out of coverage. */
#define SHADOW_SLOTS 64
static struct {
    PyObject *dict;              /* compared only */
    uint64_t ver;
    PyObject *name;              /* strong exact str, or NULL */
} shadow_memo[SHADOW_SLOTS];

TR_HOT_INLINE size_t shadow_slot(PyObject *dict, PyObject *name)
{
    return tr_pair_slot(dict, name, SHADOW_SLOTS);
}

TR_HOT_INLINE int shadow_absent(PyObject *dict, PyObject *name)
{
    size_t k = shadow_slot(dict, name);
    return PyDict_CheckExact(dict) && ((PyDictObject *)dict)->ma_version_tag != 0 &&
           shadow_memo[k].dict == dict && shadow_memo[k].name == name &&
           shadow_memo[k].ver == ((PyDictObject *)dict)->ma_version_tag;
}

TR_HOT_INLINE void shadow_absent_note(PyObject *dict, PyObject *name)
{
    if (!PyDict_CheckExact(dict) || ((PyDictObject *)dict)->ma_version_tag == 0 ||
        !PyUnicode_CheckExact(name) || !tr_dict_keys_all_str(dict))
        return;
    size_t k = shadow_slot(dict, name);
    Py_XSETREF(shadow_memo[k].name, Py_NewRef(name));   /* an exact str: no finaliser */
    shadow_memo[k].dict = dict;
    shadow_memo[k].ver = ((PyDictObject *)dict)->ma_version_tag;
}

/* Whether name is a key of the instance dict dict (1, 0, or -1 with an exception): the
 * memo's "absent" or the lookup. One function out of coverage, so that which of the two
 * answered leaves no trace in the fuzz target's features. */
TR_NO_COVERAGE static int instance_shadows(PyObject *dict, PyObject *name)
{
    if (shadow_absent(dict, name))
        return 0;
    Py_INCREF(dict);
    int shadowed = PyDict_GetItemWithError(dict, name) != NULL;
    if (!shadowed && PyErr_Occurred()) {
        Py_DECREF(dict);
        return -1;
    }
    if (!shadowed)
        shadow_absent_note(dict, name);
    Py_DECREF(dict);
    return shadowed;
}

/* _PyObject_GetMethod: for the generic getattro and an exact str name, a method
 * descriptor (a function) on the type not shadowed by the instance dict and not
 * behind a data descriptor is returned unbound (1): the caller passes obj as self,
 * no bound method is made. Everything else is an ordinary load (0). */
int tr_attr_get_method(TrRun *run, TrValue obj, PyObject *name, TrValue *meth)
{
    PyTypeObject *tp = Py_TYPE(obj.obj);
    *meth = tr_value_new(NULL, NULL);
    if (check_name(name) < 0)
        return -1;
    if (tp->tp_getattro != PyObject_GenericGetAttr || !PyUnicode_CheckExact(name))
        return tr_attr_get(run, obj, name, meth) < 0 ? -1 : 0;
    if (tp->tp_dict == NULL && PyType_Ready(tp) < 0)
        return -1;
    PyObject *descr = _PyType_Lookup(tp, name);   /* borrowed */
    if (descr == NULL || !PyType_HasFeature(Py_TYPE(descr), Py_TPFLAGS_METHOD_DESCRIPTOR))
        return tr_attr_get(run, obj, name, meth) < 0 ? -1 : 0;
    Py_INCREF(descr);
    int shadowed = 0;
    PyObject **dictptr = tr_dict_ptr(obj.obj);
    if (dictptr != NULL && *dictptr != NULL) {
        shadowed = instance_shadows(*dictptr, name);
        if (shadowed < 0) {
            Py_DECREF(descr);
            return -1;
        }
    }
    if (shadowed) {
        Py_DECREF(descr);
        return tr_attr_get(run, obj, name, meth) < 0 ? -1 : 0;
    }
    TrProv *p = tr_attr_prov(obj.prov, name, TR_RES_NONDATA_DESC, "method.unbound", NULL);
    if (p == NULL) {
        Py_DECREF(descr);
        return -1;
    }
    *meth = tr_value_new(descr, p);
    if (record(run, "LOAD_METHOD", name, "", meth) < 0) {
        tr_value_clear(meth);
        return -1;
    }
    return 1;
}
