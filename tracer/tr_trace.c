/* tr_trace.c: the trace of one run (TrTrace): the operations recorded by the
 * interpreter and the attribute protocol, one printable line each, such as
 *     7 LOAD_ATTR test -> object INPUT[0].test via property.fget
 *
 * Recording is on the interpreter's hot path and the text is read rarely (last_trace()
 * after some calls, never after most), so an operation is recorded as a compact entry
 * and the text is built only when asked (tr_trace_text). An entry holds only what
 * cannot keep the traced world alive: static strings, exact strs (names, qualnames),
 * copies of type names (the type itself may die), the code object of a RAISE line
 * (for its qualname and line number, computed at text time rather than per raise),
 * and the result's provenance record (records own nothing but strs, tr_prov.c).
 * The text is what the eager formatting produced before: the serial, the description,
 * and for a result "-> type provenance". */
#include "tr_core.h"
#include "tr_trace_int.h"

/* A runaway loop would record millions of lines: beyond this many only a count is
 * kept, and the text ends with "... N more operations". */
#define TR_TRACE_MAX_LINES 20000

/* One released trace kept with its arrays for the next call: a traced call keeps its
 * trace until the next one ends, so two alternate and their entries and arena are
 * grown once per process instead of reallocated on every call (issue 14: the growth
 * was a tenth of a traced call while older traces lived, fresh pages each time). */
static TrTrace *spare;

TrTrace *tr_trace_new(void)
{
    if (spare != NULL) {
        TrTrace *t = spare;
        spare = NULL;
        return t;
    }
    TrTrace *t = PyMem_Calloc(1, sizeof *t);
    if (t == NULL)
        PyErr_NoMemory();
    return t;
}

void tr_trace_free(TrTrace *trace)
{
    if (trace == NULL)
        return;
    for (Py_ssize_t i = 0; i < trace->nentries; i++) {
        TrEntry *e = &trace->entries[i];
        if (e->lasti < 0)
            continue;   /* a template's line (tr_trace_hit_fast): owns nothing */
        Py_XDECREF(e->name);
        Py_XDECREF(e->code);
        tr_prov_decref(e->prov);
    }
    for (uint32_t i = 0; i < trace->nhits; i++) {
        Py_DECREF(trace->hits[i].name);   /* an exact str: no finaliser */
        tr_prov_decref(trace->hits[i].prov);
    }
    if (spare == NULL) {
        TrEntry *entries = trace->entries;
        char *arena = trace->arena;
        Py_ssize_t cap = trace->capentries;
        size_t arenacap = trace->arenacap;
        TrHitLine *hits = trace->hits;
        uint32_t caphits = trace->caphits;
        memset(trace, 0, sizeof *trace);
        trace->entries = entries;
        trace->capentries = cap;
        trace->arena = arena;
        trace->arenacap = arenacap;
        trace->hits = hits;
        trace->caphits = caphits;
        spare = trace;
        return;
    }
    PyMem_Free(trace->entries);
    PyMem_Free(trace->arena);
    PyMem_Free(trace->hits);
    PyMem_Free(trace);
}

/* Copies s into the arena: its offset + 1, or 0 with MemoryError set. */
TR_NO_COVERAGE static uint32_t arena_copy(TrTrace *t, const char *s)
{
    size_t n = strlen(s) + 1;
    if (t->arenalen + n > t->arenacap) {
        size_t cap = t->arenacap ? t->arenacap * 2 : 1024;
        while (cap < t->arenalen + n)
            cap *= 2;
        if (cap > UINT32_MAX) {
            PyErr_NoMemory();
            return 0;
        }
        char *na = PyMem_Realloc(t->arena, cap);
        if (na == NULL) {
            PyErr_NoMemory();
            return 0;
        }
        t->arena = na;
        t->arenacap = cap;
    }
    memcpy(t->arena + t->arenalen, s, n);
    uint32_t off = (uint32_t)t->arenalen + 1;
    t->arenalen += n;
    return off;
}

/* The arena offset + 1 of tp's name (copied or found in tnames), 0 with MemoryError. */
TR_NO_COVERAGE static uint32_t type_name(TrTrace *t, PyTypeObject *tp)
{
    if (!(tp->tp_flags & Py_TPFLAGS_VALID_VERSION_TAG) || tp->tp_version_tag == 0)
        return arena_copy(t, tp->tp_name);
    int k = tname_find(t, tp, tp->tp_version_tag);
    if (k >= 0)
        return t->tnames[k].name;
    uint32_t off = arena_copy(t, tp->tp_name);
    if (off != 0) {
        /* The new name goes to h; what h held moves to the other way (whose own
         * entry, the older, is dropped), unless that way is free. */
        size_t h = ((uintptr_t)tp >> 4) % TR_TNAME_CACHE;
        if (t->tnames[h].type != NULL)
            t->tnames[h ^ 1] = t->tnames[h];
        t->tnames[h].type = tp;
        t->tnames[h].tag = tp->tp_version_tag;
        t->tnames[h].name = off;
    }
    return off;
}

/* Counts the operation and numbers the result's provenance; returns the entry to
 * fill (zeroed but for the result's type name, found here: one call per line), NULL
 * past the line cap (nothing to record), or NULL with MemoryError set (*err = 1). */
TR_NO_COVERAGE static TrEntry *next_entry(TrTrace *t, const TrValue *result, int *err)
{
    *err = 0;
    t->serial++;
    if (result != NULL && result->prov != NULL && result->prov->serial == 0)
        result->prov->serial = t->serial;
    if (t->nentries >= TR_TRACE_MAX_LINES)
        return NULL;
    if (t->nentries == t->capentries) {
        Py_ssize_t cap = t->capentries ? t->capentries * 2 : 64;
        if (cap > TR_TRACE_MAX_LINES)
            cap = TR_TRACE_MAX_LINES;
        TrEntry *ne = PyMem_Realloc(t->entries, (size_t)cap * sizeof *ne);
        if (ne == NULL) {
            t->serial--;
            PyErr_NoMemory();
            *err = 1;
            return NULL;
        }
        t->entries = ne;
        t->capentries = cap;
    }
    TrEntry *e = &t->entries[t->nentries];
    memset(e, 0, sizeof *e);
    if (result != NULL && result->obj != NULL &&
        (e->tname = type_name(t, Py_TYPE(result->obj))) == 0) {
        *err = 1;
        return NULL;
    }
    return e;
}

/* Fills the result part of a new entry (its type name is next_entry's). */
static void set_result(TrEntry *e, const TrValue *result)
{
    if (result == NULL || result->obj == NULL)
        return;
    e->prov = result->prov;
    tr_prov_incref(e->prov);
}

/* A new reference to an exact str with o's text (o a str): the trace must not keep
 * a str subclass instance, a user object, alive. NULL with an exception set. */
static PyObject *exact_str(PyObject *o)
{
    if (PyUnicode_CheckExact(o))
        return Py_NewRef(o);
    return PyUnicode_FromObject(o);
}

/* The common recorder: every part optional (see TrEntry). 0, or -1 with an exception
 * set. The entry is kept only when complete. Out of coverage: tr_trace_record_name
 * calls it when its type-name cache misses, which depends on addresses. */
TR_NO_COVERAGE static int record(TrRun *run, const char *op, const char *cname, PyObject *name,
                  PyCodeObject *code, int lasti, const char *post, const char *post2,
                  const TrValue *result)
{
    TrTrace *t = run->trace;
    if (t == NULL)
        return 0;
    int err;
    TrEntry *e = next_entry(t, result, &err);
    if (e == NULL)
        return err ? -1 : 0;
    e->op = op;
    e->post = post;
    e->post2 = post2;
    if (cname != NULL && (e->cname = arena_copy(t, cname)) == 0)
        return -1;
    set_result(e, result);
    if (name != NULL && (e->name = exact_str(name)) == NULL) {
        tr_prov_decref(e->prov);
        return -1;
    }
    e->code = (PyCodeObject *)Py_XNewRef(code);
    e->lasti = lasti;
    t->nentries++;
    return 0;
}

int tr_trace_record(TrRun *run, const char *what, const TrValue *result)
{
    return record(run, NULL, what, NULL, NULL, 0, NULL, NULL, result);
}

/* The most frequent line (every attribute load and store, calls, globals): record()'s
 * work in one call, the common cases (an exact str name, a result whose type name is in
 * tnames, room for the line) written inline by tr_trace_name_fast (tr_trace_int.h, which
 * tr_attr_load_fast calls itself); the rest is record() itself. name and result
 * borrowed; the line takes its own references (the name, the result's record). Out of
 * coverage like next_entry and type_name, whose branches it takes (they depend on
 * earlier lines and on addresses). */
TR_NO_COVERAGE int tr_trace_record_name(TrRun *run, const char *op, PyObject *name,
                                        const char *post, const char *post2,
                                        const TrValue *result)
{
    TrTrace *t = run->trace;
    if (t == NULL || tr_trace_name_fast(t, op, name, post, post2, result))
        return 0;
    return record(run, op, NULL, name, NULL, 0, post, post2, result);
}

/* Templates a trace keeps at most (tr_trace_hit_line): past them hits are recorded in
 * full. A template is made only with a line kept, so there are never more than lines. */
#define TR_TRACE_MAX_HITS 4096

TR_NO_COVERAGE int tr_trace_hit_line(TrRun *run, PyObject *name, const TrValue *result,
                                     uint32_t *line)
{
    TrTrace *t = run->trace;
    if (t == NULL)
        return 0;
    Py_ssize_t n = t->nentries;
    if (tr_trace_record_name(run, "LOAD_ATTR", name, " [cached]", NULL, result) < 0)
        return -1;
    if (line == NULL || t->nentries != n + 1 || result->obj == NULL || result->prov == NULL ||
        !PyUnicode_CheckExact(name) || t->nhits >= TR_TRACE_MAX_HITS)
        return 0;
    const TrEntry *e = &t->entries[n];
    PyTypeObject *tp = Py_TYPE(result->obj);
    if (e->tname == 0 || !(tp->tp_flags & Py_TPFLAGS_VALID_VERSION_TAG) ||
        tp->tp_version_tag == 0)
        return 0;
    if (t->nhits == t->caphits) {
        uint32_t cap = t->caphits ? 2 * t->caphits : 64;
        TrHitLine *nh = PyMem_Realloc(t->hits, (size_t)cap * sizeof *nh);
        if (nh == NULL)
            return 0;   /* no template: later hits are recorded in full, as this one */
        t->hits = nh;
        t->caphits = cap;
    }
    TrHitLine *h = &t->hits[t->nhits++];
    h->name = Py_NewRef(name);
    h->prov = result->prov;
    tr_prov_incref(h->prov);
    h->type = tp;
    h->tag = tp->tp_version_tag;
    h->tname = e->tname;
    *line = t->nhits;
    return 0;
}

int tr_trace_record_cname(TrRun *run, const char *op, const char *cname, PyObject *in,
                          const char *post, const TrValue *result)
{
    return record(run, op, cname, in, NULL, 0, post, NULL, result);
}

int tr_trace_record_raise(TrRun *run, const char *op, const char *tname, PyCodeObject *code,
                          int lasti)
{
    return record(run, op, tname, NULL, code, lasti, NULL, NULL, NULL);
}

int tr_trace_recordf(TrRun *run, const TrValue *result, const char *fmt, ...)
{
    TrTrace *t = run->trace;
    if (t == NULL)
        return 0;
    if (t->nentries >= TR_TRACE_MAX_LINES) {   /* past the cap: no text to format */
        int err;
        next_entry(t, result, &err);
        return 0;
    }
    va_list va;
    va_start(va, fmt);
    PyObject *w = PyUnicode_FromFormatV(fmt, va);
    va_end(va);
    if (w == NULL)
        return -1;
    int rc = record(run, NULL, NULL, w, NULL, 0, NULL, NULL, result);
    Py_DECREF(w);
    return rc;
}

/* ---- attribute operations, without the text ---- */

/* The mechanism of a load: its result's provenance when that is an attribute. */
static const char *load_how(const TrProv *prov)
{
    if (prov == NULL || prov->kind != TR_PROV_ATTR || prov->name == NULL)
        return NULL;
    return prov->detail != NULL ? prov->detail : tr_resolution_name(prov->how);
}

/* Whether op spells s: compared here, not by strcmp, which in a libFuzzer binary is
 * its interceptor and feeds every comparison to the mutator (2% of a fuzz loop's
 * instructions went to this visit's calls). Out of coverage: its loop would count
 * characters as edges. */
TR_NO_COVERAGE static int op_is(const char *op, const char *s)
{
    while (*op != '\0' && *op == *s) {
        op++;
        s++;
    }
    return *op == *s;
}

/* 1 for a store or delete, 2 for a load, 0 for any other operation. */
TR_NO_COVERAGE static int attr_op_kind(const char *op)
{
    switch (op[0]) {
    case 'S':
        return op_is(op, "STORE_ATTR") ? 1 : 0;
    case 'D':
        return op_is(op, "DELETE_ATTR") ? 1 : 0;
    case 'L':
        return op_is(op, "LOAD_ATTR") || op_is(op, "LOAD_METHOD") ? 2 : 0;
    default:
        return 0;
    }
}

void tr_trace_visit_attrs(const TrTrace *trace, TrAttrVisit fn, void *ctx)
{
    if (trace == NULL)
        return;
    for (Py_ssize_t i = 0; i < trace->nentries; i++) {
        const TrEntry *e = &trace->entries[i];
        if (e->lasti < 0) {   /* a template's line: a cached load */
            fn(ctx, "LOAD_ATTR", load_how(trace->hits[-e->lasti - 1].prov), 1);
            continue;
        }
        const char *op = e->op;
        if (op == NULL)
            continue;
        int kind = attr_op_kind(op);
        if (kind == 1)
            fn(ctx, op, e->post2, 0);   /* recorded as "via DETAIL" */
        else if (kind == 2)
            fn(ctx, op, load_how(e->prov), e->post != NULL && strstr(e->post, "cached") != NULL);
    }
}

/* ---- the text ---- */

/* Appends a str's text as UTF-8; lone surrogates pass through (the whole text is
 * decoded with surrogatepass), as %U kept them. */
static void put_str(TrBuf *b, PyObject *s)
{
    Py_ssize_t n;
    const char *u = PyUnicode_AsUTF8AndSize(s, &n);
    if (u != NULL) {
        tr_buf_put(b, u, (size_t)n);
        return;
    }
    PyErr_Clear();
    PyObject *bytes = PyUnicode_AsEncodedString(s, "utf-8", "surrogatepass");
    if (bytes == NULL) {
        PyErr_Clear();
        b->failed = 1;
        return;
    }
    tr_buf_put(b, PyBytes_AS_STRING(bytes), (size_t)PyBytes_GET_SIZE(bytes));
    Py_DECREF(bytes);
}


/* Lines often share a provenance record (repeated loads, [cached] ones): its text is
 * copied from where it was first written. Records are immutable once made and the
 * entries keep theirs alive, so an address names one text while the text is built. */
#define TR_REPR_MEMO 64

typedef struct {
    const TrProv *prov;
    size_t off, len;
} TrReprMemo;

static void put_prov(TrBuf *b, const TrProv *p, TrReprMemo *memo)
{
    TrReprMemo *m = &memo[((uintptr_t)p >> 6) % TR_REPR_MEMO];
    if (p != NULL && m->prov == p && !b->failed) {
        if (b->len + m->len + 1 > b->cap && tr_buf_grow(b, m->len) < 0)
            return;
        memcpy(b->buf + b->len, b->buf + m->off, m->len);   /* never overlaps: off < len */
        b->len += m->len;
        b->buf[b->len] = '\0';
        return;
    }
    size_t start = b->len;
    tr_prov_repr_into(b, p);
    if (p != NULL && !b->failed) {
        m->prov = p;
        m->off = start;
        m->len = b->len - start;
    }
}

static void put_entry(TrBuf *b, const TrTrace *t, const TrEntry *e, uint64_t serial,
                      TrReprMemo *memo)
{
    tr_buf_int(b, (long long)serial);
    tr_buf_puts(b, " ");
    if (e->lasti < 0) {   /* a template's line, as tr_trace_name_fast would have kept it */
        const TrHitLine *h = &t->hits[-e->lasti - 1];
        tr_buf_puts(b, "LOAD_ATTR ");
        put_str(b, h->name);
        tr_buf_puts(b, " [cached] -> ");
        tr_buf_puts(b, t->arena + h->tname - 1);
        tr_buf_puts(b, " ");
        put_prov(b, h->prov, memo);
        tr_buf_puts(b, "\n");
        return;
    }
    if (e->op != NULL)
        tr_buf_puts(b, e->op);
    const char *sep = e->op != NULL ? " " : "";
    if (e->cname != 0) {
        tr_buf_puts(b, sep);
        tr_buf_puts(b, t->arena + e->cname - 1);
        sep = " in ";
    }
    if (e->name != NULL) {
        tr_buf_puts(b, sep);
        put_str(b, e->name);
    }
    if (e->code != NULL) {
        tr_buf_puts(b, " in ");
        put_str(b, e->code->co_qualname);
        tr_buf_puts(b, " line ");
        tr_buf_int(b, tr_code_line(e->code, e->lasti));
    }
    if (e->post != NULL)
        tr_buf_puts(b, e->post);
    if (e->post2 != NULL)
        tr_buf_puts(b, e->post2);
    if (e->tname != 0) {
        tr_buf_puts(b, " -> ");
        tr_buf_puts(b, t->arena + e->tname - 1);
        tr_buf_puts(b, " ");
        put_prov(b, e->prov, memo);
    }
    tr_buf_puts(b, "\n");
}

/* Returns a new str reference: one line per kept operation, each ending in a newline,
 * then "... N more operations" when some were dropped; NULL with an exception set. */
PyObject *tr_trace_text(const TrTrace *trace)
{
    if (trace == NULL)
        return PyUnicode_FromString("");
    TrBuf b = {NULL, 0, 0, 0};
    TrReprMemo memo[TR_REPR_MEMO] = {{NULL, 0, 0}};
    tr_buf_grow(&b, (size_t)trace->nentries * 64);   /* a typical line's length */
    for (Py_ssize_t i = 0; i < trace->nentries; i++)
        put_entry(&b, trace, &trace->entries[i], (uint64_t)i + 1, memo);
    if ((uint64_t)trace->nentries < trace->serial) {
        tr_buf_puts(&b, "... ");
        tr_buf_int(&b, (long long)(trace->serial - (uint64_t)trace->nentries));
        tr_buf_puts(&b, " more operations\n");
    }
    PyObject *res = NULL;
    if (b.failed)
        PyErr_NoMemory();
    else
        res = PyUnicode_DecodeUTF8(b.buf != NULL ? b.buf : "", (Py_ssize_t)b.len,
                                   "surrogatepass");
    PyMem_RawFree(b.buf);
    return res;
}
