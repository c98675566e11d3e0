/* tr_trace_int.h: the trace's entries (tr_trace.c), private to the tracer: tr_trace.c, and
 * tr_cache.c's cached load (tr_attr_load_fast), which writes its line inline. */
#ifndef TR_TRACE_INT_H
#define TR_TRACE_INT_H

#include "tr_core.h"

/* One line. Its text is, with each part present only when set:
 *     serial op[ cname][ name | " in " name][ " in " co_qualname " line " N]post post2
 *     [" -> " tname " " repr(prov)]
 * (the separator before cname/name is omitted when op is NULL). */
typedef struct {
    const char *op;          /* static, or NULL */
    const char *post;        /* static, or NULL */
    const char *post2;       /* static, or NULL */
    PyObject *name;          /* owned exact str, or NULL */
    PyCodeObject *code;      /* owned, RAISE lines only: " in qualname line N" */
    TrProv *prov;            /* owned, the result's provenance (may be NULL) */
    uint32_t cname;          /* arena offset + 1 of a copied C string, 0: none */
    uint32_t tname;          /* arena offset + 1 of the result's type name, 0: no result */
    int lasti;               /* with code */
} TrEntry;

/* Result types repeat (int, str, method, the program's classes): their names are
 * copied once per trace. A type is recognised by address and version tag together:
 * CPython never hands out a tag twice and renaming a type resets its tag, so a dead
 * type's address reused by another, or a renamed type, is a miss, never a stale name.
 * Two ways per set (slots h and h ^ 1): with one, two types of a loop whose addresses
 * fell in one slot evicted each other on every line (slots_chain under callgrind: two
 * lines in three copied their type name again). */
#define TR_TNAME_CACHE 32

struct TrTrace {
    struct {
        PyTypeObject *type;  /* not owned: compared, never dereferenced */
        unsigned int tag;
        uint32_t name;       /* arena offset + 1 */
    } tnames[TR_TNAME_CACHE];
    TrEntry *entries;        /* owned array, nentries used */
    Py_ssize_t nentries, capentries;
    char *arena;             /* copied C strings, NUL-terminated each */
    size_t arenalen, arenacap;
    uint64_t serial;         /* operations recorded, including dropped ones */
};

/* The tnames slot of tp (whose valid tag is tag), or -1: h or h ^ 1. Always inline:
 * its answer depends on addresses, and its callers are out of coverage. */
TR_HOT_INLINE int tname_find(const TrTrace *t, PyTypeObject *tp, unsigned int tag)
{
    size_t h = ((uintptr_t)tp >> 4) % TR_TNAME_CACHE;
    if (t->tnames[h].type == tp && t->tnames[h].tag == tag)
        return (int)h;
    h ^= 1;
    if (t->tnames[h].type == tp && t->tnames[h].tag == tag)
        return (int)h;
    return -1;
}

/* tr_trace_name_fast past its name test, for a caller that has tested name itself (an
 * exact str, or NULL) and holds the result in hand: tp its type (NULL: no result object),
 * prov the result's record (NULL: none, or no result). Same answer and effects as
 * tr_trace_name_fast with that name and result; tr_attr_load_fast's hit calls it with
 * the served value (its name was tested on entry). */
TR_HOT_INLINE int tr_trace_line_fast(TrTrace *t, const char *op, PyObject *name,
                                     const char *post, const char *post2, PyTypeObject *tp,
                                     TrProv *prov)
{
    int k = -1;
    if (t->nentries >= t->capentries ||
        (tp != NULL && (!(tp->tp_flags & Py_TPFLAGS_VALID_VERSION_TAG) ||
                        tp->tp_version_tag == 0 ||
                        (k = tname_find(t, tp, tp->tp_version_tag)) < 0)))
        return 0;
    t->serial++;
    if (prov != NULL && prov->serial == 0)
        prov->serial = t->serial;
    TrEntry *e = &t->entries[t->nentries++];
    e->op = op;
    e->post = post;
    e->post2 = post2;
    e->name = Py_XNewRef(name);
    e->code = NULL;
    e->prov = NULL;
    e->cname = 0;
    e->tname = 0;
    e->lasti = 0;
    if (tp != NULL) {
        e->tname = t->tnames[k].name;
        e->prov = prov;
        tr_prov_incref(prov);
    }
    return 1;
}

/* tr_trace_record_name's common case, inline (the most frequent line: every attribute
 * load and store, calls, globals): room for the line, an exact str name (or none), a
 * result whose type name is in tnames; each field written once. 1 when the line was
 * recorded (the operation counted, the result's record numbered, name and record taken
 * as new references), 0 with nothing done: the caller records through record(). Its
 * answer depends on earlier lines and on addresses: callers are out of coverage. */
TR_HOT_INLINE int tr_trace_name_fast(TrTrace *t, const char *op, PyObject *name,
                                     const char *post, const char *post2,
                                     const TrValue *result)
{
    if (name != NULL && !PyUnicode_CheckExact(name))
        return 0;
    return tr_trace_line_fast(t, op, name, post, post2,
                              result != NULL && result->obj != NULL ? Py_TYPE(result->obj)
                                                                    : NULL,
                              result != NULL ? result->prov : NULL);
}

#endif
