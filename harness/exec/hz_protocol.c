/* hz_protocol.c: one input through the run protocol (see hz_protocol.h).
 *
 * A Run owns every reference it takes (namespace, results, exceptions, LOG
 * snapshots, args); run_clear releases them all, so dropping a Run drops the
 * program's world (collected by the periodic PyGC_Collect when it has cycles). */
#include "hz_protocol.h"
#include "hz_crashsig.h"
#include "hz_codecache.h"
#include "hz_embed.h"
#include "hz_hint.h"
#include "hz_program.h"

#include <stdlib.h>
#include <string.h>

/* A full collection costs ~0.3-0.9 ms at start-up (TOOLCHAIN.md): not per input. */
#define HZ_GC_EVERY 100
/* Every so many inputs the frozen objects are thawed and the collection is over the
 * whole heap (periodic_collect). */
#define HZ_GC_THAW_EVERY (100 * HZ_GC_EVERY)

/* The caller frames (DESIGN.md "The run protocol"): the target is created and every
 * step is called from ordinary Python functions whose globals are the program's
 * namespace, so a jit that reads inspect.stack(), sys._getframe(n) or
 * f_back.f_globals when called sees a normal caller, as under a user's test. */
static const char driver_source[] =
    "# tracefuzz's caller: the target is created and called from Python functions\n"
    "# of the program's own module, as user code does.\n"
    "def __tracefuzz_jit__(target, program):\n"
    "    return target(program)\n"
    "\n"
    "\n"
    "def __tracefuzz_call__(f, args):\n"
    "    return f(*args)\n"
    "\n"
    "\n"
    "def __tracefuzz_step__(call, f, args):\n"
    "    return call(f, args)\n";

static const char *const driver_names[] = {
    "__tracefuzz_jit__", "__tracefuzz_call__", "__tracefuzz_step__",
};
enum { DRIVER_JIT, DRIVER_CALL, DRIVER_STEP, DRIVER__COUNT };

struct HzProtocol {
    const HzTarget *target;
    PyObject *driver_code[DRIVER__COUNT];   /* owned: the caller functions' code */
    PyObject *driver_lines;        /* owned: linecache entry of the driver source */
    PyObject *linecache;           /* owned: linecache.cache (a dict), or NULL */
    bool python_target;            /* a jit written in Python: it may read the
                                      program's source and its line numbers */
    PyObject *provenance_error;   /* owned: tfjit.ProvenanceError, or NULL */
    PyObject *limit_exceeded;     /* owned: tfjit.LimitExceeded, or NULL */
    unsigned long inputs;
    unsigned long gc_every, gc_thaw_every;   /* hz_protocol_set_gc */
    PyObject *gc;                  /* owned: the gc module, or NULL */
    /* owned: gc.collect when the collector runs between inputs only (the automatic
     * one off), else NULL */
    PyObject *gc_collect;
    HzCodeCache *code;             /* owned */
    bool fast;                     /* hz_protocol_set_fast */
};

typedef enum { RUN_EAGER, RUN_TARGET } RunMode;

typedef struct {
    PyObject *ns;                  /* the fresh module namespace */
    PyObject *result[OR_STEPS];
    PyObject *exc[OR_STEPS];
    PyObject *log_after[OR_STEPS];
    PyObject *args, *args2;
    PyObject *driver[DRIVER__COUNT];   /* the caller functions, globals = ns */
    int steps_done;
    bool failed;                   /* the protocol could not run to the end */
    char *why;                     /* eager: why the input is invalid */
    OrTargetEnd end;               /* target run: how it ended */
    int end_step;
    char *message;                 /* target run: exception text and traceback */
    /* Target run: the crash state of the exception that ended it, and of the one
     * each step raised as its result (hz_crashsig.h); "" when none. */
    char crash_state[HZ_CRASH_STATE_MAX], crash_msg[HZ_CRASH_MSG_MAX];
    char exc_state[OR_STEPS][HZ_CRASH_STATE_MAX], exc_msg[OR_STEPS][HZ_CRASH_MSG_MAX];
} Run;

static char *xstrdup(const char *s)
{
    char *r = strdup(s);
    if (r == NULL)
        abort();
    return r;
}

static char *xprintf(const char *fmt, const char *a, const char *b)
{
    size_t n = strlen(fmt) + strlen(a) + (b ? strlen(b) : 0) + 1;
    char *r = malloc(n);
    if (r == NULL)
        abort();
    snprintf(r, n, fmt, a, b ? b : "");
    return r;
}

static void run_clear(Run *r)
{
    Py_CLEAR(r->ns);
    for (int i = 0; i < OR_STEPS; i++) {
        Py_CLEAR(r->result[i]);
        Py_CLEAR(r->exc[i]);
        Py_CLEAR(r->log_after[i]);
    }
    Py_CLEAR(r->args);
    Py_CLEAR(r->args2);
    for (int i = 0; i < DRIVER__COUNT; i++)
        Py_CLEAR(r->driver[i]);
    free(r->why);
    free(r->message);
    memset(r, 0, sizeof *r);
}

void hz_outcome_clear(HzOutcome *o)
{
    free(o->signature);
    free(o->report);
    for (int i = 0; i < 3; i++)
        free(o->obs_text[i]);
    memset(o, 0, sizeof *o);
}

/* Returns a new reference to tfjit.<name> or NULL (no exception set). */
static PyObject *tfjit_exception(const char *name)
{
    PyObject *m = PyImport_ImportModule("tfjit");
    PyObject *r = m ? PyObject_GetAttrString(m, name) : NULL;
    Py_XDECREF(m);
    if (r == NULL)
        PyErr_Clear();
    return r;
}

/* A linecache entry (size, mtime None, lines, name) for a source that exists only in
 * memory: linecache keeps entries whose mtime is None, and inspect.getsource,
 * tracebacks and inspect.stack() read such a source through it. New reference or
 * NULL with an exception set. */
static PyObject *linecache_entry(const char *source, const char *filename)
{
    PyObject *text = PyUnicode_FromString(source);
    if (text == NULL)
        return NULL;
    PyObject *lines = PyUnicode_Splitlines(text, 1);
    PyObject *entry = lines == NULL ? NULL
        : Py_BuildValue("(nOOs)", PyUnicode_GET_LENGTH(text), Py_None, lines, filename);
    Py_DECREF(text);
    Py_XDECREF(lines);
    return entry;
}

/* Compiles the caller functions once; fills p->driver_code. Aborts on failure: the
 * driver is a constant that compiles. */
static void driver_compile(HzProtocol *p)
{
    PyObject *ns = PyDict_New();
    PyObject *code = Py_CompileString(driver_source, HZ_DRIVER_FILENAME, Py_file_input);
    PyObject *res = code && ns ? PyEval_EvalCode(code, ns, ns) : NULL;
    for (int i = 0; res != NULL && i < DRIVER__COUNT; i++) {
        PyObject *fn = PyDict_GetItemString(ns, driver_names[i]);   /* borrowed */
        p->driver_code[i] = fn ? PyObject_GetAttrString(fn, "__code__") : NULL;
        if (p->driver_code[i] == NULL)
            Py_CLEAR(res);
    }
    p->driver_lines = res ? linecache_entry(driver_source, HZ_DRIVER_FILENAME) : NULL;
    if (p->driver_lines == NULL) {
        fprintf(stderr, "tracefuzz: internal error: the caller functions do not build\n");
        PyErr_Print();
        abort();
    }
    Py_DECREF(res);
    Py_DECREF(code);
    Py_DECREF(ns);
    /* Only Python targets read sources (register_source); importing linecache
     * (tokenize, re) was 14% of the CPU of a short fuzz run on builtin. */
    if (!p->python_target)
        return;
    PyObject *lc = PyImport_ImportModule("linecache");
    p->linecache = lc ? PyObject_GetAttrString(lc, "cache") : NULL;
    Py_XDECREF(lc);
    if (p->linecache == NULL || !PyDict_Check(p->linecache)) {
        PyErr_Clear();   /* no source for inspect: frames still work */
        Py_CLEAR(p->linecache);
    }
}

/* Registers the program's source (and the driver's) with linecache, so a jit that
 * reads its function's source (inspect.getsource) or the caller's context lines
 * gets them. Python targets only: the built-in tracer and identity read none. */
static void register_source(HzProtocol *p, const char *source, const char *filename)
{
    if (!p->python_target || p->linecache == NULL)
        return;
    PyObject *entry = linecache_entry(source, filename);
    if (entry == NULL || PyDict_SetItemString(p->linecache, filename, entry) < 0 ||
        PyDict_SetItemString(p->linecache, HZ_DRIVER_FILENAME, p->driver_lines) < 0)
        PyErr_Clear();   /* a target that broke linecache: it only loses the source */
    Py_XDECREF(entry);
}

HzProtocol *hz_protocol_new(const HzTarget *target)
{
    HzProtocol *p = calloc(1, sizeof *p);
    if (p == NULL)
        abort();
    p->target = target;
    p->python_target = target->name == NULL ||
        (strcmp(target->name, "builtin") != 0 && strcmp(target->name, "identity") != 0);
    p->provenance_error = tfjit_exception("ProvenanceError");
    p->limit_exceeded = tfjit_exception("LimitExceeded");
    p->code = hz_codecache_new();
    p->gc_every = HZ_GC_EVERY;
    p->gc_thaw_every = HZ_GC_THAW_EVERY;
    p->gc = PyImport_ImportModule("gc");
    if (p->gc == NULL)
        PyErr_Clear();   /* then the heap is never frozen: slower, not wrong */
    /* Targets of ours (the built-in tracer, identity) and the programs, which
     * generate little cyclic garbage, run with the automatic collector off: the
     * young generation is collected once after each input instead (input_collect).
     * Collections triggered inside an input, by type creation's allocations mostly,
     * traversed that input's live world again and again: 8% of a loop exec's time
     * with a grown corpus (perf), and 3.2-5.5% fewer CPU seconds with this (20,000-run
     * loops from an 85,000-run corpus, docs/PERFORMANCE.md, session 16). A jit
     * written in Python keeps the automatic collector: its garbage is its own, and
     * an input's worth of it uncollected could exceed the fuzzer's RSS limit. */
    if (!p->python_target && p->gc != NULL) {
        p->gc_collect = PyObject_GetAttrString(p->gc, "collect");
        if (p->gc_collect == NULL)
            PyErr_Clear();   /* then the automatic collector stays on */
        else
            PyGC_Disable();
    }
    driver_compile(p);
    return p;
}

HzCodeCacheStats hz_protocol_code_stats(const HzProtocol *p)
{
    return hz_codecache_stats(p->code);
}

void hz_protocol_free(HzProtocol *p)
{
    if (p == NULL)
        return;
    hz_codecache_free(p->code);
    if (p->gc_collect != NULL)
        PyGC_Enable();
    Py_XDECREF(p->gc_collect);
    Py_XDECREF(p->gc);
    for (int i = 0; i < DRIVER__COUNT; i++)
        Py_XDECREF(p->driver_code[i]);
    Py_XDECREF(p->driver_lines);
    Py_XDECREF(p->linecache);
    Py_XDECREF(p->provenance_error);
    Py_XDECREF(p->limit_exceeded);
    free(p);
}

/* Takes the pending exception as a normalised instance with its traceback attached.
 * Returns a new reference; an exception must be set. */
static PyObject *take_exception(void)
{
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    if (t == NULL) {
        fprintf(stderr, "tracefuzz: internal error: expected an exception\n");
        abort();
    }
    PyErr_NormalizeException(&t, &v, &tb);
    if (v == NULL) {   /* normalisation failed badly: keep the type as the value */
        v = Py_NewRef(t);
    }
    else if (tb != NULL) {
        PyException_SetTraceback(v, tb);
    }
    Py_XDECREF(t);
    Py_XDECREF(tb);
    return v;
}

/* True when any class in exc's MRO is named ProvenanceError (targets other than the
 * built-in tracer declare provenance failures that way). */
static bool named_provenance_error(PyObject *exc)
{
    PyObject *mro = Py_TYPE(exc)->tp_mro;   /* borrowed */
    if (mro == NULL || !PyTuple_Check(mro))
        return false;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(mro); i++) {
        const char *n = ((PyTypeObject *)PyTuple_GET_ITEM(mro, i))->tp_name;
        const char *dot = strrchr(n, '.');
        if (strcmp(dot ? dot + 1 : n, "ProvenanceError") == 0)
            return true;
    }
    return false;
}

/* True when the innermost traceback frame of exc runs code from another file than
 * the program's: the target raised it from its own frames. An exception without
 * Python frames (raised by C code around the program) is not counted as the
 * target's own. */
static bool raised_by_target(PyObject *exc, const char *filename)
{
    PyObject *tb = PyException_GetTraceback(exc);   /* new reference */
    if (tb == NULL)
        return false;
    PyTracebackObject *last = (PyTracebackObject *)tb;
    while (last->tb_next != NULL)
        last = last->tb_next;
    bool own = false;
    PyCodeObject *code = PyFrame_GetCode(last->tb_frame);   /* new reference */
    const char *fn = PyUnicode_AsUTF8(code->co_filename);
    if (fn == NULL)
        PyErr_Clear();
    else
        own = strcmp(fn, filename) != 0;
    Py_DECREF(code);
    Py_DECREF(tb);
    return own;
}

/* How the target's exception ends the run; OR_TARGET_FINISHED when it is a result. */
static OrTargetEnd classify(HzProtocol *p, PyObject *exc, int step, const Run *eager,
                            const char *filename)
{
    if ((p->provenance_error != NULL &&
         PyObject_TypeCheck(exc, (PyTypeObject *)p->provenance_error)) ||
        named_provenance_error(exc))
        return OR_TARGET_PROVENANCE;
    if (p->target->unsupported != NULL &&
        PyObject_TypeCheck(exc, (PyTypeObject *)p->target->unsupported))
        return OR_TARGET_UNSUPPORTED;
    if (p->limit_exceeded != NULL &&
        PyObject_TypeCheck(exc, (PyTypeObject *)p->limit_exceeded))
        return OR_TARGET_TIMEOUT;
    /* Out of memory (--memory-limit) where eager was not: wherever it was raised, the
     * target's run used the memory (eager did the same work within the limit). */
    if (PyErr_GivenExceptionMatches(exc, PyExc_MemoryError) &&
        !(step >= 1 && eager->exc[step - 1] != NULL &&
          PyErr_GivenExceptionMatches(eager->exc[step - 1], PyExc_MemoryError)))
        return OR_TARGET_OOM;
    if (step >= 1 && eager->exc[step - 1] == NULL && raised_by_target(exc, filename))
        return OR_TARGET_OWN_EXCEPTION;
    return OR_TARGET_FINISHED;
}

/* Ends the run with a setup failure taken from the pending exception. In eager runs
 * the input is invalid; in the target run the target failed to set up. */
static void fail_run(Run *r, RunMode mode, const char *what, int step,
                     const char *filename)
{
    PyObject *exc = take_exception();
    char *text = hz_exception_text_of(exc, mode == RUN_TARGET);
    if (mode == RUN_TARGET)
        hz_crash_state(exc, filename, r->ns, r->crash_state, r->crash_msg);
    Py_DECREF(exc);
    r->failed = true;
    r->end_step = step;
    if (mode == RUN_EAGER) {
        r->why = xprintf("%s raised %s", what, text);
    }
    else {
        r->end = OR_TARGET_SETUP_FAILED;
        r->message = xprintf("%s raised in the target run:\n%s", what, text);
    }
    free(text);
}

static void fail_contract(Run *r, RunMode mode, const char *why)
{
    r->failed = true;
    if (mode == RUN_EAGER) {
        r->why = xstrdup(why);
    }
    else {   /* only a nondeterministic program gets here */
        r->end = OR_TARGET_SETUP_FAILED;
        r->message = xprintf("in the target run, %s%s", why, NULL);
    }
}

/* Snapshot of the namespace's current LOG after a step (a new list or NULL). */
static PyObject *snapshot_log(PyObject *ns)
{
    PyObject *log = PyDict_GetItemString(ns, "LOG");   /* borrowed */
    if (log == NULL)
        return NULL;
    PyObject *copy = PySequence_List(log);
    if (copy == NULL)
        PyErr_Clear();   /* a LOG that is not iterable is observed only at the end */
    return copy;
}

/* Returns a new reference to args as a tuple, or NULL with an exception set. */
static PyObject *as_args(PyObject *made, const char *who)
{
    if (PyTuple_Check(made))
        return Py_NewRef(made);
    PyObject *t = PySequence_Tuple(made);
    if (t == NULL) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s() must return a tuple of arguments, not %s",
                     who, Py_TYPE(made)->tp_name);
    }
    return t;
}

/* Calls fn() or fn(*args) eagerly; new reference or NULL with an exception. */
static PyObject *call_eager(PyObject *fn, PyObject *args)
{
    return args ? PyObject_Call(fn, args, NULL) : PyObject_CallNoArgs(fn);
}

static void notify_step(const HzProtocolHooks *hooks, int step)
{
    if (hooks != NULL && hooks->target_step != NULL)
        hooks->target_step(hooks->ctx, step);
}

/* One run of the protocol. eager is the first eager run (for the target run's
 * classification), NULL in eager runs. Fills r; never leaves an exception set. */
static void run_once(HzProtocol *p, PyObject *code, const char *filename, RunMode mode,
                     const Run *eager, const HzProtocolHooks *hooks, Run *r)
{
    PyObject *f = NULL, *made = NULL;
    PyObject *make, *program, *between, *make_other;   /* borrowed from r->ns */
    memset(r, 0, sizeof *r);
    r->end = OR_TARGET_FINISHED;

    r->ns = PyDict_New();
    if (r->ns == NULL)
        goto nomem;
    PyObject *name = PyUnicode_FromString(HZ_PROGRAM_MODULE);
    if (name == NULL || PyDict_SetItemString(r->ns, "__name__", name) < 0 ||
        PyDict_SetItemString(r->ns, "__builtins__", PyEval_GetBuiltins()) < 0) {
        Py_XDECREF(name);
        goto nomem;
    }
    Py_DECREF(name);
    /* code: the module's pieces (hz_codecache.h), run in order as the module body */
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(code); i++) {
        PyObject *res = PyEval_EvalCode(PyTuple_GET_ITEM(code, i), r->ns, r->ns);
        if (res == NULL) {
            fail_run(r, mode, "the module body", 0, filename);
            goto done;
        }
        Py_DECREF(res);
    }

    make = PyDict_GetItemString(r->ns, "make");
    program = PyDict_GetItemString(r->ns, "program");
    between = PyDict_GetItemString(r->ns, "between");
    make_other = PyDict_GetItemString(r->ns, "make_other");
    if (make == NULL || program == NULL) {
        fail_contract(r, mode, make == NULL ? "the program defines no make()"
                                      : "the program defines no program()");
        goto done;
    }
    if (!PyCallable_Check(make) || !PyCallable_Check(program) ||
        (between != NULL && !PyCallable_Check(between)) ||
        (make_other != NULL && !PyCallable_Check(make_other))) {
        fail_contract(r, mode, "make, program, between and make_other must be callables");
        goto done;
    }
    /* The caller functions live in the program's module: a jit reading its
     * caller's globals finds the program's. */
    for (int i = 0; i < DRIVER__COUNT; i++) {
        r->driver[i] = PyFunction_New(p->driver_code[i], r->ns);
        if (r->driver[i] == NULL ||
            PyDict_SetItemString(r->ns, driver_names[i], r->driver[i]) < 0)
            goto nomem;
    }
    /* Keep them alive even if the program rebinds its globals. */
    Py_INCREF(make);
    Py_INCREF(program);
    Py_XINCREF(between);
    Py_XINCREF(make_other);

    if (mode == RUN_TARGET) {
        notify_step(hooks, 0);
        f = PyObject_CallFunctionObjArgs(r->driver[DRIVER_JIT], p->target->jit, program,
                                         NULL);
        if (f == NULL) {
            PyObject *exc = take_exception();
            OrTargetEnd end = classify(p, exc, 0, eager, filename);
            r->failed = true;
            r->end = end == OR_TARGET_FINISHED ? OR_TARGET_SETUP_FAILED : end;
            r->end_step = 0;
            char *text = hz_exception_text_of(exc, 1);
            hz_crash_state(exc, filename, r->ns, r->crash_state, r->crash_msg);
            r->message = xprintf("target(program) raised:\n%s%s", text, NULL);
            free(text);
            Py_DECREF(exc);
            goto release;
        }
    }
    else {
        f = Py_NewRef(program);
    }

    made = PyObject_CallNoArgs(make);
    if (made == NULL || (r->args = as_args(made, "make")) == NULL) {
        fail_run(r, mode, "make()", 1, filename);
        goto release;
    }
    Py_CLEAR(made);

    for (int step = 1; step <= OR_STEPS; step++) {
        PyObject *args = r->args;
        if (step == 2 && between != NULL) {
            PyObject *b = call_eager(between, r->args);
            if (b == NULL) {
                fail_run(r, mode, "between()", step, filename);
                goto release;
            }
            Py_DECREF(b);
        }
        if (step == 3) {
            made = PyObject_CallNoArgs(make_other ? make_other : make);
            if (made == NULL ||
                (r->args2 = as_args(made, make_other ? "make_other" : "make")) == NULL) {
                fail_run(r, mode, make_other ? "make_other()" : "make()", step, filename);
                goto release;
            }
            Py_CLEAR(made);
            args = r->args2;
        }
        if (mode == RUN_TARGET)
            notify_step(hooks, step);
        PyObject *rv = PyObject_CallFunctionObjArgs(r->driver[DRIVER_STEP],
                                                   r->driver[DRIVER_CALL], f, args, NULL);
        if (rv == NULL) {
            PyObject *exc = take_exception();
            if (mode == RUN_TARGET) {
                OrTargetEnd end = classify(p, exc, step, eager, filename);
                if (end != OR_TARGET_FINISHED) {
                    r->failed = true;
                    r->end = end;
                    r->end_step = step;
                    char *text = hz_exception_text_of(exc, 1);
                    hz_crash_state(exc, filename, r->ns, r->crash_state, r->crash_msg);
                    r->message = xprintf("%s%s", text, NULL);
                    free(text);
                    Py_DECREF(exc);
                    goto release;
                }
                hz_crash_state(exc, filename, r->ns, r->exc_state[step - 1], r->exc_msg[step - 1]);
            }
            r->exc[step - 1] = exc;   /* an exception from program is a result */
        }
        else {
            r->result[step - 1] = rv;
        }
        r->log_after[step - 1] = snapshot_log(r->ns);
        r->steps_done = step;
    }

release:
    Py_XDECREF(made);
    Py_XDECREF(f);
    Py_DECREF(make);
    Py_DECREF(program);
    Py_XDECREF(between);
    Py_XDECREF(make_other);
done:
    if (PyErr_Occurred()) {
        fprintf(stderr, "tracefuzz: internal error: exception left set by the protocol\n");
        PyErr_Print();
        abort();
    }
    return;
nomem:
    fprintf(stderr, "tracefuzz: out of memory setting up a run\n");
    abort();
}

/* Observation of a run (steps done so far). Aborts on failure: or_observe runs no
 * user code and fails only on out-of-memory. */
static void observe(const Run *r, OrObservation *obs)
{
    OrRunRaw raw;
    memset(&raw, 0, sizeof raw);
    raw.steps_done = r->steps_done;
    for (int i = 0; i < OR_STEPS; i++) {
        raw.result[i] = r->result[i];
        raw.exc[i] = r->exc[i];
        raw.log_after[i] = r->log_after[i];
    }
    raw.args = r->args;
    raw.args2 = r->args2;
    raw.log = r->ns ? PyDict_GetItemString(r->ns, "LOG") : NULL;
    raw.ns = r->ns;   /* the program's globals and classes are observed too */
    if (or_observe(&raw, obs) < 0) {
        fprintf(stderr, "tracefuzz: cannot build an observation\n");
        PyErr_Print();
        abort();
    }
}

static char *obs_text(const OrObservation *o)
{
    char *t = or_observation_text(o);
    if (t == NULL)
        abort();
    return t;
}

void hz_protocol_set_fast(HzProtocol *p, bool fast)
{
    p->fast = fast;
}

void hz_protocol_set_gc(HzProtocol *p, unsigned long every, unsigned long thaw_every)
{
    p->gc_every = every > 0 ? every : 1;
    p->gc_thaw_every = thaw_every;
}

/* The protocol of one input. Full: eager 1, eager 2, target, then the verdict of the
 * three. Fast (no hooks): eager 1 and the target only, decided as if eager 2 had
 * seen what eager 1 saw. That verdict stands when it is OK (whatever eager 2 would
 * have seen, the target agreed with a real eager run) or INVALID (decided by eager
 * 1 alone, as in the full protocol); anything else returns 1 without filling out,
 * and the caller runs the full protocol, so a finding is always decided, reported
 * and signed by the full protocol, in its order. Observation texts are filled in
 * full runs only. Returns 0, 1 (fast only) or -1 on out-of-memory. */
static int run_protocol(HzProtocol *p, const char *source, const char *filename,
                        const HzProtocolHooks *hooks, bool fast, HzOutcome *out)
{
    memset(out, 0, sizeof *out);
    Run e1, e2, t;
    memset(&e1, 0, sizeof e1);
    memset(&e2, 0, sizeof e2);
    memset(&t, 0, sizeof t);
    OrObservation o1, o2, ot;
    bool have1 = false, have2 = false, havet = false;
    char *why = NULL;
    OrVerdictInput in;
    memset(&in, 0, sizeof in);
    in.program_source = source;
    hz_hint_bind(&in, source);

    /* A Python target may read the program's source and line numbers: exact lines. */
    register_source(p, source, filename);
    PyObject *code = hz_codecache_get(p->code, source, filename,
                                      !fast || p->python_target);   /* new */
    if (code == NULL) {
        char *text = hz_exception_text(0);
        why = xprintf("the source does not compile: %s%s", text, NULL);
        free(text);
        goto decide;
    }

    run_once(p, code, filename, RUN_EAGER, NULL, hooks, &e1);
    if (e1.failed) {
        why = xprintf("eager run 1: %s%s", e1.why, NULL);
        goto decide;
    }
    observe(&e1, &o1);
    have1 = true;
    if (!fast) {
        run_once(p, code, filename, RUN_EAGER, NULL, hooks, &e2);
        if (e2.failed) {
            /* Run 1 got through: the program behaves differently each time. */
            why = xprintf("eager run 2 (run 1 succeeded, so the program is "
                          "nondeterministic): %s%s", e2.why, NULL);
            goto decide;
        }
        observe(&e2, &o2);
        have2 = true;
        if (hooks != NULL && hooks->eager_done != NULL)
            hooks->eager_done(hooks->ctx, false, NULL, &o1, &o2);
    }

    run_once(p, code, filename, RUN_TARGET, &e1, hooks, &t);
    observe(&t, &ot);
    havet = true;
    in.target_end = t.end;
    in.step = t.end_step;
    in.target_message = t.message;
    in.crash_state = t.crash_state[0] ? t.crash_state : NULL;
    in.crash_message = t.crash_msg[0] ? t.crash_msg : NULL;
    for (int i = 0; i < OR_STEPS; i++) {
        in.step_exc_state[i] = t.exc_state[i][0] ? t.exc_state[i] : NULL;
        in.step_exc_message[i] = t.exc_msg[i][0] ? t.exc_msg[i] : NULL;
    }

decide:
    if (why != NULL) {
        in.invalid = true;
        in.invalid_why = why;
        if (hooks != NULL && hooks->eager_done != NULL)
            hooks->eager_done(hooks->ctx, true, why, have1 ? &o1 : NULL, NULL);
    }
    in.eager1 = have1 ? &o1 : NULL;
    in.eager2 = have2 ? &o2 : NULL;
    if (fast && have1)
        in.eager2 = &o1;
    in.target = havet ? &ot : NULL;
    in.ok_report_empty = fast;   /* fast callers read only failures' reports */
    OrVerdict v;
    memset(&v, 0, sizeof v);
    int rc = or_verdict_decide(&in, &v);
    if (rc == 0 && fast && v.kind != OR_OK && v.kind != OR_INVALID) {
        or_verdict_clear(&v);
        rc = 1;
    }
    else if (rc == 0) {
        out->kind = v.kind;
        out->signature = v.signature;
        out->report = v.report;
        if (!fast) {
            out->obs_text[0] = have1 ? obs_text(&o1) : NULL;
            out->obs_text[1] = have2 ? obs_text(&o2) : NULL;
            out->obs_text[2] = havet ? obs_text(&ot) : NULL;
        }
    }
    if (have1)
        or_observation_clear(&o1);
    if (have2)
        or_observation_clear(&o2);
    if (havet)
        or_observation_clear(&ot);
    run_clear(&e1);
    run_clear(&e2);
    run_clear(&t);
    Py_XDECREF(code);
    free(why);
    return rc;
}

void hz_protocol_precompile(HzProtocol *p, const char *source, const char *filename)
{
    PyObject *code = hz_codecache_get(p->code, source, filename, true);   /* new */
    if (code == NULL)
        PyErr_Clear();   /* the input's own run reports the compile error */
    Py_XDECREF(code);
}

/* gc.freeze() or gc.unfreeze(); a failure is cleared (it costs time, not results). */
HZ_NO_COVERAGE static void gc_call(HzProtocol *p, const char *method)
{
    PyObject *r = p->gc != NULL ? PyObject_CallMethod(p->gc, method, NULL) : NULL;
    if (r == NULL)
        PyErr_Clear();
    Py_XDECREF(r);
}

/* With the automatic collector off (gc_collect set), gc.collect(0) after an input:
 * what the input allocated is young, its world is dropped, so one pass over the
 * young generation frees its cycles and moves the survivors (cache entries) on. */
HZ_NO_COVERAGE static void input_collect(HzProtocol *p)
{
    if (p->gc_collect == NULL)
        return;
    PyObject *zero = PyLong_FromLong(0);
    PyObject *r = zero != NULL ? PyObject_CallOneArg(p->gc_collect, zero) : NULL;
    if (r == NULL)
        PyErr_Clear();   /* the periodic full collection still runs */
    Py_XDECREF(r);
    Py_XDECREF(zero);
}

/* Every HZ_GC_EVERY inputs, a full collection, then gc.freeze(). Between inputs no
 * program object is alive, so what survives a full collection there is long-lived
 * (the code caches' sets and lists, the target's own state, ~16,000-20,000 tracked
 * objects) and freezing it takes it out of every later collection, which traversed it
 * each time: 600 collections of a 60,000-run loop took 4.1-4.7 CPU s of 33-38, and
 * take 0.46 s frozen (docs/PERFORMANCE.md, "Session 14"). Frozen objects are still
 * freed by their reference counts; a cycle that becomes garbage while frozen waits
 * for the thaw every HZ_GC_THAW_EVERY inputs, when one collection goes over the whole
 * heap again (tests/cli/hz_protocol_test.c, gc_freeze). Which input a collection
 * falls on depends on how many ran before: out of coverage, like the code cache. */
HZ_NO_COVERAGE static void periodic_collect(HzProtocol *p)
{
    if (++p->inputs % p->gc_every != 0) {
        input_collect(p);
        return;
    }
    if (p->gc_thaw_every > 0 && p->inputs % p->gc_thaw_every == 0)
        gc_call(p, "unfreeze");
    if (p->gc_collect != NULL)
        PyGC_Enable();   /* PyGC_Collect does nothing while the collector is off */
    PyGC_Collect();
    if (p->gc_collect != NULL)
        PyGC_Disable();
    gc_call(p, "freeze");
}

int hz_protocol_run(HzProtocol *p, const char *source, const char *filename,
                    const HzProtocolHooks *hooks, HzOutcome *out)
{
    int rc = 1;
    if (p->fast && hooks == NULL)
        rc = run_protocol(p, source, filename, NULL, true, out);
    if (rc == 1)
        rc = run_protocol(p, source, filename, hooks, false, out);

    periodic_collect(p);
    if (PyErr_Occurred()) {
        fprintf(stderr, "tracefuzz: internal error: exception left set after an input\n");
        PyErr_Print();
        abort();
    }
    return rc;
}
