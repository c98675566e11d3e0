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
    /* _PyLineTable_InitAddressRange's starting state: before the first range */
    PyCodeAddressRange *r = &c->range;
    r->opaque.lo_next = (const uint8_t *)PyBytes_AS_STRING(co->co_linetable);
    r->opaque.limit = r->opaque.lo_next + PyBytes_GET_SIZE(co->co_linetable);
    r->opaque.computed_line = co->co_firstlineno;
    r->ar_start = -1;
    r->ar_end = 0;
    r->ar_line = -1;
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

int tr_code_line(PyCodeObject *co, int lasti)
{
    int addr = lasti * (int)sizeof(_Py_CODEUNIT);
    if (addr < 0)
        return co->co_firstlineno;
    PyObject *et, *ev, *etb;   /* callers may be unwinding: keep their exception */
    PyErr_Fetch(&et, &ev, &etb);
    PyCodeAddressRange *c = cursor_of(co);
    PyErr_Restore(et, ev, etb);
    if (c == NULL)
        return PyCode_Addr2Line(co, addr);
    return _PyCode_CheckLineNumber(addr, c);
}
