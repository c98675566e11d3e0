/* tr_exc.c: exceptions in interpreted frames, as Python/ceval.c does them in 3.11:
 * the exception table (get_exception_handler), do_raise, the traceback entry added
 * when an exception passes through a frame (PyTraceBack_Here), and except*'s
 * exception_group_match. */
#include "tr_frame.h"
#include <frameobject.h>   /* PyFrame_New */

/* One varint of the exception table: 6 bits a byte, bit 6 continues (bit 7 marks an
 * entry's start). */
static const unsigned char *parse_varint(const unsigned char *p, int *result)
{
    int val = p[0] & 63;
    while (p[0] & 64) {
        p++;
        val = (val << 6) | (p[0] & 63);
    }
    *result = val;
    return p + 1;
}

int tr_exc_find_handler(PyCodeObject *co, int index, int *handler, int *level, int *lasti)
{
    const unsigned char *p = (const unsigned char *)PyBytes_AS_STRING(co->co_exceptiontable);
    const unsigned char *end = p + PyBytes_GET_SIZE(co->co_exceptiontable);
    /* Entries are sorted by start; a linear scan is plenty for program-sized code. */
    while (p < end) {
        int start, size, target, dl;
        p = parse_varint(p, &start);
        p = parse_varint(p, &size);
        p = parse_varint(p, &target);
        p = parse_varint(p, &dl);
        if (start > index)
            return 0;
        if (index < start + size) {
            *handler = target;
            *level = dl >> 1;
            *lasti = dl & 1;
            return 1;
        }
    }
    return 0;
}

/* Pushes obj (stolen) with no provenance; the compiler sized the stack for every
 * handler entry, so overflow is a broken invariant. */
static void push_plain(TrFrame *f, PyObject *obj)
{
    if (f->sp >= f->stacksize) {
        fprintf(stderr, "tracefuzz: stack overflow entering a handler in %s\n",
                PyUnicode_AsUTF8(f->code->co_qualname));
        abort();
    }
    f->stack[f->sp].obj = obj;
    f->stack[f->sp].prov = NULL;
    f->sp++;
}

int tr_exc_enter_handler(TrFrame *f, int level, int push_lasti)
{
    while (f->sp > level) {
        TrValue v = f->stack[--f->sp];
        tr_value_clear(&v);
    }
    if (push_lasti) {
        PyObject *l = PyLong_FromLong(f->lasti);
        if (l == NULL)
            return -1;
        push_plain(f, l);
    }
    PyObject *et, *ev, *etb;
    PyErr_Fetch(&et, &ev, &etb);
    PyErr_NormalizeException(&et, &ev, &etb);
    if (etb != NULL)
        PyException_SetTraceback(ev, etb);
    Py_XDECREF(etb);
    Py_XDECREF(et);
    push_plain(f, ev);
    return 0;
}

/* The locals of an interpreted frame as a new dict (cell contents for cells), or the
 * class body's mapping; new reference, NULL on error. */
static PyObject *frame_locals_snapshot(TrFrame *f)
{
    if (f->locals != NULL)
        return Py_NewRef(f->locals);
    PyObject *d = PyDict_New();
    if (d == NULL)
        return NULL;
    const unsigned char *kinds = (const unsigned char *)PyBytes_AS_STRING(f->code->co_localspluskinds);
    for (int i = 0; i < f->nlocalsplus; i++) {
        PyObject *v = f->localsplus[i].obj;
        if (v != NULL && (kinds[i] & (TR_FAST_CELL | TR_FAST_FREE)) && PyCell_Check(v))
            v = PyCell_GET(v);
        if (v != NULL &&
            PyDict_SetItem(d, PyTuple_GET_ITEM(f->code->co_localsplusnames, i), v) < 0) {
            Py_DECREF(d);
            return NULL;
        }
    }
    return d;
}

/* Like PyTraceBack_Here for the interpreted frame: a frame object with the frame's own
 * code object, globals and a snapshot of its locals (so the traceback keeps the locals
 * alive as CPython's does), and the entry's lasti and line set to the failing
 * instruction (traceback.py reads positions from the code with tb_lasti). */
void tr_exc_add_traceback(TrFrame *f)
{
    PyObject *et, *ev, *etb;
    PyErr_Fetch(&et, &ev, &etb);
    PyObject *locals = frame_locals_snapshot(f);
    PyFrameObject *fo = locals == NULL ? NULL
                                       : PyFrame_New(PyThreadState_Get(), f->code, f->globals,
                                                     locals);
    Py_XDECREF(locals);
    if (fo == NULL) {
        /* Keep the program's exception; the entry is lost (out of memory). */
        PyErr_Clear();
        PyErr_Restore(et, ev, etb);
        return;
    }
    PyErr_Restore(et, ev, etb);
    PyTraceBack_Here(fo);
    Py_DECREF(fo);
    PyErr_Fetch(&et, &ev, &etb);
    if (etb != NULL && PyTraceBack_Check(etb)) {
        PyTracebackObject *tb = (PyTracebackObject *)etb;
        tb->tb_lasti = f->lasti * (int)sizeof(_Py_CODEUNIT);
        tb->tb_lineno = tr_code_line(f->code, f->lasti);
    }
    PyErr_Restore(et, ev, etb);
}

int tr_exc_is_internal(void)
{
    return PyErr_ExceptionMatches(tr_LimitExceeded) || PyErr_ExceptionMatches(tr_Unsupported) ||
           PyErr_ExceptionMatches(tr_ProvenanceError);
}

/* Calls an exception class with no arguments, through the tracer so a Python
 * __init__ is interpreted. Returns a new reference, NULL with an exception set. */
static PyObject *instantiate(TrRun *run, PyObject *cls)
{
    TrValue callee = {cls, NULL}, res = {NULL, NULL};
    if (tr_call(run, callee, NULL, 0, NULL, &res) < 0)
        return NULL;
    tr_prov_decref(res.prov);
    if (!PyExceptionInstance_Check(res.obj)) {
        PyErr_Format(PyExc_TypeError,
                     "calling %R should have returned an instance of BaseException, not %R",
                     cls, Py_TYPE(res.obj));
        Py_DECREF(res.obj);
        return NULL;
    }
    return res.obj;
}

int tr_exc_do_raise(TrRun *run, PyObject *exc, PyObject *cause)
{
    PyObject *type = NULL, *value = NULL;
    if (exc == NULL) {
        /* Bare raise: re-raise the exception being handled, traceback unchanged. */
        PyObject *handled = PyErr_GetHandledException();
        if (handled == NULL || handled == Py_None) {
            Py_XDECREF(handled);
            PyErr_SetString(PyExc_RuntimeError, "No active exception to reraise");
            return 0;
        }
        PyErr_Restore(Py_NewRef(Py_TYPE(handled)), handled, PyException_GetTraceback(handled));
        return 1;
    }
    if (PyExceptionClass_Check(exc)) {
        type = Py_NewRef(exc);
        value = instantiate(run, exc);
        if (value == NULL)
            goto raise_error;
    }
    else if (PyExceptionInstance_Check(exc)) {
        value = Py_NewRef(exc);
        type = Py_NewRef(Py_TYPE(exc));
    }
    else {
        PyErr_SetString(PyExc_TypeError, "exceptions must derive from BaseException");
        goto raise_error;
    }
    if (cause != NULL) {
        PyObject *fixed;
        if (PyExceptionClass_Check(cause)) {
            fixed = instantiate(run, cause);
            if (fixed == NULL)
                goto raise_error;
        }
        else if (PyExceptionInstance_Check(cause)) {
            fixed = Py_NewRef(cause);
        }
        else if (cause == Py_None) {
            fixed = NULL;
        }
        else {
            PyErr_SetString(PyExc_TypeError, "exception causes must derive from BaseException");
            goto raise_error;
        }
        PyException_SetCause(value, fixed);   /* steals fixed, sets __suppress_context__ */
    }
    /* PyErr_SetObject chains __context__ from the exception being handled. */
    PyErr_SetObject(type, value);
raise_error:
    Py_XDECREF(value);
    Py_XDECREF(type);
    return 0;
}

int tr_exc_check_type(PyObject *right)
{
    if (PyTuple_Check(right)) {
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(right); i++) {
            PyObject *e = PyTuple_GET_ITEM(right, i);
            if (!PyExceptionClass_Check(e))
                goto bad;
        }
        return 0;
    }
    if (PyExceptionClass_Check(right))
        return 0;
bad:
    PyErr_SetString(PyExc_TypeError,
                    "catching classes that do not inherit from BaseException is not allowed");
    return -1;
}

int tr_exc_check_star_type(PyObject *right)
{
    if (tr_exc_check_type(right) < 0)
        return -1;
    int is_group;
    if (PyTuple_Check(right)) {
        is_group = 0;
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(right); i++) {
            if (PyObject_IsSubclass(PyTuple_GET_ITEM(right, i), PyExc_BaseExceptionGroup) > 0)
                is_group = 1;
        }
    }
    else {
        is_group = PyObject_IsSubclass(right, PyExc_BaseExceptionGroup) > 0;
    }
    if (PyErr_Occurred())
        return -1;
    if (is_group) {
        PyErr_SetString(PyExc_TypeError,
                        "catching ExceptionGroup with except* is not allowed. Use except instead.");
        return -1;
    }
    return 0;
}

int tr_exc_group_match(PyObject *exc_value, PyObject *match_type, PyObject **match,
                       PyObject **rest)
{
    *match = NULL;
    *rest = NULL;
    if (exc_value == Py_None) {
        *match = Py_NewRef(Py_None);
        *rest = Py_NewRef(Py_None);
        return 0;
    }
    if (PyErr_GivenExceptionMatches(exc_value, match_type)) {
        /* The whole exception matches: a naked one is wrapped in a group. */
        if (PyObject_TypeCheck(exc_value, (PyTypeObject *)PyExc_BaseExceptionGroup)) {
            *match = Py_NewRef(exc_value);
        }
        else {
            PyObject *excs = PyTuple_Pack(1, exc_value);
            if (excs == NULL)
                return -1;
            PyObject *wrapped = PyObject_CallFunction(PyExc_BaseExceptionGroup, "sO", "", excs);
            Py_DECREF(excs);
            if (wrapped == NULL)
                return -1;
            PyObject *tb = PyException_GetTraceback(exc_value);
            if (tb != NULL) {
                PyException_SetTraceback(wrapped, tb);
                Py_DECREF(tb);
            }
            *match = wrapped;
        }
        *rest = Py_NewRef(Py_None);
        return 0;
    }
    if (PyObject_TypeCheck(exc_value, (PyTypeObject *)PyExc_BaseExceptionGroup)) {
        PyObject *pair = PyObject_CallMethod(exc_value, "split", "O", match_type);
        if (pair == NULL)
            return -1;
        if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_Format(PyExc_TypeError, "%.200s.split must return a 2-tuple, got %.200s",
                         Py_TYPE(exc_value)->tp_name, Py_TYPE(pair)->tp_name);
            Py_DECREF(pair);
            return -1;
        }
        *match = Py_NewRef(PyTuple_GET_ITEM(pair, 0));
        *rest = Py_NewRef(PyTuple_GET_ITEM(pair, 1));
        Py_DECREF(pair);
        return 0;
    }
    *match = Py_NewRef(Py_None);
    *rest = Py_NewRef(Py_None);
    return 0;
}

/* ---- except*: PREP_RERAISE_STAR ---- */

/* Collects id()s of the leaf exceptions of e (groups are walked). */
static int collect_leaf_ids(PyObject *e, PyObject *ids)
{
    if (e == Py_None)
        return 0;
    if (PyObject_TypeCheck(e, (PyTypeObject *)PyExc_BaseExceptionGroup)) {
        PyObject *excs = PyObject_GetAttrString(e, "exceptions");
        if (excs == NULL)
            return -1;
        int rc = 0;
        for (Py_ssize_t i = 0; rc == 0 && i < PyTuple_GET_SIZE(excs); i++)
            rc = collect_leaf_ids(PyTuple_GET_ITEM(excs, i), ids);
        Py_DECREF(excs);
        return rc;
    }
    PyObject *id = PyLong_FromVoidPtr(e);
    if (id == NULL)
        return -1;
    int rc = PySet_Add(ids, id);
    Py_DECREF(id);
    return rc;
}

/* split()'s condition must be a Python function (exceptions.c checks PyFunction):
 * a factory `lambda ids: lambda e: id(e) in ids`, compiled once. New ref or NULL. */
static PyObject *leaf_predicate(PyObject *ids)
{
    static PyObject *factory;
    if (factory == NULL) {
        PyObject *g = PyDict_New();
        if (g == NULL)
            return NULL;
        if (PyDict_SetItemString(g, "__builtins__", PyEval_GetBuiltins()) == 0)
            factory = PyRun_String("lambda ids: (lambda e: id(e) in ids)", Py_eval_input, g, g);
        Py_DECREF(g);
        if (factory == NULL)
            return NULL;
    }
    return PyObject_CallOneArg(factory, ids);
}

/* The part of eg whose leaves are the leaves of keep (a list): new ref (None if empty). */
static PyObject *group_projection(PyObject *eg, PyObject *keep)
{
    if (PyList_GET_SIZE(keep) == 0)
        return Py_NewRef(Py_None);
    PyObject *ids = PySet_New(NULL), *pred = NULL, *pair = NULL, *res = NULL;
    if (ids == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(keep); i++) {
        if (collect_leaf_ids(PyList_GET_ITEM(keep, i), ids) < 0)
            goto done;
    }
    pred = leaf_predicate(ids);
    if (pred == NULL)
        goto done;
    pair = PyObject_CallMethod(eg, "split", "O", pred);
    if (pair == NULL)
        goto done;
    if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
        PyErr_SetString(PyExc_TypeError, "split must return a 2-tuple");
        goto done;
    }
    res = Py_NewRef(PyTuple_GET_ITEM(pair, 0));
done:
    Py_XDECREF(ids);
    Py_XDECREF(pred);
    Py_XDECREF(pair);
    return res;
}

/* An exception re-raised by an except* clause shares the original's metadata. */
static int same_metadata(PyObject *a, PyObject *b)
{
    PyObject *ta = PyException_GetTraceback(a), *tb = PyException_GetTraceback(b);
    PyObject *ca = PyException_GetCause(a), *cb = PyException_GetCause(b);
    PyObject *xa = PyException_GetContext(a), *xb = PyException_GetContext(b);
    PyObject *na = NULL, *nb = NULL;
    PyObject *notes = PyUnicode_InternFromString("__notes__");
    if (notes == NULL || _PyObject_LookupAttr(a, notes, &na) < 0 ||
        _PyObject_LookupAttr(b, notes, &nb) < 0)
        PyErr_Clear();
    Py_XDECREF(notes);
    int same = ta == tb && ca == cb && xa == xb && na == nb;
    Py_XDECREF(ta);
    Py_XDECREF(tb);
    Py_XDECREF(ca);
    Py_XDECREF(cb);
    Py_XDECREF(xa);
    Py_XDECREF(xb);
    Py_XDECREF(na);
    Py_XDECREF(nb);
    return same;
}

PyObject *tr_exc_prep_reraise_star(PyObject *orig, PyObject *excs)
{
    if (!PyList_Check(excs)) {
        PyErr_SetString(PyExc_SystemError, "PREP_RERAISE_STAR: not a list");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(excs);
    if (n == 0)
        return Py_NewRef(Py_None);
    if (!PyObject_TypeCheck(orig, (PyTypeObject *)PyExc_BaseExceptionGroup))
        return Py_NewRef(PyList_GET_ITEM(excs, 0));   /* a naked exception, wrapped */
    PyObject *raised = PyList_New(0), *reraised = PyList_New(0), *eg = NULL, *result = NULL;
    if (raised == NULL || reraised == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *e = PyList_GET_ITEM(excs, i);
        if (e == Py_None)
            continue;
        if (PyList_Append(same_metadata(e, orig) ? reraised : raised, e) < 0)
            goto done;
    }
    eg = group_projection(orig, reraised);
    if (eg == NULL)
        goto done;
    if (PyList_GET_SIZE(raised) == 0) {
        result = Py_NewRef(eg);
        goto done;
    }
    if (eg != Py_None && PyList_Append(raised, eg) < 0)
        goto done;
    if (PyList_GET_SIZE(raised) > 1)
        result = PyObject_CallFunction(PyExc_BaseExceptionGroup, "sO", "", raised);
    else
        result = Py_NewRef(PyList_GET_ITEM(raised, 0));
done:
    Py_XDECREF(raised);
    Py_XDECREF(reraised);
    Py_XDECREF(eg);
    return result;
}
