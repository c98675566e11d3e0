/* tr_core.h: declarations shared inside the interpreter core (tr_eval.c, tr_call.c,
 * tr_trace.c, tr_module.c, tr_exc.c). Not a contract with the other parts: those
 * live in tr_value.h, tr_run.h, tr_eval.h, tr_attr.h and tr_faults.h. */
#ifndef TR_CORE_H
#define TR_CORE_H

#include "tr_eval.h"
#include "tr_module.h"

/* For the fuzz target's coverage (a persistent process running input after input):
 * address hash tables, caches and capacity growth run differently after other inputs
 * (or at other addresses) for the same input. Functions of that kind are left out of
 * coverage instrumentation (and not inlined into instrumented ones) so that an input's
 * features depend on the input alone (tests/fuzz/feature_determinism.c). */
#if defined(__clang__)
#define TR_NO_COVERAGE __attribute__((noinline, no_sanitize("coverage")))
#else
#define TR_NO_COVERAGE
#endif

/* The replayer's per-load helpers kept in the loop: clang leaves plain static inlines
 * out of a function as large as replay_frame. */
#if defined(__GNUC__)
#define TR_HOT_INLINE static inline __attribute__((always_inline))
#else
#define TR_HOT_INLINE static inline
#endif

/* PyWeakref_GET_OBJECT, always inlined: a build that does not inline the header's
 * static inline (-O1, the fuzz preset) calls an instrumented copy of it, also from
 * TR_NO_COVERAGE functions, whose hit counts then follow the caches' history
 * (fuzz.determinism.builtin). Returns a borrowed reference: the object, or Py_None
 * once it is dead (the same test of its reference count as the header's). */
TR_HOT_INLINE PyObject *tr_weakref_object(PyObject *wr)
{
    assert(PyWeakref_Check(wr));
    PyObject *obj = ((PyWeakReference *)wr)->wr_object;
    return Py_REFCNT(obj) > 0 ? obj : Py_None;
}

/* Around a table of computed-goto targets that gives every opcode a default and then
 * its own case: those overrides are meant, the warning is not. */
#if defined(__clang__)
#define TR_OVERRIDES_BEGIN \
    _Pragma("clang diagnostic push") _Pragma("clang diagnostic ignored \"-Winitializer-overrides\"")
#define TR_OVERRIDES_END _Pragma("clang diagnostic pop")
#else
#define TR_OVERRIDES_BEGIN \
    _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Woverride-init\"")
#define TR_OVERRIDES_END _Pragma("GCC diagnostic pop")
#endif

/* ---- tr_prov.c: a growable byte buffer for text built in C ---- */
typedef struct {
    char *buf;               /* PyMem_Raw memory, NUL-terminated, owned */
    size_t len, cap;
    int failed;              /* an allocation failed: the text is incomplete */
} TrBuf;
/* Makes room for n more bytes and a NUL: 0, or -1 (b->failed set). */
int tr_buf_grow(TrBuf *b, size_t n);
static inline void tr_buf_put(TrBuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap && tr_buf_grow(b, n) < 0)
        return;
    memcpy(b->buf + b->len, s, n);
    b->len += n;
    b->buf[b->len] = '\0';
}
static inline void tr_buf_puts(TrBuf *b, const char *s) { tr_buf_put(b, s, strlen(s)); }
/* Appends v in decimal. */
void tr_buf_int(TrBuf *b, long long v);
/* Appends tr_prov_repr(p)'s text as UTF-8. */
void tr_prov_repr_into(TrBuf *b, const TrProv *p);

/* ---- tr_trace.c: the recorded operations of one run ----
 * Recording keeps compact entries; the text is built by tr_trace_text only. Every
 * recorder returns 0, or -1 with an exception set; result is borrowed (its type name
 * is copied and its provenance kept, never the object). Static strings must outlive
 * the trace. */
TrTrace *tr_trace_new(void);            /* NULL with MemoryError set */
void tr_trace_free(TrTrace *trace);      /* NULL-safe */
/* The trace as text, one line per operation: a new str reference (NULL on error). */
PyObject *tr_trace_text(const TrTrace *trace);
/* The attribute operations of a trace (tr_module.h, tr_last_trace_visit_attrs). */
void tr_trace_visit_attrs(const TrTrace *trace, TrAttrVisit fn, void *ctx);
/* Records a line with a formatted description (printf-like, a PyUnicode_FromFormat
 * format): the slow, general way; the typed recorders below cost no formatting. */
int tr_trace_recordf(TrRun *run, const TrValue *result, const char *fmt, ...);
/* "op name[post][post2]": op, post, post2 static (post, post2 may be NULL); name a str. */
int tr_trace_record_name(TrRun *run, const char *op, PyObject *name, const char *post,
                         const char *post2, const TrValue *result);
/* "op cname[ in in][post]": cname copied (a type's tp_name), in a str or NULL. */
int tr_trace_record_cname(TrRun *run, const char *op, const char *cname, PyObject *in,
                          const char *post, const TrValue *result);
/* "op tname in <code's qualname> line <line of lasti>": the line is computed when the
 * text is built (the code object is kept until then). */
int tr_trace_record_raise(TrRun *run, const char *op, const char *tname, PyCodeObject *code,
                          int lasti);

/* Whether the C string n is one of names (NULL-terminated): for C function names
 * checked on every call. A loop of our own, not strcmp: in the fuzz build
 * libFuzzer's interceptor makes each differing strcmp ~250 instructions. Out of
 * coverage, like the library call it replaces: which name it is is no behaviour. */
TR_NO_COVERAGE static inline int tr_name_in(const char *n, const char *const *names)
{
    for (; *names != NULL; names++) {
        const char *a = n, *b = *names;
        while (*a != '\0' && *a == *b) {
            a++;
            b++;
        }
        if (*a == *b)
            return 1;
    }
    return 0;
}

/* ---- tr_lines.c ---- */
/* PyCode_Addr2Line(co, lasti * 2) for lasti in code units, through a cursor kept per
 * code object (cheap when asked again near the last answer). Never fails. */
int tr_code_line(PyCodeObject *co, int lasti);
void tr_lines_init(void);   /* at module init */

/* ---- tr_opcodes.def: one X-macro list ---- */
typedef enum {
#define TR_OP(name, num, caches, status, why) TR_OP_##name = num,
#include "tr_opcodes.def"
#undef TR_OP
} TrOpcode;
const char *tr_opcode_name(int opcode);       /* static string, NULL when not an opcode */
int tr_opcode_caches(int opcode);             /* inline CACHE entries after it */
void tr_eval_init(void);                      /* after tr_record_init: run_frame's op_info */
uint64_t tr_opcode_count(int opcode);         /* executions since module start */

/* ---- tr_eval.c: frames ---- */
typedef struct TrFrame TrFrame;
/* Interprets one code object in a fresh frame. localsplus (nlocalsplus values, stolen)
 * holds the bound arguments; func is borrowed (may be NULL for class bodies);
 * locals is borrowed (NULL: optimised locals). 0 and *out, or -1. */
int tr_eval_code(TrRun *run, PyCodeObject *co, PyObject *func, PyObject *globals,
                 PyObject *builtins, PyObject *locals, TrValue *localsplus, TrValue *out);
/* The innermost interpreted frame (for zero-argument super()), or NULL. */
TrFrame *tr_eval_current_frame(void);
/* Zero-argument super(): finds __class__ and the first argument in the current
 * interpreted frame. New references in *type and *obj, 0, or -1 (RuntimeError). */
int tr_frame_super_args(TrFrame *f, TrValue *type, TrValue *obj);

/* ---- tr_call.c ---- */
/* Binds args to a fresh localsplus array for func (CPython's initialize_locals):
 * a new array of co_nlocalsplus values (PyMem_Free it after releasing them). */
TrValue *tr_call_bind(PyFunctionObject *func, const TrValue *args, Py_ssize_t nargs,
                      PyObject *kwnames);
/* CALL's entry: like tr_call, but a Python function takes the argument values
 * (args[] is cleared before its body runs, as CPython moves them off the stack). */
int tr_call_stack(TrRun *run, TrValue callable, TrValue *args, Py_ssize_t nargs,
                  PyObject *kwnames, TrValue *out);
/* 1 if calling callable with these plain args is known to run no user code. */
int tr_call_is_pure(PyObject *callable, const TrValue *args, Py_ssize_t nargs,
                    PyObject *kwnames);
/* 1 if an operation on these operands cannot run user code (builtin scalars and
 * exact builtin containers with scalar partners). b may be NULL. */
int tr_is_plain_operands(PyObject *a, PyObject *b);
int tr_call_init(void);                 /* caches the lookaside targets; 0 or -1 */

/* The slot of the pair (a, b) in a table of n slots placed by address (the attribute
 * memos of tr_provcheck.c and tr_attr_get.c): addresses mixed so that neighbouring
 * objects and names spread. */
TR_HOT_INLINE size_t tr_pair_slot(const void *a, const void *b, size_t n)
{
    uintptr_t h = ((uintptr_t)a >> 4) * 31u + ((uintptr_t)b >> 3);
    h ^= h >> 9;
    return (size_t)(h % n);
}

/* ---- tr_dictkeys.c ---- */
/* 1 when every key of d (an exact dict) is an exact str, else 0; O(1) for the unicode
 * and split key tables CPython keeps while that holds. Never runs code or fails. */
int tr_dict_keys_all_str(PyObject *d);
/* The value d (an exact dict) holds under name itself (an exact str), found by key
 * identity, as CPython's LOAD_ATTR_WITH_HINT finds it: first at the entry *hint (the
 * caller's, any value), then by a short scan that updates *hint. Borrowed, or NULL when
 * not found that way (d's table is of the general kind, the key is absent, or held
 * under an equal key that is not name itself): the caller then looks it up as before.
 * Only tables of the unicode and split kinds, whose keys are all exact strs, answer: a
 * lookup there finds the same entry (keys are unique), so the answer is the lookup's.
 * Reads only; never runs code or fails. */
PyObject *tr_dict_find(PyObject *d, PyObject *name, int *hint);
/* PyDict_GetItemWithError(d, name), the same answer (borrowed; NULL: absent, or an error
 * set), with a key held as name itself in an exact dict of exact str keys found by
 * tr_dict_find's scan first (no hint), without the lookup. */
PyObject *tr_dict_get(PyObject *d, PyObject *name);

/* The replay's epoch (tr_replay.c): moved by everything that may run user code. */
extern uint64_t tr_replay_epoch;

/* _PyObject_GetDictPtr without the call into libpython for the two common layouts
 * (a replayed load asks it two or three times): CPython 3.11's managed dict, kept at
 * ((PyObject **)o)[-3] once the inline values at [-4] are gone
 * (pycore_object.h: _PyObject_ManagedDictPointer, _PyObject_ValuesPointer), and a
 * positive tp_dictoffset. Everything else (values not yet materialised, negative
 * offsets) goes to CPython's own function, which materialises as before. Borrowed
 * pointer, or NULL when o has no dict slot; never sets an exception. */
TR_HOT_INLINE PyObject **tr_dict_ptr(PyObject *o)
{
    PyTypeObject *tp = Py_TYPE(o);
    if (tp->tp_flags & Py_TPFLAGS_MANAGED_DICT) {
        if (((void **)o)[-4] == NULL)
            return ((PyObject **)o) - 3;
    }
    else if (tp->tp_dictoffset > 0) {
        return (PyObject **)((char *)o + tp->tp_dictoffset);
    }
    else if (tp->tp_dictoffset == 0) {
        return NULL;
    }
    /* Materialising a dict allocates one, which may start a collection and run
     * finalisers: a replay's hoisted guards (tr_replay.c) no longer hold. */
    tr_replay_epoch++;
    return _PyObject_GetDictPtr(o);
}

/* Materialises o's instance dict when it still holds its values inline (a managed
 * dict not yet made), as tr_dict_ptr does. The tracer's reads of instance dicts go
 * through tr_dict_ptr, and whether one happens depends on caches, memos and hoists
 * keyed by addresses and epochs, which depend on what ran before; an object whose dict
 * one history made and another did not then resolves differently later (the fuzz
 * target's features depended on the inputs run before). Settled at the start of every
 * attribute operation, traced or replayed, the dict is made at the first operation on
 * the object, whatever ran before. CPython's own loads keep the values inline; no
 * program sees the difference but through the dict's memory. */
TR_HOT_INLINE void tr_dict_settle(PyObject *o)
{
    if ((Py_TYPE(o)->tp_flags & Py_TPFLAGS_MANAGED_DICT) && ((void **)o)[-4] != NULL)
        (void)tr_dict_ptr(o);
}

/* New provenance record or NULL with MemoryError. */
static inline TrProv *tr_prov_simple(TrProvKind kind, TrProv *base)
{
    return tr_prov_new(kind, base, NULL, NULL, 0);
}

#endif
