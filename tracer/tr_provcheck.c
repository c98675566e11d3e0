/* tr_provcheck.c: the provenance replay oracle (tr_provcheck.h, docs/REUSE.md).
 *
 * A re-resolution of owner.name that mirrors _PyObject_GenericGetAttrWithDict (instance
 * access) and type_getattro (class access) step by step, but stops, answering "not
 * checkable", at every step where CPython would run code: a descriptor's __get__ other
 * than a T_OBJECT member's read or a plain function's binding, __getattr__, a
 * __getattribute__ override, an instance dict that is not an exact dict, a name that
 * is not an exact str, an instance dict holding a key that is not an exact str (its
 * __eq__ could run). The only effects it has are those of the tracer's own lookups
 * (tr_guard.c, tr_cache.c): _PyObject_GetDictPtr may materialise a managed dict.
 */
#include <stdlib.h>
#include <string.h>

#include "tr_provcheck.h"
#include "tr_run.h"
#include "tr_core.h"
#include "structmember.h"

int tr_provcheck_on = 1;

Py_ssize_t tr_provcheck_n_checked, tr_provcheck_n_skipped;
#define n_checked tr_provcheck_n_checked
#define n_skipped tr_provcheck_n_skipped
static Py_ssize_t n_failures;

void tr_provcheck_init(void)
{
    const char *e = getenv("TRACEFUZZ_PROVCHECK");
    if (e != NULL && (strcmp(e, "0") == 0 || strcmp(e, "off") == 0 || strcmp(e, "no") == 0))
        tr_provcheck_on = 0;
}

static PyObject *s_getattribute, *s_getattr, *object_getattribute;   /* borrowed after init */

static int names_ready(void)
{
    if (s_getattr != NULL)
        return 1;
    s_getattribute = PyUnicode_InternFromString("__getattribute__");
    PyObject *g = PyUnicode_InternFromString("__getattr__");
    if (s_getattribute == NULL || g == NULL) {
        PyErr_Clear();
        Py_CLEAR(s_getattribute);
        Py_XDECREF(g);
        return 0;
    }
    object_getattribute = _PyType_Lookup(&PyBaseObject_Type, s_getattribute);
    s_getattr = g;
    return 1;
}

/* 1 when type t looks attributes up by the generic algorithm, possibly followed by a
 * __getattr__ (then *hooked is 1): slot_tp_getattr_hook with object's
 * __getattribute__. */
TR_NO_COVERAGE static int generic_lookup(PyTypeObject *t, int *hooked)
{
    *hooked = 0;
    if (t->tp_getattro == PyObject_GenericGetAttr)
        return 1;
    if (!(t->tp_flags & Py_TPFLAGS_HEAPTYPE) || !names_ready())
        return 0;
    if (_PyType_Lookup(t, s_getattribute) != object_getattribute)
        return 0;
    *hooked = _PyType_Lookup(t, s_getattr) != NULL;
    return *hooked;
}

/* The part of the instance resolution that depends on type(owner) alone, and so holds
 * while the type's version tag does (CPython drops the tag on any change of the type
 * or its MRO): whether the type decides by itself (a lookup it cannot model, or a
 * data descriptor: a slot read at its offset or not checkable), else what the MRO
 * lookup found for after the instance dict. */
TR_NO_COVERAGE static void resolve_type(PyTypeObject *tp, PyObject *owner, PyObject *name,
                                       TrPcType *ty)
{
    int hooked;
    memset(ty, 0, sizeof *ty);
    if (!generic_lookup(tp, &hooked) || tp->tp_dict == NULL) {
        ty->unknown = 1;
        return;
    }
    ty->hooked = hooked;
    PyObject *descr = _PyType_Lookup(tp, name);
    descrgetfunc get = descr != NULL ? Py_TYPE(descr)->tp_descr_get : NULL;
    if (get != NULL && Py_TYPE(descr)->tp_descr_set != NULL) {
        /* A data descriptor wins. Only a member of an object type is read without code. */
        if (!Py_IS_TYPE(descr, &PyMemberDescr_Type)) {
            ty->unknown = 1;
            return;
        }
        PyMemberDef *m = ((PyMemberDescrObject *)descr)->d_member;
        if ((m->type != T_OBJECT && m->type != T_OBJECT_EX) || (m->flags & PY_AUDIT_READ) ||
            !PyObject_TypeCheck(owner, PyDescr_TYPE(descr))) {
            ty->unknown = 1;
            return;
        }
        ty->member = m;
        return;
    }
    ty->descr = descr;
    ty->has_get = get != NULL;
}

/* A slot's part: the member read at its offset (T_OBJECT: None for unset); *found
 * borrowed. */
TR_HOT_INLINE int resolve_member(PyObject *owner, const TrPcType *ty, PyObject **found)
{
    PyObject *v = tr_pc_member_value(owner, ty->member);
    if (v == NULL)
        return ty->hooked ? RS_UNKNOWN : RS_MISSING;
    *found = v;
    return RS_VALUE;
}

/* The rest of the instance resolution, given the type's part: -1 on a real error
 * (exception set), else a ResolveKind with *found borrowed (live until user code
 * runs; nothing runs before it is compared). */
TR_NO_COVERAGE static int resolve_with_type(PyObject *owner, PyObject *name,
                                            const TrPcType *ty, PyObject **found)
{
    *found = NULL;
    if (ty->unknown)
        return RS_UNKNOWN;
    if (ty->member != NULL)
        return resolve_member(owner, ty, found);
    PyObject **dp = tr_dict_ptr(owner);
    if (dp != NULL && *dp != NULL) {
        if (!PyDict_CheckExact(*dp))
            return RS_UNKNOWN;
        /* A key that is not an exact str could run its __eq__ during the lookup. */
        if (!tr_dict_keys_all_str(*dp))
            return RS_UNKNOWN;
        PyObject *v = PyDict_GetItemWithError(*dp, name);
        if (v != NULL) {
            *found = v;
            return RS_VALUE;
        }
        if (PyErr_Occurred())
            return -1;
    }
    if (ty->has_get) {
        if (!PyFunction_Check(ty->descr))
            return RS_UNKNOWN;
        *found = ty->descr;
        return RS_BOUND;
    }
    if (ty->descr != NULL) {
        *found = ty->descr;
        return RS_VALUE;
    }
    return ty->hooked ? RS_UNKNOWN : RS_MISSING;
}

/* Class access (owner is a class), type_getattro. Same contract. */
static int resolve_class(PyObject *owner, PyObject *name, PyObject **found)
{
    PyTypeObject *meta = Py_TYPE(owner);
    *found = NULL;
    if (meta->tp_getattro != PyType_Type.tp_getattro || ((PyTypeObject *)owner)->tp_dict == NULL)
        return RS_UNKNOWN;
    PyObject *md = _PyType_Lookup(meta, name);
    descrgetfunc mget = md != NULL ? Py_TYPE(md)->tp_descr_get : NULL;
    if (mget != NULL && Py_TYPE(md)->tp_descr_set != NULL)
        return RS_UNKNOWN;          /* the metatype's data descriptor runs */
    PyObject *a = _PyType_Lookup((PyTypeObject *)owner, name);
    if (a != NULL) {
        if (Py_TYPE(a)->tp_descr_get != NULL)
            return RS_UNKNOWN;      /* its __get__(None, C) runs */
        *found = a;
        return RS_VALUE;
    }
    if (mget != NULL)
        return RS_UNKNOWN;
    if (md != NULL) {
        *found = md;
        return RS_VALUE;
    }
    return RS_MISSING;
}

/* "<T object at 0x..>" without running code (no repr, no str). New reference. */
static PyObject *describe(PyObject *o)
{
    if (o == NULL)
        return PyUnicode_FromString("nothing (AttributeError)");
    if (PyMethod_Check(o))
        return PyUnicode_FromFormat("<bound method of <%s object at %p> (function at %p)>",
                                    Py_TYPE(PyMethod_GET_SELF(o))->tp_name,
                                    (void *)PyMethod_GET_SELF(o),
                                    (void *)PyMethod_GET_FUNCTION(o));
    return PyUnicode_FromFormat("<%s object at %p>", Py_TYPE(o)->tp_name, (void *)o);
}

/* Raises ProvenanceError "provenance CHAIN resolves to A, the trace used B". */
static int fail(PyObject *owner, PyObject *name, const TrProv *chain, int input,
                const char *via, int replay, PyObject *now, PyObject *now_self, PyObject *used)
{
    PyObject *c = NULL, *a = NULL, *b = NULL;
    n_failures++;
    if (chain != NULL)
        c = tr_prov_repr(chain);
    else if (input >= 0)
        c = PyUnicode_FromFormat("INPUT[%d].%U via %s", input, name, via);
    else
        c = PyUnicode_FromFormat("(<%s object at %p>).%U via %s", Py_TYPE(owner)->tp_name,
                                 (void *)owner, name, via);
    if (c == NULL)
        goto done;
    if (now_self != NULL)
        a = PyUnicode_FromFormat("<bound method of <%s object at %p> (function at %p)>",
                                 Py_TYPE(now_self)->tp_name, (void *)now_self, (void *)now);
    else
        a = describe(now);
    b = describe(used);
    if (a == NULL || b == NULL)
        goto done;
    PyErr_Format(tr_ProvenanceError ? tr_ProvenanceError : PyExc_AssertionError,
                 "provenance %U resolves to %U, the %s used %U", c, a,
                 replay ? "replayed trace" : "trace", b);
done:
    Py_XDECREF(c);
    Py_XDECREF(a);
    Py_XDECREF(b);
    return -1;
}

#define valid_tag tr_pc_valid_tag
#define dict_version tr_pc_dict_version

/* Instance access in _PyObject_GenericGetAttrWithDict's order (the type's part, then
 * the instance dict, then what the type found) through a memo: a replayed step's, or
 * a traced calls' slot. A type whose version tag is unchanged answers every MRO lookup
 * as before (CPython drops the tag on any change of the type or its MRO and never
 * reuses one), so its part (resolve_type) is kept with the tag; a dict whose version is
 * unchanged is the same dict with the same contents (PEP 509), so the last resolution
 * is kept with the dict's version. A slot's value lives in the owner: it is read again.
 * A new dict (another owner of the type, or a store) costs only the dict lookup. Same
 * contract as resolve_with_type. */
TR_NO_COVERAGE static int resolve_instance_memo(TrPcMemo *m, PyObject *owner, PyObject *name,
                                                PyObject **found)
{
    PyTypeObject *tp = Py_TYPE(owner);
    unsigned int tag = valid_tag(tp);
    if (tag != 0 && m->tag == tag && m->type == tp) {
        if (m->ty.member == NULL && !m->ty.unknown) {
            uint64_t ver = dict_version(owner);
            if (ver == m->dict_ver) {
                *found = m->found;
                return m->rs;
            }
            int rs = resolve_with_type(owner, name, &m->ty, found);
            if (rs >= 0) {
                m->dict_ver = ver;
                m->found = *found;
                m->rs = rs;
            }
            return rs;
        }
        return resolve_with_type(owner, name, &m->ty, found);
    }
    m->tag = 0;
    resolve_type(tp, owner, name, &m->ty);
    uint64_t ver = dict_version(owner);
    int rs = resolve_with_type(owner, name, &m->ty, found);
    /* The lookups assign a tag when the type had none: kept only when it was there
     * before them and still is. */
    if (rs < 0 || tag == 0 || valid_tag(tp) != tag)
        return rs;
    m->dict_ver = ver;
    m->found = *found;
    m->rs = rs;
    m->type = tp;
    m->tag = tag;
    return rs;
}

/* The traced calls' memo: a traced load has no recorded step to keep one in, so the
 * slots of a small table, placed by (owner, name) and claimed by the name, hold it.
 * Hits depend on earlier inputs and on addresses: the memo and the resolutions it
 * skips are left out of coverage (TR_NO_COVERAGE), so the fuzz target's features see
 * the same answer either way.
 * The placement only spreads loads; what the memo answers is decided by the type's
 * tag and the dict's version, as for a step, so a slot reused by another owner, or an
 * owner address reused, resolves afresh or from a state that is provably the same.
 * The name is held (an exact str, no finaliser): a freed name's address reused by
 * another str must not match. */
#define PC_TRACED_SLOTS TR_PC_TRACED_SLOTS

/* Its hit is also answered inline (tr_provcheck_traced_hit, tr_provcheck.h). */
TrPcTracedSlot tr_pc_traced_memo[PC_TRACED_SLOTS];
#define traced_memo tr_pc_traced_memo

/* The first way (h) of (owner, name)'s set; the other is h ^ 1. Two ways: with one, two
 * loads of a loop whose (owner, name) fell in one slot took it from each other on
 * every iteration, each resolving afresh (slots_chain: +6% instructions in one heap
 * layout in four). Always inline, like traced_fits: their callers are out of coverage. */
TR_HOT_INLINE size_t traced_way(PyObject *owner, PyObject *name)
{
    return tr_pair_slot(owner, name, PC_TRACED_SLOTS);
}

#define traced_fits tr_pc_traced_fits

/* The resolution from memo m, which fits owner (traced_fits): the type's part (not
 * checkable, or a slot read again), else the instance dict's answer (tr_pc_memo_dict,
 * as the replay's tr_provcheck_step_fast asks it), else resolve_instance_memo. Same
 * contract as resolve_with_type. */
TR_HOT_INLINE int fitting_answer(TrPcMemo *m, PyObject *owner, PyObject *name,
                                 PyObject **found)
{
    *found = NULL;
    if (m->ty.unknown)
        return RS_UNKNOWN;
    if (m->ty.member != NULL)
        return resolve_member(owner, &m->ty, found);
    int rs = tr_pc_memo_dict(m, owner, name, found);
    return rs != -2 ? rs : resolve_instance_memo(m, owner, name, found);
}

/* resolve_instance_memo through the traced calls' slots of (owner, name), its hits
 * (the same tests as resolve_instance_memo's) in the same call: the way whose memo
 * fits (h, then h ^ 1); else a way claimed by the name (its memo resolves afresh);
 * else way h is claimed, what it held moving to h ^ 1 (whose memo is dropped). */
TR_NO_COVERAGE static int resolve_traced(PyObject *owner, PyObject *name, PyObject **found)
{
    size_t i = traced_way(owner, name), j = i ^ 1, k;
    PyTypeObject *tp = Py_TYPE(owner);
    unsigned int tag = valid_tag(tp);
    if (traced_fits(i, name, tp, tag))
        return fitting_answer(&traced_memo[i].pc, owner, name, found);
    if (traced_fits(j, name, tp, tag))
        return fitting_answer(&traced_memo[j].pc, owner, name, found);
    if (traced_memo[i].name == name) {
        k = i;
    }
    else if (traced_memo[j].name == name) {
        k = j;
    }
    else {
        k = i;
        if (traced_memo[i].name != NULL) {
            Py_XDECREF(traced_memo[j].name);          /* an exact str: no finaliser */
            traced_memo[j] = traced_memo[i];          /* moves the name's reference */
        }
        traced_memo[i].name = Py_NewRef(name);
        memset(&traced_memo[i].pc, 0, sizeof traced_memo[i].pc);
    }
    return resolve_instance_memo(&traced_memo[k].pc, owner, name, found);
}

TR_NO_COVERAGE static int check_resolved(PyObject *owner, PyObject *name, PyObject *value,
                                         TrCheckForm form, const TrProv *chain, int input,
                                         const char *via, int replay, int rs, PyObject *found);

/* The check of one load; memo, when not NULL, is the replayed step's memo (else a
 * traced calls' slot) that resolves an instance load (resolve_instance_memo).
 * Out of coverage, as check_resolved: a traced load whose memo hits is answered by
 * tr_provcheck_traced alone, a miss comes here, and hits depend on earlier inputs; a
 * failed check still shows, in fail() and in the verdict (fuzz.determinism.builtin:
 * 77 of 336 inputs had history-dependent features in these two). */
TR_NO_COVERAGE static int check_load(TrPcMemo *memo, PyObject *owner, PyObject *name,
                                     PyObject *value, TrCheckForm form, const TrProv *chain,
                                     int input, const char *via, int replay)
{
    PyObject *found = NULL;
    int rs;
    if (!tr_provcheck_on || owner == NULL || value == NULL)
        return 0;
    if (!PyUnicode_CheckExact(name)) {
        n_skipped++;
        return 0;
    }
    if (PyType_Check(owner))
        rs = resolve_class(owner, name, &found);
    else
        rs = memo != NULL ? resolve_instance_memo(memo, owner, name, &found)
                          : resolve_traced(owner, name, &found);
    return check_resolved(owner, name, value, form, chain, input, via, replay, rs, found);
}

int tr_provcheck_load(PyObject *owner, PyObject *name, PyObject *value, TrCheckForm form,
                      const TrProv *chain, int input, const char *via, int replay)
{
    return check_load(NULL, owner, name, value, form, chain, input, via, replay);
}

/* tr_provcheck_traced: check_load of a traced load (no step memo, named by its chain)
 * with resolve_traced's hit answered in this one call, the same tests in the same
 * order: an exact str name, an instance (not a class), the way of (owner, name)'s set
 * (h, then h ^ 1) claimed by this name with the owner's type and its valid tag as
 * memoised (traced_fits), then that memo's answer (fitting_answer, as resolve_traced
 * gives it). The result compares as check_resolved does; anything else is check_load, which asks the
 * same ways again. Four calls deep, the prologues alone were a third of the check.
 * hit_asked: the caller has just asked tr_provcheck_traced_hit for this LOAD_ATTR and
 * it answered 0 (nothing changed since: no code ran), so it is not asked again. */
TR_HOT_INLINE int traced_check(PyObject *owner, PyObject *name, PyObject *value,
                               TrCheckForm form, const TrProv *chain, int hit_asked)
{
    if (owner == NULL || value == NULL || !PyUnicode_CheckExact(name) || PyType_Check(owner))
        return check_load(NULL, owner, name, value, form, chain, -1, NULL, 0);
    /* A LOAD_ATTR's passing memo hit: the inline test tr_attr_load_fast asks first, one
     * implementation for both (oracle_memo_traced's faults reach it here). */
    if (!hit_asked && form == TR_PC_LOAD_ATTR && tr_provcheck_traced_hit(owner, name, value))
        return 0;
    size_t i = traced_way(owner, name);
    PyTypeObject *tp = Py_TYPE(owner);
    unsigned int tag = valid_tag(tp);
    if (!traced_fits(i, name, tp, tag)) {
        i ^= 1;
        if (!traced_fits(i, name, tp, tag))
            return check_load(NULL, owner, name, value, form, chain, -1, NULL, 0);
    }
    PyObject *found;
    int rs = fitting_answer(&traced_memo[i].pc, owner, name, &found);
    /* check_resolved's passing answers for the two forms a loop repeats: a value found
     * by LOAD_ATTR, a plain function found by LOAD_METHOD (unbound: the function itself;
     * class_methods' method calls went through the ten-argument call). */
    if (found == value && (rs == RS_VALUE ? form == TR_PC_LOAD_ATTR
                                          : rs == RS_BOUND && form == TR_PC_LOAD_METHOD)) {
        n_checked++;
        return 0;
    }
    return check_resolved(owner, name, value, form, chain, -1, NULL, 0, rs, found);
}

TR_NO_COVERAGE int tr_provcheck_traced(PyObject *owner, PyObject *name, PyObject *value,
                                       TrCheckForm form, const TrProv *chain)
{
    return traced_check(owner, name, value, form, chain, 0);
}

TR_NO_COVERAGE int tr_provcheck_traced_miss(PyObject *owner, PyObject *name, PyObject *value,
                                            const TrProv *chain)
{
    return traced_check(owner, name, value, TR_PC_LOAD_ATTR, chain, 1);
}

/* Compares what the call used with the resolution (rs, found). */
TR_NO_COVERAGE static int check_resolved(PyObject *owner, PyObject *name, PyObject *value,
                                         TrCheckForm form, const TrProv *chain, int input,
                                         const char *via, int replay, int rs, PyObject *found)
{
    if (rs < 0)
        return -1;
    if (rs == RS_UNKNOWN) {
        n_skipped++;
        return 0;
    }
    n_checked++;
    switch (rs) {
    case RS_VALUE:
        if (form == TR_PC_LOAD_ATTR && found == value)
            return 0;
        return fail(owner, name, chain, input, via, replay, found, NULL, value);
    case RS_BOUND:
        if (form == TR_PC_LOAD_METHOD ? found == value
                                      : (PyMethod_Check(value) &&
                                         PyMethod_GET_FUNCTION(value) == found &&
                                         PyMethod_GET_SELF(value) == owner))
            return 0;
        if (form == TR_PC_LOAD_METHOD)
            return fail(owner, name, chain, input, via, replay, found, NULL, value);
        return fail(owner, name, chain, input, via, replay, found, owner, value);
    default:
        return fail(owner, name, chain, input, via, replay, NULL, NULL, value);
    }
}

int tr_provcheck_stats(PyObject *d)
{
    struct { const char *k; Py_ssize_t v; } items[] = {
        {"provcheck.checked", n_checked},
        {"provcheck.skipped", n_skipped},
        {"provcheck.failures", n_failures},
    };
    for (size_t i = 0; i < sizeof items / sizeof items[0]; i++) {
        PyObject *v = PyLong_FromSsize_t(items[i].v);
        if (v == NULL || PyDict_SetItemString(d, items[i].k, v) < 0) {
            Py_XDECREF(v);
            return -1;
        }
        Py_DECREF(v);
    }
    return 0;
}

void tr_provcheck_reset(void)
{
    n_checked = n_skipped = n_failures = 0;
}

/* How a replayed step says it resolved, for the message. */
static const char *step_via(const TrAttrStep *s)
{
    if (s->kind == TR_AK_DATA_DESC && s->descr != NULL && Py_IS_TYPE(s->descr, &PyMemberDescr_Type))
        return "slot";
    if (s->kind == TR_AK_NONDATA_DESC && s->descr != NULL && PyFunction_Check(s->descr))
        return "method";
    switch (s->kind) {
    case TR_AK_INST_DICT: return "inst_dict";
    case TR_AK_DATA_DESC: return "data_desc";
    case TR_AK_NONDATA_DESC: return "nondata_desc";
    case TR_AK_CLASS_ATTR: return "class_attr";
    case TR_AK_GETATTR: return "getattr_hook";
    case TR_AK_METHOD: return "method.unbound";
    case TR_AK_META_DATA: return "meta_data_desc";
    case TR_AK_TYPE_DESC: return "type_desc";
    case TR_AK_TYPE_STABLE: return "type_dict";
    case TR_AK_META_NONDATA: return "meta_nondata";
    case TR_AK_META_STABLE: return "meta_attr";
    case TR_AK_NATIVE: return "native";
    case TR_AK_NONE: break;
    }
    return "?";
}

int tr_provcheck_step(TrAttrStep *s, PyObject *owner, PyObject *value, int method)
{
    return check_load(&s->pc, owner, s->name, value, method ? TR_PC_LOAD_METHOD : TR_PC_LOAD_ATTR,
                      NULL, s->input, step_via(s), 1);
}
