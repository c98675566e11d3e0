/* tr_lines.c: line numbers of interpreted instructions, without PyCode_Addr2Line's
 * walk from the start of the line table on every question.
 *
 * PyCode_Addr2Line decodes co_linetable from its beginning each time; an exception
 * unwinding through interpreted frames asks once per frame (the traceback entry's
 * tb_lineno), and loops ask at the same few places again and again. Each code object
 * gets one cursor over its table instead (a PyCodeAddressRange kept in the code's
 * co_extra slot, freed with the code), moved forward or back by
 * _PyCode_CheckLineNumber -- the way CPython 3.11's own line tracing keeps one
 * range per frame (ceval.c's trace_info.bounds) -- so a repeated question costs
 * nothing and a new one only the distance from the last. The answers are
 * PyCode_Addr2Line's: same table, same walker. */
#include "tr_core.h"
#include "tr_lines.h"

#include <stdbool.h>
#include <stdint.h>

static Py_ssize_t extra_index = -2;   /* -2: not requested yet, -1: none available */

/* Cursors are also linked from here: code objects that outlive the interpreter's
 * co_extra bookkeeping at exit never call free_cursor, and their cursors must stay
 * reachable (LeakSanitizer) rather than lost. */
typedef struct TrLineCursor {
    PyCodeAddressRange range;
    struct TrLineCursor *prev, *next;
} TrLineCursor;

static TrLineCursor *cursors;

TR_NO_COVERAGE static void free_cursor(void *p)
{
    TrLineCursor *c = p;
    if (c == NULL)
        return;
    if (c->prev != NULL)
        c->prev->next = c->next;
    else
        cursors = c->next;
    if (c->next != NULL)
        c->next->prev = c->prev;
    PyMem_RawFree(c);
}

/* r at co's line table's start, before the first range (the state CPython's own
 * _PyLineTable_InitAddressRange, not exported, sets): _PyCode_CheckLineNumber moves
 * it from there to the range of any address. */
static void walk_begin(PyCodeObject *co, PyCodeAddressRange *r)
{
    r->opaque.lo_next = (const uint8_t *)PyBytes_AS_STRING(co->co_linetable);
    r->opaque.limit = r->opaque.lo_next + PyBytes_GET_SIZE(co->co_linetable);
    r->opaque.computed_line = co->co_firstlineno;
    r->ar_start = -1;
    r->ar_end = 0;
    r->ar_line = -1;
}

/* The code's cursor, created at its table's start on first use; NULL when co_extra
 * is unavailable (no exception set). */
TR_NO_COVERAGE static PyCodeAddressRange *cursor_of(PyCodeObject *co)
{
    if (extra_index == -2) {
        extra_index = _PyEval_RequestCodeExtraIndex(free_cursor);
        if (extra_index < 0) {
            PyErr_Clear();
            extra_index = -1;
        }
    }
    if (extra_index < 0)
        return NULL;
    void *extra = NULL;
    if (_PyCode_GetExtra((PyObject *)co, extra_index, &extra) < 0) {
        PyErr_Clear();
        return NULL;
    }
    if (extra != NULL)
        return &((TrLineCursor *)extra)->range;
    TrLineCursor *c = PyMem_RawMalloc(sizeof *c);
    if (c == NULL)
        return NULL;
    PyCodeAddressRange *r = &c->range;
    walk_begin(co, r);
    if (_PyCode_SetExtra((PyObject *)co, extra_index, c) < 0) {
        PyErr_Clear();
        PyMem_RawFree(c);
        return NULL;
    }
    c->prev = NULL;
    c->next = cursors;
    if (cursors != NULL)
        cursors->prev = c;
    cursors = c;
    return r;
}

void tr_lines_init(void)
{
    extra_index = -2;   /* co_extra indices belong to an interpreter: ask this one */
}

/* Out of coverage: whether co has an array yet depends on the code cache's history. */
TR_NO_COVERAGE int tr_code_line(PyCodeObject *co, int lasti)
{
    int addr = lasti * (int)sizeof(_Py_CODEUNIT);
    if (addr < 0)
        return co->co_firstlineno;
    if (co->_co_linearray != NULL)   /* tr_lines_fill's, or CPython's own */
        return PyCode_Addr2Line(co, addr);
    PyObject *et, *ev, *etb;   /* callers may be unwinding: keep their exception */
    PyErr_Fetch(&et, &ev, &etb);
    PyCodeAddressRange *c = cursor_of(co);
    PyErr_Restore(et, ev, etb);
    if (c == NULL)
        return PyCode_Addr2Line(co, addr);
    return _PyCode_CheckLineNumber(addr, c);
}

TR_NO_COVERAGE int tr_lines_walk(PyCodeObject *co, int unit)
{
    PyCodeAddressRange r;
    walk_begin(co, &r);
    return _PyCode_CheckLineNumber(unit * (int)sizeof(_Py_CODEUNIT), &r);
}

/* co's array, int16 entries (the form CPython's own has when every line fits), or
 * int32 when one does not; 1 when made, 0 when it had one or memory ran out. */
TR_NO_COVERAGE static int fill_one(PyCodeObject *co)
{
    if (co->_co_linearray != NULL)
        return 0;
    Py_ssize_t n = Py_SIZE(co);   /* code units */
    if (n <= 0 || n > INT32_MAX / 2)
        return 0;
    for (int size = 2; size <= 4; size += 2) {
        char *a = PyMem_Malloc((size_t)n * (size_t)size);
        if (a == NULL)
            return 0;
        /* One pass over the ranges: each call moves the walk forward to the range
         * holding the address and returns its line (-1: code without one). */
        PyCodeAddressRange r;
        walk_begin(co, &r);
        bool fits = true;
        for (Py_ssize_t i = 0; i < n;) {
            int line = _PyCode_CheckLineNumber((int)(i * (Py_ssize_t)sizeof(_Py_CODEUNIT)), &r);
            Py_ssize_t end = r.ar_end / (int)sizeof(_Py_CODEUNIT);
            if (end <= i)   /* never: a range holds the address asked */
                end = i + 1;
            if (size == 2 && line >= (1 << 15)) {
                fits = false;
                break;
            }
            for (; i < end && i < n; i++) {
                if (size == 2)
                    ((int16_t *)a)[i] = (int16_t)line;
                else
                    ((int32_t *)a)[i] = line;
            }
        }
        if (!fits) {
            PyMem_Free(a);
            continue;
        }
        co->_co_linearray = a;   /* freed by code_dealloc with PyMem_Free */
        co->_co_linearray_entry_size = (short)size;
        return 1;
    }
    return 0;
}

/* Out of coverage: it runs when the harness's code cache stores a piece. */
TR_NO_COVERAGE int tr_lines_fill(PyObject *code)
{
    if (code == NULL || !PyCode_Check(code))
        return 0;
    PyCodeObject *co = (PyCodeObject *)code;
    int made = 0;
    if ((co->co_flags & (CO_OPTIMIZED | CO_NEWLOCALS)) == (CO_OPTIMIZED | CO_NEWLOCALS))
        made += fill_one(co);
    PyObject *consts = co->co_consts;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(consts); i++)
        if (PyCode_Check(PyTuple_GET_ITEM(consts, i)))
            made += tr_lines_fill(PyTuple_GET_ITEM(consts, i));
    return made;
}
