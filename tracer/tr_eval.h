/* tr_eval.h: the interpreter (tr_eval.c) and calls (tr_call.c). */
#ifndef TR_EVAL_H
#define TR_EVAL_H

#include "tr_run.h"

/* Calls any callable with tracked arguments; the one entry point for every call the
 * tracer makes, from CALL opcodes and from the attribute protocol (getters,
 * __get__, __getattr__, __set__ ...). Python functions (and bound methods of them)
 * are interpreted, so provenance flows through; C callables are called and their
 * result gets a CALL provenance (and the attribute cache is told of the escape).
 * args[0..nargs) are positional then keyword values; kwnames (borrowed, may be NULL)
 * names the trailing keyword values, as in vectorcall. Borrows callable and args.
 * On success stores a new TrValue in *out and returns 0; on error returns -1 with an
 * exception set and leaves *out zeroed. */
int tr_call(TrRun *run, TrValue callable, const TrValue *args, Py_ssize_t nargs,
            PyObject *kwnames, TrValue *out);

#endif
