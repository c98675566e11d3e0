/* tr_gen.c: generators whose bodies the tracer interprets (a type named generator).
 *
 * Mirrors Objects/genobject.c (3.11): a generator object owns a suspended frame and
 * resumes it in the tracer on next()/send()/throw()/close(), delegating throw() and
 * close() to the sub-iterator of a `yield from` like _gen_throw and gen_close, turning
 * a StopIteration escaping the body into RuntimeError (PEP 479), and closing a
 * suspended generator when it is collected (_PyGen_Finalize).
 *
 * A generator resumes inside the run that created it while that run is in progress
 * (a generator expression consumed by sum(), a loop over a generator); after the run
 * ended (the generator was returned) it gets a run of its own per resume, with a fresh
 * attribute cache and no trace.
 *
 * The handled exception (sys.exc_info()) is the thread's single slot: on resume the
 * generator's saved one, if any, is installed; at suspension the one it left is saved
 * and the caller's restored (CPython chains gi_exc_state instead).
 */
#include "tr_frame.h"
#include <frameobject.h>   /* PyFrame_New */
#include "tr_attr.h"
#include "tr_faults.h"
#include <structmember.h>

typedef struct {
    PyObject_HEAD
    TrFrame *frame;          /* owned; NULL once finished */
    TrValue *localsplus;     /* owned array behind frame->localsplus */
    TrRun *run;              /* the creating run (not owned), valid while serial is active */
    uint64_t serial;
    PyObject *code;          /* gi_code */
    PyObject *name, *qualname;
    PyObject *exc_state;     /* handled exception saved while suspended, or NULL */
    char running, started;
    PyObject *weakreflist;
} TrGen;

static PyTypeObject TrGen_Type;
static PyObject *str_close, *str_throw;   /* interned method names */

int tr_gen_check(PyObject *o)
{
    return Py_IS_TYPE(o, &TrGen_Type);
}

static void gen_free_frame(TrGen *g)
{
    if (g->frame != NULL) {
        tr_frame_clear(g->frame);
        PyMem_Free(g->frame);
        g->frame = NULL;
    }
    if (g->localsplus != NULL) {
        PyMem_Free(g->localsplus);
        g->localsplus = NULL;
    }
}

int tr_gen_new(TrRun *run, PyFunctionObject *fn, TrValue *localsplus, TrValue *out)
{
    PyCodeObject *co = (PyCodeObject *)fn->func_code;
    TrGen *g = PyObject_GC_New(TrGen, &TrGen_Type);
    if (g == NULL)
        goto fail;
    g->frame = NULL;
    g->localsplus = localsplus;
    localsplus = NULL;
    g->run = run;
    g->serial = tr_run_serial(run);
    g->code = Py_NewRef(fn->func_code);
    g->name = Py_NewRef(fn->func_name);
    g->qualname = Py_NewRef(fn->func_qualname);
    g->exc_state = NULL;
    g->running = g->started = 0;
    g->weakreflist = NULL;
    g->frame = PyMem_Calloc(1, sizeof(TrFrame));
    if (g->frame == NULL) {
        PyErr_NoMemory();
        goto fail_gen;
    }
    if (tr_frame_init(g->frame, co, (PyObject *)fn, fn->func_globals, fn->func_builtins, NULL,
                      g->localsplus) < 0)
        goto fail_gen;
    PyObject_GC_Track(g);
    TrProv *p = tr_prov_new(TR_PROV_CALL, NULL, NULL, fn->func_qualname, 0);
    if (p == NULL) {
        Py_DECREF(g);
        return -1;
    }
    p->detail = "generator";
    *out = tr_value_new((PyObject *)g, p);
    return tr_trace_record_name(run, "CALL", fn->func_qualname, " (generator)", NULL, out) < 0 ? -1 : 0;
fail_gen:
    /* the values may not be owned by a frame yet: release them (clearing twice is
     * harmless, tr_value_clear leaves NULLs) */
    for (int i = 0; i < co->co_nlocalsplus; i++)
        tr_value_clear(&g->localsplus[i]);
    Py_DECREF(g);   /* untracked: dealloc copes */
    return -1;
fail:
    if (localsplus != NULL) {
        for (int i = 0; i < co->co_nlocalsplus; i++)
            tr_value_clear(&localsplus[i]);
        PyMem_Free(localsplus);
    }
    return -1;
}

/* The sub-iterator of a `yield from` the generator is suspended in, borrowed, or NULL:
 * suspended after YIELD_VALUE at a RESUME with oparg >= 2, the receiver on the stack
 * (genobject.c: _PyGen_yf). */
static PyObject *gen_yf(TrGen *g)
{
    TrFrame *f = g->frame;
    if (f == NULL || !g->started || f->next >= f->ninstr || f->sp == 0)
        return NULL;
    if (f->instr[2 * f->next] != 151 /* RESUME */ || f->instr[2 * f->next + 1] < 2)
        return NULL;
    return f->stack[f->sp - 1].obj;
}

/* Resumes the frame: arg is the sent value (borrowed) unless exc, in which case the
 * exception set is raised at the suspension point. Returns 1 yielded (*out), 0
 * returned (*out, the frame is finished), 2 already finished (nothing ran), -1. */
static int resumed_by_tracer;   /* set around FOR_ITER's resume (tr_gen_next_traced) */

static int gen_resume(TrGen *g, PyObject *arg, int exc, TrValue *out)
{
    int by_tracer = resumed_by_tracer;
    resumed_by_tracer = 0;
    out->obj = NULL;
    out->prov = NULL;
    if (g->running) {
        PyErr_SetString(PyExc_ValueError, "generator already executing");
        return -1;
    }
    if (g->frame == NULL)
        return exc ? -1 : 2;
    if (!g->started && !exc && arg != Py_None) {
        PyErr_SetString(PyExc_TypeError, "can't send non-None value to a just-started generator");
        return -1;
    }
    TrRun own = {TR_DEFAULT_BUDGET, 0, Py_GetRecursionLimit() + 100, NULL, NULL,
                 tr_faults_active()};
    TrRun *run = tr_run_find(g->run, g->serial);
    if (run == NULL) {
        PyObject *et, *ev, *etb;
        PyErr_Fetch(&et, &ev, &etb);   /* a pending throw() survives the set-up */
        own.cache = tr_cache_new();
        if (own.cache == NULL) {
            Py_XDECREF(et);
            Py_XDECREF(ev);
            Py_XDECREF(etb);
            return -1;
        }
        PyErr_Restore(et, ev, etb);
        run = &own;
        tr_run_register(run);
    }
    else if (!by_tracer) {
        /* Resumed from C code or from another frame's opaque call: anything may
         * have changed since the last suspension. */
        tr_attr_note_escape(run);
    }
    if (g->started && !exc) {
        TrFrame *f = g->frame;
        if (f->sp >= f->stacksize) {
            fprintf(stderr, "tracefuzz: generator stack overflow\n");
            abort();
        }
        f->stack[f->sp++] = tr_value_new(Py_NewRef(arg), NULL);
    }
    PyObject *outer = PyErr_GetHandledException();
    if (g->exc_state != NULL)
        PyErr_SetHandledException(g->exc_state);
    g->started = 1;
    g->running = 1;
    Py_INCREF(g);   /* the frame may drop the last outside reference */
    int rc = tr_frame_run(run, g->frame, exc, out);
    g->running = 0;
    PyObject *cur = PyErr_GetHandledException();
    if (cur == Py_None)
        Py_CLEAR(cur);
    if (outer == Py_None)
        Py_CLEAR(outer);
    if (cur == outer)
        Py_CLEAR(cur);
    Py_XSETREF(g->exc_state, cur);
    PyErr_SetHandledException(outer);
    Py_XDECREF(outer);
    if (rc != 1) {
        gen_free_frame(g);
        Py_CLEAR(g->exc_state);
        if (rc < 0 && PyErr_ExceptionMatches(PyExc_StopIteration))
            _PyErr_FormatFromCause(PyExc_RuntimeError, "generator raised StopIteration");
    }
    if (run == &own) {
        tr_run_unregister(run);
        tr_cache_free(own.cache);
    }
    Py_DECREF(g);
    return rc;
}

/* send / __next__: the result as CPython's gen_send_ex returns it: a new reference, or
 * NULL with StopIteration(value) (none when quiet and the value is None). */
static PyObject *gen_send_result(TrGen *g, PyObject *arg, int exc, int quiet)
{
    TrValue v;
    int rc = gen_resume(g, arg, exc, &v);
    if (rc < 0)
        return NULL;
    PyObject *r = v.obj;
    tr_prov_decref(v.prov);
    if (rc == 1)
        return r;
    if (rc == 2) {
        if (!quiet)
            PyErr_SetNone(PyExc_StopIteration);
        return NULL;
    }
    if (r == Py_None) {
        if (!quiet)
            PyErr_SetNone(PyExc_StopIteration);
    }
    else {
        _PyGen_SetStopIterationValue(r);
    }
    Py_DECREF(r);
    return NULL;
}

PyObject *tr_gen_next_traced(PyObject *gen)
{
    resumed_by_tracer = 1;
    return gen_send_result((TrGen *)gen, Py_None, 0, 1);
}

static PyObject *gen_iternext(PyObject *self)
{
    return gen_send_result((TrGen *)self, Py_None, 0, 1);
}

static PyObject *gen_send(PyObject *self, PyObject *arg)
{
    return gen_send_result((TrGen *)self, arg, 0, 0);
}

/* Closes a sub-iterator of yield from (gen_close_iter). 0 or -1. */
static int close_iter(PyObject *yf)
{
    PyObject *r;
    if (PyGen_CheckExact(yf) || tr_gen_check(yf)) {
        r = PyObject_CallMethod(yf, "close", NULL);
    }
    else {
        PyObject *meth;
        if (_PyObject_LookupAttr(yf, str_close, &meth) < 0) {
            PyErr_WriteUnraisable(yf);
            return 0;
        }
        if (meth == NULL)
            return 0;
        r = PyObject_CallNoArgs(meth);
        Py_DECREF(meth);
    }
    if (r == NULL)
        return -1;
    Py_DECREF(r);
    return 0;
}

static PyObject *gen_close(PyObject *self, PyObject *unused)
{
    TrGen *g = (TrGen *)self;
    PyObject *yf = gen_yf(g);
    int err = 0;
    if (yf != NULL) {
        Py_INCREF(yf);
        g->running = 1;
        err = close_iter(yf);
        g->running = 0;
        Py_DECREF(yf);
    }
    if (g->frame == NULL || !g->started) {
        gen_free_frame(g);
        if (err < 0)
            return NULL;
        Py_RETURN_NONE;
    }
    if (err == 0)
        PyErr_SetNone(PyExc_GeneratorExit);
    TrValue v;
    int rc = gen_resume(g, Py_None, 1, &v);
    if (rc == 1) {
        tr_value_clear(&v);
        PyErr_SetString(PyExc_RuntimeError, "generator ignored GeneratorExit");
        return NULL;
    }
    if (rc >= 0) {
        tr_value_clear(&v);
        Py_RETURN_NONE;
    }
    if (PyErr_ExceptionMatches(PyExc_StopIteration) ||
        PyErr_ExceptionMatches(PyExc_GeneratorExit)) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    return NULL;
}

/* throw(typ[, val[, tb]]) (genobject.c: _gen_throw). */
static PyObject *gen_throw(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    TrGen *g = (TrGen *)self;
    if (!_PyArg_CheckPositional("throw", nargs, 1, 3))
        return NULL;
    PyObject *typ = args[0];
    PyObject *val = nargs > 1 ? args[1] : NULL;
    PyObject *tb = nargs > 2 ? args[2] : NULL;
    PyObject *yf = gen_yf(g);
    if (yf != NULL) {
        PyObject *ret;
        Py_INCREF(yf);
        if (PyErr_GivenExceptionMatches(typ, PyExc_GeneratorExit)) {
            /* Close the sub-iterator, then raise GeneratorExit here. */
            g->running = 1;
            int err = close_iter(yf);
            g->running = 0;
            Py_DECREF(yf);
            if (err < 0)
                return gen_send_result(g, Py_None, 1, 0);
            goto throw_here;
        }
        PyObject *meth = NULL;
        if (_PyObject_LookupAttr(yf, str_throw, &meth) < 0) {
            Py_DECREF(yf);
            return NULL;
        }
        if (meth == NULL) {
            Py_DECREF(yf);
            goto throw_here;
        }
        g->running = 1;
        ret = PyObject_Vectorcall(meth, args, (size_t)nargs, NULL);
        g->running = 0;
        Py_DECREF(meth);
        Py_DECREF(yf);
        if (ret != NULL)
            return ret;
        /* The sub-iterator finished: pop it and continue after the yield-from loop,
         * with its return value or its exception (the SEND's jump target). */
        TrFrame *f = g->frame;
        TrValue recv = f->stack[--f->sp];
        tr_value_clear(&recv);
        int send_at = f->next - 2;   /* SEND, YIELD_VALUE, RESUME */
        int target = send_at + 1 + f->instr[2 * send_at + 1];
        f->next = target;
        f->lasti = target - 1;
        PyObject *value;
        if (_PyGen_FetchStopIterationValue(&value) == 0) {
            ret = gen_send_result(g, value, 0, 0);
            Py_DECREF(value);
            return ret;
        }
        return gen_send_result(g, Py_None, 1, 0);
    }
throw_here:
    if (tb == Py_None)
        tb = NULL;
    else if (tb != NULL && !PyTraceBack_Check(tb)) {
        PyErr_SetString(PyExc_TypeError, "throw() third argument must be a traceback object");
        return NULL;
    }
    Py_INCREF(typ);
    Py_XINCREF(val);
    Py_XINCREF(tb);
    if (PyExceptionClass_Check(typ)) {
        PyErr_NormalizeException(&typ, &val, &tb);
    }
    else if (PyExceptionInstance_Check(typ)) {
        if (val != NULL && val != Py_None) {
            PyErr_SetString(PyExc_TypeError, "instance exception may not have a separate value");
            goto failed;
        }
        Py_XDECREF(val);
        val = typ;
        typ = Py_NewRef(PyExceptionInstance_Class(typ));
        if (tb == NULL)
            tb = PyException_GetTraceback(val);
    }
    else {
        PyErr_Format(PyExc_TypeError,
                     "exceptions must be classes or instances deriving from BaseException, not %s",
                     Py_TYPE(typ)->tp_name);
        goto failed;
    }
    PyErr_Restore(typ, val, tb);
    return gen_send_result(g, Py_None, 1, 0);
failed:
    Py_DECREF(typ);
    Py_XDECREF(val);
    Py_XDECREF(tb);
    return NULL;
}

static void gen_finalize(PyObject *self)
{
    TrGen *g = (TrGen *)self;
    if (g->frame == NULL || !g->started)
        return;
    PyObject *et, *ev, *etb;
    PyErr_Fetch(&et, &ev, &etb);
    PyObject *r = gen_close(self, NULL);
    if (r == NULL)
        PyErr_WriteUnraisable(self);
    else
        Py_DECREF(r);
    PyErr_Restore(et, ev, etb);
}

TR_NO_COVERAGE static int gen_traverse(PyObject *self, visitproc visit, void *arg)
{
    TrGen *g = (TrGen *)self;
    Py_VISIT(g->code);
    Py_VISIT(g->name);
    Py_VISIT(g->qualname);
    Py_VISIT(g->exc_state);
    TrFrame *f = g->frame;
    if (f != NULL) {
        Py_VISIT(f->func);
        Py_VISIT(f->globals);
        Py_VISIT(f->builtins);
        Py_VISIT(f->locals);
        Py_VISIT(f->fast_locals_dict);
        for (int i = 0; i < f->sp; i++)
            Py_VISIT(f->stack[i].obj);
        if (f->localsplus != NULL) {
            for (int i = 0; i < f->nlocalsplus; i++)
                Py_VISIT(f->localsplus[i].obj);
        }
    }
    return 0;
}

TR_NO_COVERAGE static int gen_clear(PyObject *self)
{
    TrGen *g = (TrGen *)self;
    if (g->running)
        return 0;
    gen_free_frame(g);
    Py_CLEAR(g->exc_state);
    return 0;
}

static void gen_dealloc(PyObject *self)
{
    TrGen *g = (TrGen *)self;
    if (PyObject_GC_IsTracked(self)) {
        if (PyObject_CallFinalizerFromDealloc(self) < 0)
            return;   /* resurrected */
        PyObject_GC_UnTrack(self);
    }
    if (g->weakreflist != NULL)
        PyObject_ClearWeakRefs(self);
    gen_free_frame(g);
    Py_CLEAR(g->exc_state);
    Py_CLEAR(g->code);
    Py_CLEAR(g->name);
    Py_CLEAR(g->qualname);
    PyObject_GC_Del(self);
}

static PyObject *gen_repr(PyObject *self)
{
    return PyUnicode_FromFormat("<generator object %U at %p>", ((TrGen *)self)->qualname,
                                self);
}

static PyObject *gen_get_running(PyObject *self, void *unused)
{
    return PyBool_FromLong(((TrGen *)self)->running);
}

static PyObject *gen_get_suspended(PyObject *self, void *unused)
{
    TrGen *g = (TrGen *)self;
    return PyBool_FromLong(g->frame != NULL && g->started && !g->running);
}

static PyObject *gen_get_yieldfrom(PyObject *self, void *unused)
{
    PyObject *yf = gen_yf((TrGen *)self);
    return Py_NewRef(yf != NULL ? yf : Py_None);
}

/* gi_frame: None once finished; while suspended, a frame object standing for the
 * interpreted frame (its code, globals and line; a new one per access, since
 * interpreted frames are not Python frame objects). New reference. */
static PyObject *gen_get_frame(PyObject *self, void *unused)
{
    TrFrame *f = ((TrGen *)self)->frame;
    if (f == NULL)
        Py_RETURN_NONE;
    return (PyObject *)PyFrame_New(PyThreadState_Get(), f->code, f->globals, NULL);
}

static PyMethodDef gen_methods[] = {
    {"send", gen_send, METH_O, "send(arg) -> send 'arg' into the generator"},
    {"throw", (PyCFunction)(void (*)(void))gen_throw, METH_FASTCALL,
     "throw(typ[,val[,tb]]) -> raise an exception in the generator"},
    {"close", gen_close, METH_NOARGS, "close() -> raise GeneratorExit inside the generator"},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef gen_members[] = {
    {"gi_code", T_OBJECT, offsetof(TrGen, code), READONLY},
    {"__name__", T_OBJECT, offsetof(TrGen, name), READONLY},
    {"__qualname__", T_OBJECT, offsetof(TrGen, qualname), READONLY},
    {NULL},
};

static PyGetSetDef gen_getset[] = {
    {"gi_running", gen_get_running, NULL, NULL},
    {"gi_suspended", gen_get_suspended, NULL, NULL},
    {"gi_yieldfrom", gen_get_yieldfrom, NULL, NULL},
    {"gi_frame", gen_get_frame, NULL, NULL},
    {NULL},
};

static PyTypeObject TrGen_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    /* Named like CPython's (module builtins) so observations that print type names
     * see a generator; isinstance(g, types.GeneratorType) stays false (TRACER.md). */
    .tp_name = "generator",
    .tp_basicsize = sizeof(TrGen),
    .tp_dealloc = gen_dealloc,
    .tp_repr = gen_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "A generator whose body the reference tracer interprets.",
    .tp_traverse = gen_traverse,
    .tp_clear = gen_clear,
    .tp_weaklistoffset = offsetof(TrGen, weakreflist),
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = gen_iternext,
    .tp_methods = gen_methods,
    .tp_members = gen_members,
    .tp_getset = gen_getset,
    .tp_finalize = gen_finalize,
};

int tr_gen_ready(void)
{
    str_close = PyUnicode_InternFromString("close");
    str_throw = PyUnicode_InternFromString("throw");
    if (str_close == NULL || str_throw == NULL)
        return -1;
    return PyType_Ready(&TrGen_Type);
}
