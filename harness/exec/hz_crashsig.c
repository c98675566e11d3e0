/* hz_crashsig.c: the crash state of a target's exception (hz_crashsig.h). */
#include "hz_crashsig.h"
#include "hz_protocol.h"
#include "or_shape.h"

#include <frameobject.h>
#include <stdio.h>
#include <string.h>

#define CHAIN_MAX 32   /* links followed at most (a cycle or an absurd chain) */

PyObject *
hz_crash_innermost(PyObject *exc)
{
    PyObject *seen[CHAIN_MAX];
    int n = 0;
    PyObject *cur = exc;
    while (n < CHAIN_MAX && PyExceptionInstance_Check(cur)) {
        seen[n++] = cur;
        PyBaseExceptionObject *b = (PyBaseExceptionObject *)cur;
        /* Borrowed from the struct: no Python code runs, nothing can drop them. */
        PyObject *next = b->cause;
        if (next == NULL || next == Py_None) {
            next = b->suppress_context ? NULL : b->context;
        }
        if (next == NULL || next == Py_None || !PyExceptionInstance_Check(next)) {
            break;
        }
        for (int i = 0; i < n; i++) {
            if (seen[i] == next) {   /* a cycle: the last new link is innermost */
                return cur;
            }
        }
        cur = next;
    }
    return cur;
}

/* The last dotted component of a type's name ("tfjit.ProvenanceError"). */
static const char *
short_type_name(PyObject *exc)
{
    const char *n = Py_TYPE(exc)->tp_name;
    const char *dot = strrchr(n, '.');
    return dot ? dot + 1 : n;
}

/* Whether [s, s+n) is a name the program defines: a global of its namespace, or
 * an entry of a class's own dict there (attributes, methods). Dict lookups only:
 * no Python code runs. */
static int
program_name(void *ctx, const char *s, size_t n)
{
    PyObject *ns = ctx;
    if (ns == NULL || !PyDict_Check(ns) || n == 0 || n > 64) {
        return 0;
    }
    PyObject *key = PyUnicode_FromStringAndSize(s, (Py_ssize_t)n);   /* new */
    if (key == NULL) {
        PyErr_Clear();
        return 0;
    }
    int found = PyDict_GetItemWithError(ns, key) != NULL;
    Py_ssize_t pos = 0;
    PyObject *k, *v;   /* borrowed */
    while (!found && PyDict_Next(ns, &pos, &k, &v)) {
        PyObject *d = PyType_Check(v) ? ((PyTypeObject *)v)->tp_dict : NULL;   /* borrowed */
        found = d != NULL && PyDict_GetItemWithError(d, key) != NULL;
    }
    PyErr_Clear();
    Py_DECREF(key);
    return found;
}

/* The standard library's directory with a final '/', once ("" when unknown). */
static const char *
stdlib_dir(void)
{
    static char dir[512];
    static int done;
    if (done) {
        return dir;
    }
    done = 1;
    PyObject *st, *sv, *stb;
    PyErr_Fetch(&st, &sv, &stb);
    PyObject *mod = PyImport_ImportModule("sysconfig");                        /* new */
    PyObject *path = mod ? PyObject_CallMethod(mod, "get_path", "s", "stdlib") : NULL; /* new */
    const char *u = path && PyUnicode_Check(path) ? PyUnicode_AsUTF8(path) : NULL;
    if (u != NULL && strlen(u) + 2 < sizeof dir) {
        snprintf(dir, sizeof dir, "%s/", u);
    }
    Py_XDECREF(path);
    Py_XDECREF(mod);
    PyErr_Clear();
    PyErr_Restore(st, sv, stb);
    return dir;
}

/* Whether a frame's file is the target's own code. */
static int
target_file(const char *fn, const char *program_file)
{
    const char *std = stdlib_dir();
    if (fn == NULL || strcmp(fn, program_file) == 0 || strncmp(fn, "<frozen ", 8) == 0
        || strcmp(fn, HZ_DRIVER_FILENAME) == 0) {   /* tracefuzz's caller frames */
        return 0;
    }
    return std[0] == '\0' || strncmp(fn, std, strlen(std)) != 0
           || strstr(fn + strlen(std), "site-packages/") != NULL
           || strstr(fn + strlen(std), "dist-packages/") != NULL;
}

/* Appends ",file.py:qualname" frames of tb's innermost target frames to out, at
 * most `want`; returns how many were added. */
static int
add_frames(PyObject *exc, const char *program_file, char *out, size_t cap, int want)
{
    PyObject *tb = PyException_GetTraceback(exc);   /* new */
    if (tb == NULL || !PyTraceBack_Check(tb)) {
        Py_XDECREF(tb);
        return 0;
    }
    /* Frames come outermost first: keep the innermost 256 (a ring), then walk
     * back from the innermost. */
    PyFrameObject *frames[256];
    size_t n = 0;
    for (PyTracebackObject *t = (PyTracebackObject *)tb; t != NULL; t = t->tb_next) {
        frames[n++ % 256] = t->tb_frame;   /* borrowed from tb, which we hold */
    }
    int added = 0;
    char first[128] = "";   /* the first frame's file */
    for (size_t i = n; i > 0 && n - i < 256 && added < want; i--) {
        PyCodeObject *code = PyFrame_GetCode(frames[(i - 1) % 256]);   /* new */
        const char *fn = PyUnicode_AsUTF8(code->co_filename);
        if (fn == NULL) {
            PyErr_Clear();
        }
        else if (target_file(fn, program_file)) {
            const char *base = strrchr(fn, '/');
            base = base ? base + 1 : fn;
            const char *qn = PyUnicode_AsUTF8(code->co_qualname);
            if (qn == NULL) {
                PyErr_Clear();
                qn = "?";
            }
            size_t o = strlen(out);
            if (added && strcmp(base, first) == 0) {   /* same file: "f.py:a,b" */
                snprintf(out + o, cap - o, ",");
            }
            else {
                snprintf(out + o, cap - o, "%s%s:", added ? "," : "@", base);
                snprintf(first, sizeof first, "%s", base);
            }
            /* "f.<locals>.g" -> "f.g": shorter, as distinctive. */
            for (const char *q = qn; *q && (o = strlen(out)) + 2 < cap; q++) {
                if (strncmp(q, "<locals>.", 9) == 0) {
                    q += 8;
                    continue;
                }
                out[o] = *q == ' ' ? '_' : *q;
                out[o + 1] = '\0';
            }
            added++;
        }
        Py_DECREF(code);
    }
    Py_DECREF(tb);
    return added;
}

/* Whether str(exc) runs only C code: its type's tp_str is the one of its first
 * built-in base (a class statement defining __str__ replaces it). Observations
 * must not see code the harness ran for a signature. */
static int
str_is_builtin(PyObject *exc)
{
    PyTypeObject *t = Py_TYPE(exc);
    PyObject *mro = t->tp_mro;   /* borrowed */
    if (mro == NULL || !PyTuple_Check(mro)) {
        return 0;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(mro); i++) {
        PyTypeObject *b = (PyTypeObject *)PyTuple_GET_ITEM(mro, i);
        if (!(b->tp_flags & Py_TPFLAGS_HEAPTYPE)) {
            return b->tp_str == t->tp_str;
        }
    }
    return 0;
}

void
hz_crash_state(PyObject *exc, const char *program_file, PyObject *ns, char *state, char *msg)
{
    PyObject *inner = hz_crash_innermost(exc);   /* borrowed */
    const char *outer_name = short_type_name(exc), *inner_name = short_type_name(inner);
    if (inner == exc || strcmp(outer_name, inner_name) == 0) {
        snprintf(state, HZ_CRASH_STATE_MAX, "%s", inner_name);
    }
    else {
        snprintf(state, HZ_CRASH_STATE_MAX, "%s<-%s", outer_name, inner_name);
    }
    if (add_frames(inner, program_file, state, HZ_CRASH_STATE_MAX, 2) == 0 && inner != exc) {
        add_frames(exc, program_file, state, HZ_CRASH_STATE_MAX, 2);
    }
    /* The message: str(inner) runs Python; keep any pending error aside. */
    PyObject *st, *sv, *stb;
    PyErr_Fetch(&st, &sv, &stb);
    Py_INCREF(inner);
    PyObject *s = NULL;
    if (str_is_builtin(inner)) {
        s = PyObject_Str(inner);   /* new */
    }
    else if (PyExceptionInstance_Check(inner)) {   /* a __str__ of the program's: its first str argument */
        PyObject *args = ((PyBaseExceptionObject *)inner)->args;   /* borrowed */
        if (args != NULL && PyTuple_Check(args) && PyTuple_GET_SIZE(args) > 0
            && PyUnicode_Check(PyTuple_GET_ITEM(args, 0))) {
            s = Py_NewRef(PyTuple_GET_ITEM(args, 0));
        }
    }
    const char *u = s ? PyUnicode_AsUTF8(s) : NULL;
    if (u == NULL) {
        PyErr_Clear();
    }
    or_message_norm(u ? u : "", program_name, ns, msg, HZ_CRASH_MSG_MAX);
    Py_XDECREF(s);
    Py_DECREF(inner);
    PyErr_Restore(st, sv, stb);
}
