/* tr_lines.h: line arrays for code that will raise many times (tr_lines.c).
 *
 * Every exception raised through a Python frame adds a traceback entry whose line
 * CPython 3.11 computes then (PyTraceBack_Here -> PyCode_Addr2Line) by walking the
 * code's line table from its start: ~11,500 instructions an entry on the fuzz
 * loop's programs, and the tracer's own traceback entries (tr_code_line) another
 * ~6,000; together 5% of a loop exec with a grown corpus (callgrind). Both answer
 * from the code object's line array (`_co_linearray`: an int16 or int32 line per
 * code unit) when it has one, which CPython builds only when tracing
 * (`_PyCode_CreateLineArray`, not exported). The harness's code cache gives its
 * pieces' functions one when it stores them: they run for many inputs. */
#ifndef TR_LINES_H
#define TR_LINES_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* Gives each function code object in code (borrowed: a code object; its nested code
 * constants too) a line array holding the walk's line for every code unit, when it
 * has none. Module and class body code is left alone: it runs once per run and
 * seldom raises. An allocation failure leaves that code without one (it only saves
 * time); no exception is left set. Returns how many arrays were made. */
int tr_lines_fill(PyObject *code);

/* The line of code unit `unit` of co by the line-table walk, which is what
 * PyCode_Addr2Line answers without an array (for tests). */
int tr_lines_walk(PyCodeObject *co, int unit);

#endif
