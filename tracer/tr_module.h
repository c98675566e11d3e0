/* tr_module.h: the C entry of module tfjit, for embedders (tfpython, the harness),
 * which register it with PyImport_AppendInittab("tfjit", PyInit_tfjit) before
 * initialising CPython. */
#ifndef TR_MODULE_H
#define TR_MODULE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

PyMODINIT_FUNC PyInit_tfjit(void);

/* The attribute operations of the last traced call (what tfjit.last_trace() prints,
 * without building its text), in order, for an embedder's feedback: op is
 * "LOAD_ATTR", "LOAD_METHOD", "STORE_ATTR" or "DELETE_ATTR"; how is the mechanism
 * that resolved it ("property.fget", "inst_dict", ...; for loads the resolution of
 * the result's provenance) or NULL; cached is 1 when the tracer's attribute cache
 * served the load. Strings are static or live until the next traced call. Runs no
 * Python code; nothing when no call has been traced. */
typedef void (*TrAttrVisit)(void *ctx, const char *op, const char *how, int cached);
void tr_last_trace_visit_attrs(TrAttrVisit fn, void *ctx);

/* Frees the last traced call's trace now rather than at the next traced call: an
 * embedder that runs many programs in one process (the fuzz target) drops it once it
 * has read it, so freeing one program's trace is never the next program's work (and
 * coverage). last_trace() is then empty until a call is traced. */
void tr_last_trace_clear(void);

#endif
