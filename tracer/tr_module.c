/* tr_module.c: the Python face of the tracer, module `tfjit` (docs/TRACER.md).
 *
 *   tfjit.jit(fn, *, budget=None, max_depth=None) -> callable
 *                                  interpret fn's bytecode on each call
 *   tfjit.last_trace() -> str      the operations of the last traced call, one a line
 *   tfjit.set_faults(csv), tfjit.faults() -> list    injected faults (docs/FAULTS.md)
 *   tfjit.known_faults() -> list                     every fault set_faults accepts
 *   tfjit.supported_opcodes() -> list, tfjit.excluded_opcodes() -> {name: reason},
 *   tfjit.opcode_counts() -> {name: executions since start},
 *   tfjit.opcode_table() -> {name: (number, inline cache entries)}
 *   tfjit.Unsupported              raised when the tracer cannot trace something
 *   tfjit.ProvenanceError          a provenance assertion failed
 *   tfjit.LimitExceeded            instruction or call-depth budget exhausted
 */
#include <stdlib.h>
#include <sys/resource.h>
#include "tr_module.h"
#include "tr_frame.h"
#include <structmember.h>
#include "tr_attr.h"
#include "tr_faults.h"
#include "tr_reuse.h"
#include "tr_provcheck.h"

PyObject *tr_ProvenanceError;
PyObject *tr_Unsupported;
PyObject *tr_LimitExceeded;

/* The trace of the last traced call, kept as recorded (its text is built only when
 * last_trace() asks, then cached): most calls' traces are never read. */
static TrTrace *last_trace;          /* owned, or NULL */
static PyObject *last_trace_text;   /* str: last_trace's text once built, or NULL */

/* ---- runs in progress (innermost last) ----
 * A generator made in a run may be resumed after the run ended (it was returned):
 * it then needs a run of its own. Runs live on C stacks, so an address may come back;
 * the serial tells runs apart. */
#define TR_MAX_ACTIVE_RUNS 256
static struct { TrRun *run; uint64_t serial; } active_runs[TR_MAX_ACTIVE_RUNS];
static int nactive;
static uint64_t run_serials;

/* The C stack: interpreted frames, the attribute protocol and C calls nest on it, more
 * per Python-level call than CPython's own frames do (much more under ASan). Three
 * quarters of the stack's rlimit, measured from where the outermost run started, is the budget;
 * beyond it tr_stack_check raises LimitExceeded instead of overflowing. */
static char *stack_base;
static size_t stack_budget;

static size_t compute_stack_budget(void)
{
    struct rlimit rl;
    size_t lim = 8u << 20;
    if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        lim = (size_t)rl.rlim_cur;
    if (lim > (64u << 20))
        lim = 64u << 20;
    return lim / 4 * 3;
}

int tr_stack_check(void)
{
    char *here = (char *)__builtin_frame_address(0);
    if (stack_base != NULL && here < stack_base && (size_t)(stack_base - here) > stack_budget) {
        PyErr_Format(tr_LimitExceeded, "traced call exceeded the C stack budget (%zu KiB)",
                     stack_budget >> 10);
        return -1;
    }
    return 0;
}

void tr_run_register(TrRun *run)
{
    if (nactive == 0) {
        stack_base = (char *)__builtin_frame_address(0);
        if (stack_budget == 0)
            stack_budget = compute_stack_budget();
    }
    if (nactive < TR_MAX_ACTIVE_RUNS) {
        active_runs[nactive].run = run;
        active_runs[nactive].serial = ++run_serials;
    }
    nactive++;   /* counted beyond the table too, so unregistering stays balanced */
}

void tr_run_unregister(TrRun *run)
{
    if (nactive <= 0 || (nactive <= TR_MAX_ACTIVE_RUNS && active_runs[nactive - 1].run != run)) {
        fprintf(stderr, "tracefuzz: runs unregistered out of order\n");
        abort();
    }
    nactive--;
    if (nactive == 0)
        stack_base = NULL;
}

uint64_t tr_run_serial(TrRun *run)
{
    for (int i = (nactive < TR_MAX_ACTIVE_RUNS ? nactive : TR_MAX_ACTIVE_RUNS) - 1; i >= 0; i--) {
        if (active_runs[i].run == run)
            return active_runs[i].serial;
    }
    return 0;
}

TrRun *tr_run_find(TrRun *run, uint64_t serial)
{
    if (serial == 0)
        return NULL;
    for (int i = (nactive < TR_MAX_ACTIVE_RUNS ? nactive : TR_MAX_ACTIVE_RUNS) - 1; i >= 0; i--) {
        if (active_runs[i].run == run && active_runs[i].serial == serial)
            return run;
    }
    return NULL;
}

/* ---- the jit wrapper: a callable holding fn ---- */

typedef struct {
    PyObject_HEAD
    PyObject *fn;                /* the wrapped function (__wrapped__) */
    int64_t budget;
    int max_depth;
    vectorcallfunc vectorcall;
    TrJitCache traces;           /* tr_reuse.h: the traces kept for reuse */
} TrJit;

/* One traced call: a fresh TrRun (cache, trace, faults snapshot), arguments marked
 * INPUT[i] / INPUT[name], everything of the run released before returning, so no
 * reference from the run outlives the call. Returns a new reference or NULL. */
static PyObject *jit_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                                PyObject *kwnames)
{
    TrJit *j = (TrJit *)self;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    Py_ssize_t nkw = kwnames != NULL ? PyTuple_GET_SIZE(kwnames) : 0;
    TrRun run = {j->budget, 0, j->max_depth, NULL, NULL, tr_faults_active(), NULL};
    TrValue *vals = NULL;
    TrValue res = {NULL, NULL};
    PyObject *result = NULL;
    int rc = -1;
    /* Trace reuse (tr_jitcache.c): replay a trace whose guards pass, else trace and
     * record this call's path. */
    if (tr_jit_try_replay(&j->traces, j->fn, args, nargsf, kwnames, j->budget, j->max_depth,
                          &result))
        return result;
    run.rec = tr_jit_record_begin(j->fn, args, nargsf, kwnames);
    run.cache = tr_cache_new();
    if (run.cache == NULL)
        goto done;
    run.trace = tr_trace_new();
    if (run.trace == NULL)
        goto done;
    vals = PyMem_Calloc((size_t)(nargs + nkw + 1), sizeof(TrValue));
    if (vals == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < nargs + nkw; i++) {
        PyObject *name = i >= nargs ? PyTuple_GET_ITEM(kwnames, i - nargs) : NULL;
        TrProv *p = tr_prov_new(TR_PROV_INPUT, NULL, NULL, name, (int)i);
        if (p == NULL)
            goto done;
        vals[i] = tr_value_new(Py_NewRef(args[i]), p);
    }
    /* The traced callable itself: FUNC <qualname> (what produced a class or a callable
     * object returned by the call reads as CALL(FUNC C)). */
    PyObject *qn = PyObject_GetAttrString(j->fn, "__qualname__");
    if (qn == NULL || !PyUnicode_Check(qn)) {
        PyErr_Clear();
        Py_XSETREF(qn, PyUnicode_FromString(Py_TYPE(j->fn)->tp_name));
        if (qn == NULL)
            goto done;
    }
    TrValue callee = {j->fn, tr_prov_new(TR_PROV_FUNC, NULL, NULL, qn, 0)};
    Py_DECREF(qn);
    if (callee.prov == NULL)
        goto done;
    tr_run_register(&run);
    rc = tr_call(&run, callee, vals, nargs + nkw, nkw ? kwnames : NULL, &res);
    tr_run_unregister(&run);
    if (run.rec != NULL) {
        tr_jit_record_end(&j->traces, run.rec, rc == 0 || !tr_exc_is_internal());
        run.rec = NULL;
    }
    tr_prov_decref(callee.prov);
    if (rc == 0 && tr_trace_record(&run, "RETURN", &res) == 0) {
        result = res.obj;
        res.obj = NULL;
    }
done:
    if (run.rec != NULL)
        tr_jit_record_end(&j->traces, run.rec, 0);
    if (vals != NULL) {
        for (Py_ssize_t i = 0; i < nargs + nkw; i++)
            tr_value_clear(&vals[i]);
        PyMem_Free(vals);
    }
    tr_value_clear(&res);
    if (run.trace != NULL) {
        /* Keep the trace even when the call failed: it shows how far it got. */
        TrTrace *old = last_trace;
        last_trace = run.trace;
        Py_CLEAR(last_trace_text);
        tr_trace_free(old);
    }
    if (run.cache != NULL)
        tr_cache_free(run.cache);
    return result;
}

/* Binding as a method: a new reference (self for class access, a bound method). */
static PyObject *jit_descr_get(PyObject *self, PyObject *obj, PyObject *type)
{
    if (obj == NULL || obj == Py_None)
        return Py_NewRef(self);
    return PyMethod_New(self, obj);
}

TR_NO_COVERAGE static int jit_traverse(PyObject *self, visitproc visit, void *arg)
{
    Py_VISIT(((TrJit *)self)->fn);
    return tr_jitcache_traverse(&((TrJit *)self)->traces, visit, arg);
}

TR_NO_COVERAGE static int jit_clear(PyObject *self)
{
    Py_CLEAR(((TrJit *)self)->fn);
    tr_jitcache_clear(&((TrJit *)self)->traces);
    return 0;
}

static void jit_dealloc(PyObject *self)
{
    PyObject_GC_UnTrack(self);
    jit_clear(self);
    Py_TYPE(self)->tp_free(self);
}

static PyObject *jit_repr(PyObject *self)
{
    return PyUnicode_FromFormat("<tfjit.jit of %R>", ((TrJit *)self)->fn);
}

/* __name__, __qualname__, __doc__, __module__ read through to the wrapped function. */
static PyObject *jit_getattro(PyObject *self, PyObject *name)
{
    PyObject *r = PyObject_GenericGetAttr(self, name);
    if (r != NULL || !PyErr_ExceptionMatches(PyExc_AttributeError))
        return r;
    if (PyUnicode_Check(name) && (_PyUnicode_EqualToASCIIString(name, "__name__") ||
                                  _PyUnicode_EqualToASCIIString(name, "__qualname__") ||
                                  _PyUnicode_EqualToASCIIString(name, "__module__") ||
                                  _PyUnicode_EqualToASCIIString(name, "__doc__"))) {
        PyErr_Clear();
        return PyObject_GetAttr(((TrJit *)self)->fn, name);
    }
    return NULL;
}

static PyMemberDef jit_members[] = {
    {"__wrapped__", T_OBJECT, offsetof(TrJit, fn), READONLY, "the traced function"},
    {NULL},
};

static PyTypeObject TrJit_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tfjit.jit",
    .tp_basicsize = sizeof(TrJit),
    .tp_dealloc = jit_dealloc,
    .tp_vectorcall_offset = offsetof(TrJit, vectorcall),
    .tp_repr = jit_repr,
    .tp_call = PyVectorcall_Call,
    .tp_getattro = jit_getattro,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL |
                Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_doc = "jit(fn) -> callable: each call interprets fn with the reference tracer.",
    .tp_traverse = jit_traverse,
    .tp_clear = jit_clear,
    .tp_members = jit_members,
    .tp_descr_get = jit_descr_get,
};

/* ---- module functions: each returns a new reference, or NULL with an exception ---- */

static PyObject *mod_jit(PyObject *mod, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"fn", "budget", "max_depth", NULL};
    PyObject *fn, *budget = Py_None, *depth = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|$OO:jit", kwlist, &fn, &budget, &depth))
        return NULL;
    if (!PyCallable_Check(fn)) {
        PyErr_Format(PyExc_TypeError, "jit() argument must be callable, not %.200s",
                     Py_TYPE(fn)->tp_name);
        return NULL;
    }
    TrJit *j = PyObject_GC_New(TrJit, &TrJit_Type);
    if (j == NULL)
        return NULL;
    j->fn = Py_NewRef(fn);
    memset(&j->traces, 0, sizeof j->traces);
    j->budget = TR_DEFAULT_BUDGET;
    /* By default CPython's own recursion limit (counted by Py_EnterRecursiveCall for
     * each interpreted frame) raises RecursionError first, as in the eager run; an
     * explicit max_depth raises LimitExceeded. */
    j->max_depth = Py_GetRecursionLimit() + 100;
    if (j->max_depth < TR_DEFAULT_MAX_DEPTH)
        j->max_depth = TR_DEFAULT_MAX_DEPTH;
    j->vectorcall = jit_vectorcall;
    PyObject_GC_Track(j);
    if (budget != Py_None) {
        j->budget = PyLong_AsLongLong(budget);
        if (j->budget == -1 && PyErr_Occurred())
            goto fail;
    }
    if (depth != Py_None) {
        j->max_depth = _PyLong_AsInt(depth);
        if (j->max_depth == -1 && PyErr_Occurred())
            goto fail;
    }
    return (PyObject *)j;
fail:
    Py_DECREF(j);
    return NULL;
}

void tr_last_trace_visit_attrs(TrAttrVisit fn, void *ctx)
{
    tr_trace_visit_attrs(last_trace, fn, ctx);
}

void tr_last_trace_clear(void)
{
    TrTrace *old = last_trace;
    last_trace = NULL;
    Py_CLEAR(last_trace_text);
    tr_trace_free(old);
}

static PyObject *mod_last_trace(PyObject *mod, PyObject *unused)
{
    if (last_trace_text == NULL && last_trace != NULL) {
        last_trace_text = tr_trace_text(last_trace);
        if (last_trace_text == NULL)
            return NULL;
    }
    if (last_trace_text == NULL)
        return PyUnicode_FromString("");
    return Py_NewRef(last_trace_text);
}

static PyObject *mod_set_faults(PyObject *mod, PyObject *arg)
{
    const char *csv = NULL;
    if (arg != Py_None) {
        csv = PyUnicode_AsUTF8(arg);
        if (csv == NULL)
            return NULL;
    }
    if (tr_faults_set(csv) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *mod_faults(PyObject *mod, PyObject *unused)
{
    PyObject *l = PyList_New(0);
    unsigned active = tr_faults_active();
    for (int f = 0; l != NULL && f < TR_FAULT__COUNT; f++) {
        if (!((active >> f) & 1u))
            continue;
        PyObject *s = PyUnicode_FromString(tr_fault_name((TrFault)f));
        if (s == NULL || PyList_Append(l, s) < 0)
            Py_CLEAR(l);
        Py_XDECREF(s);
    }
    return l;
}

/* Every fault the tracer knows, in TR_FAULT_LIST order (bench/faultzoo.py asks). */
static PyObject *mod_known_faults(PyObject *mod, PyObject *unused)
{
    PyObject *l = PyList_New(TR_FAULT__COUNT);
    for (int f = 0; l != NULL && f < TR_FAULT__COUNT; f++) {
        PyObject *s = PyUnicode_FromString(tr_fault_name((TrFault)f));
        if (s == NULL)
            Py_CLEAR(l);
        else
            PyList_SET_ITEM(l, f, s);
    }
    return l;
}

static PyObject *mod_supported_opcodes(PyObject *mod, PyObject *unused)
{
    PyObject *l = PyList_New(0);
#define TR_OP(name, num, caches, status, why) \
    if (l != NULL && status) { \
        PyObject *s_ = PyUnicode_FromString(#name); \
        if (s_ == NULL || PyList_Append(l, s_) < 0) \
            Py_CLEAR(l); \
        Py_XDECREF(s_); \
    }
#include "tr_opcodes.def"
#undef TR_OP
    return l;
}

static PyObject *mod_excluded_opcodes(PyObject *mod, PyObject *unused)
{
    PyObject *d = PyDict_New();
#define TR_OP(name, num, caches, status, why) \
    if (d != NULL && !status) { \
        PyObject *s_ = PyUnicode_FromString((const char *)(why)); \
        if (s_ == NULL || PyDict_SetItemString(d, #name, s_) < 0) \
            Py_CLEAR(d); \
        Py_XDECREF(s_); \
    }
#include "tr_opcodes.def"
#undef TR_OP
    return d;
}

static PyObject *mod_opcode_table(PyObject *mod, PyObject *unused)
{
    PyObject *d = PyDict_New();
#define TR_OP(name, num, caches, status, why) \
    if (d != NULL) { \
        PyObject *t_ = Py_BuildValue("(ii)", num, caches); \
        if (t_ == NULL || PyDict_SetItemString(d, #name, t_) < 0) \
            Py_CLEAR(d); \
        Py_XDECREF(t_); \
    }
#include "tr_opcodes.def"
#undef TR_OP
    return d;
}

static PyObject *mod_opcode_counts(PyObject *mod, PyObject *unused)
{
    PyObject *d = PyDict_New();
#define TR_OP(name, num, caches, status, why) \
    if (d != NULL) { \
        PyObject *n_ = PyLong_FromUnsignedLongLong(tr_opcode_count(num)); \
        if (n_ == NULL || PyDict_SetItemString(d, #name, n_) < 0) \
            Py_CLEAR(d); \
        Py_XDECREF(n_); \
    }
#include "tr_opcodes.def"
#undef TR_OP
    return d;
}

static PyObject *mod_stats(PyObject *mod, PyObject *unused)
{
    PyObject *d = tr_stats_dict();
    if (d != NULL && tr_provcheck_stats(d) < 0)
        Py_CLEAR(d);
    return d;
}

static PyObject *mod_reset_stats(PyObject *mod, PyObject *unused)
{
    tr_stats_reset();
    tr_provcheck_reset();
    Py_RETURN_NONE;
}

/* set_checks(bool): the provenance oracle (tr_provcheck.h) on or off. */
static PyObject *mod_set_checks(PyObject *mod, PyObject *arg)
{
    int on = PyObject_IsTrue(arg);
    if (on < 0)
        return NULL;
    tr_provcheck_on = on;
    Py_RETURN_NONE;
}

static PyObject *mod_checks(PyObject *mod, PyObject *unused)
{
    return PyBool_FromLong(tr_provcheck_on);
}

static PyMethodDef tr_methods[] = {
    {"stats", mod_stats, METH_NOARGS,
     "stats() -> {name: count}: trace reuse since start (traces, replays, side exits, "
     "retraces by guard kind ...)"},
    {"reset_stats", mod_reset_stats, METH_NOARGS, "reset_stats(): zero the reuse statistics"},
    {"set_checks", mod_set_checks, METH_O,
     "set_checks(bool): the provenance oracle on (default) or off (TRACEFUZZ_PROVCHECK=0)"},
    {"checks", mod_checks, METH_NOARGS, "checks() -> bool: the provenance oracle is on"},
    {"jit", (PyCFunction)(void (*)(void))mod_jit, METH_VARARGS | METH_KEYWORDS,
     "jit(fn, *, budget=None, max_depth=None) -> callable interpreting fn on each call"},
    {"last_trace", mod_last_trace, METH_NOARGS,
     "last_trace() -> str: the operations of the last traced call, one per line"},
    {"set_faults", mod_set_faults, METH_O,
     "set_faults(csv): enable the named injected faults (\"\" or None: none)"},
    {"faults", mod_faults, METH_NOARGS, "faults() -> list of the enabled faults"},
    {"known_faults", mod_known_faults, METH_NOARGS,
     "known_faults() -> list of every fault set_faults accepts"},
    {"supported_opcodes", mod_supported_opcodes, METH_NOARGS,
     "supported_opcodes() -> list of the opcode names the tracer interprets"},
    {"excluded_opcodes", mod_excluded_opcodes, METH_NOARGS,
     "excluded_opcodes() -> {name: reason} for the opcodes it does not"},
    {"opcode_table", mod_opcode_table, METH_NOARGS,
     "opcode_table() -> {name: (number, inline cache entries)} as tr_opcodes.def has them"},
    {"opcode_counts", mod_opcode_counts, METH_NOARGS,
     "opcode_counts() -> {name: executions since the module started}"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef tr_moduledef = {
    PyModuleDef_HEAD_INIT, "tfjit",
    "tracefuzz's reference tracer: a provenance-tracking interpreter of CPython 3.11 bytecode.",
    -1, tr_methods,
};

/* Returns a new reference to the exception type, also stored in *slot (owned by
 * the module for the life of the process). */
static int add_exception(PyObject *m, const char *name, PyObject *base, PyObject **slot,
                         const char *doc)
{
    char qual[64];
    snprintf(qual, sizeof qual, "tfjit.%s", name);
    if (*slot == NULL) {
        *slot = PyErr_NewExceptionWithDoc(qual, doc, base, NULL);
        if (*slot == NULL)
            return -1;
    }
    return PyModule_AddObjectRef(m, name, *slot);
}

PyMODINIT_FUNC PyInit_tfjit(void)
{
    PyObject *m = PyModule_Create(&tr_moduledef);
    if (m == NULL)
        return NULL;
    if (add_exception(m, "ProvenanceError", PyExc_AssertionError, &tr_ProvenanceError,
                      "A value reused by the tracer is not the object CPython returns.") < 0 ||
        add_exception(m, "Unsupported", PyExc_Exception, &tr_Unsupported,
                      "The tracer cannot trace this function or construct.") < 0 ||
        add_exception(m, "LimitExceeded", PyExc_Exception, &tr_LimitExceeded,
                      "The traced call exceeded the instruction or call-depth budget.") < 0) {
        Py_DECREF(m);
        return NULL;
    }
    tr_provcheck_init();
    tr_lines_init();
    tr_record_init();
    tr_eval_init();
    if (PyType_Ready(&TrJit_Type) < 0 || tr_call_init() < 0 || tr_gen_ready() < 0 || tr_frameobj_ready() < 0 ||
        tr_faults_set(getenv("TRACEFUZZ_FAULTS")) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
