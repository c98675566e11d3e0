/* tr_call.c: every call the tracer makes (tr_eval.h's tr_call).
 *
 * - Python functions (and bound methods of them) are interpreted: arguments are
 *   bound like CPython's initialize_locals (Python/ceval.c, 3.11), with its messages.
 *   Generator, coroutine and async generator functions are called natively (their
 *   bodies run untraced; documented in docs/TRACER.md).
 * - Classes whose metatype keeps type.__call__ are modelled like type_call: __new__
 *   (interpreted when written in Python), then __init__ (likewise).
 * - Instances (and metaclasses) with a Python __call__ are interpreted through it.
 * - Lookasides: builtins whose semantics involve the attribute protocol are modelled
 *   (getattr, setattr, delattr, hasattr, vars, type, super, locals, globals and the
 *   explicit object.__getattribute__/__setattr__/__delattr__).
 * - Everything else is a C call: PyObject_Vectorcall, a CALL provenance, and the
 *   attribute cache forgets everything unless the call is known not to run user code.
 */
#include "tr_frame.h"
#include "tr_attr.h"

/* Lookaside targets, resolved once (borrowed from builtins / object's dict). */
static PyObject *bi_getattr, *bi_setattr, *bi_delattr, *bi_hasattr, *bi_vars, *bi_locals,
    *bi_globals, *bi_isinstance, *bi_issubclass, *bi_len, *bi_id, *bi_callable, *bi_repr,
    *bi_print, *bi_dir, *bi_eval, *bi_exec, *bi_build_class;
static PyObject *obj_setattr, *obj_delattr, *obj_getattribute;
static PyTypeObject *method_wrapper_type;
static PyTypeObject *partial_type;   /* functools.partial (the C type), exact instances only */

int tr_call_init(void)
{
    PyObject *b = PyEval_GetBuiltins();
    if (b == NULL) {
        PyObject *mod = PyImport_ImportModule("builtins");
        if (mod == NULL)
            return -1;
        b = PyModule_GetDict(mod);
        Py_DECREF(mod);   /* the module stays alive in sys.modules */
    }
#define GETB(var, name) \
    if ((var = PyDict_GetItemString(b, name)) == NULL) { \
        PyErr_Format(PyExc_SystemError, "tracer: builtin %s not found", name); \
        return -1; \
    } \
    Py_INCREF(var);
    GETB(bi_getattr, "getattr");
    GETB(bi_setattr, "setattr");
    GETB(bi_delattr, "delattr");
    GETB(bi_hasattr, "hasattr");
    GETB(bi_vars, "vars");
    GETB(bi_locals, "locals");
    GETB(bi_globals, "globals");
    GETB(bi_isinstance, "isinstance");
    GETB(bi_issubclass, "issubclass");
    GETB(bi_len, "len");
    GETB(bi_id, "id");
    GETB(bi_callable, "callable");
    GETB(bi_repr, "repr");
    GETB(bi_print, "print");
    GETB(bi_dir, "dir");
    GETB(bi_eval, "eval");
    GETB(bi_exec, "exec");
    GETB(bi_build_class, "__build_class__");
#undef GETB
    PyObject *od = PyBaseObject_Type.tp_dict;
    obj_setattr = PyDict_GetItemString(od, "__setattr__");
    obj_delattr = PyDict_GetItemString(od, "__delattr__");
    obj_getattribute = PyDict_GetItemString(od, "__getattribute__");
    if (obj_setattr == NULL || obj_delattr == NULL || obj_getattribute == NULL) {
        PyErr_SetString(PyExc_SystemError, "tracer: object's slot wrappers not found");
        return -1;
    }
    Py_INCREF(obj_setattr);
    Py_INCREF(obj_delattr);
    Py_INCREF(obj_getattribute);
    PyObject *ft = PyImport_ImportModule("_functools");
    if (ft == NULL)
        return -1;
    partial_type = (PyTypeObject *)PyObject_GetAttrString(ft, "partial");   /* kept */
    Py_DECREF(ft);
    if (partial_type == NULL)
        return -1;
    PyObject *probe = PyObject_GetAttrString(Py_None, "__setattr__");   /* a method-wrapper */
    if (probe == NULL)
        return -1;
    method_wrapper_type = Py_TYPE(probe);
    Py_DECREF(probe);
    return 0;
}

/* ---- what cannot run user code ---- */

static int is_scalar(PyObject *o)
{
    PyTypeObject *t = Py_TYPE(o);
    return o == Py_None || o == Py_Ellipsis || o == Py_NotImplemented || t == &PyLong_Type ||
           t == &PyBool_Type || t == &PyFloat_Type || t == &PyComplex_Type ||
           t == &PyUnicode_Type || t == &PyBytes_Type || t == &PyRange_Type ||
           t == &PySlice_Type || t == &PyCFunction_Type || t == &PyFunction_Type ||
           (t == &PyType_Type);
}

/* Plain: a scalar, or an exact builtin container of scalars (one level, small).
 * Hashing, comparing, iterating or printing a plain value runs no user code. */
static int is_plain(PyObject *o)
{
    if (o == NULL || is_scalar(o))
        return 1;
    PyTypeObject *t = Py_TYPE(o);
    if (t == &PyTuple_Type || t == &PyList_Type) {
        Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
        if (n > 64)
            return 0;
        PyObject **items = PySequence_Fast_ITEMS(o);
        for (Py_ssize_t i = 0; i < n; i++) {
            if (!is_scalar(items[i]))
                return 0;
        }
        return 1;
    }
    if (t == &PyDict_Type) {
        if (PyDict_GET_SIZE(o) > 64)
            return 0;
        Py_ssize_t pos = 0;
        PyObject *k, *v;
        while (PyDict_Next(o, &pos, &k, &v)) {
            if (!is_scalar(k) || !is_scalar(v))
                return 0;
        }
        return 1;
    }
    if (t == &PySet_Type || t == &PyFrozenSet_Type)
        return PySet_GET_SIZE(o) <= 64;   /* elements are hashable builtins or were hashed */
    if (t == &PyListIter_Type || t == &PyTupleIter_Type || t == &PyRangeIter_Type ||
        t == &PyLongRangeIter_Type || t == &PyDictIterKey_Type || t == &PyDictIterValue_Type ||
        t == &PyDictIterItem_Type || t == &PyUnicodeIter_Type || t == &PySetIter_Type ||
        t == &PyEnum_Type || t == &PyReversed_Type || t == &PyDictKeys_Type ||
        t == &PyDictValues_Type || t == &PyDictItems_Type)
        return 1;   /* iterating them yields stored objects without calling them */
    return 0;
}

int tr_is_plain_operands(PyObject *a, PyObject *b)
{
    return is_plain(a) && is_plain(b);
}

static int args_plain(const TrValue *args, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!is_plain(args[i].obj))
            return 0;
    }
    return 1;
}

/* Methods of builtin containers that store or return objects without calling them. */
static const char *const list_pure_any[] = {"append", "insert", "pop", "copy", "clear",
                                            "reverse", "__len__", NULL};
static const char *const dict_pure_any[] = {"keys", "values", "items", "copy", "__len__",
                                            NULL};
static const char *const dict_writes[] = {"update", "pop", "setdefault", "popitem", "clear",
                                          "__setitem__", "__delitem__", NULL};

static int name_in(const char *name, const char *const *list)
{
    for (; *list != NULL; list++) {
        if (strcmp(name, *list) == 0)
            return 1;
    }
    return 0;
}

int tr_call_is_pure(PyObject *callable, const TrValue *args, Py_ssize_t nargs,
                    PyObject *kwnames)
{
    if (callable == bi_len || callable == bi_id || callable == bi_callable)
        return nargs == 1 && (callable != bi_len || is_plain(args[0].obj) ||
                              !(Py_TYPE(args[0].obj)->tp_flags & Py_TPFLAGS_HEAPTYPE));
    if (callable == bi_isinstance || callable == bi_issubclass) {
        if (nargs != 2)
            return 0;
        PyObject *cls = args[1].obj;
        if (PyTuple_Check(cls)) {
            for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(cls); i++) {
                if (!Py_IS_TYPE(PyTuple_GET_ITEM(cls, i), &PyType_Type))
                    return 0;
            }
            return 1;
        }
        return Py_IS_TYPE(cls, &PyType_Type);
    }
    if (callable == bi_repr || callable == bi_print)
        return args_plain(args, nargs);
    if (PyType_Check(callable)) {
        /* Builtin value types built from plain arguments. */
        PyTypeObject *t = (PyTypeObject *)callable;
        if (t == &PyLong_Type || t == &PyFloat_Type || t == &PyUnicode_Type ||
            t == &PyBool_Type || t == &PyTuple_Type || t == &PyList_Type ||
            t == &PyDict_Type || t == &PySet_Type || t == &PyFrozenSet_Type ||
            t == &PyRange_Type || t == &PyBaseObject_Type)
            return args_plain(args, nargs);
        return 0;
    }
    if (PyCFunction_Check(callable)) {
        PyObject *self = PyCFunction_GET_SELF(callable);
        const char *name = ((PyCFunctionObject *)callable)->m_ml->ml_name;
        if (self == NULL || PyModule_Check(self))
            return 0;
        PyTypeObject *t = Py_TYPE(self);
        if (t == &PyList_Type && name_in(name, list_pure_any))
            return 1;
        if (t == &PyList_Type && strcmp(name, "extend") == 0)
            return nargs == 1 && is_plain(args[0].obj);
        if (t == &PyDict_Type && (name_in(name, dict_pure_any) ||
                                  ((strcmp(name, "get") == 0 || name_in(name, dict_writes)) &&
                                   args_plain(args, nargs > 0 ? 1 : 0))))
            return 1;
        if (is_scalar(self) && !PyType_Check(self))
            return args_plain(args, nargs);   /* str.join, int.bit_length, ... */
    }
    (void)kwnames;
    return 0;
}

/* A dict written through one of its methods: the attribute cache must forget what it
 * cached from it (an instance __dict__ updated directly). */
static void note_dict_method(TrRun *run, PyObject *callable)
{
    if (!PyCFunction_Check(callable))
        return;
    PyObject *self = PyCFunction_GET_SELF(callable);
    if (self != NULL && PyDict_Check(self) &&
        name_in(((PyCFunctionObject *)callable)->m_ml->ml_name, dict_writes))
        tr_attr_note_dict_write(run, self);
}

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

static void free_locals(TrValue *lp, int n)
{
    for (int i = 0; i < n; i++)
        tr_value_clear(&lp[i]);
    PyMem_Free(lp);
}

TrValue *tr_call_bind(PyFunctionObject *fn, const TrValue *args, Py_ssize_t nargs,
                      PyObject *kwnames)
{
    PyCodeObject *co = (PyCodeObject *)fn->func_code;
    int n = co->co_nlocalsplus;
    Py_ssize_t kwcount = kwnames != NULL ? PyTuple_GET_SIZE(kwnames) : 0;
    Py_ssize_t argcount = nargs - kwcount;   /* positional values */
    Py_ssize_t total_args = co->co_argcount + co->co_kwonlyargcount;
    TrValue *lp = PyMem_Calloc((size_t)n + 1, sizeof(TrValue));
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
    free_locals(lp, n);
    return NULL;
}

/* ---- calls ---- */

static int call_function(TrRun *run, PyFunctionObject *fn, const TrValue *args,
                         Py_ssize_t nargs, PyObject *kwnames, TrValue *out)
{
    PyCodeObject *co = (PyCodeObject *)fn->func_code;
    if (tr_trace_recordf(run, NULL, "CALL %U (interpreted)", fn->func_qualname) < 0)
        return -1;
    TrValue *lp = tr_call_bind(fn, args, nargs, kwnames);
    if (lp == NULL)
        return -1;
    if (co->co_flags & CO_GENERATOR)
        return tr_gen_new(run, fn, lp, out);   /* takes lp */
    /* Code without CO_OPTIMIZED (module code made into a function) uses LOAD_NAME
     * with the globals as its locals, as function_vectorcall arranges. */
    PyObject *locals = (co->co_flags & CO_OPTIMIZED) ? NULL : fn->func_globals;
    int rc = tr_eval_code(run, co, (PyObject *)fn, fn->func_globals, fn->func_builtins, locals,
                          lp, out);
    PyMem_Free(lp);   /* tr_eval_code released the values */
    return rc;
}

/* A C call: PyObject_Vectorcall over the plain objects. */
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
    note_dict_method(run, callable.obj);
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
    PyObject *what = PyObject_GetAttrString(callable.obj, "__qualname__");
    if (what == NULL) {
        PyErr_Clear();
        what = PyUnicode_FromString(Py_TYPE(callable.obj)->tp_name);
        if (what == NULL)
            goto fail;
    }
    int rc = tr_trace_recordf(run, out, "CALL %S%s", what, pure ? "" : " (opaque)");
    Py_DECREF(what);
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
    PyObject *a = NULL, *kw = NULL, *newname = NULL, *initname = NULL;
    TrValue obj = {NULL, NULL};
    int rc = -1;
    if (type->tp_new == NULL) {
        PyErr_Format(PyExc_TypeError, "cannot create '%s' instances", type->tp_name);
        return -1;
    }
    newname = PyUnicode_InternFromString("__new__");
    initname = PyUnicode_InternFromString("__init__");
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
    rc = tr_trace_recordf(run, out, "CALL %s (class)", type->tp_name);
    if (rc < 0)
        tr_value_clear(out);
done:
    tr_value_clear(&obj);
    Py_XDECREF(a);
    Py_XDECREF(kw);
    Py_XDECREF(newname);
    Py_XDECREF(initname);
    return rc;
}

/* ---- lookasides ---- */

static int check_name(PyObject *name, const char *fn)
{
    if (!PyUnicode_Check(name)) {
        if (fn != NULL)
            PyErr_Format(PyExc_TypeError, "%s(): attribute name must be string", fn);
        else
            PyErr_Format(PyExc_TypeError, "attribute name must be string, not '%.200s'",
                         Py_TYPE(name)->tp_name);
        return -1;
    }
    return 0;
}

static int ret_none(TrValue *out)
{
    *out = tr_value_new(Py_NewRef(Py_None), NULL);
    return 0;
}

static int ret_bool(TrValue *out, int b)
{
    *out = tr_value_new(Py_NewRef(b ? Py_True : Py_False), NULL);
    return 0;
}

static int arity(const char *fn, Py_ssize_t nargs, Py_ssize_t lo, Py_ssize_t hi)
{
    if (nargs < lo || nargs > hi) {
        if (lo == hi)
            PyErr_Format(PyExc_TypeError, "%s expected %zd argument%s, got %zd", fn, lo,
                         lo == 1 ? "" : "s", nargs);
        else if (nargs < lo)
            PyErr_Format(PyExc_TypeError, "%s expected at least %zd argument%s, got %zd", fn, lo,
                         lo == 1 ? "" : "s", nargs);
        else
            PyErr_Format(PyExc_TypeError, "%s expected at most %zd argument%s, got %zd", fn, hi,
                         hi == 1 ? "" : "s", nargs);
        return -1;
    }
    return 0;
}

/* locals() / vars() without argument: the interpreted frame's locals as a dict. */
static int frame_locals(TrValue *out)
{
    TrFrame *f = tr_eval_current_frame();
    if (f == NULL) {
        PyErr_SetString(tr_Unsupported, "locals() outside an interpreted frame");
        return -1;
    }
    if (f->locals != NULL) {
        *out = tr_value_new(Py_NewRef(f->locals), NULL);
        return 0;
    }
    PyObject *d = PyDict_New();
    if (d == NULL)
        return -1;
    const unsigned char *kinds = (const unsigned char *)PyBytes_AS_STRING(f->code->co_localspluskinds);
    for (int i = 0; i < f->nlocalsplus; i++) {
        PyObject *v = f->localsplus[i].obj;
        if (v != NULL && (kinds[i] & (TR_FAST_CELL | TR_FAST_FREE)) && PyCell_Check(v))
            v = PyCell_GET(v);
        if (v == NULL)
            continue;
        if (PyDict_SetItem(d, PyTuple_GET_ITEM(f->code->co_localsplusnames, i), v) < 0) {
            Py_DECREF(d);
            return -1;
        }
    }
    *out = tr_value_new(d, NULL);
    return 0;
}

/* __build_class__(func, name, *bases, metaclass=None, **kwds) (bltinmodule.c): the
 * class body is interpreted with the namespace from __prepare__ as its locals (so
 * LOAD_NAME / STORE_NAME / LOAD_CLASSDEREF run in the tracer), then the metaclass is
 * called through tr_call. Bases with __mro_entries__ go to the real __build_class__.
 * Returns 1 when handled (rc in *rc), 0 to call the builtin instead. */
static int build_class(TrRun *run, TrValue callable, const TrValue *args, Py_ssize_t nargs,
                       PyObject *kwnames, TrValue *out, int *rc)
{
    Py_ssize_t nkw = kwnames != NULL ? PyTuple_GET_SIZE(kwnames) : 0;
    Py_ssize_t npos = nargs - nkw;
    if (npos < 2 || !PyFunction_Check(args[0].obj) || !PyUnicode_Check(args[1].obj))
        return 0;   /* CPython's own errors */
    for (Py_ssize_t i = 2; i < npos; i++) {
        if (!PyType_Check(args[i].obj))
            return 0;   /* __mro_entries__ resolution: left to CPython */
    }
    PyFunctionObject *func = (PyFunctionObject *)args[0].obj;
    PyObject *bases = NULL, *meta = NULL, *ns = NULL, *cell = NULL, *kwn = NULL;
    TrValue *vec = NULL, *lp = NULL;
    TrValue body = {NULL, NULL};
    Py_ssize_t nrest = 0;
    *rc = -1;
    bases = PyTuple_New(npos - 2);
    if (bases == NULL)
        goto done;
    for (Py_ssize_t i = 2; i < npos; i++)
        PyTuple_SET_ITEM(bases, i - 2, Py_NewRef(args[i].obj));
    /* Keywords other than metaclass go to __prepare__ and the metaclass call. */
    vec = PyMem_Calloc((size_t)nkw + 4, sizeof(TrValue));
    kwn = PyList_New(0);
    if (vec == NULL || kwn == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < nkw; i++) {
        PyObject *k = PyTuple_GET_ITEM(kwnames, i);
        if (_PyUnicode_EqualToASCIIString(k, "metaclass")) {
            Py_XSETREF(meta, Py_NewRef(args[npos + i].obj));
            continue;
        }
        if (PyList_Append(kwn, k) < 0)
            goto done;
        vec[3 + nrest++] = args[npos + i];   /* borrowed */
    }
    int isclass = 1;
    if (meta == NULL)
        meta = Py_NewRef(PyTuple_GET_SIZE(bases) ? (PyObject *)Py_TYPE(PyTuple_GET_ITEM(bases, 0))
                                                 : (PyObject *)&PyType_Type);
    else
        isclass = PyType_Check(meta);
    if (isclass) {
        PyObject *winner = (PyObject *)_PyType_CalculateMetaclass((PyTypeObject *)meta, bases);
        if (winner == NULL)
            goto done;
        Py_SETREF(meta, Py_NewRef(winner));
    }
    PyObject *kwtuple = PyList_AsTuple(kwn);
    if (kwtuple == NULL)
        goto done;
    Py_SETREF(kwn, kwtuple);
    PyObject *kwarg = PyTuple_GET_SIZE(kwn) ? kwn : NULL;
    PyObject *prep = NULL;
    PyObject *prepname = PyUnicode_InternFromString("__prepare__");
    if (prepname == NULL || _PyObject_LookupAttr(meta, prepname, &prep) < 0) {
        Py_XDECREF(prepname);
        goto done;
    }
    Py_DECREF(prepname);
    if (prep == NULL) {
        ns = PyDict_New();
    }
    else {
        TrValue pv = {prep, NULL}, r = {NULL, NULL};
        vec[1] = args[1];
        vec[2] = tr_value_new(bases, NULL);
        int err = tr_call(run, pv, vec + 1, 2 + nrest, kwarg, &r);
        Py_DECREF(prep);
        if (err < 0)
            goto done;
        ns = r.obj;
        tr_prov_decref(r.prov);
    }
    if (ns == NULL)
        goto done;
    if (!PyMapping_Check(ns)) {
        PyErr_Format(PyExc_TypeError, "%.200s.__prepare__() must return a mapping, not %.200s",
                     isclass ? ((PyTypeObject *)meta)->tp_name : "<metaclass>",
                     Py_TYPE(ns)->tp_name);
        goto done;
    }
    PyCodeObject *co = (PyCodeObject *)func->func_code;
    lp = PyMem_Calloc((size_t)co->co_nlocalsplus + 1, sizeof(TrValue));
    if (lp == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    int err = tr_eval_code(run, co, (PyObject *)func, func->func_globals, func->func_builtins, ns,
                           lp, &body);
    PyMem_Free(lp);
    if (err < 0)
        goto done;
    cell = Py_NewRef(body.obj);
    TrValue mv = {meta, NULL}, cls = {NULL, NULL};
    vec[0] = args[1];
    vec[1] = tr_value_new(bases, NULL);
    vec[2] = tr_value_new(ns, NULL);
    if (tr_call(run, mv, vec, 3 + nrest, kwarg, &cls) < 0)
        goto done;
    if (PyType_Check(cls.obj) && PyCell_Check(cell)) {
        PyObject *cell_cls = PyCell_GET(cell);
        if (cell_cls != cls.obj) {
            if (cell_cls == NULL)
                PyErr_Format(PyExc_RuntimeError,
                             "__class__ not set defining %.200R as %.200R. "
                             "Was __classcell__ propagated to type.__new__?", args[1].obj, cls.obj);
            else
                PyErr_Format(PyExc_TypeError, "__class__ set to %.200R defining %.200R as %.200R",
                             cell_cls, args[1].obj, cls.obj);
            tr_value_clear(&cls);
            goto done;
        }
    }
    tr_prov_decref(cls.prov);
    cls.prov = tr_prov_new(TR_PROV_FUNC, NULL, NULL, args[1].obj, 0);
    *out = cls;
    *rc = 0;
done:
    tr_value_clear(&body);
    PyMem_Free(vec);
    Py_XDECREF(bases);
    Py_XDECREF(meta);
    Py_XDECREF(ns);
    Py_XDECREF(cell);
    Py_XDECREF(kwn);
    (void)callable;
    return 1;
}

/* 1 when handled (rc in *rc), 0 when callable is not a lookaside. */
static int lookaside(TrRun *run, TrValue callable, const TrValue *args, Py_ssize_t nargs,
                     PyObject *kwnames, TrValue *out, int *rc)
{
    PyObject *c = callable.obj;
    int haskw = kwnames != NULL && PyTuple_GET_SIZE(kwnames) > 0;
    *rc = -1;
    if (c == bi_build_class)
        return build_class(run, callable, args, nargs, kwnames, out, rc);
    if (c == bi_getattr && !haskw) {
        if (arity("getattr", nargs, 2, 3) < 0 || check_name(args[1].obj, NULL) < 0)
            return 1;
        if (tr_attr_get(run, args[0], args[1].obj, out) == 0) {
            *rc = 0;
        }
        else if (nargs == 3 && PyErr_ExceptionMatches(PyExc_AttributeError)) {
            PyErr_Clear();
            *out = tr_value_dup(args[2]);
            *rc = 0;
        }
        return 1;
    }
    if (c == bi_hasattr && !haskw) {
        if (arity("hasattr", nargs, 2, 2) < 0 || check_name(args[1].obj, NULL) < 0)
            return 1;
        TrValue v = {NULL, NULL};
        if (tr_attr_get(run, args[0], args[1].obj, &v) == 0) {
            tr_value_clear(&v);
            *rc = ret_bool(out, 1);
        }
        else if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
            PyErr_Clear();
            *rc = ret_bool(out, 0);
        }
        return 1;
    }
    if (c == bi_setattr && !haskw) {
        if (arity("setattr", nargs, 3, 3) < 0 || check_name(args[1].obj, NULL) < 0)
            return 1;
        if (tr_attr_set(run, args[0], args[1].obj, args[2]) == 0)
            *rc = ret_none(out);
        return 1;
    }
    if (c == bi_delattr && !haskw) {
        if (arity("delattr", nargs, 2, 2) < 0 || check_name(args[1].obj, NULL) < 0)
            return 1;
        if (tr_attr_del(run, args[0], args[1].obj) == 0)
            *rc = ret_none(out);
        return 1;
    }
    if (c == bi_vars && !haskw) {
        if (arity("vars", nargs, 0, 1) < 0)
            return 1;
        if (nargs == 0) {
            *rc = frame_locals(out);
            return 1;
        }
        PyObject *name = PyUnicode_InternFromString("__dict__");
        if (name == NULL)
            return 1;
        if (tr_attr_get(run, args[0], name, out) == 0) {
            *rc = 0;
        }
        else if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
            PyErr_Clear();
            PyErr_SetString(PyExc_TypeError, "vars() argument must have __dict__ attribute");
        }
        Py_DECREF(name);
        return 1;
    }
    if (c == bi_locals && nargs == 0) {
        *rc = frame_locals(out);
        return 1;
    }
    if (c == bi_globals && nargs == 0) {
        TrFrame *f = tr_eval_current_frame();
        if (f == NULL)
            return 0;
        *out = tr_value_new(Py_NewRef(f->globals), NULL);
        *rc = 0;
        return 1;
    }
    if ((c == bi_dir && nargs == 0) || ((c == bi_eval || c == bi_exec) && nargs < 2)) {
        PyErr_Format(tr_Unsupported, "%s() without explicit namespaces in traced code",
                     ((PyCFunctionObject *)c)->m_ml->ml_name);
        return 1;
    }
    if (c == (PyObject *)&PyType_Type && nargs == 1 && !haskw) {
        TrProv *p = tr_prov_attr(args[0].prov, NULL, TR_RES_NONE, "type()");
        if (p == NULL)
            return 1;
        *out = tr_value_new(Py_NewRef(Py_TYPE(args[0].obj)), p);
        *rc = 0;
        return 1;
    }
    if (c == (PyObject *)&PySuper_Type && !haskw && nargs <= 2) {
        TrValue t = {NULL, NULL}, o = {NULL, NULL};
        PyObject *s = NULL;
        if (nargs == 0) {
            if (tr_frame_super_args(tr_eval_current_frame(), &t, &o) < 0)
                return 1;
            s = PyObject_CallFunctionObjArgs(c, t.obj, o.obj, NULL);
        }
        else {
            s = PyObject_Vectorcall(c, (PyObject *const[]){args[0].obj, nargs > 1 ? args[1].obj : NULL},
                                    (size_t)nargs, NULL);
        }
        tr_value_clear(&t);
        tr_value_clear(&o);
        if (s == NULL)
            return 1;
        TrProv *p = tr_prov_new(TR_PROV_CALL, callable.prov, NULL, NULL, 0);
        if (p == NULL) {
            Py_DECREF(s);
            return 1;
        }
        p->detail = "super";
        *out = tr_value_new(s, p);
        *rc = 0;
        return 1;
    }
    /* object.__getattribute__ / __setattr__ / __delattr__, unbound (object.__setattr__(
     * self, n, v)) or bound through super() (a method-wrapper of object's slot). */
    PyObject *slot = NULL;
    TrValue self = {NULL, NULL};
    const TrValue *rest = args;
    Py_ssize_t nrest = nargs;
    if (c == obj_setattr || c == obj_delattr || c == obj_getattribute) {
        if (nargs < 1 || haskw)
            return 0;
        slot = c;
        self = args[0];
        rest = args + 1;
        nrest = nargs - 1;
    }
    else if (Py_IS_TYPE(c, method_wrapper_type) && !haskw) {
        PyObject *objclass = PyObject_GetAttrString(c, "__objclass__");
        PyObject *name = objclass != NULL ? PyObject_GetAttrString(c, "__name__") : NULL;
        if (name == NULL) {
            PyErr_Clear();
            Py_XDECREF(objclass);
            return 0;
        }
        if (objclass == (PyObject *)&PyBaseObject_Type) {
            if (_PyUnicode_EqualToASCIIString(name, "__setattr__"))
                slot = obj_setattr;
            else if (_PyUnicode_EqualToASCIIString(name, "__delattr__"))
                slot = obj_delattr;
            else if (_PyUnicode_EqualToASCIIString(name, "__getattribute__"))
                slot = obj_getattribute;
        }
        Py_DECREF(objclass);
        Py_DECREF(name);
        if (slot == NULL)
            return 0;
        PyObject *s = PyObject_GetAttrString(c, "__self__");
        if (s == NULL)
            return 1;
        self = tr_value_new(s, NULL);   /* borrowed below, released at the end */
    }
    if (slot == NULL)
        return 0;
    if (nrest < 1 || !PyUnicode_Check(rest[0].obj)) {
        /* Let CPython produce its own error message. */
        if (self.obj != NULL && slot != c)
            Py_DECREF(self.obj);
        return 0;
    }
    if (slot == obj_setattr && nrest == 2) {
        if (tr_attr_generic_set(run, self, rest[0].obj, &rest[1]) == 0)
            *rc = ret_none(out);
    }
    else if (slot == obj_delattr && nrest == 1) {
        if (tr_attr_generic_set(run, self, rest[0].obj, NULL) == 0)
            *rc = ret_none(out);
    }
    else if (slot == obj_getattribute && nrest == 1) {
        *rc = tr_attr_generic_get(run, self, rest[0].obj, out);
    }
    else {
        if (slot != c)
            Py_DECREF(self.obj);
        return 0;
    }
    if (slot != c)
        Py_DECREF(self.obj);
    return 1;
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
    if (PyFunction_Check(c)) {
        PyCodeObject *co = (PyCodeObject *)((PyFunctionObject *)c)->func_code;
        if (co->co_flags & (CO_COROUTINE | CO_ASYNC_GENERATOR | CO_ITERABLE_COROUTINE))
            return call_opaque(run, callable, args, nargs, kwnames, out);
        return call_function(run, (PyFunctionObject *)c, args, nargs, kwnames, out);
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
    if (Py_IS_TYPE(c, partial_type))
        return call_partial(run, callable, args, nargs, kwnames, out);
    int rc;
    if (lookaside(run, callable, args, nargs, kwnames, out, &rc))
        return rc;
    if (PyType_Check(c)) {
        if (Py_TYPE(c)->tp_call == PyType_Type.tp_call)
            return call_type(run, callable, args, nargs, kwnames, out);
    }
    /* An object (or class of a metaclass) whose type has a Python __call__. */
    if (Py_TYPE(c)->tp_flags & Py_TPFLAGS_HEAPTYPE) {
        PyObject *name = PyUnicode_InternFromString("__call__");
        if (name == NULL)
            return -1;
        PyObject *call = _PyType_Lookup(Py_TYPE(c), name);
        Py_DECREF(name);
        if (call != NULL && PyFunction_Check(call)) {
            TrValue fn = {Py_NewRef(call), NULL};
            rc = call_with_self(run, fn, callable, args, nargs, kwnames, out);
            Py_DECREF(call);
            return rc;
        }
    }
    return call_opaque(run, callable, args, nargs, kwnames, out);
}
