/* tr_attr.h: CPython's attribute protocol, modelled explicitly (tr_attr.c).
 * Each function mirrors the CPython function it names, step by step, running
 * Python-level getters/__get__/__getattr__/__getattribute__ through tr_call so
 * provenance flows through them, and records on the result's ATTR provenance how
 * the load was resolved. All borrow their arguments; results are new TrValues. */
#ifndef TR_ATTR_H
#define TR_ATTR_H

#include "tr_run.h"

/* obj.name (LOAD_ATTR, getattr()): 0 and *out set, or -1 with an exception set
 * (AttributeError included, exactly as CPython would raise it). */
int tr_attr_get(TrRun *run, TrValue obj, PyObject *name, TrValue *out);

/* LOAD_ATTR in one call (tr_cache.c), no fault on: the attribute cache's answer (a hit
 * answered by the entry's memo, or a resolution when there is no usable entry), its
 * trace line and the traced-mode provenance check. 1 with *out (new references), 0
 * when it does not apply (nothing done: tr_attr_get and tr_provcheck_traced as usual),
 * -1 with an exception set (AttributeError, ProvenanceError, ...). obj and name
 * borrowed. */
int tr_attr_load_fast(TrRun *run, TrValue obj, PyObject *name, TrValue *out);

/* LOAD_METHOD: like CPython's _PyObject_GetMethod. Returns 1 with *meth the plain
 * function found on the type (unbound; the caller passes obj as self), 0 with *meth
 * the already-bound attribute, -1 on error. */
int tr_attr_get_method(TrRun *run, TrValue obj, PyObject *name, TrValue *meth);

/* obj.name = value (STORE_ATTR, setattr()) and del obj.name (DELETE_ATTR, delattr()).
 * Both invalidate the attribute cache for (obj, name). 0 or -1. */
int tr_attr_set(TrRun *run, TrValue obj, PyObject *name, TrValue value);
int tr_attr_del(TrRun *run, TrValue obj, PyObject *name);

/* object.__setattr__ / object.__delattr__ / object.__getattribute__ called
 * explicitly (super().__setattr__ in module-like classes): the generic algorithm
 * without the type's overrides. value NULL obj deletes. */
int tr_attr_generic_get(TrRun *run, TrValue obj, PyObject *name, TrValue *out);
int tr_attr_generic_set(TrRun *run, TrValue obj, PyObject *name, const TrValue *value);

/* Something opaque ran (a C call that may have run arbitrary code, a write through a
 * dict the tracer does not follow): forget every cached attribute. */
void tr_attr_note_escape(TrRun *run);
/* A dict object was written (STORE_SUBSCR/DELETE_SUBSCR on it, or dict methods):
 * forget cached attributes whose instance dict is d. */
void tr_attr_note_dict_write(TrRun *run, PyObject *d);

/* Per-run cache lifetime (tr_cache.c). */
TrCache *tr_cache_new(void);
void tr_cache_free(TrCache *cache);   /* releases every reference it held */

#endif
