/* tr_prov.c: provenance records (tr_value.h): constructors, counting, readable chains.
 *
 * A record is a plain C struct with its own count, never a Python object, so tracking
 * provenance never changes a Python refcount or finaliser timing. Chains can be long
 * (a loop accumulating `x = x + 1` links one record per iteration), so freeing walks
 * the chain iteratively and printing stops at a fixed depth.
 */
#include "tr_core.h"

/* Deeper chains print as "..." (a loop's accumulator would print forever). */
#define TR_PROV_REPR_DEPTH 12

/* Chains are cut: a record links to at most TR_PROV_MAX_REACH records (counting
 * shared ones again), beyond that the link goes to the shared "..." record. A loop
 * accumulating `s = s + i` would otherwise keep one record per iteration alive,
 * millions under the default budget. */
#define TR_PROV_MAX_REACH 64

static TrProv cut_record = {.refcnt = 1 << 30, .kind = TR_PROV_OPAQUE, .how = TR_RES_NONE,
                            .reach = 1, .detail = "..."};

/* Each record knows how many it reaches (1 + its base's + its arg's), so the bound is
 * checked without walking the chain (prov_fill): links are bounded, so a count stays
 * <= 129. */

/* Freed records are kept for reuse: the interpreter makes and drops one or more per
 * operation, and malloc/free were a tenth of the tracer's time. Records are only made
 * and released with the GIL held (releasing one drops a str). Under AddressSanitizer
 * every record goes back to the allocator, so a use after release is still caught. */
#if defined(__SANITIZE_ADDRESS__)
#define TR_PROV_NO_FREELIST 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TR_PROV_NO_FREELIST 1
#endif
#endif
#define TR_PROV_FREELIST_MAX 4096

#ifndef TR_PROV_NO_FREELIST
static TrProv *freelist;      /* linked through base; refcnt 0 */
static int nfree;
#endif

static TrProv *prov_alloc(void)
{
#ifndef TR_PROV_NO_FREELIST
    if (freelist != NULL) {
        TrProv *p = freelist;
        freelist = p->base;
        nfree--;
        return p;   /* prov_new_slow, the only caller, sets every field */
    }
#endif
    return PyMem_RawCalloc(1, sizeof(TrProv));
}

static void prov_release(TrProv *p)
{
#ifndef TR_PROV_NO_FREELIST
    if (nfree < TR_PROV_FREELIST_MAX) {
        /* refcnt is 0 already (tr_prov_decref_slow, the only caller) */
        p->base = freelist;
        freelist = p;
        nfree++;
        return;
    }
#endif
    PyMem_RawFree(p);
}

/* Fills a block from prov_alloc as a new record (count 1) linking base and arg (cut,
 * counted) and holding name (counted; an exact str or NULL here). */
static inline TrProv *prov_fill(TrProv *p, TrProvKind kind, TrProv *base, TrProv *arg,
                                PyObject *name, int index)
{
    /* bounded() and the reach in one read of each link's reach */
    int reach = 1;
    if (base != NULL) {
        if (base->reach > TR_PROV_MAX_REACH)
            base = &cut_record;
        base->refcnt++;
        reach += base->reach;
    }
    if (arg != NULL) {
        if (arg->reach > TR_PROV_MAX_REACH)
            arg = &cut_record;
        arg->refcnt++;
        reach += arg->reach;
    }
    p->refcnt = 1;
    p->kind = kind;
    p->how = TR_RES_NONE;
    p->index = index;
    p->base = base;
    p->arg = arg;
    p->reach = reach;
    p->name = Py_XNewRef(name);
    p->detail = NULL;
    p->serial = 0;
    return p;
}

/* tr_prov_new for what its inline case leaves: a str subclass instance as name, which
 * is a user object (records outlive the run in the trace kept for last_trace(): the
 * record keeps an exact copy), or an empty free list. */
static TrProv *prov_new_slow(TrProvKind kind, TrProv *base, TrProv *arg, PyObject *name,
                             int index)
{
    PyObject *copy = NULL;
    if (name != NULL && !PyUnicode_CheckExact(name) && PyUnicode_Check(name)) {
        copy = PyUnicode_FromObject(name);
        if (copy == NULL)
            return NULL;
        name = copy;
    }
    TrProv *p = prov_alloc();
    if (p == NULL) {
        Py_XDECREF(copy);
        PyErr_NoMemory();
        return NULL;
    }
    prov_fill(p, kind, base, arg, name, index);
    Py_XDECREF(copy);
    return p;
}

/* Operators make a record or more each: the common case (a block on the free list, no
 * name or an exact str) calls nothing, so it needs no saved registers. Inline in the
 * constructors below: an attribute record (every traced miss, every LOAD_METHOD) took
 * two call layers, tr_attr_prov then tr_prov_new. */
TR_HOT_INLINE TrProv *prov_make(TrProvKind kind, TrProv *base, TrProv *arg, PyObject *name,
                                int index)
{
#ifndef TR_PROV_NO_FREELIST
    TrProv *p = freelist;
    if (p != NULL && (name == NULL || PyUnicode_CheckExact(name))) {
        freelist = p->base;
        nfree--;
        return prov_fill(p, kind, base, arg, name, index);
    }
#endif
    return prov_new_slow(kind, base, arg, name, index);
}

TrProv *tr_prov_new(TrProvKind kind, TrProv *base, TrProv *arg, PyObject *name, int index)
{
    return prov_make(kind, base, arg, name, index);
}

TrProv *tr_prov_attr(TrProv *base, PyObject *name, TrResolution how, const char *detail)
{
    return tr_prov_attr_via(base, name, how, detail, NULL);
}

TrProv *tr_prov_attr_via(TrProv *base, PyObject *name, TrResolution how, const char *detail,
                         TrProv *via)
{
    /* Both links bounded like every other record's (prov_fill). */
    TrProv *p = prov_make(TR_PROV_ATTR, base, via, name, 0);
    if (p != NULL) {
        p->how = how;
        p->detail = detail;
    }
    return p;
}

/* Frees records whose count drops to zero. Each freed record releases its base and
 * arg; arg chains are short (operands), base chains may be long, so the base is
 * followed in the loop and arg recursively. */
void tr_prov_decref_slow(TrProv *p)
{
    while (p != NULL && p != &cut_record) {
        if (p->refcnt <= 0) {
            fprintf(stderr, "tracefuzz: provenance record %p released twice\n", (void *)p);
            abort();
        }
        if (--p->refcnt > 0)
            return;
        TrProv *next = p->base;
        tr_prov_decref(p->arg);
        Py_XDECREF(p->name);
        prov_release(p);
        p = next;
    }
}

const char *tr_resolution_name(TrResolution how)
{
    switch (how) {
    case TR_RES_NONE: return "none";
    case TR_RES_INST_DICT: return "inst_dict";
    case TR_RES_SLOT: return "slot";
    case TR_RES_DATA_DESC: return "data_desc";
    case TR_RES_NONDATA_DESC: return "nondata_desc";
    case TR_RES_CLASS_ATTR: return "class_attr";
    case TR_RES_GETATTR_HOOK: return "getattr_hook";
    case TR_RES_GETATTRIBUTE: return "getattribute";
    case TR_RES_TYPE_DICT: return "type_dict";
    case TR_RES_META_DATA_DESC: return "meta_data_desc";
    case TR_RES_META_NONDATA: return "meta_nondata";
    case TR_RES_OPAQUE: return "opaque";
    case TR_RES__COUNT: break;
    }
    return "?";
}

const char *tr_prov_kind_name(TrProvKind kind)
{
    switch (kind) {
    case TR_PROV_INPUT: return "INPUT";
    case TR_PROV_CONST: return "CONST";
    case TR_PROV_GLOBAL: return "GLOBAL";
    case TR_PROV_BUILTIN: return "BUILTIN";
    case TR_PROV_ATTR: return "ATTR";
    case TR_PROV_CALL: return "CALL";
    case TR_PROV_SUBSCR: return "SUBSCR";
    case TR_PROV_BINOP: return "BINOP";
    case TR_PROV_UNOP: return "UNOP";
    case TR_PROV_ITER: return "ITER";
    case TR_PROV_BUILD: return "BUILD";
    case TR_PROV_UNPACK: return "UNPACK";
    case TR_PROV_EXC: return "EXC";
    case TR_PROV_CELL: return "CELL";
    case TR_PROV_FUNC: return "FUNC";
    case TR_PROV_IMPORT: return "IMPORT";
    case TR_PROV_OPAQUE: return "OPAQUE";
    case TR_PROV__COUNT: break;
    }
    return "?";
}

/* The repr is built in C into a TrBuf, then decoded once. */
int tr_buf_grow(TrBuf *b, size_t n)
{
    if (b->failed)
        return -1;
    if (b->len + n + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap * 2 : 128;
    while (cap < b->len + n + 1)
        cap *= 2;
    char *nb = PyMem_RawRealloc(b->buf, cap);
    if (nb == NULL) {
        b->failed = 1;
        return -1;
    }
    b->buf = nb;
    b->cap = cap;
    return 0;
}

void tr_buf_int(TrBuf *b, long long v)
{
    char tmp[24];
    char *e = tmp + sizeof tmp, *p = e;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u != 0);
    if (v < 0)
        *--p = '-';
    tr_buf_put(b, p, (size_t)(e - p));
}

static void rb_name(TrBuf *b, PyObject *name)
{
    if (name == NULL) {
        tr_buf_puts(b, "?");
        return;
    }
    if (PyUnicode_Check(name)) {
        Py_ssize_t n;
        const char *s = PyUnicode_AsUTF8AndSize(name, &n);
        if (s != NULL) {
            tr_buf_put(b, s, (size_t)n);
            return;
        }
        PyErr_Clear();
    }
    tr_buf_puts(b, "?");
}

static void rb_int(TrBuf *b, long v)
{
    tr_buf_int(b, v);
}

static void repr_chain(TrBuf *b, const TrProv *p, int depth);

/* The base of an attribute or subscript: parenthesised when it is itself a
 * resolved attribute, so "(INPUT[0].a via inst_dict).b via property.fget" reads. */
static void repr_base(TrBuf *b, const TrProv *p, int depth)
{
    int paren = p != NULL && (p->kind == TR_PROV_ATTR || p->kind == TR_PROV_BINOP);
    if (paren)
        tr_buf_puts(b, "(");
    repr_chain(b, p, depth + 1);
    if (paren)
        tr_buf_puts(b, ")");
}

static void repr_chain(TrBuf *b, const TrProv *p, int depth)
{
    if (p == NULL) {
        tr_buf_puts(b, "?");
        return;
    }
    if (depth >= TR_PROV_REPR_DEPTH) {
        tr_buf_puts(b, "...");
        return;
    }
    switch (p->kind) {
    case TR_PROV_INPUT:
        tr_buf_puts(b, "INPUT[");
        if (p->name != NULL)
            rb_name(b, p->name);
        else
            rb_int(b, p->index);
        tr_buf_puts(b, "]");
        break;
    case TR_PROV_CONST:
        tr_buf_puts(b, "CONST[");
        rb_int(b, p->index);
        tr_buf_puts(b, "]");
        break;
    case TR_PROV_GLOBAL:
    case TR_PROV_BUILTIN:
    case TR_PROV_CELL:
    case TR_PROV_IMPORT:
    case TR_PROV_FUNC:
        tr_buf_puts(b, tr_prov_kind_name(p->kind));
        tr_buf_puts(b, " ");
        rb_name(b, p->name);
        break;
    case TR_PROV_ATTR:
        repr_base(b, p->base, depth);
        tr_buf_puts(b, ".");
        if (p->name == NULL && p->detail != NULL) {
            tr_buf_puts(b, p->detail);   /* a synthetic attribute: __self__, __func__, type() */
            break;
        }
        rb_name(b, p->name);
        tr_buf_puts(b, " via ");
        tr_buf_puts(b, p->detail != NULL ? p->detail : tr_resolution_name(p->how));
        break;
    case TR_PROV_CALL:
        tr_buf_puts(b, "CALL(");
        if (p->base == NULL && p->name != NULL)
            rb_name(b, p->name);   /* a callee known by name only (a generator function) */
        else
            repr_chain(b, p->base, depth + 1);
        tr_buf_puts(b, ")");
        break;
    case TR_PROV_SUBSCR:
        repr_base(b, p->base, depth);
        tr_buf_puts(b, "[");
        repr_chain(b, p->arg, depth + 1);
        tr_buf_puts(b, "]");
        break;
    case TR_PROV_BINOP:
        repr_base(b, p->base, depth);
        tr_buf_puts(b, " ");
        if (p->name != NULL)
            rb_name(b, p->name);
        else
            rb_int(b, p->index);
        tr_buf_puts(b, " ");
        repr_base(b, p->arg, depth);
        break;
    case TR_PROV_UNOP:
    case TR_PROV_ITER:
        tr_buf_puts(b, p->kind == TR_PROV_ITER ? "ITER" : "");
        if (p->kind == TR_PROV_UNOP)
            rb_name(b, p->name);
        tr_buf_puts(b, "(");
        repr_chain(b, p->base, depth + 1);
        tr_buf_puts(b, ")");
        break;
    case TR_PROV_UNPACK:
        tr_buf_puts(b, "UNPACK(");
        repr_chain(b, p->base, depth + 1);
        tr_buf_puts(b, ")[");
        rb_int(b, p->index);
        tr_buf_puts(b, "]");
        break;
    case TR_PROV_BUILD:
    case TR_PROV_EXC:
    case TR_PROV_OPAQUE:
        if (p == &cut_record) {
            tr_buf_puts(b, "...");
            break;
        }
        tr_buf_puts(b, tr_prov_kind_name(p->kind));
        if (p->name != NULL) {
            tr_buf_puts(b, " ");
            rb_name(b, p->name);
        }
        else if (p->detail != NULL) {
            tr_buf_puts(b, " ");
            tr_buf_puts(b, p->detail);
        }
        if (p->base != NULL) {
            tr_buf_puts(b, "(");
            repr_chain(b, p->base, depth + 1);
            tr_buf_puts(b, ")");
        }
        break;
    case TR_PROV__COUNT:
        tr_buf_puts(b, "?");
        break;
    }
}

void tr_prov_repr_into(TrBuf *b, const TrProv *p)
{
    repr_chain(b, p, 0);
}

/* Returns a new str reference, or NULL with an exception set. */
PyObject *tr_prov_repr(const TrProv *p)
{
    TrBuf b = {NULL, 0, 0, 0};
    repr_chain(&b, p, 0);
    if (b.failed) {
        PyMem_RawFree(b.buf);
        return PyErr_NoMemory();
    }
    PyObject *s = PyUnicode_DecodeUTF8(b.buf != NULL ? b.buf : "", (Py_ssize_t)b.len, "replace");
    PyMem_RawFree(b.buf);
    return s;
}
