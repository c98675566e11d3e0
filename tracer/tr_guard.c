/* tr_guard.c: guards derived from how an attribute load resolved (docs/REUSE.md).
 *
 * At record time, before a LOAD_ATTR / LOAD_METHOD of the top-level frame runs, the
 * owner and the name are classified the way CPython's own algorithm will resolve them
 * (_PyObject_GenericGetAttrWithDict, slot_tp_getattr_hook, type_getattro,
 * _PyObject_GetMethod) and everything the resolution depends on is kept as a guard:
 * type(owner) and its tp_getattro, the MRO lookup of the name (identity, held strongly),
 * the descriptor type's get/set slots (data or non-data), the instance dict key
 * (present/absent), a slot member set/unset, __getattr__, and for class access the class
 * itself and the metatype's lookup. A replay checks them again right before the load;
 * when they hold, the load resolves the same way, so the replayer may run only the
 * resolved step (a getter again, a dict read again, a class attribute reused).
 */
#include "tr_reuse.h"
#include "tr_core.h"
#include "tr_faults.h"
#include <structmember.h>

static PyObject *object_getattribute;   /* object.__getattribute__ (borrowed, static type) */
static PyObject *str_getattribute, *str_getattr;   /* interned names, kept for the process */

static PyObject *type_lookup(PyTypeObject *t, PyObject *name)   /* borrowed or NULL */
{
    return _PyType_Lookup(t, name);
}

/* The instance dict of o: borrowed, NULL when o has none (no exception). */
static PyObject *inst_dict(PyObject *o)
{
    PyObject **dp = tr_dict_ptr(o);
    return dp != NULL ? *dp : NULL;
}

/* 1 when o's dict (if any) holds name, 0 when not, -1 when o has no dict, -2 when
 * asking could run user code (a dict subclass, a key that is not an exact str, whose
 * __eq__ a lookup would call): such loads are not specialised. */
static int dict_has(PyObject *o, PyObject *name)
{
    PyObject *d = inst_dict(o);
    if (d == NULL)
        return tr_dict_ptr(o) != NULL ? 0 : -1;
    if (!PyDict_CheckExact(d) || !tr_dict_keys_all_str(d))
        return -2;
    PyObject *v = tr_dict_get(d, name);   /* the lookup's answer, a held key found first */
    if (v == NULL && PyErr_Occurred()) {
        PyErr_Clear();
        return -2;
    }
    return v != NULL;
}

/* dict_has for a guard check, memoised by the dict's version (TrAttrStep.dict_ver):
 * a loop's load meets the same unchanged dict on every iteration. Leaves the value
 * found (or NULL) in s->dict_value. */
static int dict_has_memo(TrAttrStep *s, PyObject *o)
{
    PyObject **dp = tr_dict_ptr(o);
    if (dp == NULL)
        return -1;
    PyObject *d = *dp;
    if (d == NULL) {
        s->dict_value = NULL;
        return 0;
    }
    if (!PyDict_CheckExact(d))
        return -2;
    uint64_t ver = ((PyDictObject *)d)->ma_version_tag;
    if (ver != 0 && ver == s->dict_ver)
        return s->dict_value != NULL;
    if (!tr_dict_keys_all_str(d))
        return -2;
    /* All keys exact strs: the lookup runs no code, the version read above holds. */
    PyObject *v = PyDict_GetItemWithError(d, s->name);
    if (v == NULL && PyErr_Occurred()) {
        PyErr_Clear();
        return -2;
    }
    s->dict_ver = ver;
    s->dict_value = v;
    return v != NULL;
}

/* A __slots__ member: -1 when descr is not one, else 1 set / 0 unset on o. */
static int slot_state(PyObject *descr, PyObject *o)
{
    if (descr == NULL || !Py_IS_TYPE(descr, &PyMemberDescr_Type))
        return -1;
    PyMemberDef *m = ((PyMemberDescrObject *)descr)->d_member;
    if (m->type != T_OBJECT_EX || !PyObject_TypeCheck(o, PyDescr_TYPE(descr)))
        return -1;
    return *(PyObject **)((char *)o + m->offset) != NULL;
}

/* 1 when the type's tp_getattro is the generic one (possibly behind __getattr__): the
 * only owners whose loads are specialised. hook gets __getattr__ (borrowed) or NULL. */
static int generic_getattro(PyTypeObject *t, PyObject **hook)
{
    *hook = NULL;
    if (t->tp_getattro == PyObject_GenericGetAttr)
        return 1;
    if (!(t->tp_flags & Py_TPFLAGS_HEAPTYPE))
        return 0;
    /* slot_tp_getattr_hook: __getattribute__ must be object's, __getattr__ anything. */
    if (str_getattr == NULL) {
        str_getattribute = PyUnicode_InternFromString("__getattribute__");
        str_getattr = PyUnicode_InternFromString("__getattr__");
        if (str_getattribute == NULL || str_getattr == NULL) {
            PyErr_Clear();
            Py_CLEAR(str_getattribute);
            Py_CLEAR(str_getattr);
            return 0;
        }
        object_getattribute = type_lookup(&PyBaseObject_Type, str_getattribute);
    }
    if (type_lookup(t, str_getattribute) != object_getattribute)
        return 0;
    *hook = type_lookup(t, str_getattr);
    return *hook != NULL;
}

/* The version tag of t, 0 when it has none. CPython assigns a tag on a lookup and drops
 * it whenever t or a class of its MRO changes (PyType_Modified: attribute set or
 * deleted, __bases__ assigned, a slot updated); a tag is never handed out twice. So an
 * unchanged valid tag means every MRO lookup on t answers as when it was recorded:
 * what CPython's own specialised LOAD_ATTR relies on. */
static unsigned int valid_tag(PyTypeObject *t)
{
    return PyType_HasFeature(t, Py_TPFLAGS_VALID_VERSION_TAG) ? t->tp_version_tag : 0;
}

static int tag_holds(PyTypeObject *t, unsigned int tag)
{
    return tag != 0 && valid_tag(t) == tag;
}

int tr_guard_record(TrAttrStep *s, PyObject *owner, PyObject *name, int method, unsigned faults)
{
    (void)faults;
    PyTypeObject *t = Py_TYPE(owner);
    PyObject *hook = NULL;
    s->name = name;
    s->type = (PyTypeObject *)Py_NewRef(t);
    s->getattro = t->tp_getattro;
    s->dict_has = -1;
    s->slot_set = -1;
    if (!PyUnicode_CheckExact(name)) {
        s->kind = TR_AK_NATIVE;
        return 0;
    }
    if (PyType_Check(owner) && t->tp_getattro == PyType_Type.tp_getattro) {
        /* type_getattro: metatype data descriptor, the class's MRO, metatype rest. */
        PyObject *md = type_lookup(t, name);
        PyObject *cd = type_lookup((PyTypeObject *)owner, name);
        s->cls = Py_NewRef(owner);
        s->meta_descr = Py_XNewRef(md);
        s->descr = Py_XNewRef(cd);
        descrgetfunc mget = md != NULL ? Py_TYPE(md)->tp_descr_get : NULL;
        if (md != NULL) {
            s->dget = mget;
            s->dset = Py_TYPE(md)->tp_descr_set;
        }
        if (mget != NULL && s->dset != NULL)
            s->kind = TR_AK_META_DATA;
        else if (cd != NULL)
            s->kind = Py_TYPE(cd)->tp_descr_get != NULL ? TR_AK_TYPE_DESC : TR_AK_TYPE_STABLE;
        else if (mget != NULL)
            s->kind = TR_AK_META_NONDATA;
        else if (md != NULL)
            s->kind = TR_AK_META_STABLE;
        else
            s->kind = TR_AK_NATIVE;
        s->type_tag = valid_tag(t);
        s->cls_tag = valid_tag((PyTypeObject *)owner);
        return 0;
    }
    if (!generic_getattro(t, &hook)) {
        s->kind = TR_AK_NATIVE;
        return 0;
    }
    s->hook = Py_XNewRef(hook);
    PyObject *d = type_lookup(t, name);
    s->descr = Py_XNewRef(d);
    descrgetfunc get = NULL;
    if (d != NULL) {
        get = s->dget = Py_TYPE(d)->tp_descr_get;
        s->dset = Py_TYPE(d)->tp_descr_set;
    }
    s->slot_set = slot_state(d, owner);
    s->slot_offset = s->slot_set >= 0 ? ((PyMemberDescrObject *)d)->d_member->offset : 0;
    s->dict_has = dict_has(owner, name);
    if (s->dict_has == -2) {          /* a dict subclass or a failing key: not specialised */
        s->kind = TR_AK_NATIVE;
        s->dict_has = -1;
        return 0;
    }
    if (method && hook == NULL && d != NULL &&
        (Py_TYPE(d)->tp_flags & Py_TPFLAGS_METHOD_DESCRIPTOR) && s->dict_has != 1)
        s->kind = TR_AK_METHOD;
    else if (get != NULL && s->dset != NULL)
        s->kind = TR_AK_DATA_DESC;
    else if (s->dict_has == 1)
        s->kind = TR_AK_INST_DICT;
    else if (get != NULL)
        s->kind = TR_AK_NONDATA_DESC;
    else if (d != NULL)
        s->kind = TR_AK_CLASS_ATTR;
    else if (hook != NULL)
        s->kind = TR_AK_GETATTR;
    else
        s->kind = TR_AK_NATIVE;      /* AttributeError: CPython raises its own message */
    s->type_tag = valid_tag(t);      /* after the lookups above, which assign one */
    return 0;
}

int tr_guard_check(TrAttrStep *s, PyObject *owner, unsigned faults)
{
    PyTypeObject *t = Py_TYPE(owner);
    if (t != s->type)
        return TR_GUARD_TYPE;
    if (t->tp_getattro != s->getattro)
        return TR_GUARD_HOOK;
    if (s->kind == TR_AK_NATIVE)
        return -1;
    int stable = s->kind == TR_AK_CLASS_ATTR || s->kind == TR_AK_TYPE_STABLE ||
                 s->kind == TR_AK_META_STABLE;
    int skip_identity = stable && ((faults >> TR_FAULT_STALE_GUARD_CLASS_ATTR) & 1u);
    if (s->cls != NULL) {
        if (owner != s->cls)
            return TR_GUARD_CLASS_IDENTITY;
        /* Unchanged tags: both lookups answer as recorded (valid_tag). */
        int same = tag_holds(t, s->type_tag) && tag_holds((PyTypeObject *)owner, s->cls_tag);
        if (!skip_identity && !same && type_lookup(t, s->name) != s->meta_descr)
            return TR_GUARD_META_ATTR;
        if (!skip_identity && !same &&
            type_lookup((PyTypeObject *)owner, s->name) != s->descr)
            return TR_GUARD_CLASS_ATTR;
        if (s->meta_descr != NULL && (Py_TYPE(s->meta_descr)->tp_descr_get != s->dget ||
                                      Py_TYPE(s->meta_descr)->tp_descr_set != s->dset))
            return TR_GUARD_DESCR_TYPE;
        return -1;
    }
    /* Unchanged tag: __getattribute__, __getattr__ and name resolve as recorded. */
    int same = tag_holds(t, s->type_tag);
    if (!same && (s->hook != NULL || s->getattro != PyObject_GenericGetAttr)) {
        PyObject *hook = NULL;
        if (!generic_getattro(t, &hook) || hook != s->hook)
            return TR_GUARD_HOOK;
    }
    if (!skip_identity && !same && type_lookup(t, s->name) != s->descr)
        return TR_GUARD_CLASS_ATTR;
    if (s->descr != NULL && (Py_TYPE(s->descr)->tp_descr_get != s->dget ||
                             Py_TYPE(s->descr)->tp_descr_set != s->dset))
        return TR_GUARD_DESCR_TYPE;
    if (s->slot_set >= 0 && slot_state(s->descr, owner) != s->slot_set)
        return TR_GUARD_SLOT;
    /* The dict key decides between the dict and a non-data descriptor or a class
     * attribute (and __getattr__); under a data descriptor it does not matter. */
    if (s->kind != TR_AK_DATA_DESC) {
        int has = dict_has_memo(s, owner);
        int unguarded = (s->kind == TR_AK_NONDATA_DESC || s->kind == TR_AK_CLASS_ATTR) &&
                        ((faults >> TR_FAULT_DICT_SHADOW_UNGUARDED) & 1u);
        if (has == -2 || (!unguarded && has != s->dict_has))
            return TR_GUARD_DICT_KEY;
    }
    return -1;
}

/* The tags are left out: an entry whose tag went stale only sends its check down the
 * lookups, which decide the same. */
int tr_attr_step_equal(const TrAttrStep *a, const TrAttrStep *b)
{
    return a->kind == b->kind && a->input == b->input && a->name == b->name &&
           a->type == b->type && a->getattro == b->getattro && a->cls == b->cls &&
           a->descr == b->descr && a->dget == b->dget && a->dset == b->dset &&
           a->meta_descr == b->meta_descr && a->hook == b->hook &&
           a->dict_has == b->dict_has && a->slot_set == b->slot_set && a->result == b->result;
}

void tr_step_clear(TrAttrStep *s)
{
    Py_CLEAR(s->type);
    Py_CLEAR(s->cls);
    Py_CLEAR(s->descr);
    Py_CLEAR(s->meta_descr);
    Py_CLEAR(s->hook);
    Py_CLEAR(s->result);
}

const char *tr_guard_kind_name(int kind)
{
    static const char *const names[] = {
#define TR_GUARD_NAME(id, name) name,
        TR_GUARD_LIST(TR_GUARD_NAME)
#undef TR_GUARD_NAME
    };
    if (kind < 0 || kind >= TR_GUARD__COUNT)
        return "none";
    return names[kind];
}
