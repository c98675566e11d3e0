/* tr_frame.h: an interpreted frame and the declarations shared by the core's files
 * (tr_eval.c, tr_exc.c, tr_ops.c, tr_call.c, tr_lookaside.c, tr_gen.c, tr_module.c).
 *
 * Mirrors CPython 3.11's _PyInterpreterFrame: the code, the function, globals and
 * builtins, the optional locals mapping (class bodies), localsplus (arguments, locals,
 * cells and free variables in co_localsplusnames order) and the value stack, every
 * slot a TrValue. Function frames live on the C stack of tr_eval_code, generator
 * frames in their generator object; running frames are linked (prev) so that
 * zero-argument super(), locals() and warnings.warn can find them.
 */
#ifndef TR_FRAME_H
#define TR_FRAME_H

#include "tr_core.h"

/* co_localspluskinds bits (CPython's internal CO_FAST_*; same values in 3.11). */
#define TR_FAST_LOCAL 0x20
#define TR_FAST_CELL  0x40
#define TR_FAST_FREE  0x80

struct TrFrame {
    TrFrame *prev;
    PyCodeObject *code;          /* strong */
    PyObject *func;              /* strong or NULL (class bodies run without one) */
    PyObject *globals;           /* strong */
    PyObject *builtins;          /* strong */
    PyObject *locals;            /* strong or NULL: the mapping of LOAD_NAME / STORE_NAME */
    PyObject *codebytes;         /* strong: PyCode_GetCode, the original (unquickened) bytecode */
    PyObject *fast_locals_dict;  /* strong or NULL: what locals() returns (CPython's f_locals) */
    PyObject *frameobj;          /* borrowed or NULL: its sys._getframe() object (tr_frameobj.c) */
    TrProv **constprov;          /* owned or NULL: CONST[i] records, made once per frame */
    Py_ssize_t nconstprov;
    const unsigned char *instr;  /* bytes of codebytes: opcode, oparg pairs */
    int ninstr;                  /* code units */
    int lasti;                   /* code unit of the instruction executing */
    int next;                    /* code unit to resume at (generators) */
    PyObject *kwnames;           /* borrowed from co_consts: pending KW_NAMES */
    int nlocalsplus;
    TrValue *localsplus;         /* owned array */
    TrValue *stack;              /* array of co_stacksize: owned, or the caller's buffer */
    int stack_borrowed;          /* stack is the buffer tr_frame_init_buf was given */
    int sp;
    int stacksize;
};

/* tr_eval.c: a frame's life, split for generators (tr_gen.c), whose frames outlive
 * the call that made them. tr_frame_init takes new references and the localsplus
 * values (not the array); tr_frame_clear releases them (the frame may be reused or
 * freed after). tr_frame_run returns 0 (returned), 1 (yielded) or -1. */
int tr_frame_init(TrFrame *f, PyCodeObject *co, PyObject *func, PyObject *globals,
                  PyObject *builtins, PyObject *locals, TrValue *localsplus);
/* The same with a value stack in buf (nbuf values, outliving the frame) when it fits:
 * a function frame on the C stack needs no allocation for it. */
int tr_frame_init_buf(TrFrame *f, PyCodeObject *co, PyObject *func, PyObject *globals,
                      PyObject *builtins, PyObject *locals, TrValue *localsplus,
                      TrValue *buf, int nbuf);
void tr_frame_clear(TrFrame *f);
int tr_frame_run(TrRun *run, TrFrame *f, int throwing, TrValue *out);

/* tr_gen.c: generators whose bodies the tracer interprets. */
int tr_gen_check(PyObject *o);
/* Makes a generator for fn (a CO_GENERATOR function) over the bound localsplus array
 * (owned by the generator from now on, values and array). New TrValue in *out. */
int tr_gen_new(TrRun *run, PyFunctionObject *fn, TrValue *localsplus, TrValue *out);
int tr_gen_ready(void);
/* next(gen) from traced code (FOR_ITER): like tp_iternext, but the attribute cache is
 * kept; a resume from C code (sum(g), list(g)) first forgets it, since the C caller
 * may have run user code natively between two resumes. New ref, or NULL. */
PyObject *tr_gen_next_traced(PyObject *gen);

/* tr_lookaside.c */
/* 1 when callable is a modelled builtin (result in *out, status in *rc), 0 when not. */
int tr_lookaside(TrRun *run, TrValue callable, const TrValue *args, Py_ssize_t nargs,
                 PyObject *kwnames, TrValue *out, int *rc);
/* A C method of a dict that writes it: tell the attribute cache. */
void tr_call_note_dict_method(TrRun *run, PyObject *callable);
extern PyTypeObject *tr_partial_type;
/* The frame's locals() dict (refreshed from its locals, CPython's f_locals), or its
 * class-body mapping: new reference, NULL on error. */
PyObject *tr_frame_locals_dict(TrFrame *f);

/* tr_frameobj.c: sys._getframe(depth) in traced code; new reference or NULL. */
PyObject *tr_frameobj_get(Py_ssize_t depth, PyObject *native_getframe);
int tr_frameobj_ready(void);
/* The frame ends: its object (if any) keeps where it stopped and stops being live. */
void tr_frameobj_detach(TrFrame *f);

/* tr_module.c: the runs in progress, so a generator resumed after its run ended gets a
 * run of its own. */
uint64_t tr_run_serial(TrRun *run);          /* 0 when not registered */
TrRun *tr_run_find(TrRun *run, uint64_t serial);   /* run when still active, else NULL */
void tr_run_register(TrRun *run);
void tr_run_unregister(TrRun *run);
/* -1 with LimitExceeded when the C stack used since the outermost run began is over
 * budget (checked for every interpreted frame), else 0. */
int tr_stack_check(void);

/* tr_exc.c */
/* Looks up the 3.11 exception table for the instruction at index: 1 with the handler,
 * stack level and lasti flag, 0 when no handler covers it. */
int tr_exc_find_handler(PyCodeObject *co, int index, int *handler, int *level, int *lasti);
/* Enters the handler the exception table gave, as ceval's exception_unwind does:
 * pops f's stack down to level, pushes lasti when asked, then the current exception
 * (fetched, normalised, its traceback attached), which clears the error indicator.
 * Pushed values carry no provenance (the interpreter adds its own). 0, or -1 with
 * MemoryError set (lasti could not be boxed; the stack is already popped). */
int tr_exc_enter_handler(TrFrame *f, int level, int push_lasti);
/* Adds a traceback entry naming the frame's code (its filename, name and line) to the
 * exception being raised, as PyTraceBack_Here does for CPython's frames. */
void tr_exc_add_traceback(TrFrame *f);
/* RAISE_VARARGS: exc and cause borrowed (may be NULL). Returns 1 for a bare re-raise
 * (no traceback entry added), 0 otherwise; an exception is set either way. */
int tr_exc_do_raise(TrRun *run, PyObject *exc, PyObject *cause);
/* True for the tracer's own errors, which program handlers never catch. */
int tr_exc_is_internal(void);
/* CHECK_EG_MATCH's split: new references in *match and *rest; 0 or -1. */
int tr_exc_group_match(PyObject *exc_value, PyObject *match_type, PyObject **match,
                       PyObject **rest);
/* except*'s type check ("catching ExceptionGroup with except* is not allowed") */
int tr_exc_check_star_type(PyObject *right);
int tr_exc_check_type(PyObject *right);
/* PREP_RERAISE_STAR (_PyExc_PrepReraiseStar, not exported): the exception to re-raise
 * after the except* clauses, from the original and the list of raised ones; new ref. */
PyObject *tr_exc_prep_reraise_star(PyObject *orig, PyObject *excs);

/* tr_ops.c: the opcodes too long to inline. All borrow their operands. */
int tr_op_unpack(TrValue seq, int before, int after, TrValue *out);   /* out[0] = top */
PyObject *tr_op_match_keys(PyObject *map, PyObject *keys);           /* new ref or NULL */
int tr_op_match_class(TrRun *run, TrValue subject, PyObject *type, Py_ssize_t nargs,
                      PyObject *kwargs, PyObject **out);            /* 1 match, 0 no, -1 */
PyObject *tr_op_format(PyObject *value, int conversion, PyObject *spec); /* new ref */
PyObject *tr_op_import_name(TrFrame *f, PyObject *name, PyObject *fromlist,
                            PyObject *level);                        /* new ref */
int tr_op_import_star(PyObject *locals, PyObject *module);          /* 0 or -1 */
PyObject *tr_op_import_from(PyObject *module, PyObject *name);      /* new ref */
int tr_op_dict_merge_error(PyObject *func, PyObject *arg);          /* rewrites the error */
PyObject *tr_op_lookup_special(PyObject *obj, const char *name);     /* new ref, NULL: none */
/* The Python function a heap type defines (or inherits) for a special method, which
 * CPython's slot_* would call: new ref, NULL (no exception) when it is anything else. */
PyObject *tr_op_special_function(PyObject *obj, const char *name);

#endif
