/* tr_provcheck.h: the provenance replay oracle (docs/REUSE.md, "Provenance oracle").
 *
 * Every attribute load a traced or replayed call of a jit object performs (LOAD_ATTR,
 * LOAD_METHOD of the top-level frame in a replay, of every interpreted frame in a
 * trace) is re-resolved, at the moment the value is produced, against the live world
 * by CPython's algorithm WITHOUT running user code: dict lookups, slot reads through
 * the member offset, _PyType_Lookup. Where that resolution is possible (instance dict,
 * T_OBJECT slot, plain class attribute along the MRO, a class's own MRO on class
 * access, a plain function found on the type and bound to the owner) the object the
 * call used must be the identical object; a difference raises tfjit.ProvenanceError
 * naming the chain. Where resolving could run code or is not stable now (a property,
 * __get__, __getattr__, a __getattribute__ override, a dict subclass) the load is not
 * checked. Checking at the load itself needs no invalidation bookkeeping: nothing can
 * run between the load and its check, so a legitimate later change of the world is
 * never mistaken for a stale value.
 */
#ifndef TR_PROVCHECK_H
#define TR_PROVCHECK_H

#include "tr_reuse.h"
#include <structmember.h>

/* What the call claims the load produced. */
typedef enum {
    TR_PC_LOAD_ATTR = 0,     /* value = owner.name (LOAD_ATTR, LOAD_METHOD's bound form) */
    TR_PC_LOAD_METHOD,       /* LOAD_METHOD pushed (value, owner): value is the unbound
                                function CPython's LOAD_METHOD would push */
} TrCheckForm;

/* On unless TRACEFUZZ_PROVCHECK=0 at import or tfjit.set_checks(False). */
extern int tr_provcheck_on;

/* Reads TRACEFUZZ_PROVCHECK (called at module init). */
void tr_provcheck_init(void);

/* Checks one load: owner and value borrowed. The chain is named by chain (the
 * value's provenance record, traced calls) or, when NULL, by input (INPUT[input]
 * when >= 0), name and via (replayed calls; via a static string). replay says which
 * kind of call used the value (for the message). Returns 0 (identical, or not
 * checkable now), or -1 with tfjit.ProvenanceError (or another error) set. An instance
 * load's resolution is memoised like a replayed step's (tr_provcheck_step), in a small
 * table placed by (owner, name). */
int tr_provcheck_load(PyObject *owner, PyObject *name, PyObject *value, TrCheckForm form,
                      const TrProv *chain, int input, const char *via, int replay);

/* tr_provcheck_load for a traced call (input -1, via NULL, replay 0), its memo hit
 * answered in one call. Same contract. */
int tr_provcheck_traced(PyObject *owner, PyObject *name, PyObject *value, TrCheckForm form,
                        const TrProv *chain);
/* tr_provcheck_traced(owner, name, value, TR_PC_LOAD_ATTR, chain) for a caller that has
 * just asked tr_provcheck_traced_hit (owner not NULL, name an exact str) and got 0, with
 * nothing run since, or whose value is NULL (not asked: check_load decides, as there):
 * the same check without asking the hit again. */
int tr_provcheck_traced_miss(PyObject *owner, PyObject *name, PyObject *value,
                             const TrProv *chain);

/* The replay's form: the load of step s on owner produced value (LOAD_METHOD's
 * unbound function when method is 1). Same contract as tr_provcheck_load. The
 * resolution is memoised in s->pc, keyed by CPython's own version tags (the type's
 * tp_version_tag, the instance dict's ma_version_tag), never by the trace's guards:
 * an unchanged type and dict resolve as before, anything else is resolved afresh. */
int tr_provcheck_step(TrAttrStep *s, PyObject *owner, PyObject *value, int method);

/* ---- the replay's memo hit, inline (tr_provcheck_step's first branch) ---- */

/* What CPython's attribute algorithm yields now (tr_provcheck.c's resolutions). */
typedef enum {
    RS_UNKNOWN = 0,   /* resolving would run code, or is not stable: not checked */
    RS_VALUE,         /* found: this very object is returned */
    RS_BOUND,         /* found: a plain function, bound to the owner on access */
    RS_MISSING,       /* AttributeError, with no __getattr__ to call */
} ResolveKind;

extern Py_ssize_t tr_provcheck_n_checked, tr_provcheck_n_skipped;

TR_HOT_INLINE unsigned int tr_pc_valid_tag(PyTypeObject *t)
{
    return PyType_HasFeature(t, Py_TPFLAGS_VALID_VERSION_TAG) ? t->tp_version_tag : 0;
}

/* The instance dict's version (0 when there is none), as the resolution reads it. */
TR_HOT_INLINE uint64_t tr_pc_dict_version(PyObject *owner)
{
    PyObject **dp = tr_dict_ptr(owner);
    return dp != NULL && *dp != NULL && PyDict_Check(*dp)
        ? ((PyDictObject *)*dp)->ma_version_tag : 0;
}

/* A T_OBJECT / T_OBJECT_EX member's value read in place, as PyMember_GetOne reads it:
 * None for an unset T_OBJECT, NULL for an unset T_OBJECT_EX (an AttributeError there).
 * Borrowed; the caller has checked the owner's type and that the member runs no audit
 * hook, or reads what the memo's member says for a type it fits. */
TR_HOT_INLINE PyObject *tr_pc_member_value(PyObject *owner, const PyMemberDef *m)
{
    PyObject *v = *(PyObject **)((char *)owner + m->offset);
    return v == NULL && m->type == T_OBJECT ? Py_None : v;
}

/* A memo's answer from owner's instance dict (a memo whose type part is neither "not
 * checkable" nor a slot): at the memoised dict version, the memoised resolution; at
 * another version of an exact dict, the key found by identity (tr_dict_find at the
 * memo's hint: resolve_with_type's lookup result, the dict coming first since the
 * type's part has no data descriptor), memoised as resolve_instance_memo memoises it.
 * Returns the ResolveKind with *found borrowed; -2 when neither answers (the caller
 * resolves afresh; *found as it was). */
TR_HOT_INLINE int tr_pc_memo_dict(TrPcMemo *m, PyObject *owner, PyObject *name,
                                  PyObject **found)
{
    PyObject **dp = tr_dict_ptr(owner);
    PyObject *d = dp != NULL ? *dp : NULL;
    uint64_t ver = d != NULL && PyDict_Check(d) ? ((PyDictObject *)d)->ma_version_tag : 0;
    if (ver == m->dict_ver) {
        *found = m->found;
        return m->rs;
    }
    PyObject *v;
    if (ver != 0 && PyDict_CheckExact(d) && (v = tr_dict_find(d, name, &m->hint)) != NULL) {
        m->dict_ver = ver;
        m->found = v;
        m->rs = RS_VALUE;
        *found = v;
        return RS_VALUE;
    }
    return -2;
}

/* tr_provcheck_step when its memo answers (the owner's type and version tag, and the
 * instance dict's version, as memoised; a slot read again at its offset) and the load
 * passes: the same resolution and comparison without the calls. Everything else (a
 * miss, a failure and its message) is tr_provcheck_step itself, which resolves again. */
TR_HOT_INLINE int tr_provcheck_step_fast(TrAttrStep *s, PyObject *owner, PyObject *value,
                                         int method)
{
    PyTypeObject *tp = Py_TYPE(owner);
    /* A memo (tag set) was only ever filled for this step's name, an exact str, and
     * for an owner of pc.type that is not a class (check_load); whether an object is a
     * class is its type's flag, fixed at the type's creation: for an owner of pc.type
     * with the tag unchanged, neither needs asking again. */
    if (value == NULL || s->pc.tag == 0 || s->pc.type != tp || tr_pc_valid_tag(tp) != s->pc.tag)
        return tr_provcheck_step(s, owner, value, method);
    PyObject *found;
    int rs;
    const PyMemberDef *m = s->pc.ty.member;
    if (s->pc.ty.unknown) {           /* the type alone says: not checkable */
        tr_provcheck_n_skipped++;
        return 0;
    }
    if (m != NULL) {
        found = tr_pc_member_value(owner, m);
        if (found == NULL)
            return tr_provcheck_step(s, owner, value, method);
        rs = RS_VALUE;
    }
    else {
        rs = tr_pc_memo_dict(&s->pc, owner, s->name, &found);
        if (rs == -2)
            return tr_provcheck_step(s, owner, value, method);
    }
    if (rs == RS_UNKNOWN) {
        tr_provcheck_n_skipped++;
        return 0;
    }
    if ((rs == RS_VALUE && !method && found == value) ||
        (rs == RS_BOUND && (method ? found == value
                                   : (PyMethod_Check(value) &&
                                      PyMethod_GET_FUNCTION(value) == found &&
                                      PyMethod_GET_SELF(value) == owner)))) {
        tr_provcheck_n_checked++;
        return 0;
    }
    return tr_provcheck_step(s, owner, value, method);
}

/* ---- a traced load's memo hit, inline (tr_provcheck_traced's first branch) ---- */

/* The traced calls' memo (tr_provcheck.c, resolve_traced): slots placed by (owner, name),
 * two ways (h, h ^ 1), each claimed by a name (strong exact str, or NULL). */
#define TR_PC_TRACED_SLOTS 256
typedef struct {
    PyObject *name;
    TrPcMemo pc;
} TrPcTracedSlot;
extern TrPcTracedSlot tr_pc_traced_memo[TR_PC_TRACED_SLOTS];

/* Whether way k holds name's memo for an owner of type tp whose valid tag is tag. */
TR_HOT_INLINE int tr_pc_traced_fits(size_t k, PyObject *name, PyTypeObject *tp,
                                    unsigned int tag)
{
    const TrPcTracedSlot *s = &tr_pc_traced_memo[k];
    return s->name == name && tag != 0 && s->pc.tag == tag && s->pc.type == tp;
}

/* 1 when tr_provcheck_traced(owner, name, value, TR_PC_LOAD_ATTR, chain) would find its
 * memo fitting and the load passing (counted as checked, as there); else 0 and nothing
 * done: the caller calls tr_provcheck_traced, which asks again. The same tests in the
 * same order as tr_provcheck_traced and fitting_answer: an instance (not a class), a
 * way of (owner, name)'s set claimed by name with the owner's type and its valid tag,
 * then a slot read again at its offset, or the instance dict at the memoised version
 * with a found value; the value found must be the one the call used. The caller
 * ensures owner and value are not NULL and name is an exact str. Owner, name and value
 * borrowed; no reference taken. Callers are out of coverage (hits depend on earlier
 * calls and on addresses). */
TR_HOT_INLINE int tr_provcheck_traced_hit(PyObject *owner, PyObject *name, PyObject *value)
{
    if (PyType_Check(owner))
        return 0;
    PyTypeObject *tp = Py_TYPE(owner);
    unsigned int tag = tr_pc_valid_tag(tp);
    if (tag == 0)
        return 0;
    size_t i = tr_pair_slot(owner, name, TR_PC_TRACED_SLOTS);
    if (!tr_pc_traced_fits(i, name, tp, tag)) {
        i ^= 1;
        if (!tr_pc_traced_fits(i, name, tp, tag))
            return 0;
    }
    const TrPcMemo *m = &tr_pc_traced_memo[i].pc;
    PyObject *found;
    if (m->ty.unknown)
        return 0;
    if (m->ty.member != NULL) {
        found = tr_pc_member_value(owner, m->ty.member);
    }
    else {
        if (tr_pc_dict_version(owner) != m->dict_ver || m->rs != RS_VALUE)
            return 0;
        found = m->found;
    }
    if (found == NULL || found != value)
        return 0;
    tr_provcheck_n_checked++;
    return 1;
}

/* Adds "provcheck.checked", "provcheck.skipped", "provcheck.failures" to d. 0 or -1. */
int tr_provcheck_stats(PyObject *d);
void tr_provcheck_reset(void);

#endif
