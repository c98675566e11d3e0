/* tr_trace.c: the trace of one run (TrTrace): the operations recorded by the
 * interpreter and the attribute protocol, one printable line each, such as
 *     7 LOAD_ATTR test -> object INPUT[0].test via property.fget
 * Lines hold text only, never the traced objects (a trace must not keep the traced
 * world alive, and jit keeps only the text of the last call for last_trace()). */
#include <stdarg.h>
#include "tr_core.h"

/* A runaway loop would record millions of lines: beyond this many only a count is
 * kept, and the text ends with "... N more operations". */
#define TR_TRACE_MAX_LINES 20000

struct TrTrace {
    PyObject *lines;      /* list of str, owned */
    uint64_t serial;      /* operations recorded, including dropped ones */
};

TrTrace *tr_trace_new(void)
{
    TrTrace *t = PyMem_RawCalloc(1, sizeof *t);
    if (t == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    t->lines = PyList_New(0);
    if (t->lines == NULL) {
        PyMem_RawFree(t);
        return NULL;
    }
    return t;
}

void tr_trace_free(TrTrace *trace)
{
    if (trace == NULL)
        return;
    Py_XDECREF(trace->lines);
    PyMem_RawFree(trace);
}

/* Appends "serial what -> type provenance"; what is a str (borrowed). */
static int record_line(TrRun *run, PyObject *what, const TrValue *result)
{
    TrTrace *t = run->trace;
    if (t == NULL)
        return 0;
    t->serial++;
    if (result != NULL && result->prov != NULL && result->prov->serial == 0)
        result->prov->serial = t->serial;
    if (PyList_GET_SIZE(t->lines) >= TR_TRACE_MAX_LINES)
        return 0;
    PyObject *line;
    if (result == NULL || result->obj == NULL) {
        line = PyUnicode_FromFormat("%llu %U", (unsigned long long)t->serial, what);
    }
    else {
        PyObject *prov = tr_prov_repr(result->prov);
        if (prov == NULL)
            return -1;
        line = PyUnicode_FromFormat("%llu %U -> %s %U", (unsigned long long)t->serial, what,
                                    Py_TYPE(result->obj)->tp_name, prov);
        Py_DECREF(prov);
    }
    if (line == NULL)
        return -1;
    int rc = PyList_Append(t->lines, line);
    Py_DECREF(line);
    return rc;
}

/* Past the line cap only the serial advances: no text is built (a long loop would
 * spend its time formatting lines nobody keeps). Returns 1 when that happened. */
static int count_only(TrRun *run, const TrValue *result)
{
    TrTrace *t = run->trace;
    if (PyList_GET_SIZE(t->lines) < TR_TRACE_MAX_LINES)
        return 0;
    t->serial++;
    if (result != NULL && result->prov != NULL && result->prov->serial == 0)
        result->prov->serial = t->serial;
    return 1;
}

int tr_trace_record(TrRun *run, const char *what, const TrValue *result)
{
    if (run->trace == NULL || count_only(run, result))
        return 0;
    PyObject *w = PyUnicode_FromString(what);
    if (w == NULL)
        return -1;
    int rc = record_line(run, w, result);
    Py_DECREF(w);
    return rc;
}

int tr_trace_recordf(TrRun *run, const TrValue *result, const char *fmt, ...)
{
    if (run->trace == NULL || count_only(run, result))
        return 0;
    va_list va;
    va_start(va, fmt);
    PyObject *w = PyUnicode_FromFormatV(fmt, va);
    va_end(va);
    if (w == NULL)
        return -1;
    int rc = record_line(run, w, result);
    Py_DECREF(w);
    return rc;
}

/* Returns a new str reference: the lines joined by newlines (final newline
 * included when there is any line), or NULL with an exception set. */
PyObject *tr_trace_text(const TrTrace *trace)
{
    if (trace == NULL)
        return PyUnicode_FromString("");
    Py_ssize_t n = PyList_GET_SIZE(trace->lines);
    PyObject *sep = PyUnicode_FromString("\n");
    if (sep == NULL)
        return NULL;
    PyObject *body = PyUnicode_Join(sep, trace->lines);
    Py_DECREF(sep);
    if (body == NULL)
        return NULL;
    PyObject *res;
    if ((uint64_t)n < trace->serial)
        res = PyUnicode_FromFormat("%U\n... %llu more operations\n", body,
                                   (unsigned long long)(trace->serial - (uint64_t)n));
    else if (n > 0)
        res = PyUnicode_FromFormat("%U\n", body);
    else
        res = Py_NewRef(body);
    Py_DECREF(body);
    return res;
}
