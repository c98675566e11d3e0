/* tr_cache.c: the identity-preserving attribute cache and the provenance assertion.
 *
 * A tracing JIT wants `a.x` read twice to be one tracked value (one object, one
 * provenance). That is only sound for resolutions whose value CPython keeps and
 * hands back unchanged until something writes it:
 *   inst_dict   the instance dict entry;   guard: same type (version), same dict,
 *               dict version unchanged
 *   slot        a __slots__ member;        guard: same type (version)
 *   class_attr  a plain class attribute;   guard: same type (version) and the
 *               instance dict (if any) unchanged
 *   type_dict   plain attribute of a class read on the class; guard: class and
 *               metaclass versions
 * Anything computed (property, bound method, __get__, __getattr__ ...) is never
 * cached. Entries are dropped by every store and delete the protocol performs
 * (tr_cache_note_store), every dict write (tr_attr_note_dict_write) and every
 * escaping call (tr_attr_note_escape).
 *
 * On every reuse the cache ASSERTS, independently of the guard, that CPython's
 * algorithm would now return the identical object, re-resolving it without running
 * user code (an MRO lookup, a dict lookup, a slot read). A failure means the tracer
 * missed an invalidation: it raises tfjit.ProvenanceError worded like the
 * motivating report ("attribute test of Test object out of sync: <a> vs. <b>").
 * Once a re-resolution agreed while the guard held, later hits under the same guard
 * (same type version, same dict version) read again only what those versions do not
 * cover: the found descriptor's type slots and a slot's value (CacheEntry.checked).
 *
 * Lifetimes (STYLE.md: caches must not change them). An entry keeps NOTHING alive
 * that the traced program could observe dying: the object read from is held by a
 * weak reference when its type supports them, else by address only (then a hit
 * also needs the caller's object to carry the very provenance record the read
 * saw, which the entry keeps counted: a record belongs to one value, so a new
 * object at a reused address never matches); the type, the instance dict and the
 * value are addresses that are only COMPARED, never dereferenced. Every check
 * reads the live object the caller passes: its type and the type's version (a
 * global counter: a new type at a reused address has another), its dict pointer
 * and the dict's ma_version_tag (3.11: global and monotonic, fresh for every new
 * dict). A hit returns the value re-resolved from the live world, after checking
 * it is the remembered address. The entry owns only the name (a str) and
 * provenance records (C structs owning strings), none of which has a finaliser.
 *
 * The fault assume_stable_attrs (docs/FAULTS.md) turns this into Thunder's
 * wrap_attribute: every read is remembered whatever its resolution, escapes and
 * dict writes no longer invalidate, and each later read is resolved in full and
 * compared with the remembered object (tr_cache_reconcile). The fault
 * stale_class_attr serves class attributes without guard or assertion, lets a
 * class store forget only the class's own entries, and remembers class attributes
 * across traced calls (the stale memo at the end of this file). The fault
 * stale_dict_write lets dict writes forget nothing and serves instance dict entries
 * without the dict-version guard or the assertion. Under these three faults
 * entries are STRONG (object, value, type, dict), like the memo of the JIT they
 * model: a stale value can only be served, or named in a message, if it is alive.
 * Strong entries live for one TrRun at most; releasing them can run finalisers, so
 * entries are always unlinked before they are released.
 */
#include <stdio.h>
#include <string.h>

#include "tr_attr_int.h"
#include "tr_core.h"
#include "tr_faults.h"
#include "tr_provcheck.h"
#include "tr_trace_int.h"
#include <structmember.h>

/* The assertion's memo of an entry (CacheEntry.checked). */
typedef struct {
    PyObject *descr;            /* _PyType_Lookup's answer then when its type is
                                   mutable, else NULL; its type read only while the guard
                                   holds (the MRO dicts, which hold it, are unchanged) */
    descrgetfunc dget;          /* Py_TYPE(descr)->tp_descr_get then */
    descrsetfunc dset;          /* Py_TYPE(descr)->tp_descr_set then */
    Py_ssize_t offset;          /* SLOT: the member's offset, read in place */
    int t_object;               /* SLOT: a T_OBJECT member (unset reads as None) */
} CacheMemo;

typedef struct {
    PyObject *obj;              /* identity key; owned only when strong */
    PyObject *obj_wr;           /* weak reference to obj (weak entries of weakrefable
                                   objects), or NULL */
    PyObject *name;             /* strong (a str) */
    PyObject *value;            /* owned only when strong, else compared by address */
    TrProv *prov;               /* counted: the provenance served on a hit */
    TrProv *obj_prov;           /* counted: obj's provenance at the read, kept for
                                   objects without weak references, else NULL */
    TrResolution how;
    const char *detail;
    PyTypeObject *type;         /* type(obj) at the read; owned only when strong */
    unsigned int type_version;
    PyObject *dict;             /* obj's instance dict at the read, or NULL; owned
                                   only when strong */
    uint64_t dict_version;
    unsigned int obj_version;   /* type_dict: the class's own version */
    int strong;                 /* under a fault: obj, value, type, dict owned */
    /* The assertion's memo (tr_cache_serve, memo_fill): set when re_resolve agreed with
     * the remembered value while the guard held. Every later hit passes the same guard
     * (the type's version tag, and the instance dict and its version, as remembered),
     * so re_resolve would read the same MRO and the same dict again; only what those
     * versions do not cover is read again: the type slots of the descriptor the MRO
     * lookup found (a class gaining __get__/__set__ keeps its instances' types' tags),
     * and a slot's value (slot stores change no version). */
    int checked;
    CacheMemo chk;              /* valid when checked */
    PyTypeObject *value_static; /* weak entries: type(value) when a static type (it and
                                   its name live as long as the process: named at
                                   message time), or NULL */
    const char *value_tname;    /* weak entries without value_static: "NULL", or NULL:
                                   then value_type holds a copy */
    uint32_t line;              /* the template of this entry's "[cached]" line in the
                                   run's trace (tr_trace_hit_fast), index + 1, or 0 */
    char value_type[64];        /* weak entries of a heap-type value: type(value).__name__,
                                   for messages; written only then (the rest of the
                                   entry is set field by field, this array left as is) */
} CacheEntry;

/* Lookups are linear: a traced call touches few (object, name) pairs. A loop over
 * many objects would make them quadratic, so a full cache starts over: forgetting
 * is always safe (a miss re-resolves). */
#define TR_CACHE_MAX_ENTRIES 256

/* The lookup key of entry i, kept apart in keys[i]: a lookup scans these 16 bytes per
 * entry instead of the entries themselves (~170 bytes each, a cache line or two). */
typedef struct {
    PyObject *obj;
    PyObject *name;
} CacheKey;

/* TrCache.found's slots (cache_find_memo). */
#define TR_CACHE_FOUND_SLOTS 128   /* 2^7: cache_find_memo takes seven bits */
/* Up to this many entries the scan is as cheap as the slot's test (cache_find_memo). */
#define TR_CACHE_FOUND_MIN 4

/* Weak references kept past their entries (TrCache.wr_keep): direct-mapped by address;
 * at most 64 (TrCache.wr_used is a 64-bit mask of the slots set). */
#define TR_CACHE_WR_KEEP 64

struct TrCache {
    CacheEntry *entries;
    CacheKey *keys;             /* parallel to entries, same len and cap */
    Py_ssize_t len, cap;
    /* Owned (or NULL): weak references PyWeakref_NewRef(o, NULL) returned for weak
     * entries, kept when their entries go (a store, an escape: the cache is cleared
     * after every list.append) so that the next remember of a live o takes the same
     * reference again instead of making and freeing one each time (cache_weakref).
     * They keep nothing alive: a weak reference whose object died reads None. A basic
     * weak reference has no callback and no finaliser; released by tr_cache_free. */
    PyObject *wr_keep[TR_CACHE_WR_KEEP];
    uint64_t wr_used;           /* bit k: wr_keep[k] is set (tr_cache_free visits these) */
    /* Where tr_attr_load_fast last found (obj, name), placed by the pair (cache_find_memo):
     * an index, trusted only when keys[i] is (obj, name) itself, so never maintained. */
    int32_t found[TR_CACHE_FOUND_SLOTS];   /* < TR_CACHE_MAX_ENTRIES */
};

/* The arrays of the last cache freed, empty, kept for the next run's cache: a traced
 * call's cache otherwise grew from nothing (16, 32, 64 entries: a realloc copying each
 * time) on every call. */
static CacheEntry *spare_entries;
static CacheKey *spare_keys;
static Py_ssize_t spare_cap;

TrCache *tr_cache_new(void)
{
    TrCache *c = PyMem_RawCalloc(1, sizeof *c);
    if (c == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    if (spare_entries != NULL) {
        c->entries = spare_entries;
        c->keys = spare_keys;
        c->cap = spare_cap;
        spare_entries = NULL;
        spare_keys = NULL;
        spare_cap = 0;
    }
    return c;
}

/* Releases wr, the entry's own (counted) weak reference; whether it is the last (then freed)
 * depends on whether TrCache.wr_keep still holds it, i.e. on addresses: out of
 * coverage (fuzz.determinism.builtin saw entry_release's branch counts differ). */
TR_NO_COVERAGE static void entry_wr_release(PyObject *wr)
{
    Py_XDECREF(wr);   /* a basic weak reference: no finaliser */
}

static void entry_release(CacheEntry *e)
{
    if (e->strong) {
        Py_XDECREF(e->obj);
        Py_XDECREF(e->value);
        Py_XDECREF(e->type);
        Py_XDECREF(e->dict);
    }
    if (e->obj_wr != NULL)
        entry_wr_release(e->obj_wr);
    Py_XDECREF(e->name);
    tr_prov_decref(e->prov);
    tr_prov_decref(e->obj_prov);
}

/* Unlinks every entry, then releases them (finalisers may re-enter the cache); the
 * arrays stay the cache's unless a finaliser made it grow new ones meanwhile. */
static void cache_clear(TrCache *c)
{
    if (c == NULL || c->len == 0)
        return;
    CacheEntry *old = c->entries;
    CacheKey *oldkeys = c->keys;
    Py_ssize_t n = c->len, cap = c->cap;
    c->keys = NULL;
    c->entries = NULL;
    c->len = c->cap = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        entry_release(&old[i]);
    if (c->entries == NULL && c->keys == NULL) {
        c->entries = old;
        c->keys = oldkeys;
        c->cap = cap;
        return;
    }
    PyMem_RawFree(oldkeys);
    PyMem_RawFree(old);
}

/* Releases c's kept weak references (c owns one count of each; no finaliser runs) and
 * empties the table. How many there are
 * depends on addresses (which objects share a slot): out of coverage, so the fuzz
 * target's features do not (fuzz.determinism.builtin saw this loop's counts differ). */
TR_NO_COVERAGE static void wr_keep_release(TrCache *c)
{
    for (uint64_t u = c->wr_used; u != 0; u &= u - 1)
        Py_CLEAR(c->wr_keep[__builtin_ctzll(u)]);
    c->wr_used = 0;
}

void tr_cache_free(TrCache *cache)
{
    if (cache == NULL)
        return;
    cache_clear(cache);
    wr_keep_release(cache);
    if (spare_entries == NULL && cache->entries != NULL && cache->keys != NULL &&
        cache->len == 0) {
        spare_entries = cache->entries;
        spare_keys = cache->keys;
        spare_cap = cache->cap;
    }
    else {
        PyMem_RawFree(cache->entries);
        PyMem_RawFree(cache->keys);
    }
    PyMem_RawFree(cache);
}

/* Removes entry i (moving the last one into its place) and releases it. An entry whose
 * release can run no code (weak, its name an exact str: the rest are records, a basic
 * weak reference, no finaliser) is released in place, then overwritten: one copy of
 * ~200 bytes instead of two. Any other is unlinked first (a finaliser may re-enter the
 * cache). */
static void cache_remove(TrCache *c, Py_ssize_t i)
{
    CacheEntry *p = &c->entries[i];
    Py_ssize_t last = --c->len;
    if (!p->strong && PyUnicode_CheckExact(p->name)) {
        entry_release(p);
        if (i != last) {
            *p = c->entries[last];
            c->keys[i] = c->keys[last];
        }
        return;
    }
    CacheEntry e = *p;
    *p = c->entries[last];
    c->keys[i] = c->keys[last];
    entry_release(&e);
}

/* Names are mostly interned (co_names): two distinct interned exact strs never have
 * equal text, so only other pairs are compared by text. */
static inline int same_name(PyObject *a, PyObject *b)
{
    if (a == b)
        return 1;
    if (PyUnicode_CheckExact(a) && PyUnicode_CheckExact(b) && PyUnicode_CHECK_INTERNED(a) &&
        PyUnicode_CHECK_INTERNED(b))
        return 0;
    return PyUnicode_Check(a) && PyUnicode_Check(b) && PyUnicode_Compare(a, b) == 0;
}

/* Whether same_name(n, b) is n == b for every interned exact str b (tr_names' are). */
static inline int name_interned(PyObject *n)
{
    return PyUnicode_CheckExact(n) && PyUnicode_CHECK_INTERNED(n);
}

/* By address only: an entry found may belong to a dead object whose address was
 * reused; same_object tells. */
TR_HOT_INLINE Py_ssize_t cache_find(TrCache *c, PyObject *obj, PyObject *name)
{
    if (c == NULL)
        return -1;
    const CacheKey *k = c->keys;
    for (Py_ssize_t i = 0; i < c->len; i++) {
        if (k[i].obj == obj && same_name(k[i].name, name))
            return i;
    }
    return -1;
}

/* cache_find for tr_attr_load_fast: a loop's loads hit the same few entries in turn, and
 * the scan costs ~5 instructions an entry passed (slots_chain passed ~4 a load). Past a
 * few entries the index found last for (obj, name) is asked first; it answers only when
 * that key is (obj, name) itself, which is then the entry the scan finds (one per owner
 * and name), so a slot left behind by a removal or a clear, or taken by another pair,
 * only costs the scan. Which way answered depends on addresses: out of coverage (the
 * caller is). */
TR_HOT_INLINE Py_ssize_t cache_find_memo(TrCache *c, PyObject *obj, PyObject *name)
{
    if (c->len <= TR_CACHE_FOUND_MIN)
        return cache_find(c, obj, name);
    /* Fibonacci hashing of the pair: the top seven bits of the product. */
    size_t s = (size_t)(((((uint64_t)(uintptr_t)obj >> 4) ^ ((uint64_t)(uintptr_t)name >> 4)) *
                         UINT64_C(0x9E3779B97F4A7C15)) >> 57);
    Py_ssize_t i = c->found[s];
    if (i < c->len && c->keys[i].obj == obj && c->keys[i].name == name)
        return i;
    i = cache_find(c, obj, name);
    if (i >= 0)
        c->found[s] = (int32_t)i;
    return i;
}

/* Whether entry e was made by a read of the live object obj (whose provenance is
 * obj_prov), not of a dead one that lived at the same address. */
TR_HOT_INLINE int same_object(const CacheEntry *e, PyObject *obj, const TrProv *obj_prov)
{
    if (e->obj != obj)
        return 0;
    if (e->strong)
        return 1;   /* the entry kept it alive */
    if (e->obj_wr != NULL)
        return tr_weakref_object(e->obj_wr) == obj;
    /* Not weakrefable: the entry keeps the object's record at the read alive, and
     * a record describes one value, so the caller's value carrying it is the
     * object read then. */
    return obj_prov != NULL && e->obj_prov == obj_prov;
}

static int fault_on(TrRun *run)
{
    return TR_FAULT_ON(run, TR_FAULT_ASSUME_STABLE_ATTRS);
}

void tr_attr_note_escape(TrRun *run)
{
    if (run == NULL || fault_on(run))
        return;
    cache_clear(run->cache);
}

void tr_attr_note_dict_write(TrRun *run, PyObject *d)
{
    /* Fault stale_dict_write: a write into a dict (an instance __dict__ reached
     * through obj.__dict__ or vars(obj)) forgets nothing. */
    if (run == NULL || run->cache == NULL || fault_on(run) ||
        TR_FAULT_ON(run, TR_FAULT_STALE_DICT_WRITE))
        return;
    TrCache *c = run->cache;
    /* Address comparisons only: a stale entry matching a reused address is simply
     * forgotten, which is always safe. */
    for (Py_ssize_t i = c->len - 1; i >= 0; i--) {
        if (i < c->len && (c->entries[i].dict == d || c->entries[i].obj == d))
            cache_remove(c, i);
    }
}

static void dict_memo_forget(PyObject *obj, PyObject *name, int all_of_obj);

void tr_cache_note_store(TrRun *run, PyObject *obj, PyObject *name)
{
    if (run == NULL || run->cache == NULL)
        return;
    TrCache *c = run->cache;
    /* A class store can change what any instance resolves to; __class__ and
     * __dict__ stores change everything about obj. */
    int all_of_obj = name == tr_names.class_ || name == tr_names.dict ||
                     (!name_interned(name) &&
                      (same_name(name, tr_names.class_) || same_name(name, tr_names.dict)));
    /* Fault stale_dict_write: the protocol's own stores do reach its memo. */
    if (TR_FAULT_ON(run, TR_FAULT_STALE_DICT_WRITE))
        dict_memo_forget(obj, name, all_of_obj);
    /* Fault stale_class_attr: a class store only forgets the class's own entries. */
    if (PyType_Check(obj) && !TR_FAULT_ON(run, TR_FAULT_STALE_CLASS_ATTR)) {
        cache_clear(c);
        return;
    }
    /* The 16-byte keys are scanned, not the entries (~200 bytes each): a loop storing
     * into its owner passes here on every store. c->keys is read again after each
     * removal (a strong entry's release may run a finaliser that regrows the arrays). */
    for (Py_ssize_t i = c->len - 1; i >= 0; i--) {
        if (i < c->len && c->keys[i].obj == obj &&
            (all_of_obj || same_name(c->keys[i].name, name))) {
            cache_remove(c, i);
            /* A remember replaces (obj, name)'s entry: there was only this one. */
            if (!all_of_obj)
                break;
        }
    }
    assert(all_of_obj || cache_find(c, obj, name) < 0);
}

TR_HOT_INLINE int version_of(PyTypeObject *t, unsigned int *v)
{
    if (!PyType_HasFeature(t, Py_TPFLAGS_VALID_VERSION_TAG) || t->tp_version_tag == 0)
        return 0;
    *v = t->tp_version_tag;
    return 1;
}

/* The instance dict of obj as the generic algorithm sees it (for a class object,
 * its own namespace), borrowed, or NULL (no exception) when it has none. */
TR_HOT_INLINE PyObject *instance_dict(PyObject *obj)
{
    PyObject **dp = tr_dict_ptr(obj);
    return dp ? *dp : NULL;
}

/* A weak reference to obj, a live object of a type supporting them (new reference, or
 * NULL with an exception): what PyWeakref_NewRef(obj, NULL) returns, the object's basic
 * reference, made once and taken again while c->wr_keep holds it. The kept reference is
 * asked for its object, never compared by address: a reference whose object died reads
 * None, so a new object at the same address gets a reference of its own; an object
 * whose slot holds another's reference gets one of its own too (and takes the slot).
 * Out of coverage: which way answered must not show in the fuzz target's features. */
TR_NO_COVERAGE static PyObject *cache_weakref(TrCache *c, PyObject *obj)
{
    size_t k = ((uintptr_t)obj >> 4) & (TR_CACHE_WR_KEEP - 1);
    PyObject *wr = c->wr_keep[k];
    if (wr != NULL && tr_weakref_object(wr) == obj)
        return Py_NewRef(wr);
    wr = PyWeakref_NewRef(obj, NULL);
    if (wr == NULL)
        return NULL;
    Py_XSETREF(c->wr_keep[k], Py_NewRef(wr));   /* the old one: no finaliser */
    c->wr_used |= (uint64_t)1 << k;
    return wr;
}

/* tr_cache_remember; absent: the caller knows c holds no entry of (obj, name) (checked
 * in builds with assertions), so none is looked for. Inline in its two callers (each
 * keeping its own coverage): every traced miss took a call layer more. */
static inline __attribute__((always_inline)) int remember(TrRun *run, TrValue objv,
                                                          PyObject *name, const TrValue *value,
                                                          TrResolution how, const char *detail,
                                                          int absent)
{
    PyObject *obj = objv.obj;
    TrCache *c = run->cache;
    if (c == NULL)
        return 0;
    PyTypeObject *type = Py_TYPE(obj);
    unsigned int type_version = 0, obj_version = 0;
    /* The faults model a JIT whose memo owns what it remembered. */
    int strong = fault_on(run) || TR_FAULT_ON(run, TR_FAULT_STALE_CLASS_ATTR) ||
                 TR_FAULT_ON(run, TR_FAULT_STALE_DICT_WRITE);
    if (!fault_on(run)) {
        /* Without a valid version tag no guard can be checked: do not cache. */
        if (!version_of(type, &type_version))
            return 0;
        if (how == TR_RES_TYPE_DICT && !version_of((PyTypeObject *)obj, &obj_version))
            return 0;
    }
    /* PyType_SUPPORTS_WEAKREFS's test, asked once and inline (a call in 3.11). */
    int weak = !strong && type->tp_weaklistoffset > 0;
    /* Without a weak reference, identity rests on the record the read saw (see
     * same_object): an object without one cannot be cached. */
    if (!strong && !weak && objv.prov == NULL)
        return 0;
    /* The guard's state is read now: releasing old entries below can run finalisers
     * (strong entries), which may change obj; then these make the guard fail. */
    PyObject *dict = instance_dict(obj);
    uint64_t dict_version = dict != NULL ? ((PyDictObject *)dict)->ma_version_tag : 0;
    PyObject *wr = NULL;
    if (strong) {
        /* Own everything before dropping old entries (those finalisers again). */
        Py_INCREF(obj);
        Py_XINCREF(value->obj);
        Py_INCREF(type);
        Py_XINCREF(dict);
    }
    else if (weak) {
        /* No callback: shares the object's basic reference if it has one. */
        wr = cache_weakref(c, obj);
        if (wr == NULL)
            return -1;
    }

    if (!absent) {
        Py_ssize_t i = cache_find(c, obj, name);
        if (i >= 0)
            cache_remove(c, i);
    }
    assert(!absent || cache_find(c, obj, name) < 0);
    if (c->len >= TR_CACHE_MAX_ENTRIES)
        cache_clear(c);
    if (c->len == c->cap) {
        Py_ssize_t cap = c->cap ? 2 * c->cap : 16;
        CacheEntry *n = PyMem_RawRealloc(c->entries, (size_t)cap * sizeof *n);
        if (n != NULL)
            c->entries = n;
        CacheKey *nk = n != NULL ? PyMem_RawRealloc(c->keys, (size_t)cap * sizeof *nk) : NULL;
        if (nk == NULL) {   /* entries may have grown: cap stays, which is as good */
            if (strong) {
                Py_DECREF(obj);
                Py_XDECREF(value->obj);
                Py_DECREF(type);
                Py_XDECREF(dict);
            }
            if (wr != NULL)
                entry_wr_release(wr);
            PyErr_NoMemory();
            return -1;
        }
        c->keys = nk;
        c->cap = cap;
    }
    /* Filled in place, field by field (a local entry copied in was ~35 instructions of
     * every miss); nothing below can run code. value_type is written only when used. */
    CacheEntry *e = &c->entries[c->len];
    e->obj = obj;
    e->obj_wr = wr;
    e->name = Py_NewRef(name);
    e->value = value->obj;
    e->prov = value->prov;
    tr_prov_incref(e->prov);
    e->obj_prov = NULL;
    e->how = how;
    e->detail = detail;
    e->type = type;
    e->type_version = type_version;
    e->dict = dict;
    e->dict_version = dict_version;
    e->obj_version = obj_version;
    e->strong = strong;
    /* serve_entry_quick's premise: without a fault, only stable resolutions are kept
     * (finish_load's test), and never strongly. */
    assert(run->faults != 0 || (!strong && tr_cache_is_stable(how, detail)));
    e->checked = 0;
    e->line = 0;
    e->value_static = NULL;
    e->value_tname = NULL;
    if (!strong) {
        if (!weak) {
            e->obj_prov = objv.prov;
            tr_prov_incref(e->obj_prov);
        }
        /* A static type lives as long as the process: kept by address, named only for a
         * message. A heap type may die before the message: a copy of its name, as
         * snprintf("%s") made it (truncated, NUL-terminated), without the formatting (it
         * was a tenth of a traced call that stores in a loop). */
        if (value->obj == NULL) {
            e->value_tname = "NULL";
        }
        else if (!PyType_HasFeature(Py_TYPE(value->obj), Py_TPFLAGS_HEAPTYPE)) {
            e->value_static = Py_TYPE(value->obj);
        }
        else {
            const char *tn = _PyType_Name(Py_TYPE(value->obj));
            size_t n = strnlen(tn, sizeof e->value_type - 1);
            memcpy(e->value_type, tn, n);
            e->value_type[n] = '\0';
        }
    }
    c->keys[c->len].obj = obj;
    c->keys[c->len].name = e->name;
    c->len++;
    return 0;
}

int tr_cache_remember(TrRun *run, TrValue objv, PyObject *name, const TrValue *value,
                      TrResolution how, const char *detail)
{
    return remember(run, objv, name, value, how, detail, 0);
}

int tr_cache_remember_absent(TrRun *run, TrValue objv, PyObject *name, const TrValue *value,
                             TrResolution how, const char *detail)
{
    return remember(run, objv, name, value, how, detail, 1);
}

/* Whether the entry's guard still holds for obj, the live object the entry was
 * made from (cheap checks on obj, no lookup; the entry's pointers are compared). */
TR_HOT_INLINE int guard_holds(const CacheEntry *e, PyObject *obj)
{
    unsigned int v;
    PyTypeObject *tp = Py_TYPE(obj);
    if (tp != e->type || !version_of(tp, &v) || v != e->type_version)
        return 0;
    switch (e->how) {
    case TR_RES_INST_DICT:
    case TR_RES_CLASS_ATTR: {
        PyObject *d = instance_dict(obj);
        if (d != e->dict)
            return 0;
        return d == NULL || ((PyDictObject *)d)->ma_version_tag == e->dict_version;
    }
    case TR_RES_SLOT:
        return 1;
    case TR_RES_TYPE_DICT:
        return version_of((PyTypeObject *)obj, &v) && v == e->obj_version;
    default:
        return 0;
    }
}

/* str(o) for a message, never failing: falls back to <T object at 0x..>. New ref. */
static PyObject *safe_str(PyObject *o)
{
    if (o == NULL)
        return PyUnicode_FromString("<no value>");
    PyObject *s = PyObject_Str(o);
    if (s == NULL) {
        PyErr_Clear();
        s = PyUnicode_FromFormat("<%s object at %p>", Py_TYPE(o)->tp_name, (void *)o);
    }
    return s;
}

/* The remembered value named for a message (new ref, NULL on error). A weak entry
 * does not know whether its value is alive: it names it by type and address, the
 * way object.__repr__ would, and never touches it. str() of a strong entry's value
 * may run user code that drops the entry: the value is owned meanwhile. */
static PyObject *cached_str(const CacheEntry *e)
{
    if (!e->strong)
        return PyUnicode_FromFormat("<%.63s object at %p>",
                                    e->value_static != NULL ? _PyType_Name(e->value_static)
                                    : e->value_tname != NULL ? e->value_tname : e->value_type,
                                    (void *)e->value);
    PyObject *v = Py_XNewRef(e->value);
    PyObject *s = safe_str(v);
    Py_XDECREF(v);
    return s;
}

/* Raises ProvenanceError "attribute NAME of TYPE object out of sync: A vs. B";
 * cached is the remembered value's text (stolen, may be NULL after an error). */
static void out_of_sync(PyObject *obj, PyObject *name, PyObject *cached, PyObject *now)
{
    /* str() may run user code that drops the cache's references: own them meanwhile. */
    Py_INCREF(obj);
    Py_INCREF(name);
    Py_XINCREF(now);
    PyObject *b = cached != NULL ? safe_str(now) : NULL;
    if (cached != NULL && b != NULL)
        PyErr_Format(tr_ProvenanceError ? tr_ProvenanceError : PyExc_AssertionError,
                     "attribute %U of %s object out of sync: %U vs. %U", name,
                     _PyType_Name(Py_TYPE(obj)), cached, b);
    Py_XDECREF(cached);
    Py_XDECREF(b);
    Py_DECREF(obj);
    Py_DECREF(name);
    Py_XDECREF(now);
}

/* What CPython's algorithm yields now for the stable entry e of the live object
 * obj, re-resolved without running user code: a new reference, or NULL (no
 * exception) when the attribute would no longer resolve the same way (a data
 * descriptor appeared, the value is gone). -1 in *err on a real error. */
static PyObject *re_resolve(const CacheEntry *e, PyObject *obj, int *err)
{
    PyTypeObject *tp = Py_TYPE(obj);
    PyObject *descr = _PyType_Lookup(tp, e->name);   /* borrowed */
    PyObject *r = NULL;
    *err = 0;
    switch (e->how) {
    case TR_RES_INST_DICT:
    case TR_RES_CLASS_ATTR: {
        if (descr != NULL && Py_TYPE(descr)->tp_descr_get != NULL &&
            (e->how == TR_RES_CLASS_ATTR || PyDescr_IsData(descr)))
            return NULL;
        PyObject *d = instance_dict(obj);
        if (d != NULL) {
            r = PyDict_GetItemWithError(d, e->name);
            if (r != NULL)
                return e->how == TR_RES_INST_DICT ? Py_NewRef(r) : NULL;
            if (PyErr_Occurred()) {
                *err = -1;
                return NULL;
            }
        }
        return e->how == TR_RES_CLASS_ATTR ? Py_XNewRef(descr) : NULL;
    }
    case TR_RES_SLOT: {
        if (descr == NULL || !tr_member_holds_object(descr))
            return NULL;
        /* member_get (3.11's descrobject.c) without the call when it runs nothing: the
         * owner passes its type check and the member has no audit hook; then it is
         * PyMember_GetOne's read at the offset (T_OBJECT: None for unset). */
        PyMemberDef *m = ((PyMemberDescrObject *)descr)->d_member;
        if (!(m->flags & PY_AUDIT_READ) && PyObject_TypeCheck(obj, PyDescr_TYPE(descr))) {
            r = tr_pc_member_value(obj, m);
            return Py_XNewRef(r);   /* NULL: an unset T_OBJECT_EX slot, not the value */
        }
        r = Py_TYPE(descr)->tp_descr_get(descr, obj, (PyObject *)tp);
        if (r == NULL)
            PyErr_Clear();   /* an unset slot: not the cached value either */
        return r;
    }
    case TR_RES_TYPE_DICT: {
        if (descr != NULL && Py_TYPE(descr)->tp_descr_set != NULL)
            return NULL;   /* a metatype data descriptor wins */
        PyObject *a = _PyType_Lookup((PyTypeObject *)obj, e->name);
        if (a == NULL || Py_TYPE(a)->tp_descr_get != NULL)
            return NULL;
        return Py_NewRef(a);
    }
    default:
        return NULL;
    }
}

/* What re_resolve of entry e on obj depends on beyond e's guard (CacheEntry.checked):
 * fills *m and returns 1 when it can be memoised, decided BEFORE re_resolve runs: only
 * where re_resolve runs no user code (an exact dict whose keys are all exact strs, so no
 * key's __eq__; a slot read in place, not through its getter), so e is still valid
 * after it.
 * Else 0 (resolved each time, as before). */
static int memo_prepare(const CacheEntry *e, PyObject *obj, CacheMemo *m)
{
    PyObject *descr = _PyType_Lookup(Py_TYPE(obj), e->name);   /* borrowed */
    m->offset = 0;
    m->t_object = 0;
    switch (e->how) {
    case TR_RES_INST_DICT:
    case TR_RES_CLASS_ATTR: {
        PyObject *d = instance_dict(obj);
        if (d != NULL && (!PyDict_CheckExact(d) || !tr_dict_keys_all_str(d)))
            return 0;   /* a dict subclass as __dict__: resolved each time */
        break;
    }
    case TR_RES_SLOT: {
        if (descr == NULL || !tr_member_holds_object(descr))
            return 0;
        PyMemberDef *md = ((PyMemberDescrObject *)descr)->d_member;
        if ((md->flags & PY_AUDIT_READ) || !PyObject_TypeCheck(obj, PyDescr_TYPE(descr)))
            return 0;
        m->offset = md->offset;
        m->t_object = md->type == T_OBJECT;
        break;
    }
    default:
        return 0;
    }
    /* A descriptor whose type is immutable (static types: a slot's member descriptor, an
     * int or str class attribute) keeps that type (3.11 refuses __class__ assignment to
     * or from an immutable type) and the type keeps its slots: nothing for memo_hit to
     * read again on every hit, which it skips for a NULL descr. A heap type's instance
     * is read again (a class can gain __get__ or __set__ without a version change of the
     * owner's type). */
    m->descr = descr != NULL && !PyType_HasFeature(Py_TYPE(descr), Py_TPFLAGS_IMMUTABLETYPE)
        ? descr : NULL;
    m->dget = descr != NULL ? Py_TYPE(descr)->tp_descr_get : NULL;
    m->dset = descr != NULL ? Py_TYPE(descr)->tp_descr_set : NULL;
    return 1;
}

/* re_resolve's answer from e's memo, for an obj whose guard (guard_holds) just passed:
 * the live value, borrowed (the unchanged dict or MRO holds it, or the slot does), when
 * it is the remembered one; NULL when the memo cannot answer or the value differs
 * (then re_resolve decides, and names the difference). */
static inline PyObject *memo_hit(const CacheEntry *e, PyObject *obj)
{
    if (!e->checked)
        return NULL;
    const CacheMemo *m = &e->chk;
    if (m->descr != NULL && (Py_TYPE(m->descr)->tp_descr_get != m->dget ||
                             Py_TYPE(m->descr)->tp_descr_set != m->dset))
        return NULL;
    if (e->how == TR_RES_SLOT) {
        PyObject *r = *(PyObject **)((char *)obj + m->offset);
        if (r == NULL && m->t_object)
            r = Py_None;
        return r == e->value ? r : NULL;
    }
    return e->value;   /* INST_DICT, CLASS_ATTR: the same dict, the same MRO */
}

static int serve_resolved(CacheEntry *e, TrValue obj, PyObject *name, TrValue *out);

/* The end of a hit whose identity and guard held: the memo's value (*memo_e = e when
 * memo_e is not NULL), else serve_resolved. Same contract as serve_entry. */
TR_HOT_INLINE int serve_checked(CacheEntry *e, TrValue obj, PyObject *name, TrValue *out,
                                CacheEntry **memo_e)
{
    PyObject *now = memo_hit(e, obj.obj);
    if (now != NULL) {
        *out = tr_value_new(Py_NewRef(now), e->prov);
        tr_prov_incref(e->prov);
        if (memo_e != NULL)
            *memo_e = e;
        return 1;
    }
    return serve_resolved(e, obj, name, out);
}

/* Entry i of c for obj, past the faults' shortcuts: dropped (0) unless its resolution is
 * stable, it is obj's and its guard holds; then served from its memo, else re-resolved
 * and compared (serve_resolved). 1 with *out (new references: the live value, the
 * remembered record), -1 as serve_resolved. Inline in tr_cache_serve (tr_attr_load_fast
 * has serve_entry_quick). obj and name borrowed. */
TR_HOT_INLINE int serve_entry(TrCache *c, Py_ssize_t i, TrValue obj, PyObject *name,
                              TrValue *out)
{
    CacheEntry *e = &c->entries[i];
    if (!tr_cache_is_stable(e->how, e->detail) || !same_object(e, obj.obj, obj.prov) ||
        !guard_holds(e, obj.obj)) {
        cache_remove(c, i);
        return 0;
    }
    return serve_checked(e, obj, name, out, NULL);
}

/* serve_entry for tr_attr_load_fast (a run without faults): such a run's cache holds only
 * entries that are not strong (strong: made under a fault) and whose resolution is stable
 * (finish_load remembers nothing else without assume_stable_attrs; remember asserts both),
 * so neither is asked again on every hit; and entry i's key, hence its obj, is obj
 * (cache_find_memo found it so), so same_object's first test is the key's. The rest as
 * serve_entry: the identity (the weak reference's object, else the record the read saw),
 * the guard, the memo, else serve_resolved. Same contract. */
TR_HOT_INLINE int serve_entry_quick(TrCache *c, Py_ssize_t i, TrValue obj, PyObject *name,
                                    TrValue *out, CacheEntry **memo_e)
{
    CacheEntry *e = &c->entries[i];
    assert(!e->strong && tr_cache_is_stable(e->how, e->detail) && e->obj == obj.obj);
    int same = e->obj_wr != NULL ? tr_weakref_object(e->obj_wr) == obj.obj
                                 : obj.prov != NULL && e->obj_prov == obj.prov;
    if (!same || !guard_holds(e, obj.obj)) {
        cache_remove(c, i);
        return 0;
    }
    return serve_checked(e, obj, name, out, memo_e);
}

int tr_cache_serve(TrRun *run, TrValue obj, PyObject *name, TrValue *out)
{
    TrCache *c = run->cache;
    Py_ssize_t i = cache_find(c, obj.obj, name);
    if (i < 0)
        return 0;
    CacheEntry *e = &c->entries[i];
    /* Fault stale_class_attr: class attributes are served without guard or assertion,
     * the quiet way (a tracer that forgot the class can change). Such entries are
     * strong (made under the fault), so the value is alive. */
    if (TR_FAULT_ON(run, TR_FAULT_STALE_CLASS_ATTR) && e->strong &&
        (e->how == TR_RES_CLASS_ATTR || e->how == TR_RES_TYPE_DICT)) {
        *out = tr_value_new(Py_NewRef(e->value), e->prov);
        tr_prov_incref(e->prov);
        return 1;
    }
    /* Fault stale_dict_write: an instance dict entry is served while the object
     * keeps its type and dict, whatever was written into the dict since, without
     * the assertion (the dict version is the guard this JIT forgot). Strong entry:
     * the value is alive. */
    if (TR_FAULT_ON(run, TR_FAULT_STALE_DICT_WRITE) && e->strong && e->how == TR_RES_INST_DICT &&
        same_object(e, obj.obj, obj.prov) && Py_TYPE(obj.obj) == e->type &&
        instance_dict(obj.obj) == e->dict) {
        unsigned int v;
        if (version_of(e->type, &v) && v == e->type_version) {
            *out = tr_value_new(Py_NewRef(e->value), e->prov);
            tr_prov_incref(e->prov);
            return 1;
        }
    }
    return serve_entry(c, i, obj, name, out);
}

/* tr_cache_serve past the memo: entry e of obj (its guard just passed, its memo could
 * not answer) re-resolved, compared, memoised when that ran no user code. 1 with *out
 * (new references: the live value, the remembered record), or -1 with ProvenanceError
 * "out of sync" (or another error) and *out untouched. obj and name borrowed. Apart
 * (never inlined) so that tr_attr_load_fast's calls keep its coverage. */
static __attribute__((noinline)) int serve_resolved(CacheEntry *e, TrValue obj, PyObject *name,
                                                    TrValue *out)
{
    PyObject *now;
    CacheMemo memo;
    int memoise = !e->checked && memo_prepare(e, obj.obj, &memo);
    int err;
    now = re_resolve(e, obj.obj, &err);
    if (err < 0)
        return -1;
    if (now != e->value) {
        /* Only addresses were compared: the remembered value is named, not touched. */
        out_of_sync(obj.obj, name, cached_str(e), now);
        Py_XDECREF(now);
        return -1;
    }
    if (memoise) {     /* re_resolve ran no user code: e is still the entry */
        e->chk = memo;
        e->checked = 1;
    }
    /* The live object, which is the remembered one: never the stored pointer. */
    *out = tr_value_new(now, e->prov);
    tr_prov_incref(e->prov);
    return 1;
}

/* LOAD_ATTR in one call (tr_attr.h), no fault on, for an exact str name once
 * tr_attr_ready has run: what tr_attr_get, tr_cache_serve and run_frame's LOAD_ATTR do,
 * the same tests in the same order, each check still comparing against its own memo;
 * only the call layers between them are gone. A hit (answered by the entry's memo,
 * else by serve_resolved, tr_cache_serve's own tail) records its "[cached]" line inline
 * (tr_trace_name_fast) and asks the traced-mode oracle (tr_provcheck_traced_hit inline,
 * else tr_provcheck_traced). No entry, or one that fails its checks (dropped, as
 * tr_cache_serve drops it), resolves at once (tr_attr_get_resolve: tr_attr_get after
 * its lookup answered 0), then the oracle. A fault, a name that is not an exact str,
 * tr_attr_ready not run: 0 before any effect, and tr_attr_get decides as before. Returns 1 with *out
 * (new references: the value, its record), or -1 with an exception set (*out
 * released). obj and name borrowed. Out of coverage: the oracle's memo hits depend on
 * earlier calls; the resolution's own branches stay in tr_attr_get_resolve's coverage,
 * and whether a load was taken here (decided by this call's own history) in
 * run_frame's branch on the result. */
TR_NO_COVERAGE int tr_attr_load_fast(TrRun *run, TrValue obj, PyObject *name, TrValue *out)
{
    TrCache *c = run->cache;
    if (run->faults != 0 || c == NULL || !tr_attr_is_ready || !PyUnicode_CheckExact(name))
        return 0;
    Py_ssize_t i = cache_find_memo(c, obj.obj, name);
    CacheEntry *me = NULL;   /* the entry, when its memo answered (no code ran since) */
    int served = i >= 0 ? serve_entry_quick(c, i, obj, name, out, &me) : 0;
    if (served < 0)
        return -1;
    if (served) {
        /* The served value and its record in hand (name was tested above): the line's
         * stores are not taken to change *out, which is not read again. The line through
         * the entry's template, else recorded in full (and a template made for the
         * entry's next hits). */
        PyObject *v = out->obj;
        TrProv *vp = out->prov;
        if (run->trace != NULL &&
            !(me != NULL && v != NULL &&
              tr_trace_hit_fast(run->trace, me->line, name, Py_TYPE(v), vp)) &&
            tr_trace_hit_line(run, name, out, me != NULL ? &me->line : NULL) < 0)
            goto error;
        if (tr_provcheck_on && (v == NULL || !tr_provcheck_traced_hit(obj.obj, name, v)) &&
            tr_provcheck_traced_miss(obj.obj, name, v, vp) < 0)
            goto error;
        return 1;
    }
    if (tr_attr_get_resolve(run, obj, name, out) < 0)
        return -1;
    if (tr_provcheck_on &&
        (out->obj == NULL || !tr_provcheck_traced_hit(obj.obj, name, out->obj)) &&
        tr_provcheck_traced_miss(obj.obj, name, out->obj, out->prov) < 0)
        goto error;
    return 1;
error:
    tr_value_clear(out);
    return -1;
}

int tr_cache_reconcile(TrRun *run, TrValue objv, PyObject *name, TrValue *fresh)
{
    TrCache *c = run->cache;
    PyObject *obj = objv.obj;
    if (c == NULL)
        return 0;
    Py_ssize_t i = cache_find(c, obj, name);
    if (i < 0)
        return tr_cache_remember(run, objv, name, fresh, fresh->prov ? fresh->prov->how
                                 : TR_RES_NONE, fresh->prov ? fresh->prov->detail : "");
    CacheEntry *e = &c->entries[i];
    if (!same_object(e, obj, objv.prov)) {
        /* A dead object's entry (only possible if the fault was switched on during
         * the run): forget it and start over with the fresh value. */
        cache_remove(c, i);
        return tr_cache_reconcile(run, objv, name, fresh);
    }
    if (e->value != fresh->obj) {
        out_of_sync(obj, name, cached_str(e), fresh->obj);
        return -1;
    }
    /* The same object: it keeps the remembered provenance. */
    TrProv *p = e->prov;
    tr_prov_incref(p);
    tr_prov_decref(fresh->prov);
    fresh->prov = p;
    return 0;
}

/* ---- Fault stale_class_attr across calls --------------------------------------
 * A JIT that specialises on a class attribute's value without a guard on the class
 * replays the old value on the next call after the class changed. The memo keeps,
 * per (class, name, access), the last value read as a plain class attribute, for
 * the whole process, and serves it before resolving. Bounded: a full memo starts
 * over. Only consulted while the fault is on. */
#define STALE_MEMO_MAX 64

typedef struct {
    PyObject *cls;      /* strong: the class the attribute was found through */
    PyObject *name;     /* strong */
    PyObject *value;    /* strong */
    int on_class;       /* read on the class itself (C.x) rather than an instance */
} StaleEntry;

static StaleEntry stale_memo[STALE_MEMO_MAX];
static int stale_len;

static void stale_clear(void)
{
    int n = stale_len;
    StaleEntry old[STALE_MEMO_MAX];
    memcpy(old, stale_memo, sizeof old);
    stale_len = 0;
    for (int i = 0; i < n; i++) {
        Py_DECREF(old[i].cls);
        Py_DECREF(old[i].name);
        Py_DECREF(old[i].value);
    }
}

/* The memo key of a load of obj.name: its class, and whether obj is that class. */
static PyObject *stale_key(PyObject *obj, int *on_class)
{
    *on_class = PyType_Check(obj);
    return *on_class ? obj : (PyObject *)Py_TYPE(obj);
}

static int stale_find(PyObject *cls, PyObject *name, int on_class)
{
    for (int i = 0; i < stale_len; i++) {
        if (stale_memo[i].cls == cls && stale_memo[i].on_class == on_class &&
            same_name(stale_memo[i].name, name))
            return i;
    }
    return -1;
}

static int dict_memo_serve(TrValue obj, PyObject *name, TrValue *out);
static int dict_memo_remember(PyObject *obj, PyObject *name, const TrValue *value,
                              TrResolution how, const char *detail);

int tr_cache_stale_serve(TrRun *run, TrValue obj, PyObject *name, TrValue *out)
{
    if (TR_FAULT_ON(run, TR_FAULT_STALE_DICT_WRITE)) {
        int hit = dict_memo_serve(obj, name, out);
        if (hit != 0)
            return hit;
    }
    if (!TR_FAULT_ON(run, TR_FAULT_STALE_CLASS_ATTR))
        return 0;
    int on_class;
    PyObject *cls = stale_key(obj.obj, &on_class);
    int i = stale_find(cls, name, on_class);
    if (i < 0)
        return 0;
    TrProv *p = tr_attr_prov(obj.prov, name, on_class ? TR_RES_TYPE_DICT : TR_RES_CLASS_ATTR,
                             "class_attr", NULL);
    if (p == NULL)
        return -1;
    *out = tr_value_new(Py_NewRef(stale_memo[i].value), p);
    return 1;
}

int tr_cache_stale_remember(TrRun *run, PyObject *obj, PyObject *name, const TrValue *value,
                            TrResolution how, const char *detail)
{
    if (TR_FAULT_ON(run, TR_FAULT_STALE_DICT_WRITE) &&
        dict_memo_remember(obj, name, value, how, detail) < 0)
        return -1;
    if (!TR_FAULT_ON(run, TR_FAULT_STALE_CLASS_ATTR))
        return 0;
    if ((how != TR_RES_CLASS_ATTR && how != TR_RES_TYPE_DICT) || !tr_detail_is(detail, "class_attr"))
        return 0;
    int on_class;
    PyObject *cls = stale_key(obj, &on_class);
    if (stale_find(cls, name, on_class) >= 0)
        return 0;
    if (stale_len == STALE_MEMO_MAX)
        stale_clear();
    StaleEntry e = {Py_NewRef(cls), Py_NewRef(name), Py_NewRef(value->obj), on_class};
    stale_memo[stale_len++] = e;
    return 0;
}

/* ---- Fault stale_dict_write across calls ---------------------------------------
 * A JIT that remembers "obj.name is v" per object and forgets it only on its own
 * write barrier (stores and deletes through the attribute protocol), never on a
 * write into the instance dict as a dict: not in traced code (tr_attr_note_dict_write
 * does nothing under the fault) and not in untraced code between calls (it has no
 * dict guard). The memo keeps, per (object, name), the last instance-dict value or
 * plain class attribute read, for the whole process, and serves it before resolving
 * while the object has the same type (version) and the same dict object: after
 * obj.__dict__[name] = v, or a shadowing entry written that way, the old value comes
 * back. Bounded: a full memo starts over. Only consulted while the fault is on;
 * entries are strong (a stale value must be alive to be served). */
#define DICT_MEMO_MAX 64

typedef struct {
    PyObject *obj;          /* strong */
    PyObject *name;         /* strong */
    PyObject *value;        /* strong */
    PyObject *type;         /* strong: type(obj) at the read */
    unsigned int type_version;
    PyObject *dict;         /* compared only: obj's dict at the read (obj keeps it) */
    TrResolution how;       /* TR_RES_INST_DICT or TR_RES_CLASS_ATTR */
} DictMemoEntry;

static DictMemoEntry dict_memo[DICT_MEMO_MAX];
static int dict_memo_len;

/* Unlinks entry i, then releases it (finalisers may re-enter the memo). */
static void dict_memo_remove(int i)
{
    DictMemoEntry e = dict_memo[i];
    dict_memo[i] = dict_memo[--dict_memo_len];
    Py_DECREF(e.obj);
    Py_DECREF(e.name);
    Py_DECREF(e.value);
    Py_DECREF(e.type);
}

static int dict_memo_find(PyObject *obj, PyObject *name)
{
    for (int i = 0; i < dict_memo_len; i++) {
        if (dict_memo[i].obj == obj && same_name(dict_memo[i].name, name))
            return i;
    }
    return -1;
}

static void dict_memo_forget(PyObject *obj, PyObject *name, int all_of_obj)
{
    for (int i = dict_memo_len - 1; i >= 0; i--) {
        if (i < dict_memo_len && dict_memo[i].obj == obj &&
            (all_of_obj || same_name(dict_memo[i].name, name)))
            dict_memo_remove(i);
    }
}

static int dict_memo_serve(TrValue obj, PyObject *name, TrValue *out)
{
    int i = dict_memo_find(obj.obj, name);
    if (i < 0)
        return 0;
    DictMemoEntry *e = &dict_memo[i];
    unsigned int v;
    /* The guards this JIT does have: the type and its version, the dict object. */
    if ((PyObject *)Py_TYPE(obj.obj) != e->type || !version_of(Py_TYPE(obj.obj), &v) ||
        v != e->type_version || instance_dict(obj.obj) != e->dict) {
        dict_memo_remove(i);
        return 0;
    }
    TrProv *p = tr_attr_prov(obj.prov, name, e->how,
                             e->how == TR_RES_INST_DICT ? "inst_dict" : "class_attr", NULL);
    if (p == NULL)
        return -1;
    *out = tr_value_new(Py_NewRef(e->value), p);
    return 1;
}

static int dict_memo_remember(PyObject *obj, PyObject *name, const TrValue *value,
                              TrResolution how, const char *detail)
{
    unsigned int v;
    if (!((how == TR_RES_INST_DICT && tr_detail_is(detail, "inst_dict")) ||
          (how == TR_RES_CLASS_ATTR && tr_detail_is(detail, "class_attr"))) ||
        PyType_Check(obj) || value->obj == NULL || !version_of(Py_TYPE(obj), &v))
        return 0;
    DictMemoEntry e = {Py_NewRef(obj), Py_NewRef(name), Py_NewRef(value->obj),
                       Py_NewRef((PyObject *)Py_TYPE(obj)), v, instance_dict(obj), how};
    int i = dict_memo_find(obj, name);
    if (i >= 0)
        dict_memo_remove(i);
    while (dict_memo_len >= DICT_MEMO_MAX)
        dict_memo_remove(dict_memo_len - 1);
    dict_memo[dict_memo_len++] = e;
    return 0;
}
