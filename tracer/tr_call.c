/* tr_call.c: every call the tracer makes (tr_eval.h's tr_call).
 *
 * - Python functions (and bound methods of them) are interpreted: arguments are
 *   bound like CPython's initialize_locals (Python/ceval.c, 3.11), with its messages.
 *   Generator functions make a tfjit.generator (tr_gen.c); coroutine and async
 *   generator functions are called natively (documented in docs/TRACER.md).
 * - Classes whose metatype keeps type.__call__ are modelled like type_call: __new__
 *   (interpreted when written in Python), then __init__ (likewise).
 * - Instances (and metaclasses) with a Python __call__ are interpreted through it.
 * - Lookasides (tr_lookaside.c): builtins whose semantics involve the attribute
 *   protocol are modelled; functools.partial is unwrapped.
 * - Everything else is a C call: PyObject_Vectorcall, a CALL provenance, and the
 *   attribute cache forgets everything unless the call is known not to run user code.
 */
#include "tr_frame.h"
#include "tr_reuse.h"
#include "tr_attr.h"

/* ---- argument binding (ceval.c: initialize_locals and its error messages) ---- */

static void format_missing(PyObject *qualname, const char *kind, PyObject *names)
{
    Py_ssize_t len = PyList_GET_SIZE(names);
    PyObject *name_str = NULL;
    if (len == 1) {
        name_str = Py_NewRef(PyList_GET_ITEM(names, 0));
    }
    else if (len == 2) {
        name_str = PyUnicode_FromFormat("%U and %U", PyList_GET_ITEM(names, 0),
                                        PyList_GET_ITEM(names, 1));
    }
    else {
        PyObject *tail = PyUnicode_FromFormat(", %U, and %U", PyList_GET_ITEM(names, len - 2),
                                              PyList_GET_ITEM(names, len - 1));
        PyObject *head = PyList_GetSlice(names, 0, len - 2);
        PyObject *sep = PyUnicode_FromString(", ");
        PyObject *joined = (head && sep) ? PyUnicode_Join(sep, head) : NULL;
        if (tail != NULL && joined != NULL)
            name_str = PyUnicode_Concat(joined, tail);
        Py_XDECREF(tail);
        Py_XDECREF(head);
        Py_XDECREF(sep);
        Py_XDECREF(joined);
    }
    if (name_str == NULL)
        return;
    PyErr_Format(PyExc_TypeError, "%U() missing %zd required %s argument%s: %U", qualname, len,
                 kind, len == 1 ? "" : "s", name_str);
    Py_DECREF(name_str);
}

static void missing_arguments(PyFunctionObject *fn, TrValue *lp, Py_ssize_t start,
                              Py_ssize_t end, const char *kind)
{
    PyCodeObject *co = (PyCodeObject *)fn->func_code;
    PyObject *names = PyList_New(0);
    if (names == NULL)
        return;
    for (Py_ssize_t i = start; i < end; i++) {
        if (lp[i].obj == NULL) {
            PyObject *r = PyObject_Repr(PyTuple_GET_ITEM(co->co_localsplusnames, i));
            if (r == NULL || PyList_Append(names, r) < 0) {
                Py_XDECREF(r);
                Py_DECREF(names);
                return;
            }
            Py_DECREF(r);
        }
    }
    format_missing(fn->func_qualname, kind, names);
    Py_DECREF(names);
}

static void too_many_positional(PyFunctionObject *fn, TrValue *lp, Py_ssize_t given)
{
    PyCodeObject *co = (PyCodeObject *)fn->func_code;
    Py_ssize_t kwonly_given = 0;
    for (Py_ssize_t i = co->co_argcount; i < co->co_argcount + co->co_kwonlyargcount; i++) {
        if (lp[i].obj != NULL)
            kwonly_given++;
    }
    Py_ssize_t defcount = fn->func_defaults == NULL ? 0 : PyTuple_GET_SIZE(fn->func_defaults);
    PyObject *sig, *kwonly_sig;
    int plural;
    if (defcount) {
        plural = 1;
        sig = PyUnicode_FromFormat("from %zd to %d", co->co_argcount - defcount, co->co_argcount);
    }
    else {
        plural = co->co_argcount != 1;
        sig = PyUnicode_FromFormat("%d", co->co_argcount);
    }
    if (sig == NULL)
        return;
    if (kwonly_given)
        kwonly_sig = PyUnicode_FromFormat(" positional argument%s (and %zd keyword-only argument%s)",
                                          given != 1 ? "s" : "", kwonly_given,
                                          kwonly_given != 1 ? "s" : "");
    else
        kwonly_sig = PyUnicode_FromString("");
    if (kwonly_sig != NULL)
        PyErr_Format(PyExc_TypeError, "%U() takes %U positional argument%s but %zd%U %s given",
                     fn->func_qualname, sig, plural ? "s" : "", given, kwonly_sig,
                     given == 1 && !kwonly_given ? "was" : "were");
    Py_DECREF(sig);
    Py_XDECREF(kwonly_sig);
}

static void posonly_as_keyword(PyFunctionObject *fn, PyObject *kwnames)
{
    PyCodeObject *co = (PyCodeObject *)fn->func_code;
    PyObject *names = PyList_New(0);
    if (names == NULL)
        return;
    for (int k = 0; k < co->co_posonlyargcount; k++) {
        PyObject *pname = PyTuple_GET_ITEM(co->co_localsplusnames, k);
        for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(kwnames); j++) {
            PyObject *kw = PyTuple_GET_ITEM(kwnames, j);
            int eq = PyObject_RichCompareBool(pname, kw, Py_EQ);
            if (eq < 0 || (eq > 0 && PyList_Append(names, kw) < 0)) {
                Py_DECREF(names);
                return;
            }
        }
    }
    if (PyList_GET_SIZE(names) > 0) {
        PyObject *sep = PyUnicode_FromString(", ");
        PyObject *joined = sep != NULL ? PyUnicode_Join(sep, names) : NULL;
        if (joined != NULL)
            PyErr_Format(PyExc_TypeError,
                         "%U() got some positional-only arguments passed as keyword arguments: '%U'",
                         fn->func_qualname, joined);
        Py_XDECREF(sep);
        Py_XDECREF(joined);
    }
    Py_DECREF(names);
}

/* A default value's provenance: OPAQUE "default" with the parameter's name. */
static TrProv *default_prov(PyObject *name)
{
    TrProv *p = tr_prov_new(TR_PROV_OPAQUE, NULL, NULL, name, 0);
    if (p == NULL)
        PyErr_Clear();
    else
        p->detail = "default";
    return p;
}

/* Releases the values of lp[0..n) and lp itself unless it is the caller's buffer. */
static void free_locals(TrValue *lp, int n, const TrValue *buf)
{
    for (int i = 0; i < n; i++)
        tr_value_clear(&lp[i]);
    if (lp != buf)
        PyMem_Free(lp);
}

static TrValue *call_bind(PyFunctionObject *fn, const TrValue *args, Py_ssize_t nargs,
                          PyObject *kwnames, TrValue *buf, int nbuf);

/* Binds through call_bind, then (steal) releases the caller's values at once: CALL
 * moves the arguments off the stack into the new frame (_PyEvalFramePushAndInit), so
 * a callee's `del x` frees x as in CPython. The locals go to buf when they fit (nbuf
 * values), else to a new block. */
static TrValue *bind_args(PyFunctionObject *fn, TrValue *args, Py_ssize_t nargs,
                          PyObject *kwnames, int steal, TrValue *buf, int nbuf)
{
    PyCodeObject *co = (PyCodeObject *)fn->func_code;
    int n = co->co_nlocalsplus;
    /* Most calls: exactly the positional parameters, given positionally, into buf. Such
     * a binding cannot fail, so the values are moved (ceval's CALL moves them too)
     * instead of duplicated by call_bind and released below: the same references end
     * in the same slots, nothing is released before or after, and the stack slots are
     * left empty for tr_op_pop_call. */
    if (steal && kwnames == NULL && nargs == co->co_argcount && n + 1 <= nbuf &&
        co->co_kwonlyargcount == 0 && !(co->co_flags & (CO_VARARGS | CO_VARKEYWORDS))) {
        for (Py_ssize_t i = 0; i < nargs; i++) {
            buf[i] = args[i];
            args[i].obj = NULL;
            args[i].prov = NULL;
        }
        memset(buf + nargs, 0, ((size_t)(n - nargs) + 1) * sizeof(TrValue));
        return buf;
    }
    TrValue *lp = call_bind(fn, args, nargs, kwnames, buf, nbuf);
    if (steal) {
        for (Py_ssize_t i = 0; i < nargs; i++)
            tr_value_clear(&args[i]);
    }
    return lp;
}

TrValue *tr_call_bind(PyFunctionObject *fn, const TrValue *args, Py_ssize_t nargs,
                      PyObject *kwnames)
{
    return call_bind(fn, args, nargs, kwnames, NULL, 0);
}

/* tr_call_bind into buf (zeroed here) when the code's co_nlocalsplus + 1 values fit in
 * nbuf, else into a new block (the caller frees it unless it is buf). */
static TrValue *call_bind(PyFunctionObject *fn, const TrValue *args, Py_ssize_t nargs,
                          PyObject *kwnames, TrValue *buf, int nbuf)
{
    PyCodeObject *co = (PyCodeObject *)fn->func_code;
    int n = co->co_nlocalsplus;
    Py_ssize_t kwcount = kwnames != NULL ? PyTuple_GET_SIZE(kwnames) : 0;
    Py_ssize_t argcount = nargs - kwcount;   /* positional values */
    Py_ssize_t total_args = co->co_argcount + co->co_kwonlyargcount;
    TrValue *lp;
    if (buf != NULL && n + 1 <= nbuf) {
        lp = buf;
        memset(lp, 0, ((size_t)n + 1) * sizeof(TrValue));
    }
    else {
        lp = PyMem_Calloc((size_t)n + 1, sizeof(TrValue));
        buf = NULL;
    }
    PyObject *kwdict = NULL;
    if (lp == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    if (co->co_flags & CO_VARKEYWORDS) {
        kwdict = PyDict_New();
        if (kwdict == NULL)
            goto fail;
        Py_ssize_t i = total_args + ((co->co_flags & CO_VARARGS) ? 1 : 0);
        lp[i] = tr_value_new(kwdict, tr_prov_new(TR_PROV_BUILD, NULL, NULL, NULL, 0));
    }
    Py_ssize_t npos = argcount > co->co_argcount ? co->co_argcount : argcount;
    for (Py_ssize_t j = 0; j < npos; j++)
        lp[j] = tr_value_dup(args[j]);
    if (co->co_flags & CO_VARARGS) {
        PyObject *u = PyTuple_New(argcount - npos);
        if (u == NULL)
            goto fail;
        for (Py_ssize_t j = npos; j < argcount; j++)
            PyTuple_SET_ITEM(u, j - npos, Py_NewRef(args[j].obj));
        lp[total_args] = tr_value_new(u, tr_prov_new(TR_PROV_BUILD, NULL, NULL, NULL, 0));
    }
    for (Py_ssize_t i = 0; i < kwcount; i++) {
        PyObject *keyword = PyTuple_GET_ITEM(kwnames, i);
        const TrValue *value = &args[argcount + i];
        Py_ssize_t j;
        if (!PyUnicode_Check(keyword)) {
            PyErr_Format(PyExc_TypeError, "%U() keywords must be strings", fn->func_qualname);
            goto fail;
        }
        for (j = co->co_posonlyargcount; j < total_args; j++) {
            PyObject *varname = PyTuple_GET_ITEM(co->co_localsplusnames, j);
            int eq = varname == keyword ? 1 : PyObject_RichCompareBool(keyword, varname, Py_EQ);
            if (eq < 0)
                goto fail;
            if (eq)
                break;
        }
        if (j >= total_args) {
            if (kwdict == NULL) {
                if (co->co_posonlyargcount) {
                    posonly_as_keyword(fn, kwnames);
                    if (PyErr_Occurred())
                        goto fail;
                }
                PyErr_Format(PyExc_TypeError, "%U() got an unexpected keyword argument '%S'",
                             fn->func_qualname, keyword);
                goto fail;
            }
            if (PyDict_SetItem(kwdict, keyword, value->obj) < 0)
                goto fail;
            continue;
        }
        if (lp[j].obj != NULL) {
            PyErr_Format(PyExc_TypeError, "%U() got multiple values for argument '%S'",
                         fn->func_qualname, keyword);
            goto fail;
        }
        lp[j] = tr_value_dup(*value);
    }
    if (argcount > co->co_argcount && !(co->co_flags & CO_VARARGS)) {
        too_many_positional(fn, lp, argcount);
        goto fail;
    }
    if (argcount < co->co_argcount) {
        PyObject *defs = fn->func_defaults;
        Py_ssize_t defcount = defs == NULL ? 0 : PyTuple_GET_SIZE(defs);
        Py_ssize_t m = co->co_argcount - defcount, missing = 0;
        for (Py_ssize_t i = argcount; i < m; i++) {
            if (lp[i].obj == NULL)
                missing++;
        }
        if (missing) {
            missing_arguments(fn, lp, 0, m, "positional");
            goto fail;
        }
        for (Py_ssize_t i = argcount > m ? argcount - m : 0; i < defcount; i++) {
            if (lp[m + i].obj == NULL)
                lp[m + i] = tr_value_new(Py_NewRef(PyTuple_GET_ITEM(defs, i)),
                                         default_prov(PyTuple_GET_ITEM(co->co_localsplusnames, m + i)));
        }
    }
    if (co->co_kwonlyargcount > 0) {
        Py_ssize_t missing = 0;
        for (Py_ssize_t i = co->co_argcount; i < total_args; i++) {
            if (lp[i].obj != NULL)
                continue;
            PyObject *name = PyTuple_GET_ITEM(co->co_localsplusnames, i);
            if (fn->func_kwdefaults != NULL) {
                PyObject *def = PyDict_GetItemWithError(fn->func_kwdefaults, name);
                if (def != NULL) {
                    lp[i] = tr_value_new(Py_NewRef(def), default_prov(name));
                    continue;
                }
                if (PyErr_Occurred())
                    goto fail;
            }
            missing++;
        }
        if (missing) {
            missing_arguments(fn, lp, co->co_argcount, total_args, "keyword-only");
            goto fail;
        }
    }
    return lp;
fail:
    free_locals(lp, n, buf);
    return NULL;
}

/* ---- calls ---- */

/* The call protocol's dunder names, interned once (process lifetime): interning per
 * call built and hashed a str each time. Borrowed; NULL with an exception set. */
static PyObject *str_new, *str_init, *str_call, *str_qualname;

static PyObject *call_name(PyObject **slot, const char *s)
{
    if (*slot == NULL)
        *slot = PyUnicode_InternFromString(s);
    return *slot;
}

/* Interpreted frames this shallow get their locals in call_function_buf's buffer on the
 * C stack; deeper ones in a block, as before. The buffer (256 bytes, several times that
 * under ASan with its redzones) in every level made deep recursion exhaust the tracer's
 * C stack budget before CPython's RecursionError in the asan build
 * (tracer_core.limits, tracer_tables.calls.recursion_depth_error). */
#define TR_LOCALS_BUF_DEPTH 32

/* Runs fn's frame over the locals lp (bound, owned: released by tr_eval_code; the block
 * freed unless it is buf). */
static int run_function(TrRun *run, PyFunctionObject *fn, TrValue *lp, const TrValue *buf,
                        TrValue *out)
{
    PyCodeObject *co = (PyCodeObject *)fn->func_code;
    /* Code without CO_OPTIMIZED (module code made into a function) uses LOAD_NAME
     * with the globals as its locals, as function_vectorcall arranges. */
    PyObject *locals = (co->co_flags & CO_OPTIMIZED) ? NULL : fn->func_globals;
    int rc = tr_eval_code(run, co, (PyObject *)fn, fn->func_globals, fn->func_builtins, locals,
                          lp, out);
    if (lp != buf)
        PyMem_Free(lp);   /* tr_eval_code released the values */
    return rc;
}

/* call_function's shallow case: the locals on the C stack when they fit (16 values), as
 * the value stack is (tr_eval_code); the frame ends before this returns. Out of line, so
 * that deeper levels do not reserve the buffer. */
static __attribute__((noinline)) int call_function_buf(TrRun *run, PyFunctionObject *fn,
                                                       const TrValue *args, Py_ssize_t nargs,
                                                       PyObject *kwnames, int steal,
                                                       TrValue *out)
{
    TrValue small[16];
    /* args is written only when steal, and then it is tr_call_stack's own stack slice */
    TrValue *lp = bind_args(fn, (TrValue *)args, nargs, kwnames, steal, small,
                            (int)(sizeof small / sizeof small[0]));
    if (lp == NULL)
        return -1;
    return run_function(run, fn, lp, small, out);
}

static int call_function(TrRun *run, PyFunctionObject *fn, const TrValue *args,
                         Py_ssize_t nargs, PyObject *kwnames, int steal, TrValue *out)
{
    PyCodeObject *co = (PyCodeObject *)fn->func_code;
    if (tr_trace_record_name(run, "CALL", fn->func_qualname, " (interpreted)", NULL, NULL) < 0)
        return -1;
    int gen = (co->co_flags & CO_GENERATOR) != 0;
    if (!gen && run->depth < TR_LOCALS_BUF_DEPTH)
        return call_function_buf(run, fn, args, nargs, kwnames, steal, out);
    /* args is written only when steal, and then it is tr_call_stack's own stack slice */
    TrValue *lp = bind_args(fn, (TrValue *)args, nargs, kwnames, steal, NULL, 0);
    if (lp == NULL)
        return -1;
    if (gen)
        return tr_gen_new(run, fn, lp, out);   /* takes lp: a generator's outlive the call */
    return run_function(run, fn, lp, NULL, out);
}

/* A C call: PyObject_Vectorcall over the plain objects. */
/* callable.__qualname__ for an opaque CALL line (new reference, or NULL with an exception
 * set). A method or slot wrapper descriptor (list.append, list.__len__: exact types, not
 * subclassable, whose __qualname__ getter computes the name once into d_qualname and
 * returns that str ever after) gives the str it keeps, as the getter would: the generic
 * lookup cost ~137 instructions on every list.append of a traced loop. Whether the
 * descriptor was named before depends on earlier calls: out of coverage. */
TR_NO_COVERAGE static PyObject *opaque_qualname(PyObject *callable, PyObject *qn)
{
    if ((Py_IS_TYPE(callable, &PyMethodDescr_Type) ||
         Py_IS_TYPE(callable, &PyWrapperDescr_Type)) &&
        ((PyDescrObject *)callable)->d_qualname != NULL)
        return Py_NewRef(((PyDescrObject *)callable)->d_qualname);
    return PyObject_GetAttr(callable, qn);
}

static int call_opaque(TrRun *run, TrValue callable, const TrValue *args, Py_ssize_t nargs,
                       PyObject *kwnames, TrValue *out)
{
    PyObject *small[8];
    PyObject **vec = small;
    Py_ssize_t nkw = kwnames != NULL ? PyTuple_GET_SIZE(kwnames) : 0;
    if (nargs + 1 > 8) {
        vec = PyMem_Malloc(sizeof(PyObject *) * (size_t)(nargs + 1));
        if (vec == NULL) {
            PyErr_NoMemory();
            return -1;
        }
    }
    for (Py_ssize_t i = 0; i < nargs; i++)
        vec[i + 1] = args[i].obj;
    int pure = tr_call_is_pure(callable.obj, args, nargs, kwnames);
    PyObject *r = PyObject_Vectorcall(callable.obj, vec + 1,
                                      (size_t)(nargs - nkw) | PY_VECTORCALL_ARGUMENTS_OFFSET,
                                      kwnames);
    if (vec != small)
        PyMem_Free(vec);
    tr_call_note_dict_method(run, callable.obj);
    if (!pure)
        tr_attr_note_escape(run);
    if (r == NULL)
        return -1;
    TrProv *p = tr_prov_new(TR_PROV_CALL, callable.prov, NULL, NULL, 0);
    if (p == NULL) {
        Py_DECREF(r);
        return -1;
    }
    *out = tr_value_new(r, p);
    PyObject *qn = call_name(&str_qualname, "__qualname__");
    PyObject *what = qn != NULL ? opaque_qualname(callable.obj, qn) : NULL;
    if (what == NULL) {
        PyErr_Clear();
        what = PyUnicode_FromString(Py_TYPE(callable.obj)->tp_name);
        if (what == NULL)
            goto fail;
    }
    if (!PyUnicode_CheckExact(what))   /* as %S printed it */
        Py_SETREF(what, PyObject_Str(what));
    int rc = what != NULL ? tr_trace_record_name(run, "CALL", what, pure ? NULL : " (opaque)",
                                                 NULL, out) : -1;
    Py_XDECREF(what);
    if (rc == 0)
        return 0;
fail:
    tr_value_clear(out);
    return -1;
}

/* Calls callable with self prepended to the arguments. */
static int call_with_self(TrRun *run, TrValue callable, TrValue self, const TrValue *args,
                          Py_ssize_t nargs, PyObject *kwnames, TrValue *out)
{
    TrValue small[9];
    TrValue *vec = small;
    if (nargs + 1 > 9) {
        vec = PyMem_Malloc(sizeof(TrValue) * (size_t)(nargs + 1));
        if (vec == NULL) {
            PyErr_NoMemory();
            return -1;
        }
    }
    vec[0] = self;
    for (Py_ssize_t i = 0; i < nargs; i++)
        vec[i + 1] = args[i];
    int rc = tr_call(run, callable, vec, nargs + 1, kwnames, out);
    if (vec != small)
        PyMem_Free(vec);
    return rc;
}

/* A tuple and a dict for tp_new / tp_init (new refs in *a, *kw; *kw may be NULL). */
static int pack_args(const TrValue *args, Py_ssize_t nargs, PyObject *kwnames, PyObject **a,
                     PyObject **kw)
{
    Py_ssize_t nkw = kwnames != NULL ? PyTuple_GET_SIZE(kwnames) : 0;
    *kw = NULL;
    *a = PyTuple_New(nargs - nkw);
    if (*a == NULL)
        return -1;
    for (Py_ssize_t i = 0; i < nargs - nkw; i++)
        PyTuple_SET_ITEM(*a, i, Py_NewRef(args[i].obj));
    if (nkw) {
        *kw = PyDict_New();
        if (*kw == NULL)
            goto fail;
        for (Py_ssize_t i = 0; i < nkw; i++) {
            if (PyDict_SetItem(*kw, PyTuple_GET_ITEM(kwnames, i), args[nargs - nkw + i].obj) < 0)
                goto fail;
        }
    }
    return 0;
fail:
    Py_CLEAR(*a);
    Py_CLEAR(*kw);
    return -1;
}

/* type.__call__ (Objects/typeobject.c: type_call) with __new__ and __init__ traced. */
static int call_type(TrRun *run, TrValue callable, const TrValue *args, Py_ssize_t nargs,
                     PyObject *kwnames, TrValue *out)
{
    PyTypeObject *type = (PyTypeObject *)callable.obj;
    PyObject *a = NULL, *kw = NULL;
    TrValue obj = {NULL, NULL};
    int rc = -1;
    if (type->tp_new == NULL) {
        PyErr_Format(PyExc_TypeError, "cannot create '%s' instances", type->tp_name);
        return -1;
    }
    PyObject *newname = call_name(&str_new, "__new__");      /* borrowed */
    PyObject *initname = call_name(&str_init, "__init__");   /* borrowed */
    if (newname == NULL || initname == NULL)
        goto done;
    PyObject *newfunc = _PyType_Lookup(type, newname);   /* borrowed */
    PyObject *pynew = NULL;
    if (newfunc != NULL && Py_IS_TYPE(newfunc, &PyStaticMethod_Type)) {
        pynew = Py_TYPE(newfunc)->tp_descr_get(newfunc, NULL, (PyObject *)type);
        if (pynew == NULL)
            goto done;
        if (!PyFunction_Check(pynew))
            Py_CLEAR(pynew);
    }
    if (pynew != NULL) {
        TrValue callee = {pynew, NULL};
        rc = call_with_self(run, callee, callable, args, nargs, kwnames, &obj);
        Py_DECREF(pynew);
        if (rc < 0)
            goto done;
        rc = -1;
    }
    else {
        if (pack_args(args, nargs, kwnames, &a, &kw) < 0)
            goto done;
        PyObject *o = type->tp_new(type, a, kw);
        if (type->tp_new != PyBaseObject_Type.tp_new)
            tr_attr_note_escape(run);
        if (o == NULL)
            goto done;
        obj = tr_value_new(o, NULL);
    }
    if (!PyObject_TypeCheck(obj.obj, type))
        goto success;
    PyTypeObject *otype = Py_TYPE(obj.obj);
    if (otype->tp_init != NULL) {
        PyObject *init = _PyType_Lookup(otype, initname);   /* borrowed */
        if (init != NULL && PyFunction_Check(init)) {
            TrValue callee = {init, NULL}, r = {NULL, NULL};
            Py_INCREF(init);
            int err = call_with_self(run, callee, obj, args, nargs, kwnames, &r);
            Py_DECREF(init);
            if (err < 0)
                goto done;
            if (r.obj != Py_None) {
                PyErr_Format(PyExc_TypeError, "__init__() should return None, not '%.200s'",
                             Py_TYPE(r.obj)->tp_name);
                tr_value_clear(&r);
                goto done;
            }
            tr_value_clear(&r);
        }
        else {
            if (a == NULL && pack_args(args, nargs, kwnames, &a, &kw) < 0)
                goto done;
            int err = otype->tp_init(obj.obj, a, kw);
            if (otype->tp_init != PyBaseObject_Type.tp_init)
                tr_attr_note_escape(run);
            if (err < 0)
                goto done;
        }
    }
success:
    tr_prov_decref(obj.prov);
    obj.prov = tr_prov_new(TR_PROV_CALL, callable.prov, NULL, NULL, 0);
    if (obj.prov == NULL)
        goto done;
    *out = obj;
    obj.obj = NULL;
    obj.prov = NULL;
    rc = tr_trace_record_cname(run, "CALL", type->tp_name, NULL, " (class)", out);
    if (rc < 0)
        tr_value_clear(out);
done:
    tr_value_clear(&obj);
    Py_XDECREF(a);
    Py_XDECREF(kw);
    return rc;
}

/* functools.partial(func, *pargs, **pkw)(*args, **kw) is func(*pargs, *args, **{**pkw,
 * **kw}) (Modules/_functoolsmodule.c: partial_vectorcall): unwrapped so that func is
 * interpreted when it is Python code. Reading a partial's fields runs no user code. */
static int call_partial(TrRun *run, TrValue callable, const TrValue *args, Py_ssize_t nargs,
                        PyObject *kwnames, TrValue *out)
{
    PyObject *func = PyObject_GetAttrString(callable.obj, "func");
    PyObject *pargs = PyObject_GetAttrString(callable.obj, "args");
    PyObject *pkw = PyObject_GetAttrString(callable.obj, "keywords");
    PyObject *kw = NULL, *names = NULL;
    TrValue *vec = NULL;
    Py_ssize_t nkw = kwnames != NULL ? PyTuple_GET_SIZE(kwnames) : 0, npos = nargs - nkw;
    Py_ssize_t np = 0, nk = 0;
    int rc = -1;
    if (func == NULL || pargs == NULL || pkw == NULL || !PyTuple_Check(pargs) ||
        !PyDict_Check(pkw)) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_SystemError, "tracer: malformed functools.partial");
        goto done;
    }
    /* Keywords: the partial's, overridden by the call's, in that order (dict merge). */
    kw = PyDict_Copy(pkw);
    if (kw == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < nkw; i++) {
        if (PyDict_SetItem(kw, PyTuple_GET_ITEM(kwnames, i), args[npos + i].obj) < 0)
            goto done;
    }
    np = PyTuple_GET_SIZE(pargs) + npos;
    nk = PyDict_GET_SIZE(kw);
    vec = PyMem_Calloc((size_t)(np + nk + 1), sizeof(TrValue));
    names = PyTuple_New(nk);
    if (vec == NULL || names == NULL) {
        if (vec == NULL)
            PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(pargs); i++)
        vec[i] = tr_value_new(Py_NewRef(PyTuple_GET_ITEM(pargs, i)),
                              tr_prov_attr(callable.prov, NULL, TR_RES_NONE, "args"));
    for (Py_ssize_t i = 0; i < npos; i++)
        vec[PyTuple_GET_SIZE(pargs) + i] = tr_value_dup(args[i]);
    Py_ssize_t pos = 0, k = 0;
    PyObject *key, *value;
    while (PyDict_Next(kw, &pos, &key, &value)) {
        PyTuple_SET_ITEM(names, k, Py_NewRef(key));
        TrProv *p = NULL;
        for (Py_ssize_t i = 0; i < nkw; i++) {
            if (PyTuple_GET_ITEM(kwnames, i) == key && args[npos + i].obj == value)
                p = (tr_prov_incref(args[npos + i].prov), args[npos + i].prov);
        }
        if (p == NULL)
            p = tr_prov_attr(callable.prov, NULL, TR_RES_NONE, "keywords");
        vec[np + k] = tr_value_new(Py_NewRef(value), p);
        k++;
    }
    TrValue fv = {func, tr_prov_attr(callable.prov, NULL, TR_RES_NONE, "func")};
    rc = tr_call(run, fv, vec, np + nk, nk ? names : NULL, out);
    tr_prov_decref(fv.prov);
done:
    if (vec != NULL) {
        for (Py_ssize_t i = 0; i < np + nk; i++)
            tr_value_clear(&vec[i]);
        PyMem_Free(vec);
    }
    Py_XDECREF(func);
    Py_XDECREF(pargs);
    Py_XDECREF(pkw);
    Py_XDECREF(kw);
    Py_XDECREF(names);
    return rc;
}

int tr_call(TrRun *run, TrValue callable, const TrValue *args, Py_ssize_t nargs,
            PyObject *kwnames, TrValue *out)
{
    PyObject *c = callable.obj;
    out->obj = NULL;
    out->prov = NULL;
    if (run->rec != NULL)          /* tr_reuse.h: calls that walk up the frames */
        tr_record_call(run, c);
    if (PyFunction_Check(c)) {
        PyCodeObject *co = (PyCodeObject *)((PyFunctionObject *)c)->func_code;
        if (co->co_flags & (CO_COROUTINE | CO_ASYNC_GENERATOR | CO_ITERABLE_COROUTINE))
            return call_opaque(run, callable, args, nargs, kwnames, out);
        return call_function(run, (PyFunctionObject *)c, args, nargs, kwnames, 0, out);
    }
    if (Py_IS_TYPE(c, &PyMethod_Type)) {
        TrValue fn = {PyMethod_GET_FUNCTION(c), NULL}, self = {PyMethod_GET_SELF(c), NULL};
        fn.prov = tr_prov_attr(callable.prov, NULL, TR_RES_NONE, "__func__");
        self.prov = tr_prov_attr(callable.prov, NULL, TR_RES_NONE, "__self__");
        int rc = call_with_self(run, fn, self, args, nargs, kwnames, out);
        tr_prov_decref(fn.prov);
        tr_prov_decref(self.prov);
        return rc;
    }
    if (Py_IS_TYPE(c, &PyStaticMethod_Type)) {
        /* staticmethod objects are callable (3.10+): call the function they wrap. */
        TrValue fn = {Py_TYPE(c)->tp_descr_get(c, Py_None, (PyObject *)Py_TYPE(Py_None)), NULL};
        if (fn.obj == NULL)
            return -1;
        fn.prov = tr_prov_attr(callable.prov, NULL, TR_RES_NONE, "__func__");
        int rc = tr_call(run, fn, args, nargs, kwnames, out);
        tr_value_clear(&fn);
        return rc;
    }
    if (Py_IS_TYPE(c, tr_partial_type))
        return call_partial(run, callable, args, nargs, kwnames, out);
    int rc;
    if (tr_lookaside(run, callable, args, nargs, kwnames, out, &rc))
        return rc;
    if (PyType_Check(c)) {
        if (Py_TYPE(c)->tp_call == PyType_Type.tp_call)
            return call_type(run, callable, args, nargs, kwnames, out);
    }
    /* An object (or class of a metaclass) whose type has a Python __call__. */
    if (Py_TYPE(c)->tp_flags & Py_TPFLAGS_HEAPTYPE) {
        PyObject *name = call_name(&str_call, "__call__");   /* borrowed */
        if (name == NULL)
            return -1;
        PyObject *call = _PyType_Lookup(Py_TYPE(c), name);
        if (call != NULL && PyFunction_Check(call)) {
            TrValue fn = {Py_NewRef(call), NULL};
            rc = call_with_self(run, fn, callable, args, nargs, kwnames, out);
            Py_DECREF(call);
            return rc;
        }
    }
    return call_opaque(run, callable, args, nargs, kwnames, out);
}

int tr_call_stack(TrRun *run, TrValue callable, TrValue *args, Py_ssize_t nargs,
                  PyObject *kwnames, TrValue *out)
{
    PyObject *c = callable.obj;
    if (PyFunction_Check(c)) {
        PyCodeObject *co = (PyCodeObject *)((PyFunctionObject *)c)->func_code;
        if (!(co->co_flags & (CO_COROUTINE | CO_ASYNC_GENERATOR | CO_ITERABLE_COROUTINE))) {
            out->obj = NULL;
            out->prov = NULL;
            return call_function(run, (PyFunctionObject *)c, args, nargs, kwnames, 1, out);
        }
    }
    return tr_call(run, callable, args, nargs, kwnames, out);
}
