/* tr_lookaside.c: the builtins tr_call models instead of calling (lookasides), and
 * what the tracer knows not to run user code (the escape allow-list).
 *
 * Lookasides mirror Python/bltinmodule.c: getattr, setattr, delattr, hasattr, vars,
 * type(o), super(), locals(), globals(), __build_class__ (class bodies interpreted), and
 * object.__getattribute__/__setattr__/__delattr__ called explicitly or through super(),
 * so that the attribute protocol they run goes through tr_attr.h.
 */
#include "tr_frame.h"
#include "tr_attr.h"

/* Lookaside targets, resolved once (borrowed from builtins / object's dict). */
static PyObject *bi_getattr, *bi_setattr, *bi_delattr, *bi_hasattr, *bi_vars, *bi_locals,
    *bi_globals, *bi_isinstance, *bi_issubclass, *bi_len, *bi_id, *bi_callable, *bi_repr,
    *bi_print, *bi_dir, *bi_eval, *bi_exec, *bi_build_class;
static PyObject *obj_setattr, *obj_delattr, *obj_getattribute;
static PyObject *sys_getframe, *warnings_warn, *warnings_warn_explicit;
static PyTypeObject *method_wrapper_type;
PyTypeObject *tr_partial_type;   /* functools.partial (the C type), exact instances only */

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
    sys_getframe = PySys_GetObject("_getframe");   /* borrowed from sys */
    Py_XINCREF(sys_getframe);
    PyObject *w = PyImport_ImportModule("_warnings");
    if (w == NULL)
        return -1;
    warnings_warn = PyObject_GetAttrString(w, "warn");
    warnings_warn_explicit = PyObject_GetAttrString(w, "warn_explicit");
    Py_DECREF(w);
    if (warnings_warn == NULL || warnings_warn_explicit == NULL)
        return -1;
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
    tr_partial_type = (PyTypeObject *)PyObject_GetAttrString(ft, "partial");   /* kept */
    Py_DECREF(ft);
    if (tr_partial_type == NULL)
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

int tr_call_is_pure(PyObject *callable, const TrValue *args, Py_ssize_t nargs,
                    PyObject *kwnames)
{
    if (PyFunction_Check(callable))   /* exact type: the common case, no subtype walk */
        return 0;
    if (callable == bi_len || callable == bi_id || callable == bi_callable)
        return nargs == 1 && (callable != bi_len || is_plain(args[0].obj) ||
                              !(Py_TYPE(args[0].obj)->tp_flags & Py_TPFLAGS_HEAPTYPE));
    if (callable == bi_isinstance || callable == bi_issubclass) {
        if (nargs != 2)
            return 0;
        PyObject *cls = args[1].obj;
        /* isinstance reads obj.__class__ when type(obj) is not a subclass: a Python
         * __getattribute__ / __getattr__ would run then. */
        if (callable == bi_isinstance &&
            Py_TYPE(args[0].obj)->tp_getattro != PyObject_GenericGetAttr &&
            (Py_TYPE(args[0].obj)->tp_flags & Py_TPFLAGS_HEAPTYPE))
            return 0;
        /* issubclass reads __bases__ of objects that are not classes. */
        if (callable == bi_issubclass && !PyType_Check(args[0].obj))
            return 0;
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
        if (t == &PyList_Type && tr_name_in(name, list_pure_any))
            return 1;
        if (t == &PyList_Type && strcmp(name, "extend") == 0)
            return nargs == 1 && is_plain(args[0].obj);
        if (t == &PyDict_Type && (tr_name_in(name, dict_pure_any) ||
                                  ((strcmp(name, "get") == 0 || tr_name_in(name, dict_writes)) &&
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
void tr_call_note_dict_method(TrRun *run, PyObject *callable)
{
    if (!PyCFunction_Check(callable))
        return;
    PyObject *self = PyCFunction_GET_SELF(callable);
    if (self != NULL && PyDict_Check(self) &&
        tr_name_in(((PyCFunctionObject *)callable)->m_ml->ml_name, dict_writes))
        tr_attr_note_dict_write(run, self);
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
PyObject *tr_frame_locals_dict(TrFrame *f)
{
    if (f->locals != NULL)
        return Py_NewRef(f->locals);
    /* CPython's f_locals of an optimised frame: one dict per frame, refreshed from the
     * fast locals on each request (_PyFrame_FastToLocalsWithError): bound names set,
     * unbound ones removed, other keys (written by exec) kept. */
    if (f->fast_locals_dict == NULL) {
        f->fast_locals_dict = PyDict_New();
        if (f->fast_locals_dict == NULL)
            return NULL;
    }
    PyObject *d = f->fast_locals_dict;
    const unsigned char *kinds = (const unsigned char *)PyBytes_AS_STRING(f->code->co_localspluskinds);
    for (int i = 0; i < f->nlocalsplus; i++) {
        PyObject *name = PyTuple_GET_ITEM(f->code->co_localsplusnames, i);
        PyObject *v = f->localsplus[i].obj;
        if (v != NULL && (kinds[i] & (TR_FAST_CELL | TR_FAST_FREE)) && PyCell_Check(v))
            v = PyCell_GET(v);
        if (v == NULL) {
            if (PyDict_DelItem(d, name) < 0) {
                if (!PyErr_ExceptionMatches(PyExc_KeyError))
                    return NULL;
                PyErr_Clear();
            }
            continue;
        }
        if (PyDict_SetItem(d, name, v) < 0)
            return NULL;
    }
    return Py_NewRef(d);
}

/* locals() / vars(): the innermost interpreted frame's locals dict. */
static int frame_locals(TrValue *out)
{
    TrFrame *f = tr_eval_current_frame();
    if (f == NULL) {
        PyErr_SetString(tr_Unsupported, "locals() outside an interpreted frame");
        return -1;
    }
    PyObject *d = tr_frame_locals_dict(f);
    if (d == NULL)
        return -1;
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

static int eval_in_frame(TrRun *run, TrValue callable, const TrValue *args, Py_ssize_t nargs,
                         TrValue *out)
{
    TrFrame *f = tr_eval_current_frame();
    TrValue loc = {NULL, NULL};
    PyObject *g, *l, *r;
    if (f == NULL) {
        PyErr_SetString(tr_Unsupported, "eval()/exec() outside an interpreted frame");
        return -1;
    }
    if (nargs < 2 || args[1].obj == Py_None) {
        g = f->globals;
        if (nargs == 3 && args[2].obj != Py_None) {
            l = args[2].obj;
        }
        else {
            if (frame_locals(&loc) < 0)
                return -1;
            l = loc.obj;
        }
    }
    else {
        g = args[1].obj;
        l = g;   /* nargs == 3 and locals None */
    }
    r = PyObject_CallFunctionObjArgs(callable.obj, args[0].obj, g, l, NULL);
    tr_value_clear(&loc);
    tr_attr_note_escape(run);
    if (r == NULL)
        return -1;
    *out = tr_value_new(r, tr_prov_new(TR_PROV_CALL, callable.prov, NULL, NULL, 0));
    return 0;
}

/* warnings.warn(message, category=None, stacklevel=1, source=None) (_warnings.c:
 * warnings_warn_impl, setup_context): the location is taken from the interpreted
 * frames, stacklevel of them up, then warn_explicit does the rest. A stacklevel
 * beyond the interpreted frames would need the native ones: Unsupported. */
static int warn(TrRun *run, const TrValue *args, Py_ssize_t nargs, PyObject *kwnames,
                TrValue *out)
{
    static const char *const names[] = {"message", "category", "stacklevel", "source"};
    PyObject *vals[4] = {NULL, NULL, NULL, NULL};
    Py_ssize_t nkw = kwnames != NULL ? PyTuple_GET_SIZE(kwnames) : 0, npos = nargs - nkw;
    PyObject *registry = NULL, *res = NULL, *kw = NULL, *line = NULL;
    if (npos > 4) {
        PyErr_Format(PyExc_TypeError, "warn() takes at most 4 arguments (%zd given)", npos);
        return -1;
    }
    for (Py_ssize_t i = 0; i < npos; i++)
        vals[i] = args[i].obj;
    for (Py_ssize_t i = 0; i < nkw; i++) {
        PyObject *k = PyTuple_GET_ITEM(kwnames, i);
        int j = 0;
        while (j < 4 && !_PyUnicode_EqualToASCIIString(k, names[j]))
            j++;
        if (j == 4 || vals[j] != NULL) {
            PyErr_Format(PyExc_TypeError, j == 4 ? "warn() got an unexpected keyword argument '%S'"
                                                 : "argument for warn() given by name ('%S') and position",
                         k);
            return -1;
        }
        vals[j] = args[npos + i].obj;
    }
    if (vals[0] == NULL) {
        PyErr_SetString(PyExc_TypeError, "warn() missing required argument 'message' (pos 1)");
        return -1;
    }
    Py_ssize_t level = 1;
    if (vals[2] != NULL) {
        level = PyLong_AsSsize_t(vals[2]);
        if (level == -1 && PyErr_Occurred())
            return -1;
    }
    PyObject *category = vals[1];
    int rc = PyObject_IsInstance(vals[0], PyExc_Warning);
    if (rc < 0)
        return -1;
    if (rc == 1)
        category = (PyObject *)Py_TYPE(vals[0]);
    else if (category == NULL || category == Py_None)
        category = PyExc_UserWarning;
    rc = PyObject_IsSubclass(category, PyExc_Warning);
    if (rc <= 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "category must be a Warning subclass, not '%s'",
                     Py_TYPE(category)->tp_name);
        return -1;
    }
    TrFrame *f = tr_eval_current_frame();
    while (--level > 0 && f != NULL)
        f = f->prev;
    if (f == NULL) {
        PyErr_SetString(tr_Unsupported,
                        "frame introspection: warnings.warn() stacklevel beyond the traced frames");
        return -1;
    }
    /* The module's registry and name, as setup_context finds them in the globals. */
    registry = PyDict_GetItemString(f->globals, "__warningregistry__");
    if (registry == NULL || !PyDict_Check(registry)) {
        registry = PyDict_New();
        if (registry == NULL || PyDict_SetItemString(f->globals, "__warningregistry__", registry) < 0)
            goto done;
    }
    else {
        Py_INCREF(registry);
    }
    PyObject *module = PyDict_GetItemString(f->globals, "__name__");
    PyObject *modname = module != NULL && PyUnicode_Check(module) ? Py_NewRef(module)
                                                                   : PyUnicode_FromString("<string>");
    if (modname == NULL)
        goto done;
    line = PyLong_FromLong(PyCode_Addr2Line(f->code, f->lasti * (int)sizeof(_Py_CODEUNIT)));
    kw = PyDict_New();
    if (line == NULL || kw == NULL ||
        (vals[3] != NULL && PyDict_SetItemString(kw, "source", vals[3]) < 0)) {
        Py_DECREF(modname);
        goto done;
    }
    PyObject *pargs = PyTuple_Pack(6, vals[0], category, f->code->co_filename, line, modname,
                                   registry);
    Py_DECREF(modname);
    if (pargs == NULL)
        goto done;
    res = PyObject_Call(warnings_warn_explicit, pargs, kw);
    Py_DECREF(pargs);
    tr_attr_note_escape(run);   /* filters and showwarning may be Python code */
    if (res != NULL)
        *out = tr_value_new(res, NULL);
done:
    Py_XDECREF(registry);
    Py_XDECREF(kw);
    Py_XDECREF(line);
    return res != NULL ? 0 : -1;
}

/* 1 when handled (rc in *rc), 0 when callable is not a lookaside. */
int tr_lookaside(TrRun *run, TrValue callable, const TrValue *args, Py_ssize_t nargs,
                     PyObject *kwnames, TrValue *out, int *rc)
{
    PyObject *c = callable.obj;
    int haskw = kwnames != NULL && PyTuple_GET_SIZE(kwnames) > 0;
    *rc = -1;
    if (c == sys_getframe && c != NULL && !haskw && nargs <= 1) {
        /* sys._getframe([depth]): interpreted frames as frame-like objects, then the
         * native ones (tr_frameobj.c). */
        Py_ssize_t depth = 0;
        if (nargs == 1) {
            depth = PyLong_AsSsize_t(args[0].obj);
            if (depth == -1 && PyErr_Occurred())
                return 1;
        }
        PyObject *fo = tr_frameobj_get(depth < 0 ? 0 : depth, sys_getframe);
        if (fo != NULL) {
            *out = tr_value_new(fo, tr_prov_new(TR_PROV_CALL, callable.prov, NULL, NULL, 0));
            *rc = 0;
        }
        return 1;
    }
    if (c == warnings_warn) {
        *rc = warn(run, args, nargs, kwnames, out);
        return 1;
    }
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
    if (c == bi_dir && nargs == 0) {
        /* dir(): the sorted names of the interpreted frame's locals. */
        TrValue loc = {NULL, NULL};
        if (frame_locals(&loc) < 0)
            return 1;
        PyObject *keys = PyMapping_Keys(loc.obj);
        tr_value_clear(&loc);
        if (keys == NULL || PyList_Sort(keys) < 0) {
            Py_XDECREF(keys);
            return 1;
        }
        *out = tr_value_new(keys, NULL);
        *rc = 0;
        return 1;
    }
    if ((c == bi_eval || c == bi_exec) && !haskw && nargs >= 1 && nargs <= 3 &&
        (nargs < 2 || args[1].obj == Py_None || (nargs == 3 && args[2].obj == Py_None))) {
        /* eval/exec with the frame's namespaces filled in (bltinmodule.c: globals None
         * means the caller's globals and locals; locals None means the globals when
         * globals were given); the code then runs natively. */
        *rc = eval_in_frame(run, callable, args, nargs, out);
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
