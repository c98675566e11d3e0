/* tr_ops.h: the value-level semantics of the opcodes that both loops execute, the
 * tracing interpreter (tr_eval.c) and the replayer (tr_replay.c).
 *
 * One helper per opcode (or per family whose members differ only by a C-API call),
 * each mirroring its case in Python/ceval.c (v3.11) over plain PyObject*: the C-API
 * calls in ceval's order and its error messages. A loop keeps only its own
 * bookkeeping around the call: provenance and escape notes in tr_eval.c, recorded
 * steps, forwarding and side exits in tr_replay.c. So the two cannot drift apart.
 *
 * Conventions: operands are borrowed (stack values stay on the stack; the caller pops
 * and releases them); a PyObject* result is a new reference, NULL with an exception
 * set; an int result is 0 (or a count) and -1 with an exception set. Items of the
 * BUILD_* family are a slice of a TrValue stack, bottom first (items[0] is the
 * deepest); only their .obj is read.
 *
 * tr_ops.c holds the scalar, iteration, function, exception and name opcodes;
 * tr_ops_build.c the BUILD_* family and the container opcodes of displays and
 * comprehensions. The longer helpers (UNPACK_*, MATCH_*, IMPORT_*, FORMAT_VALUE) are
 * declared in tr_frame.h.
 */
#ifndef TR_OPS_H
#define TR_OPS_H

#include "tr_core.h"
#include "tr_frame.h"

/* ---- tr_ops.c: operands ---- */
/* Takes the top n values off f's stack without releasing them: returns the deepest
 * of them, whose release is the caller's (tr_op_pop, tr_op_pop_call, the replay's
 * provenance-free pops). A stack holding fewer is the tracer's own bug: abort, naming
 * `what` pops. Inline: the replay loop pops on every instruction. */
static inline TrValue *tr_op_take(TrFrame *f, int n, const char *what)
{
    if (n > f->sp) {
        fprintf(stderr, "tracefuzz: %s pops %d values from a stack of %d\n", what, n, f->sp);
        abort();
    }
    f->sp -= n;
    return &f->stack[f->sp];
}
/* Pops the top n values of f's stack and releases them deepest first: the order in
 * which ceval's cases release an instruction's operands (lhs before rhs, the item
 * before the container, the container before the key, the stored value first), on
 * success and before going to `error` alike. Finalizers observe this order. */
static inline void tr_op_pop(TrFrame *f, int n)
{
    TrValue *v = tr_op_take(f, n, "tr_op_pop");
    for (int i = 0; i < n; i++)
        tr_value_clear(&v[i]);
}
/* CALL's pops, [NULL callable args] or [meth self args] (oparg + 2 values): ceval
 * releases the function (callable or meth) first, then self and the arguments in
 * order. */
void tr_op_pop_call(TrFrame *f, int oparg);

/* ---- tr_ops.c: operators ---- */
/* UNARY_POSITIVE / UNARY_NEGATIVE / UNARY_INVERT / UNARY_NOT (op selects): new ref. */
PyObject *tr_op_unary(int op, PyObject *v);
/* BINARY_OP by oparg (NB_ADD ... NB_INPLACE_XOR); a bad oparg is a SystemError. */
PyObject *tr_op_binary(int oparg, PyObject *a, PyObject *b);
/* COMPARE_OP by oparg (Py_LT ... Py_GE); a bad oparg is a SystemError. */
PyObject *tr_op_compare(int oparg, PyObject *a, PyObject *b);
/* IS_OP: a new reference to True or False (cannot fail). invert: `is not`. */
PyObject *tr_op_is(PyObject *a, PyObject *b, int invert);
/* CONTAINS_OP: item in container (invert: not in); new ref to a bool or NULL. */
PyObject *tr_op_contains(PyObject *item, PyObject *container, int invert);
/* BINARY_SUBSCR, STORE_SUBSCR (container[key] = v), DELETE_SUBSCR. */
PyObject *tr_op_subscr(PyObject *container, PyObject *key);
int tr_op_store_subscr(PyObject *container, PyObject *key, PyObject *v);
int tr_op_delete_subscr(PyObject *container, PyObject *key);

/* ---- tr_ops.c: truth and iteration ---- */
/* POP_JUMP_{FORWARD,BACKWARD}_IF_{FALSE,TRUE,NONE,NOT_NONE}: 1 when the jump is
 * taken (*delta: the signed distance in code units from the next instruction),
 * 0 when not, -1 when the truth test raised. */
int tr_op_pop_jump(int op, int oparg, PyObject *cond, int *delta);
/* JUMP_IF_FALSE_OR_POP / JUMP_IF_TRUE_OR_POP: 1 jump (cond stays), 0 pop, -1. */
int tr_op_jump_or_pop(int op, PyObject *cond);
/* GET_ITER: iter(v); new ref. */
PyObject *tr_op_get_iter(PyObject *v);
/* FOR_ITER: the iterator's next value in *next (new ref) and 1; 0 when exhausted
 * (a StopIteration is cleared); -1 when it raised anything else. */
int tr_op_for_iter(PyObject *it, PyObject **next);
/* After an iterator's next returned NULL: 0 when it ended normally (clearing a
 * StopIteration), -1 when an exception other than StopIteration is set. */
int tr_op_iter_end(void);

/* ---- tr_ops.c: functions, exceptions, names ---- */
/* MAKE_FUNCTION: a function of code over globals with the optional parts (NULL when
 * the oparg bit is clear). New ref. */
PyObject *tr_op_make_function(PyObject *code, PyObject *globals, PyObject *defaults,
                              PyObject *kwdefaults, PyObject *annotations,
                              PyObject *closure);
/* MAKE_FUNCTION over f's value stack, ([defaults] [kwdefaults] [annotations]
 * [closure] code -- fn) as oparg's bits say: reads the operands without popping them
 * and sets *npop to how many the caller pops. New ref, or NULL with an exception. */
PyObject *tr_op_make_function_on_stack(const TrFrame *f, int oparg, int *npop);
/* CHECK_EXC_MATCH: isinstance-like match of the exception exc against type (a class
 * or tuple, checked first); new ref to a bool or NULL. */
PyObject *tr_op_check_exc_match(PyObject *exc, PyObject *type);
/* PUSH_EXC_INFO: exc becomes the handled exception; returns the previous one (new
 * ref, None when there was none). Cannot fail. */
PyObject *tr_op_push_exc_info(PyObject *exc);
/* POP_EXCEPT: prev (None for none) becomes the handled exception again. */
void tr_op_pop_except(PyObject *prev);
/* RERAISE: lasti (NULL when oparg is 0) is the saved instruction, stored into *f_lasti;
 * then exc is raised again with its own traceback. 0: exc is set (unwind without a
 * new traceback entry); -1: lasti was not an int (a SystemError is set instead). */
int tr_op_reraise(PyObject *exc, PyObject *lasti, int *f_lasti);
/* LOAD_GLOBAL (and LOAD_NAME's fallback): globals then builtins, as dicts when both
 * are exact dicts, else by subscription. New ref, *builtin telling where it was
 * found; NULL with NameError (its .name set, as format_exc_check_arg) when absent. */
PyObject *tr_op_load_global(PyObject *globals, PyObject *builtins, PyObject *name,
                            int *builtin);
/* NameError "name 'x' is not defined" with .name = name (format_exc_check_arg). */
void tr_op_name_error(PyObject *name);
/* LOAD_FAST / DELETE_FAST / LOAD_DEREF ... of an empty slot i: UnboundLocalError, or
 * NameError (with .name) for a free variable. Always returns -1. */
int tr_op_unbound_local(PyCodeObject *co, int i);

/* ---- tr_ops_build.c: displays and comprehensions ---- */
PyObject *tr_op_build_tuple(const TrValue *items, int n);
PyObject *tr_op_build_list(const TrValue *items, int n);
PyObject *tr_op_build_set(const TrValue *items, int n);
/* BUILD_MAP: items are n key, value pairs (2n values). */
PyObject *tr_op_build_map(const TrValue *items, int n);
/* BUILD_CONST_KEY_MAP: n values and the tuple of their keys (a SystemError when it
 * is not a tuple of n). */
PyObject *tr_op_build_const_key_map(const TrValue *values, PyObject *keys, int n);
PyObject *tr_op_build_string(const TrValue *items, int n);
/* BUILD_SLICE: step NULL for the two-operand form. */
PyObject *tr_op_build_slice(PyObject *start, PyObject *stop, PyObject *step);
PyObject *tr_op_list_to_tuple(PyObject *list);
int tr_op_list_append(PyObject *list, PyObject *v);
/* LIST_EXTEND: "Value after * must be an iterable" for a non-iterable. */
int tr_op_list_extend(PyObject *list, PyObject *iterable);
int tr_op_set_add(PyObject *set, PyObject *v);
int tr_op_set_update(PyObject *set, PyObject *iterable);
int tr_op_map_add(PyObject *dict, PyObject *key, PyObject *v);
/* DICT_UPDATE: "'T' object is not a mapping" for an AttributeError. */
int tr_op_dict_update(PyObject *dict, PyObject *m);
/* DICT_MERGE (f(**m)): func names the callee in format_kwargs_error's messages. */
int tr_op_dict_merge(PyObject *func, PyObject *dict, PyObject *m);

#endif
