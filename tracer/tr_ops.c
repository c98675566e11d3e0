/* tr_ops.c: the value-level semantics of opcodes, shared by the tracing interpreter
 * (tr_eval.c) and the replayer (tr_replay.c) where both execute them (tr_ops.h), and
 * the opcodes of tr_eval.c too long to inline. Each mirrors its case or helper in
 * Python/ceval.c (3.11): the operators, truth tests and iteration, MAKE_FUNCTION, the
 * exception opcodes and name errors (format_exc_check_arg), then unpack_iterable,
 * match_keys, match_class, FORMAT_VALUE, import_name, import_from and
 * format_kwargs_error. Attribute reads that patterns make (MATCH_CLASS) go through
 * the tracer's attribute protocol. The BUILD_* family is in tr_ops_build.c. */
#include "tr_frame.h"
#include "tr_attr.h"
#include "tr_ops.h"

/* _PyObject_LookupAttr with a C string name: 1 found, 0 not (no exception), -1. */
static int lookup_attr_str(PyObject *obj, const char *name, PyObject **out)
{
    PyObject *n = PyUnicode_InternFromString(name);
    if (n == NULL)
        return -1;
    int rc = _PyObject_LookupAttr(obj, n, out);
    Py_DECREF(n);
    return rc;
}

/* ---- operands ---- */

void tr_op_pop_call(TrFrame *f, int oparg)
{
    int n = oparg + 2;
    TrValue *base = tr_op_take(f, n, "CALL");
    int is_meth = base[0].obj != NULL;
    tr_value_clear(&base[is_meth ? 0 : 1]);    /* the function */
    for (int i = 1; i < n; i++)                 /* self (if any) and the arguments */
        tr_value_clear(&base[i]);
    tr_value_clear(&base[0]);                   /* the NULL slot (a no-op when cleared) */
}

/* ---- operators ---- */

PyObject *tr_op_unary(int op, PyObject *v)
{
    switch (op) {
    case TR_OP_UNARY_POSITIVE:
        return PyNumber_Positive(v);
    case TR_OP_UNARY_NEGATIVE:
        return PyNumber_Negative(v);
    case TR_OP_UNARY_INVERT:
        return PyNumber_Invert(v);
    case TR_OP_UNARY_NOT: {
        int t = PyObject_IsTrue(v);
        return t < 0 ? NULL : Py_NewRef(t ? Py_False : Py_True);
    }
    }
    fprintf(stderr, "tracefuzz: tr_op_unary of opcode %d\n", op);
    abort();
}

/* ceval's binary_ops[] (NB_ADD ... NB_INPLACE_XOR); the two powers take no modulus. */
PyObject *tr_op_binary(int oparg, PyObject *a, PyObject *b)
{
    typedef PyObject *(*TrBinaryFunc)(PyObject *, PyObject *);
    static const TrBinaryFunc fns[26] = {
        PyNumber_Add, PyNumber_And, PyNumber_FloorDivide, PyNumber_Lshift,
        PyNumber_MatrixMultiply, PyNumber_Multiply, PyNumber_Remainder, PyNumber_Or,
        NULL /* NB_POWER */, PyNumber_Rshift, PyNumber_Subtract, PyNumber_TrueDivide,
        PyNumber_Xor,
        PyNumber_InPlaceAdd, PyNumber_InPlaceAnd, PyNumber_InPlaceFloorDivide,
        PyNumber_InPlaceLshift, PyNumber_InPlaceMatrixMultiply, PyNumber_InPlaceMultiply,
        PyNumber_InPlaceRemainder, PyNumber_InPlaceOr, NULL /* NB_INPLACE_POWER */,
        PyNumber_InPlaceRshift, PyNumber_InPlaceSubtract, PyNumber_InPlaceTrueDivide,
        PyNumber_InPlaceXor,
    };
    if (oparg == 8)
        return PyNumber_Power(a, b, Py_None);
    if (oparg == 21)
        return PyNumber_InPlacePower(a, b, Py_None);
    if (oparg < 0 || oparg >= 26) {
        PyErr_Format(PyExc_SystemError, "tracer: bad BINARY_OP oparg %d", oparg);
        return NULL;
    }
    return fns[oparg](a, b);
}

PyObject *tr_op_compare(int oparg, PyObject *a, PyObject *b)
{
    if (oparg < Py_LT || oparg > Py_GE) {
        PyErr_SetString(PyExc_SystemError, "tracer: bad COMPARE_OP");
        return NULL;
    }
    return PyObject_RichCompare(a, b, oparg);
}

PyObject *tr_op_is(PyObject *a, PyObject *b, int invert)
{
    return Py_NewRef(((a == b) ^ (invert != 0)) ? Py_True : Py_False);
}

PyObject *tr_op_contains(PyObject *item, PyObject *container, int invert)
{
    int res = PySequence_Contains(container, item);
    if (res < 0)
        return NULL;
    return Py_NewRef((res ^ (invert != 0)) ? Py_True : Py_False);
}

PyObject *tr_op_subscr(PyObject *container, PyObject *key)
{
    return PyObject_GetItem(container, key);
}

int tr_op_store_subscr(PyObject *container, PyObject *key, PyObject *v)
{
    return PyObject_SetItem(container, key, v);
}

int tr_op_delete_subscr(PyObject *container, PyObject *key)
{
    return PyObject_DelItem(container, key);
}

/* ---- truth and iteration ---- */

int tr_op_pop_jump(int op, int oparg, PyObject *cond, int *delta)
{
    int t, want;
    switch (op) {
    case TR_OP_POP_JUMP_FORWARD_IF_NONE:
    case TR_OP_POP_JUMP_BACKWARD_IF_NONE:
    case TR_OP_POP_JUMP_FORWARD_IF_NOT_NONE:
    case TR_OP_POP_JUMP_BACKWARD_IF_NOT_NONE:
        t = cond == Py_None;   /* an identity test: no user code */
        want = op == TR_OP_POP_JUMP_FORWARD_IF_NONE || op == TR_OP_POP_JUMP_BACKWARD_IF_NONE;
        break;
    case TR_OP_POP_JUMP_FORWARD_IF_FALSE:
    case TR_OP_POP_JUMP_FORWARD_IF_TRUE:
    case TR_OP_POP_JUMP_BACKWARD_IF_FALSE:
    case TR_OP_POP_JUMP_BACKWARD_IF_TRUE:
        t = PyObject_IsTrue(cond);
        if (t < 0)
            return -1;
        want = op == TR_OP_POP_JUMP_FORWARD_IF_TRUE || op == TR_OP_POP_JUMP_BACKWARD_IF_TRUE;
        break;
    default:
        fprintf(stderr, "tracefuzz: tr_op_pop_jump of opcode %d\n", op);
        abort();
    }
    if (t != want)
        return 0;
    int backward = op == TR_OP_POP_JUMP_BACKWARD_IF_FALSE ||
                   op == TR_OP_POP_JUMP_BACKWARD_IF_TRUE ||
                   op == TR_OP_POP_JUMP_BACKWARD_IF_NONE ||
                   op == TR_OP_POP_JUMP_BACKWARD_IF_NOT_NONE;
    *delta = backward ? -oparg : oparg;
    return 1;
}

int tr_op_jump_or_pop(int op, PyObject *cond)
{
    int t = PyObject_IsTrue(cond);
    if (t < 0)
        return -1;
    return t == (op == TR_OP_JUMP_IF_TRUE_OR_POP);
}

PyObject *tr_op_get_iter(PyObject *v)
{
    return PyObject_GetIter(v);
}

int tr_op_iter_end(void)
{
    if (PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_StopIteration))
            return -1;
        PyErr_Clear();
    }
    return 0;
}

int tr_op_for_iter(PyObject *it, PyObject **next)
{
    *next = (*Py_TYPE(it)->tp_iternext)(it);
    if (*next != NULL)
        return 1;
    return tr_op_iter_end();
}

/* ---- functions, exceptions, names ---- */

PyObject *tr_op_make_function(PyObject *code, PyObject *globals, PyObject *defaults,
                              PyObject *kwdefaults, PyObject *annotations,
                              PyObject *closure)
{
    PyObject *fn = PyFunction_New(code, globals);
    if (fn == NULL)
        return NULL;
    if ((closure != NULL && PyFunction_SetClosure(fn, closure) < 0) ||
        (kwdefaults != NULL && PyFunction_SetKwDefaults(fn, kwdefaults) < 0) ||
        (defaults != NULL && PyFunction_SetDefaults(fn, defaults) < 0)) {
        Py_DECREF(fn);
        return NULL;
    }
    /* 3.11 compiles annotations to a flat (name, value, ...) tuple that the function
     * turns into a dict on first access: stored as is, like ceval
     * (PyFunction_SetAnnotations only takes a dict). */
    if (annotations != NULL)
        Py_XSETREF(((PyFunctionObject *)fn)->func_annotations, Py_NewRef(annotations));
    return fn;
}

PyObject *tr_op_make_function_on_stack(const TrFrame *f, int oparg, int *npop)
{
    int n = 1;
    const TrValue *top = &f->stack[f->sp - 1];   /* the code; the parts lie below it */
    PyObject *closure = (oparg & 8) ? top[-(n++)].obj : NULL;
    PyObject *annotations = (oparg & 4) ? top[-(n++)].obj : NULL;
    PyObject *kwdefaults = (oparg & 2) ? top[-(n++)].obj : NULL;
    PyObject *defaults = (oparg & 1) ? top[-(n++)].obj : NULL;
    *npop = n;
    return tr_op_make_function(top->obj, f->globals, defaults, kwdefaults, annotations,
                               closure);
}

PyObject *tr_op_check_exc_match(PyObject *exc, PyObject *type)
{
    if (tr_exc_check_type(type) < 0)
        return NULL;
    return Py_NewRef(PyErr_GivenExceptionMatches(exc, type) ? Py_True : Py_False);
}

PyObject *tr_op_push_exc_info(PyObject *exc)
{
    PyObject *prev = PyErr_GetHandledException();
    PyErr_SetHandledException(exc);
    return prev != NULL ? prev : Py_NewRef(Py_None);
}

void tr_op_pop_except(PyObject *prev)
{
    PyErr_SetHandledException(prev == Py_None ? NULL : prev);
}

int tr_op_reraise(PyObject *exc, PyObject *lasti, int *f_lasti)
{
    if (lasti != NULL) {
        if (!PyLong_Check(lasti)) {
            PyErr_SetString(PyExc_SystemError, "lasti is not an int");
            return -1;
        }
        *f_lasti = (int)PyLong_AsLong(lasti);
    }
    PyErr_Restore(Py_NewRef(Py_TYPE(exc)), Py_NewRef(exc), PyException_GetTraceback(exc));
    return 0;
}

/* format_exc_check_arg: the message, and for a NameError its .name (which the
 * traceback module reads to suggest a close name). */
static void name_error(PyObject *type, const char *fmt, PyObject *name)
{
    PyErr_Format(type, fmt, name);
    if (type != PyExc_NameError)
        return;
    PyObject *et, *ev, *etb;
    PyErr_Fetch(&et, &ev, &etb);
    PyErr_NormalizeException(&et, &ev, &etb);
    if (ev != NULL && PyErr_GivenExceptionMatches(ev, PyExc_NameError) &&
        ((PyNameErrorObject *)ev)->name == NULL) {
        if (PyObject_SetAttrString(ev, "name", name) < 0)
            PyErr_Clear();   /* the NameError is raised all the same, as in ceval */
    }
    PyErr_Restore(et, ev, etb);
}

void tr_op_name_error(PyObject *name)
{
    name_error(PyExc_NameError, "name '%U' is not defined", name);
}

int tr_op_unbound_local(PyCodeObject *co, int i)
{
    PyObject *name = PyTuple_GET_ITEM(co->co_localsplusnames, i);
    const unsigned char *kinds = (const unsigned char *)PyBytes_AS_STRING(co->co_localspluskinds);
    if (kinds[i] & TR_FAST_FREE)
        name_error(PyExc_NameError,
                   "cannot access free variable '%S' where it is not associated with a value"
                   " in enclosing scope", name);
    else
        name_error(PyExc_UnboundLocalError,
                   "cannot access local variable '%S' where it is not associated with a value",
                   name);
    return -1;
}

PyObject *tr_op_load_global(PyObject *globals, PyObject *builtins, PyObject *name,
                            int *builtin)
{
    PyObject *v;
    *builtin = 0;
    if (PyDict_CheckExact(globals) && PyDict_CheckExact(builtins)) {
        v = PyDict_GetItemWithError(globals, name);
        if (v != NULL)
            return Py_NewRef(v);
        if (PyErr_Occurred())
            return NULL;
        *builtin = 1;
        v = PyDict_GetItemWithError(builtins, name);
        if (v != NULL)
            return Py_NewRef(v);
        if (!PyErr_Occurred())
            tr_op_name_error(name);
        return NULL;
    }
    /* The slow path of a namespace that is not an exact dict: subscription. */
    v = PyObject_GetItem(globals, name);
    if (v != NULL)
        return v;
    if (!PyErr_ExceptionMatches(PyExc_KeyError))
        return NULL;
    PyErr_Clear();
    *builtin = 1;
    v = PyObject_GetItem(builtins, name);
    if (v == NULL && PyErr_ExceptionMatches(PyExc_KeyError))
        tr_op_name_error(name);
    return v;
}

/* ---- the opcodes of tr_eval.c too long to inline ---- */

/* UNPACK_SEQUENCE (after == -1) and UNPACK_EX: out[0] is the value for the top of the
 * stack (the first target). Values get UNPACK provenance. 0 or -1. */
int tr_op_unpack(TrValue seq, int before, int after, TrValue *out)
{
    PyObject *it = PyObject_GetIter(seq.obj);
    int i = 0;
    if (it == NULL) {
        if (PyErr_ExceptionMatches(PyExc_TypeError) && Py_TYPE(seq.obj)->tp_iter == NULL &&
            !PySequence_Check(seq.obj)) {
            PyErr_Format(PyExc_TypeError, "cannot unpack non-iterable %.200s object",
                         Py_TYPE(seq.obj)->tp_name);
        }
        return -1;
    }
    for (; i < before; i++) {
        PyObject *w = PyIter_Next(it);
        if (w == NULL) {
            if (!PyErr_Occurred()) {
                if (after < 0)
                    PyErr_Format(PyExc_ValueError,
                                 "not enough values to unpack (expected %d, got %d)", before, i);
                else
                    PyErr_Format(PyExc_ValueError,
                                 "not enough values to unpack (expected at least %d, got %d)",
                                 before + after, i);
            }
            goto error;
        }
        out[i] = tr_value_new(w, tr_prov_new(TR_PROV_UNPACK, seq.prov, NULL, NULL, i));
    }
    if (after < 0) {
        PyObject *w = PyIter_Next(it);
        if (w == NULL) {
            if (PyErr_Occurred())
                goto error;
            Py_DECREF(it);
            return 0;
        }
        Py_DECREF(w);
        PyErr_Format(PyExc_ValueError, "too many values to unpack (expected %d)", before);
        goto error;
    }
    PyObject *l = PySequence_List(it);
    if (l == NULL)
        goto error;
    Py_ssize_t ll = PyList_GET_SIZE(l);
    if (ll < after) {
        PyErr_Format(PyExc_ValueError, "not enough values to unpack (expected at least %d, got %zd)",
                     before + after, before + ll);
        Py_DECREF(l);
        goto error;
    }
    /* The tail after the starred target comes off the end of the list. */
    for (int j = after - 1; j >= 0; j--) {
        PyObject *w = Py_NewRef(PyList_GET_ITEM(l, ll - after + j));
        out[before + 1 + j] = tr_value_new(
            w, tr_prov_new(TR_PROV_UNPACK, seq.prov, NULL, NULL, before + 1 + j));
    }
    if (PyList_SetSlice(l, ll - after, ll, NULL) < 0) {
        Py_DECREF(l);
        for (int j = 0; j < after; j++)
            tr_value_clear(&out[before + 1 + j]);
        goto error;
    }
    out[before] = tr_value_new(l, tr_prov_new(TR_PROV_UNPACK, seq.prov, NULL, NULL, before));
    Py_DECREF(it);
    return 0;
error:
    for (int j = 0; j < i; j++)
        tr_value_clear(&out[j]);
    Py_DECREF(it);
    return -1;
}

/* MATCH_KEYS: a tuple of the values for keys, None when one is missing; new ref. */
PyObject *tr_op_match_keys(PyObject *map, PyObject *keys)
{
    Py_ssize_t nkeys = PyTuple_GET_SIZE(keys);
    if (nkeys == 0)
        return PyTuple_New(0);
    PyObject *get = NULL, *seen = NULL, *values = NULL, *dummy = NULL, *result = NULL;
    get = PyObject_GetAttrString(map, "get");
    if (get == NULL)
        goto done;
    seen = PySet_New(NULL);
    values = PyList_New(0);
    dummy = PyBaseObject_Type.tp_alloc(&PyBaseObject_Type, 0);   /* a unique sentinel */
    if (seen == NULL || values == NULL || dummy == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < nkeys; i++) {
        PyObject *key = PyTuple_GET_ITEM(keys, i);
        int dup = PySet_Contains(seen, key);
        if (dup < 0 || (dup == 0 && PySet_Add(seen, key) < 0))
            goto done;
        if (dup) {
            PyErr_Format(PyExc_ValueError, "mapping pattern checks duplicate key (%R)", key);
            goto done;
        }
        PyObject *value = PyObject_CallFunctionObjArgs(get, key, dummy, NULL);
        if (value == NULL)
            goto done;
        if (value == dummy) {
            Py_DECREF(value);
            result = Py_NewRef(Py_None);
            goto done;
        }
        int rc = PyList_Append(values, value);
        Py_DECREF(value);
        if (rc < 0)
            goto done;
    }
    result = PyList_AsTuple(values);
done:
    Py_XDECREF(get);
    Py_XDECREF(seen);
    Py_XDECREF(values);
    Py_XDECREF(dummy);
    return result;
}

/* One attribute of a class pattern, through the tracer; AttributeError means "no
 * match" (returns 0), other errors -1. seen collects names for the duplicate check. */
static int match_class_attr(TrRun *run, TrValue subject, PyObject *type, PyObject *name,
                            PyObject *seen, PyObject *attrs)
{
    if (!PyUnicode_CheckExact(name)) {
        PyErr_Format(PyExc_TypeError, "__match_args__ elements must be strings (got %s)",
                     Py_TYPE(name)->tp_name);
        return -1;
    }
    int dup = PySet_Contains(seen, name);
    if (dup < 0 || (dup == 0 && PySet_Add(seen, name) < 0))
        return -1;
    if (dup) {
        PyErr_Format(PyExc_TypeError, "%s() got multiple sub-patterns for attribute %R",
                     ((PyTypeObject *)type)->tp_name, name);
        return -1;
    }
    TrValue v = {NULL, NULL};
    if (tr_attr_get(run, subject, name, &v) < 0) {
        if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
            PyErr_Clear();
            return 0;
        }
        return -1;
    }
    int rc = PyList_Append(attrs, v.obj);
    tr_value_clear(&v);
    return rc < 0 ? -1 : 1;
}

int tr_op_match_class(TrRun *run, TrValue subject, PyObject *type, Py_ssize_t nargs,
                      PyObject *kwargs, PyObject **out)
{
    *out = NULL;
    if (!PyType_Check(type)) {
        PyErr_SetString(PyExc_TypeError, "called match pattern must be a type");
        return -1;
    }
    int inst = PyObject_IsInstance(subject.obj, type);
    if (inst <= 0)
        return inst;
    PyObject *match_args = NULL, *seen = NULL, *attrs = NULL;
    int rc = -1;
    seen = PySet_New(NULL);
    attrs = PyList_New(0);
    if (seen == NULL || attrs == NULL)
        goto done;
    if (nargs) {
        int match_self = 0;
        if (lookup_attr_str(type, "__match_args__", &match_args) < 0)
            goto done;
        if (match_args != NULL) {
            if (!PyTuple_CheckExact(match_args)) {
                PyErr_Format(PyExc_TypeError, "%s.__match_args__ must be a tuple (got %s)",
                             ((PyTypeObject *)type)->tp_name, Py_TYPE(match_args)->tp_name);
                goto done;
            }
        }
        else {
            match_args = PyTuple_New(0);
            if (match_args == NULL)
                goto done;
            match_self = PyType_HasFeature((PyTypeObject *)type, _Py_TPFLAGS_MATCH_SELF);
        }
        Py_ssize_t allowed = match_self ? 1 : PyTuple_GET_SIZE(match_args);
        if (allowed < nargs) {
            PyErr_Format(PyExc_TypeError, "%s() accepts %zd positional sub-pattern%s (%zd given)",
                         ((PyTypeObject *)type)->tp_name, allowed, allowed == 1 ? "" : "s",
                         nargs);
            goto done;
        }
        if (match_self) {
            if (PyList_Append(attrs, subject.obj) < 0)
                goto done;
        }
        else {
            for (Py_ssize_t i = 0; i < nargs; i++) {
                int m = match_class_attr(run, subject, type, PyTuple_GET_ITEM(match_args, i),
                                         seen, attrs);
                if (m <= 0) {
                    rc = m;
                    goto done;
                }
            }
        }
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(kwargs); i++) {
        int m = match_class_attr(run, subject, type, PyTuple_GET_ITEM(kwargs, i), seen, attrs);
        if (m <= 0) {
            rc = m;
            goto done;
        }
    }
    *out = PyList_AsTuple(attrs);
    rc = *out == NULL ? -1 : 1;
done:
    Py_XDECREF(match_args);
    Py_XDECREF(seen);
    Py_XDECREF(attrs);
    return rc;
}

/* FORMAT_VALUE: conversion 0 none, 1 str, 2 repr, 3 ascii; spec borrowed or NULL. */
PyObject *tr_op_format(PyObject *value, int conversion, PyObject *spec)
{
    PyObject *conv;
    switch (conversion) {
    case 1: conv = PyObject_Str(value); break;
    case 2: conv = PyObject_Repr(value); break;
    case 3: conv = PyObject_ASCII(value); break;
    default: conv = Py_NewRef(value); break;
    }
    if (conv == NULL)
        return NULL;
    if (PyUnicode_CheckExact(conv) && spec == NULL)
        return conv;
    PyObject *res = PyObject_Format(conv, spec);
    Py_DECREF(conv);
    return res;
}

/* IMPORT_NAME: builtins.__import__(name, globals, locals, fromlist, level), a C call. */
PyObject *tr_op_import_name(TrFrame *f, PyObject *name, PyObject *fromlist, PyObject *level)
{
    PyObject *import_func = PyDict_GetItemString(f->builtins, "__import__");
    if (import_func == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ImportError, "__import__ not found");
        return NULL;
    }
    PyObject *locals = f->locals != NULL ? f->locals : Py_None;
    return PyObject_CallFunctionObjArgs(import_func, name, f->globals, locals, fromlist, level,
                                        NULL);
}

/* IMPORT_FROM: getattr(module, name), falling back to sys.modules["pkg.name"]. */
PyObject *tr_op_import_from(PyObject *module, PyObject *name)
{
    PyObject *x = NULL, *pkgname = NULL, *fullname = NULL;
    if (_PyObject_LookupAttr(module, name, &x) != 0)
        return x;
    if (lookup_attr_str(module, "__name__", &pkgname) < 0)
        return NULL;
    if (pkgname != NULL && PyUnicode_Check(pkgname)) {
        fullname = PyUnicode_FromFormat("%U.%U", pkgname, name);
        if (fullname == NULL)
            goto done;
        PyObject *modules = PyImport_GetModuleDict();
        x = PyDict_GetItemWithError(modules, fullname);
        if (x != NULL) {
            Py_INCREF(x);
            goto done;
        }
        if (PyErr_Occurred())
            goto done;
    }
    PyErr_Format(PyExc_ImportError, "cannot import name %R from %R (unknown location)", name,
                 pkgname != NULL ? pkgname : Py_None);
done:
    Py_XDECREF(pkgname);
    Py_XDECREF(fullname);
    return x;
}

/* IMPORT_STAR (ceval's import_all_from): the names of __all__, or the public names of
 * the module's __dict__, stored into locals. */
int tr_op_import_star(PyObject *locals, PyObject *v)
{
    PyObject *all = NULL, *dict = NULL;
    int skip_private = 0, rc = -1;
    if (lookup_attr_str(v, "__all__", &all) < 0)
        return -1;
    if (all == NULL) {
        if (lookup_attr_str(v, "__dict__", &dict) < 0)
            return -1;
        if (dict == NULL) {
            PyErr_SetString(PyExc_ImportError, "from-import-* object has no __dict__ and no __all__");
            return -1;
        }
        all = PyMapping_Keys(dict);
        Py_DECREF(dict);
        if (all == NULL)
            return -1;
        skip_private = 1;
    }
    for (Py_ssize_t pos = 0;; pos++) {
        PyObject *name = PySequence_GetItem(all, pos);
        if (name == NULL) {
            if (PyErr_ExceptionMatches(PyExc_IndexError)) {
                PyErr_Clear();
                rc = 0;
            }
            break;
        }
        if (!PyUnicode_Check(name)) {
            PyObject *modname = NULL;
            if (lookup_attr_str(v, "__name__", &modname) >= 0 && modname != NULL &&
                PyUnicode_Check(modname))
                PyErr_Format(PyExc_TypeError, "%s in %U.%s must be str, not %.100s",
                             skip_private ? "Key" : "Item", modname,
                             skip_private ? "__dict__" : "__all__", Py_TYPE(name)->tp_name);
            else if (!PyErr_Occurred())
                PyErr_Format(PyExc_TypeError, "module __name__ must be a string, not %.100s",
                             Py_TYPE(name)->tp_name);
            Py_XDECREF(modname);
            Py_DECREF(name);
            break;
        }
        if (skip_private && PyUnicode_READ_CHAR(name, 0) == '_') {
            Py_DECREF(name);
            continue;
        }
        PyObject *value = PyObject_GetAttr(v, name);
        int err = value == NULL ? -1 : PyObject_SetItem(locals, name, value);
        Py_XDECREF(value);
        Py_DECREF(name);
        if (err < 0)
            break;
    }
    Py_DECREF(all);
    return rc;
}

/* DICT_MERGE / CALL_FUNCTION_EX: the messages of ceval's format_kwargs_error. */
int tr_op_dict_merge_error(PyObject *func, PyObject *arg)
{
    if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear();
        PyObject *fs = _PyObject_FunctionStr(func);
        if (fs != NULL) {
            PyErr_Format(PyExc_TypeError, "%U argument after ** must be a mapping, not %.200s",
                         fs, Py_TYPE(arg)->tp_name);
            Py_DECREF(fs);
        }
    }
    else if (PyErr_ExceptionMatches(PyExc_KeyError)) {
        PyObject *type, *val, *tb;
        PyErr_Fetch(&type, &val, &tb);
        PyErr_NormalizeException(&type, &val, &tb);
        PyObject *args = val != NULL ? PyObject_GetAttrString(val, "args") : NULL;
        if (args != NULL && PyTuple_Check(args) && PyTuple_GET_SIZE(args) == 1) {
            PyObject *key = PyTuple_GET_ITEM(args, 0);
            if (!PyUnicode_Check(key)) {
                PyErr_Format(PyExc_TypeError, "keywords must be strings");
            }
            else {
                PyObject *fs = _PyObject_FunctionStr(func);
                if (fs != NULL) {
                    PyErr_Format(PyExc_TypeError, "%U got multiple values for keyword argument '%S'",
                                 fs, key);
                    Py_DECREF(fs);
                }
            }
            Py_XDECREF(type);
            Py_XDECREF(val);
            Py_XDECREF(tb);
        }
        else {
            PyErr_Restore(type, val, tb);
        }
        Py_XDECREF(args);
    }
    return -1;
}

/* _PyObject_LookupSpecial: the attribute on the type, bound to obj by its __get__ (C
 * binding of functions). New reference, or NULL with or without an exception. */
PyObject *tr_op_lookup_special(PyObject *obj, const char *name)
{
    PyObject *n = PyUnicode_InternFromString(name);
    if (n == NULL)
        return NULL;
    PyObject *res = _PyType_Lookup(Py_TYPE(obj), n);
    Py_DECREF(n);
    if (res == NULL)
        return NULL;
    descrgetfunc get = Py_TYPE(res)->tp_descr_get;
    if (get != NULL)
        return get(res, obj, (PyObject *)Py_TYPE(obj));
    return Py_NewRef(res);
}

PyObject *tr_op_special_function(PyObject *obj, const char *name)
{
    if (!(Py_TYPE(obj)->tp_flags & Py_TPFLAGS_HEAPTYPE))
        return NULL;
    PyObject *n = PyUnicode_InternFromString(name);
    if (n == NULL)
        return NULL;
    PyObject *res = _PyType_Lookup(Py_TYPE(obj), n);   /* borrowed */
    Py_DECREF(n);
    if (res == NULL || !PyFunction_Check(res))
        return NULL;
    return Py_NewRef(res);
}
