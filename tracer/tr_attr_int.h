/* tr_attr_int.h: internals shared by the attribute protocol (tr_attr_*.c) and the
 * provenance cache (tr_cache.c). Not a contract between parts: only these files
 * include it.
 *
 * CPython installs a handful of static C functions in the type slots of classes
 * written in Python (typeobject.c: slot_tp_getattr_hook, slot_tp_getattro,
 * slot_tp_setattro, slot_tp_descr_get, slot_tp_descr_set). They are not exported,
 * yet the protocol must recognise them to know that a slot means "a Python-level
 * override": tr_slot_funcs holds their addresses, read once from probe classes.
 */
#ifndef TR_ATTR_INT_H
#define TR_ATTR_INT_H

#include <string.h>

#include "tr_attr.h"
#include "tr_eval.h"

typedef struct {
    getattrofunc getattr_hook;   /* slot_tp_getattr_hook: __getattr__ (and/or __getattribute__) */
    getattrofunc getattro;       /* slot_tp_getattro: __getattribute__ without __getattr__ */
    setattrofunc setattro;       /* slot_tp_setattro: __setattr__ / __delattr__ */
    descrgetfunc descr_get;      /* slot_tp_descr_get: a Python-level __get__ */
    descrsetfunc descr_set;      /* slot_tp_descr_set: a Python-level __set__ / __delete__ */
} TrSlotFuncs;

extern TrSlotFuncs tr_slot_funcs;

/* Interned names (process lifetime), filled by tr_attr_ready. */
typedef struct {
    PyObject *get, *set, *delete_, *getattr, *getattribute, *setattr, *delattr;
    PyObject *class_, *dict, *thisclass, *self_, *self_class;
} TrAttrNames;
extern TrAttrNames tr_names;

/* Fills tr_slot_funcs and tr_names once (later calls return at once). 0, or -1 with an
 * exception. The test inline: every traced attribute load asks. */
extern int tr_attr_is_ready;
int tr_attr_ready_slow(void);
static inline int tr_attr_ready(void)
{
    return tr_attr_is_ready ? 0 : tr_attr_ready_slow();
}

/* A new ATTR record for base.name resolved as how/detail whose value came from the
 * provenance via (borrowed, may be NULL: stored as the record's arg). NULL on error. */
static inline TrProv *tr_attr_prov(TrProv *base, PyObject *name, TrResolution how,
                                   const char *detail, TrProv *via)
{
    return tr_prov_attr_via(base, name, how, detail, via);
}

/* descr.__get__(obj, type) as the descriptor's tp_descr_get slot would run it, with
 * Python-level code (property getters, __get__ methods) interpreted through
 * tr_call. obj.obj == NULL is class access (CPython passes NULL; a Python __get__
 * receives None). site/name describe the access for the provenance of the callee.
 * Returns 0 with *out holding new references (out->prov: the provenance the
 * interpreted getter gave its result, NULL when nothing was interpreted), -1 with an
 * exception set. *detail receives a static name of the mechanism ("property.fget",
 * "method", "classmethod", "slot", ...). */
int tr_descr_get(TrRun *run, PyObject *descr, TrValue obj, PyObject *type,
                 TrProv *site, PyObject *name, TrValue *out, const char **detail);

/* Whether descr is a member descriptor holding a stored object (T_OBJECT or
 * T_OBJECT_EX: what __slots__ make). Other members (T_DOUBLE, T_INT, ...) build a
 * new object on every read, like getsets: computed, never cached. */
int tr_member_holds_object(PyObject *descr);

/* Fault cached_property_recomputed (tr_attr_get.c): whether descr is a
 * functools.cached_property, and running its function on obj, interpreted, as a
 * property would (the instance dict entry it wrote is ignored). 0 with *out, -1
 * with an exception, 1 (nothing done) when descr has no callable "func". */
int tr_is_cached_property(PyObject *descr);
int tr_cached_property_rerun(TrRun *run, PyObject *descr, TrValue obj, PyObject *name,
                             TrValue *out, const char **detail);

/* descr.__set__(obj, value) or, value NULL, descr.__delete__(obj), as the
 * tp_descr_set slot would run it (property fset/fdel and Python-level __set__ /
 * __delete__ interpreted; member descriptors, getsets called directly).
 * 0 or -1 with an exception set. *detail as for tr_descr_get. */
int tr_descr_set(TrRun *run, PyObject *descr, TrValue obj, const TrValue *value,
                 TrProv *site, PyObject *name, const char **detail);

/* Calls attr, found on type(self), with self bound first: CPython's call_attribute /
 * vectorcall_method (typeobject.c) used by the slot_* functions. A plain function
 * (or a method descriptor) is called with self prepended; anything else is bound
 * through tr_descr_get first. args borrowed. 0 with *out, or -1. */
int tr_call_bound(TrRun *run, PyObject *attr, TrValue self, const TrValue *args,
                  Py_ssize_t nargs, TrProv *site, PyObject *name, TrValue *out);

/* Invalidation of the cache by the protocol's own stores and deletes (tr_cache.c):
 * forget (obj, name), and everything when obj is a type or name rebinds the
 * object's class or dict. Called BEFORE the store runs, so the cache never keeps
 * the old value alive past the moment CPython would drop it. */
void tr_cache_note_store(TrRun *run, PyObject *obj, PyObject *name);

/* The cache's side of a load (tr_cache.c).
 * tr_cache_serve: for a stable entry of (obj, name) made from this very object (a
 * weak reference to it, or obj.prov being the record the read saw) whose guard
 * passes, asserts the cached object is the one CPython's algorithm yields now
 * (re-resolved without user code) and returns 1 with *out (new references: the
 * live object and the remembered provenance); an entry that fails these checks is
 * dropped and 0 returned; no entry: 0. -1 with ProvenanceError when the assertion
 * fails. Not used under the assume_stable_attrs fault (see tr_cache_reconcile).
 * tr_cache_remember: stores the result of a fresh load when its resolution is
 * stable (or, under the fault, whatever it was). Without a fault the entry keeps no
 * object alive (weak reference or compared addresses, see tr_cache.c). 0 or -1
 * (MemoryError).
 * tr_cache_reconcile (assume_stable_attrs only, Thunder's wrap_attribute): after a
 * fresh load, if (obj, name) already has an entry its object must be the fresh one:
 * *fresh is replaced by the cached value; otherwise ProvenanceError "attribute X of
 * T object out of sync: <cached> vs. <fresh>". Without an entry the fresh value is
 * remembered. 0 or -1. */
int tr_cache_serve(TrRun *run, TrValue obj, PyObject *name, TrValue *out);
/* tr_attr_get past its cache lookup (tr_attr_get.c), for tr_attr_load_fast. */
int tr_attr_get_resolve(TrRun *run, TrValue obj, PyObject *name, TrValue *out);
int tr_cache_remember(TrRun *run, TrValue obj, PyObject *name, const TrValue *value,
                      TrResolution how, const char *detail);
/* tr_cache_remember for a caller that knows the cache holds no entry of (obj, name):
 * tr_attr_get_resolve, after tr_attr_load_fast found none or dropped the one it found,
 * its resolution stable (no code ran since). Nothing is looked for. */
int tr_cache_remember_absent(TrRun *run, TrValue obj, PyObject *name, const TrValue *value,
                             TrResolution how, const char *detail);
int tr_cache_reconcile(TrRun *run, TrValue obj, PyObject *name, TrValue *fresh);

/* Fault stale_class_attr across traced calls: serve (1 with *out, 0, -1) a class
 * attribute remembered by an earlier call without looking at the class now, and
 * remember plain class attributes read. No-ops without the fault. */
int tr_cache_stale_serve(TrRun *run, TrValue obj, PyObject *name, TrValue *out);
int tr_cache_stale_remember(TrRun *run, PyObject *obj, PyObject *name, const TrValue *value,
                            TrResolution how, const char *detail);

/* strcmp(d, lit) == 0, asked once per traced load: the details are static strings,
 * the same literal mostly merged into one address by the linker. */
static inline int tr_detail_is(const char *d, const char *lit)
{
    return d == lit || (d[0] == lit[0] && strcmp(d, lit) == 0);
}

/* Whether a resolution can be cached without the fault (values CPython keeps). Inline:
 * every traced miss and every cache hit asks. */
static inline int tr_cache_is_stable(TrResolution how, const char *detail)
{
    switch (how) {
    case TR_RES_INST_DICT:
        return 1;
    case TR_RES_SLOT:
        return tr_detail_is(detail, "slot");
    case TR_RES_CLASS_ATTR:
    case TR_RES_TYPE_DICT:
        /* Not "super.class_attr": a super object's lookup is not its own type's. */
        return tr_detail_is(detail, "class_attr");
    default:
        return 0;
    }
}

#endif
