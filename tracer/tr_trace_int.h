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

/* A cache hit's line kept once per trace (tr_trace_hit_fast): "LOAD_ATTR name [cached]
 * -> tname prov" for the cache entry that made it. Lines using it are entries whose lasti
 * is -(index + 1) and whose other fields are not set; the line owns nothing, the
 * template owns its name and record. */
typedef struct {
    PyObject *name;          /* owned exact str */
    TrProv *prov;            /* owned, not NULL */
    PyTypeObject *type;      /* the result's type then: compared, never dereferenced */
    unsigned int tag;        /* its valid version tag then */
    uint32_t tname;          /* arena offset + 1 of its name */
} TrHitLine;

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
    TrHitLine *hits;         /* owned array, nhits used (tr_trace_hit_line) */
    uint32_t nhits, caphits;
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
    PyTypeObject *tp = result != NULL && result->obj != NULL ? Py_TYPE(result->obj) : NULL;
    int k = -1;
    if (t->nentries >= t->capentries || (name != NULL && !PyUnicode_CheckExact(name)) ||
        (tp != NULL && (!(tp->tp_flags & Py_TPFLAGS_VALID_VERSION_TAG) ||
                        tp->tp_version_tag == 0 ||
                        (k = tname_find(t, tp, tp->tp_version_tag)) < 0)))
        return 0;
    t->serial++;
    if (result != NULL && result->prov != NULL && result->prov->serial == 0)
        result->prov->serial = t->serial;
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
        e->prov = result->prov;
        tr_prov_incref(e->prov);
    }
    return 1;
}

/* tr_attr_load_fast's "[cached]" line when tr_trace_hit_fast did not record it: recorded as
 * tr_trace_record_name(run, "LOAD_ATTR", name, " [cached]", NULL, result) records it, and,
 * when line is not NULL and the line was kept in full with its result's type name, a
 * template of it made for later hits, its index + 1 stored in *line (else *line as it
 * was). name and result borrowed. 0, or -1 with an exception set (the line's failure; a
 * template that cannot be made is simply not made). Out of coverage. */
int tr_trace_hit_line(TrRun *run, PyObject *name, const TrValue *result, uint32_t *line);

/* A "[cached]" line of tr_attr_load_fast through the template its cache entry keeps
 * (line: index + 1 in t->hits, 0 for none; tr_trace_hit_line makes it): room for the line,
 * the template made for this name and record, and the result's type (tp) the one named
 * then, with the same valid tag (a value's __class__ can change). Then the line is what
 * tr_trace_name_fast would record (the record was numbered when the template's own line
 * was, and a number is never taken back), written as one field: the operation counted,
 * nothing taken (the template holds the name and the record). 1 when recorded, 0 with
 * nothing done. Its answer depends on earlier lines: callers are out of coverage. */
TR_HOT_INLINE int tr_trace_hit_fast(TrTrace *t, uint32_t line, PyObject *name,
                                    PyTypeObject *tp, TrProv *prov)
{
    if (line - 1 >= t->nhits || t->nentries >= t->capentries)
        return 0;
    const TrHitLine *h = &t->hits[line - 1];
    if (h->prov != prov || h->name != name || h->type != tp ||
        !(tp->tp_flags & Py_TPFLAGS_VALID_VERSION_TAG) || tp->tp_version_tag != h->tag)
        return 0;
    t->serial++;
    t->entries[t->nentries++].lasti = -(int)line;
    return 1;
}

#endif
