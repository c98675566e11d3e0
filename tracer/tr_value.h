/* tr_value.h: tracked values and their provenance records.
 *
 * The tracer never handles a bare PyObject*: every value on its stacks, in its
 * locals and cells is a TrValue, the object plus the record of where it came from.
 * A provenance record is a small C struct with its own reference count (not a
 * Python object) so that recording provenance never changes a Python refcount,
 * finaliser timing, or what a differential run observes (STYLE.md). Records hold
 * no strong reference to traced objects; the only Python objects they own are
 * strings (attribute and global names) and small constants' reprs.
 */
#ifndef TR_VALUE_H
#define TR_VALUE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

/* How an attribute load was resolved: CPython's algorithm, step by step
 * (_PyObject_GenericGetAttrWithDict, type_getattro, slot_tp_getattr_hook). */
typedef enum {
    TR_RES_NONE = 0,
    TR_RES_INST_DICT,        /* value found in the instance __dict__ */
    TR_RES_SLOT,             /* member_descriptor (a __slots__ entry) */
    TR_RES_DATA_DESC,        /* data descriptor on the type: property, custom __get__+__set__ */
    TR_RES_NONDATA_DESC,     /* non-data descriptor: function (bound method), classmethod,
                                staticmethod, custom __get__ only */
    TR_RES_CLASS_ATTR,       /* plain class attribute found along the MRO */
    TR_RES_GETATTR_HOOK,     /* __getattr__ fallback after AttributeError */
    TR_RES_GETATTRIBUTE,     /* a user-defined __getattribute__ */
    TR_RES_TYPE_DICT,        /* class access: attribute found in the class's own MRO dicts */
    TR_RES_META_DATA_DESC,   /* class access: data descriptor on the metatype */
    TR_RES_META_NONDATA,     /* class access: non-data descriptor / attribute on the metatype */
    TR_RES_OPAQUE,           /* an object whose tp_getattro is C and not generic: called as is */
    TR_RES__COUNT
} TrResolution;

/* What produced a value. */
typedef enum {
    TR_PROV_INPUT,     /* index: argument position of the traced call */
    TR_PROV_CONST,     /* index: co_consts index */
    TR_PROV_GLOBAL,    /* name */
    TR_PROV_BUILTIN,   /* name */
    TR_PROV_ATTR,      /* base, name, how (TrResolution), detail (e.g. "property.fget") */
    TR_PROV_CALL,      /* base: the callee */
    TR_PROV_SUBSCR,    /* base: container, arg: key */
    TR_PROV_BINOP,     /* base, arg, index: the BINARY_OP / COMPARE_OP oparg */
    TR_PROV_UNOP,      /* base, index: opcode */
    TR_PROV_ITER,      /* base: the iterable (GET_ITER) or iterator (FOR_ITER) */
    TR_PROV_BUILD,     /* a container built by BUILD_* / comprehension: index = opcode */
    TR_PROV_UNPACK,    /* base: the sequence, index: position */
    TR_PROV_EXC,       /* an exception object caught by an except block */
    TR_PROV_CELL,      /* a value read from a closure cell created outside the trace */
    TR_PROV_FUNC,      /* MAKE_FUNCTION / LOAD_BUILD_CLASS product */
    TR_PROV_IMPORT,    /* name: IMPORT_NAME / IMPORT_FROM */
    TR_PROV_OPAQUE,    /* anything produced where the tracer cannot say more */
    TR_PROV__COUNT
} TrProvKind;

typedef struct TrProv TrProv;
struct TrProv {
    Py_ssize_t refcnt;       /* C-level count; tr_prov_decref frees at 0 */
    TrProvKind kind;
    TrResolution how;        /* ATTR only */
    int index;               /* meaning per kind, see above */
    int reach;               /* records reachable through base and arg, itself included,
                                shared ones counted again (set by tr_prov_new, <= 129) */
    TrProv *base;            /* owned reference (may be NULL) */
    TrProv *arg;             /* owned reference (may be NULL) */
    PyObject *name;          /* owned str or NULL */
    const char *detail;      /* static string: "property.fget", "cached_property", ... */
    uint64_t serial;         /* operation number in the trace that made it (0: none) */
};

/* A tracked value. obj is a strong reference owned by whoever holds the TrValue;
 * prov is a counted reference owned likewise (may be NULL for "unknown"). */
typedef struct {
    PyObject *obj;
    TrProv *prov;
} TrValue;

/* Constructors return a new record with refcnt 1, or NULL with MemoryError set.
 * tr_prov_new steals nothing: base/arg are increfed, name is Py_NewRef'd. */
TrProv *tr_prov_new(TrProvKind kind, TrProv *base, TrProv *arg, PyObject *name, int index);
TrProv *tr_prov_attr(TrProv *base, PyObject *name, TrResolution how, const char *detail);
/* tr_prov_attr whose arg is via (borrowed, may be NULL): the provenance the value came
 * from (an interpreted getter's result). */
TrProv *tr_prov_attr_via(TrProv *base, PyObject *name, TrResolution how, const char *detail,
                         TrProv *via);
/* NULL-safe; frees the chain iteratively. The common cases inline (a value's record
 * is counted on every push and pop): a count above one only moves. The shared cut
 * record (tr_prov.c) starts at 2^30 and is counted like any other: it never reaches
 * the slow path's release. */
void tr_prov_decref_slow(TrProv *p);
static inline void tr_prov_incref(TrProv *p)
{
    if (p != NULL)
        p->refcnt++;
}
static inline void tr_prov_decref(TrProv *p)
{
    if (p != NULL && p->refcnt > 1)
        p->refcnt--;
    else if (p != NULL)
        tr_prov_decref_slow(p);
}

/* Appends a readable chain such as "INPUT[0].test via property.fget" to buf
 * (a PyUnicodeWriter-free helper: returns a new str reference, NULL on error). */
PyObject *tr_prov_repr(const TrProv *p);
const char *tr_resolution_name(TrResolution how);   /* static string, e.g. "inst_dict" */
const char *tr_prov_kind_name(TrProvKind kind);      /* static string, e.g. "ATTR" */

/* TrValue helpers. tr_value_new steals obj and prov; tr_value_clear releases both. */
static inline TrValue tr_value_new(PyObject *obj, TrProv *prov) {
    TrValue v = {obj, prov};
    return v;
}
static inline TrValue tr_value_dup(TrValue v) {       /* new references to both */
    Py_XINCREF(v.obj);
    tr_prov_incref(v.prov);
    return v;
}
static inline void tr_value_clear(TrValue *v) {
    Py_CLEAR(v->obj);
    if (v->prov != NULL) {      /* a replay's values have none: no call */
        tr_prov_decref(v->prov);
        v->prov = NULL;
    }
}

#endif
