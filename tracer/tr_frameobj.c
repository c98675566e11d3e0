/* tr_frameobj.c: what sys._getframe() returns inside traced code.
 *
 * Interpreted frames are not CPython frames, so sys._getframe() would see the native
 * caller of the jit. The lookaside returns instead a frame-like object (type named
 * `frame`) for each interpreted frame: f_code, f_globals, f_builtins, f_locals (the
 * frame's own locals() dict, refreshed as CPython's f_locals is), f_lineno and f_lasti
 * (live while the frame runs, then where it ended), and f_back, which chains through the interpreted callers and then continues with
 * the native frame that called into the tracer. That is what library code reads
 * (collections.namedtuple and enum take f_globals['__name__'], inspect.currentframe,
 * traceback.extract_stack walk f_back). isinstance(f, types.FrameType) is false.
 */
#include "tr_frame.h"
#include <frameobject.h>
#include <structmember.h>

typedef struct {
    PyObject_HEAD
    PyObject *code, *globals, *builtins, *locals, *back;   /* strong; back may be None */
    TrFrame *live;          /* the interpreted frame while it exists, else NULL */
    int lineno, lasti;      /* where it was when it ended (valid once live is NULL) */
} TrFrameObj;

TR_NO_COVERAGE static int fo_traverse(PyObject *self, visitproc visit, void *arg)
{
    TrFrameObj *fo = (TrFrameObj *)self;
    Py_VISIT(fo->code);
    Py_VISIT(fo->globals);
    Py_VISIT(fo->builtins);
    Py_VISIT(fo->locals);
    Py_VISIT(fo->back);
    return 0;
}

TR_NO_COVERAGE static int fo_clear(PyObject *self)
{
    TrFrameObj *fo = (TrFrameObj *)self;
    Py_CLEAR(fo->code);
    Py_CLEAR(fo->globals);
    Py_CLEAR(fo->builtins);
    Py_CLEAR(fo->locals);
    Py_CLEAR(fo->back);
    return 0;
}

static void fo_dealloc(PyObject *self)
{
    TrFrameObj *fo = (TrFrameObj *)self;
    if (fo->live != NULL)
        fo->live->frameobj = NULL;
    PyObject_GC_UnTrack(self);
    fo_clear(self);
    PyObject_GC_Del(self);
}

/* New reference. */
static PyObject *fo_repr(PyObject *self)
{
    TrFrameObj *fo = (TrFrameObj *)self;
    PyCodeObject *co = (PyCodeObject *)fo->code;
    int line = fo->live != NULL
                   ? tr_code_line(fo->live->code, fo->live->lasti)
                   : fo->lineno;
    return PyUnicode_FromFormat("<frame at %p, file %R, line %d, code %U>", self,
                                co->co_filename, line, co->co_name);
}

/* frame.clear(): nothing to release early (the object holds a snapshot). */
static PyObject *fo_clear_method(PyObject *self, PyObject *unused)
{
    Py_RETURN_NONE;
}

static PyObject *fo_get_trace(PyObject *self, void *unused)
{
    Py_RETURN_NONE;
}

/* f_lineno, f_lasti and f_locals are live while the frame runs, as CPython's are. */
static PyObject *fo_get_lasti(PyObject *self, void *unused)
{
    TrFrameObj *fo = (TrFrameObj *)self;
    return PyLong_FromLong(fo->live != NULL ? fo->live->lasti * (int)sizeof(_Py_CODEUNIT)
                                            : fo->lasti);
}

static PyObject *fo_get_lineno(PyObject *self, void *unused)
{
    TrFrameObj *fo = (TrFrameObj *)self;
    if (fo->live == NULL)
        return PyLong_FromLong(fo->lineno);
    return PyLong_FromLong(
        tr_code_line(fo->live->code, fo->live->lasti));
}

static PyObject *fo_get_locals(PyObject *self, void *unused)
{
    TrFrameObj *fo = (TrFrameObj *)self;
    if (fo->live == NULL)
        return Py_NewRef(fo->locals);
    PyObject *d = tr_frame_locals_dict(fo->live);
    if (d != NULL)
        Py_SETREF(fo->locals, Py_NewRef(d));
    return d;
}

void tr_frameobj_detach(TrFrame *f)
{
    TrFrameObj *fo = (TrFrameObj *)f->frameobj;
    if (fo == NULL)
        return;
    fo->lasti = f->lasti * (int)sizeof(_Py_CODEUNIT);
    fo->lineno = tr_code_line(f->code, f->lasti);
    fo->live = NULL;
    f->frameobj = NULL;
}

static PyMemberDef fo_members[] = {
    {"f_code", T_OBJECT, offsetof(TrFrameObj, code), READONLY},
    {"f_globals", T_OBJECT, offsetof(TrFrameObj, globals), READONLY},
    {"f_builtins", T_OBJECT, offsetof(TrFrameObj, builtins), READONLY},
    {"f_back", T_OBJECT, offsetof(TrFrameObj, back), READONLY},
    {NULL},
};

static PyGetSetDef fo_getset[] = {
    {"f_trace", fo_get_trace, NULL, NULL},
    {"f_lineno", fo_get_lineno, NULL, NULL},
    {"f_lasti", fo_get_lasti, NULL, NULL},
    {"f_locals", fo_get_locals, NULL, NULL},
    {NULL},
};

static PyMethodDef fo_methods[] = {
    {"clear", fo_clear_method, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject TrFrameObj_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "frame",
    .tp_basicsize = sizeof(TrFrameObj),
    .tp_dealloc = fo_dealloc,
    .tp_repr = fo_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "An interpreted frame as sys._getframe() shows it in traced code.",
    .tp_traverse = fo_traverse,
    .tp_clear = fo_clear,
    .tp_members = fo_members,
    .tp_getset = fo_getset,
    .tp_methods = fo_methods,
};

int tr_frameobj_ready(void)
{
    return PyType_Ready(&TrFrameObj_Type);
}

/* The frame-like object for f (the same one for as long as f exists, as CPython's
 * frame objects are), with the given f_back (stolen). New ref or NULL. */
static PyObject *make_one(TrFrame *f, PyObject *back)
{
    if (f->frameobj != NULL) {
        Py_DECREF(back);
        return Py_NewRef(f->frameobj);
    }
    PyObject *locals = tr_frame_locals_dict(f);
    if (locals == NULL) {
        Py_DECREF(back);
        return NULL;
    }
    TrFrameObj *fo = PyObject_GC_New(TrFrameObj, &TrFrameObj_Type);
    if (fo == NULL) {
        Py_DECREF(locals);
        Py_DECREF(back);
        return NULL;
    }
    fo->code = Py_NewRef(f->code);
    fo->globals = Py_NewRef(f->globals);
    fo->builtins = Py_NewRef(f->builtins);
    fo->locals = locals;
    fo->back = back;
    fo->live = f;
    fo->lasti = f->lasti * (int)sizeof(_Py_CODEUNIT);
    fo->lineno = tr_code_line(f->code, f->lasti);
    f->frameobj = (PyObject *)fo;
    PyObject_GC_Track(fo);
    return (PyObject *)fo;
}

/* Builds the chain from f outwards: f_back of the outermost interpreted frame is the
 * innermost native frame (the caller of the tracer), or None. A frame that already
 * has its object reuses it (and the f_back it was made with). */
static PyObject *make_chain(TrFrame *f)
{
    if (f != NULL && f->frameobj != NULL)
        return Py_NewRef(f->frameobj);
    if (f == NULL) {
        PyFrameObject *nf = PyEval_GetFrame();   /* borrowed */
        return Py_NewRef(nf != NULL ? (PyObject *)nf : Py_None);
    }
    PyObject *back = make_chain(f->prev);
    if (back == NULL)
        return NULL;
    return make_one(f, back);
}

PyObject *tr_frameobj_get(Py_ssize_t depth, PyObject *native_getframe)
{
    TrFrame *f = tr_eval_current_frame();
    Py_ssize_t interpreted = 0;
    while (f != NULL && interpreted < depth) {
        f = f->prev;
        interpreted++;
    }
    if (f == NULL) {
        /* Past the interpreted frames: the native ones, counted from the caller. */
        PyObject *d = PyLong_FromSsize_t(depth - interpreted);
        if (d == NULL)
            return NULL;
        PyObject *r = PyObject_CallOneArg(native_getframe, d);
        Py_DECREF(d);
        return r;
    }
    return make_chain(f);
}
