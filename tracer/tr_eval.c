/* tr_eval.c: the interpreter loop over CPython 3.11 bytecode, every value a TrValue.
 *
 * Mirrors Python/ceval.c (v3.11): one case per opcode (the list is tr_opcodes.def),
 * each either dispatching or going to `error`, with its stack effect in a comment.
 * It reads the ORIGINAL bytecode (PyCode_GetCode), skipping the inline CACHE entries,
 * so run-time quickening never shows. Errors go through the 3.11 exception table;
 * each frame an exception passes through adds a traceback entry (a frame object of
 * the program's code), so the innermost entry of a program's exception is in the
 * program's file. Frames can be suspended (YIELD_VALUE) and resumed (tr_gen.c).
 * The tracer's own errors (LimitExceeded, Unsupported, ProvenanceError) skip the
 * program's handlers and add no traceback entry.
 *
 * Anything that can run user code goes through tr_call (calls), tr_attr_* (attribute
 * access) or an opaque C-API call followed by tr_attr_note_escape when the operands
 * are not plain builtins. Set TFJIT_LLTRACE=1 to print every instruction with the
 * stack and its provenance (CPython's lltrace).
 */
#include "tr_frame.h"
#include "tr_attr.h"
#include "tr_reuse.h"
#include "tr_provcheck.h"
#include "tr_ops.h"

/* ---- the opcode table (tr_opcodes.def) ---- */

static const char *const op_names[256] = {
#define TR_OP(name, num, caches, status, why) [num] = #name,
#include "tr_opcodes.def"
#undef TR_OP
};
static const unsigned char op_caches[256] = {
#define TR_OP(name, num, caches, status, why) [num] = caches,
#include "tr_opcodes.def"
#undef TR_OP
};
static uint64_t op_counts[256];

/* What run_frame's dispatch asks of an opcode, in one byte read: its inline cache
 * entries (low bits) and what the recorder does with it (tr_reuse.h). Filled by
 * tr_eval_init, after tr_record_init has filled tr_record_plain. */
#define OP_INFO_CACHES 0x0f
#define OP_INFO_PLAIN 0x10       /* tr_record_plain: the step is the instruction alone */
#define OP_INFO_LOAD 0x20        /* LOAD_ATTR, LOAD_METHOD: tr_record_load_fast */
static unsigned char op_info[256];

void tr_eval_init(void)
{
    for (int op = 0; op < 256; op++) {
        op_info[op] = (unsigned char)((op_caches[op] & OP_INFO_CACHES) |
                                      (tr_record_plain[op] ? OP_INFO_PLAIN : 0) |
                                      (op == TR_OP_LOAD_ATTR || op == TR_OP_LOAD_METHOD
                                       ? OP_INFO_LOAD : 0));
        if (op_caches[op] > OP_INFO_CACHES) {   /* 3.11's most is LOAD_METHOD's 10 */
            fprintf(stderr, "tracefuzz: %d cache entries do not fit op_info\n", op_caches[op]);
            abort();
        }
    }
}

const char *tr_opcode_name(int opcode)
{
    return (opcode >= 0 && opcode < 256) ? op_names[opcode] : NULL;
}

int tr_opcode_caches(int opcode)
{
    return (opcode >= 0 && opcode < 256) ? op_caches[opcode] : 0;
}

uint64_t tr_opcode_count(int opcode)
{
    return (opcode >= 0 && opcode < 256) ? op_counts[opcode] : 0;
}

/* ---- frames ---- */

static TrFrame *current_frame;   /* innermost interpreted frame (the GIL serialises) */
static int lltrace = -1;         /* TFJIT_LLTRACE, read once */

TrFrame *tr_eval_current_frame(void)
{
    return current_frame;
}

int tr_frame_super_args(TrFrame *f, TrValue *type, TrValue *obj)
{
    PyCodeObject *co;
    if (f == NULL || (co = f->code)->co_argcount == 0) {
        PyErr_SetString(PyExc_RuntimeError, "super(): no arguments");
        return -1;
    }
    const unsigned char *kinds = (const unsigned char *)PyBytes_AS_STRING(co->co_localspluskinds);
    TrValue first = f->localsplus[0];
    PyObject *self = first.obj;
    if (self != NULL && (kinds[0] & TR_FAST_CELL) && PyCell_Check(self))
        self = PyCell_GET(self);
    if (self == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "super(): arg[0] deleted");
        return -1;
    }
    for (int i = co->co_nlocals; i < f->nlocalsplus; i++) {
        PyObject *name = PyTuple_GET_ITEM(co->co_localsplusnames, i);
        if (!(kinds[i] & TR_FAST_FREE) || !_PyUnicode_EqualToASCIIString(name, "__class__"))
            continue;
        PyObject *cell = f->localsplus[i].obj;
        PyObject *cls = cell != NULL && PyCell_Check(cell) ? PyCell_GET(cell) : NULL;
        if (cls == NULL) {
            PyErr_SetString(PyExc_RuntimeError, "super(): empty __class__ cell");
            return -1;
        }
        if (!PyType_Check(cls)) {
            PyErr_Format(PyExc_RuntimeError, "super(): __class__ is not a type (%s)",
                         Py_TYPE(cls)->tp_name);
            return -1;
        }
        *type = tr_value_new(Py_NewRef(cls), tr_prov_new(TR_PROV_CELL, NULL, NULL, name, 0));
        *obj = tr_value_new(Py_NewRef(self), (tr_prov_incref(first.prov), first.prov));
        return 0;
    }
    PyErr_SetString(PyExc_RuntimeError, "super(): __class__ cell not found");
    return -1;
}

/* ---- helpers of the loop ---- */

/* A new provenance record, or NULL when memory ran out: provenance is best effort
 * (the value stays correct, its origin becomes unknown), never a program error. */
static TrProv *mkprov(TrProvKind kind, TrProv *base, TrProv *arg, PyObject *name, int index)
{
    TrProv *p = tr_prov_new(kind, base, arg, name, index);
    if (p == NULL)
        PyErr_Clear();
    return p;
}

static void lltrace_print(TrFrame *f, int offset, int op, int oparg)
{
    fprintf(stderr, "%d: %s %d  stack=[", offset, op_names[op] ? op_names[op] : "?", oparg);
    for (int i = 0; i < f->sp; i++) {
        TrValue v = f->stack[i];
        PyObject *r = v.obj != NULL ? tr_prov_repr(v.prov) : NULL;
        fprintf(stderr, "%s%s:%s", i ? ", " : "", v.obj ? Py_TYPE(v.obj)->tp_name : "NULL",
                r != NULL ? PyUnicode_AsUTF8(r) : "-");
        Py_XDECREF(r);
        PyErr_Clear();
    }
    fprintf(stderr, "]\n");
}

/* TFJIT_LLTRACE mode: the stack effect of the instruction just executed must be the
 * compiler's (PyCompile_OpcodeStackEffectWithJump). The compiler books a call's pops
 * on PRECALL (-oparg) and CALL (-1), the loop does them all in CALL; RETURN_GENERATOR
 * pushes the first sent value here (CPython pushes it when resuming). */
static void check_stack_effect(TrFrame *f, int op, int oparg, int sp_before, int jumped)
{
    int expected = PyCompile_OpcodeStackEffectWithJump(op, oparg, jumped);
    if (op == TR_OP_PRECALL)
        expected = 0;
    else if (op == TR_OP_CALL)
        expected = -1 - oparg;
    else if (op == TR_OP_RETURN_GENERATOR)
        expected = 1;
    if (f->sp - sp_before != expected) {
        fprintf(stderr, "tracefuzz: %s %d changed the stack by %d, the compiler says %d\n",
                op_names[op], oparg, f->sp - sp_before, expected);
        abort();
    }
}

/* TFJIT_LLTRACE's state between two instructions of a frame: in memory, out of the
 * loop's registers. */
typedef struct {
    int check;                   /* op is set: check its effect before the next one */
    int op, oparg, sp, fallthrough;
} DebugStep;

/* Debug mode, before the instruction at next (the loop's one test of it): the previous
 * instruction's stack effect checked, this one decoded here (EXTENDED_ARG and caches
 * as the loop does), printed and kept for the next check. Out of the code's bounds it
 * does nothing: the loop aborts on that. */
static __attribute__((noinline, cold)) void debug_step(TrFrame *f, DebugStep *d, int next)
{
    if (d->check)
        check_stack_effect(f, d->op, d->oparg, d->sp, next != d->fallthrough);
    if ((unsigned)next >= (unsigned)f->ninstr)
        return;
    int op = f->instr[2 * next], oparg = f->instr[2 * next + 1];
    while (op == TR_OP_EXTENDED_ARG && next + 1 < f->ninstr) {
        next++;
        op = f->instr[2 * next];
        oparg = (oparg << 8) | f->instr[2 * next + 1];
    }
    lltrace_print(f, next, op, oparg);
    d->check = 1;
    d->op = op;
    d->oparg = oparg;
    d->sp = f->sp;
    d->fallthrough = next + 1 + op_caches[op];
}

static const char *const binop_symbols[26] = {
    "+", "&", "//", "<<", "@", "*", "%", "|", "**", ">>", "-", "/", "^",
    "+=", "&=", "//=", "<<=", "@=", "*=", "%=", "|=", "**=", ">>=", "-=", "/=", "^=",
};
static const char *const cmp_symbols[6] = {"<", "<=", "==", "!=", ">", ">="};

/* A provenance record with a static symbol as its name (BINOP / UNOP). The symbols'
 * str objects are made once, keyed by the literal's address. */
static TrProv *prov_op(TrProvKind kind, TrProv *a, TrProv *b, const char *sym, int index)
{
    static struct { const char *sym; PyObject *str; } syms[64];
    static int nsyms;
    PyObject *name = NULL;
    for (int i = 0; i < nsyms; i++) {
        if (syms[i].sym == sym) {
            name = syms[i].str;
            break;
        }
    }
    if (name == NULL) {
        name = PyUnicode_InternFromString(sym);
        if (name == NULL) {
            PyErr_Clear();
            return NULL;
        }
        if (nsyms < 64) {
            syms[nsyms].sym = sym;
            syms[nsyms].str = name;   /* kept for the life of the process */
            nsyms++;
        }
        else {
            TrProv *p = mkprov(kind, a, b, name, index);
            Py_DECREF(name);
            return p;
        }
    }
    return mkprov(kind, a, b, name, index);
}

/* BINARY_OP's record: prov_op's, the symbol's str found by oparg in an array (interned,
 * kept for the process, as prov_op keeps its symbols' strs) instead of by prov_op's
 * search of the symbols made so far, ~15 instructions of every arithmetic operator.
 * Borrows a and b (counted by the record); NULL with no exception, as prov_op. */
static TrProv *prov_binop(TrProv *a, TrProv *b, int oparg)
{
    static PyObject *strs[26];
    if (oparg < 0 || oparg >= 26)
        return prov_op(TR_PROV_BINOP, a, b, "?", oparg);
    if (strs[oparg] == NULL) {
        PyObject *s = PyUnicode_InternFromString(binop_symbols[oparg]);
        if (s == NULL) {
            PyErr_Clear();
            return NULL;
        }
        strs[oparg] = s;   /* the process's reference */
    }
    return mkprov(TR_PROV_BINOP, a, b, strs[oparg], oparg);
}

/* CALL_FUNCTION_EX: flattens callargs (a tuple) and kwargs (a dict) into a vector
 * and calls through tr_call. */
static int call_ex(TrRun *run, TrValue func, TrValue callargs, TrValue kwargs, TrValue *out)
{
    PyObject *args = NULL, *kw = NULL, *kwnames = NULL;
    TrValue *vec = NULL;
    Py_ssize_t nargs = 0, nkw = 0;
    int rc = -1;
    if (PyTuple_CheckExact(callargs.obj)) {
        args = Py_NewRef(callargs.obj);
    }
    else {
        if (Py_TYPE(callargs.obj)->tp_iter == NULL && !PySequence_Check(callargs.obj)) {
            PyObject *fs = _PyObject_FunctionStr(func.obj);
            if (fs != NULL) {
                PyErr_Format(PyExc_TypeError, "%U argument after * must be an iterable, not %.200s",
                             fs, Py_TYPE(callargs.obj)->tp_name);
                Py_DECREF(fs);
            }
            goto done;
        }
        args = PySequence_Tuple(callargs.obj);
        if (args == NULL)
            goto done;
    }
    if (kwargs.obj != NULL) {
        if (PyDict_CheckExact(kwargs.obj)) {
            kw = Py_NewRef(kwargs.obj);
        }
        else {
            kw = PyDict_New();
            if (kw == NULL)
                goto done;
            if (_PyDict_MergeEx(kw, kwargs.obj, 2) < 0) {
                tr_op_dict_merge_error(func.obj, kwargs.obj);
                goto done;
            }
        }
        nkw = PyDict_GET_SIZE(kw);
    }
    nargs = PyTuple_GET_SIZE(args);
    vec = PyMem_Calloc((size_t)(nargs + nkw + 1), sizeof(TrValue));
    if (vec == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < nargs; i++)
        vec[i] = tr_value_new(Py_NewRef(PyTuple_GET_ITEM(args, i)),
                              mkprov(TR_PROV_UNPACK, callargs.prov, NULL, NULL, (int)i));
    if (nkw) {
        kwnames = PyTuple_New(nkw);
        if (kwnames == NULL)
            goto done;
        Py_ssize_t pos = 0, i = 0;
        PyObject *k, *v;
        while (PyDict_Next(kw, &pos, &k, &v)) {
            if (!PyUnicode_Check(k)) {
                PyErr_Format(PyExc_TypeError, "keywords must be strings");
                goto done;
            }
            PyTuple_SET_ITEM(kwnames, i, Py_NewRef(k));
            vec[nargs + i] = tr_value_new(Py_NewRef(v),
                                          mkprov(TR_PROV_SUBSCR, kwargs.prov, NULL, k, 0));
            i++;
        }
    }
    rc = tr_call(run, func, vec, nargs + nkw, kwnames, out);
done:
    if (vec != NULL) {
        for (Py_ssize_t i = 0; i < nargs + nkw; i++)
            tr_value_clear(&vec[i]);
        PyMem_Free(vec);
    }
    Py_XDECREF(args);
    Py_XDECREF(kw);
    Py_XDECREF(kwnames);
    return rc;
}

/* The result of an opaque operation on a and b: tell the attribute cache when it may
 * have run user code. */
static inline void note_opaque(TrRun *run, PyObject *a, PyObject *b)
{
    /* FOR_ITER's range and list iterators, plain for the same reason */
    if (b == NULL && a != NULL && (Py_IS_TYPE(a, &PyRangeIter_Type) ||
                                   Py_IS_TYPE(a, &PyListIter_Type)))
        return;
    /* ints and floats first (most operands of a loop body), without the call: the
     * same answer as tr_is_plain_operands, which counts them (and NULL, a failed
     * operation's result) as plain */
    if ((a == NULL || Py_IS_TYPE(a, &PyLong_Type) || Py_IS_TYPE(a, &PyFloat_Type)) &&
        (b == NULL || Py_IS_TYPE(b, &PyLong_Type) || Py_IS_TYPE(b, &PyFloat_Type)))
        return;
    if (!tr_is_plain_operands(a, b))
        tr_attr_note_escape(run);
}

/* Records "RAISE KeyError in f line 3" for the exception being raised, keeping it. */
static void record_exception(TrRun *run, TrFrame *f, const char *what)
{
    if (run->trace == NULL)
        return;
    PyObject *et, *ev, *etb;
    PyErr_Fetch(&et, &ev, &etb);
    /* the line number is computed when the text is built, not per raise */
    if (tr_trace_record_raise(run, what, et != NULL ? ((PyTypeObject *)et)->tp_name : "?",
                              f->code, f->lasti) < 0)
        PyErr_Clear();
    PyErr_Restore(et, ev, etb);
}

/* ---- the loop ---- */

/* Stack access: values are owned by the stack slots. run_frame keeps the stack's base,
 * size and level in locals (stack, stacksize, sp): f->sp in memory cost a reload of f
 * and its fields on every access, clang being unable to keep them across the calls out.
 * f->sp is written through on every change, so whatever reads the frame during a call
 * (the recorder, debug_step, tr_op_make_function_on_stack, a generator's traverse) sees
 * the level as before; after a callee that moves f->sp (tr_op_pop, tr_op_pop_call,
 * tr_exc_enter_handler) SP_RELOAD() takes it back. */
#define STACK_LEVEL() (sp)
#define TOP() (stack[sp - 1])
#define SECOND() (stack[sp - 2])
#define PEEK(n) (stack[sp - (n)])
#define PUSH(v) do { \
        TrValue pushed_ = (v);   /* evaluated before sp moves: PUSH(PEEK(n)) is safe */ \
        if (sp >= stacksize) \
            stack_overflow(f); \
        stack[sp] = pushed_; \
        f->sp = ++sp; \
    } while (0)
#define POP() (stack[f->sp = --sp])
#define SP_RELOAD() (sp = f->sp)
#define PUSH_OBJ(o, p) PUSH(tr_value_new((o), (p)))
#define DISPATCH() goto dispatch
/* The jump to an opcode's case: one load and an indirect jump through a table of the
 * cases' labels where the compiler has labels as values (clang's switch spent ~8
 * instructions on its range test and table here); the switch everywhere else. Each
 * case is TARGET(name), a case label and, with the table, a label op_name. */
#if defined(__GNUC__) || defined(__clang__)
#define TR_COMPUTED_GOTO 1
#define TARGET(name) case TR_OP_##name: op_##name
#define TARGET_UNKNOWN op_unknown:
#else
#define TR_COMPUTED_GOTO 0
#define TARGET(name) case TR_OP_##name
#define TARGET_UNKNOWN
#endif
/* The code unit at next as one 16-bit read (memcpy: the bytes are a str of chars);
 * its low-addressed byte is the opcode. */
#if PY_LITTLE_ENDIAN
#define FETCH(op_, oparg_) do { \
        uint16_t unit_; \
        memcpy(&unit_, f->instr + 2 * (size_t)next, sizeof unit_); \
        (op_) = unit_ & 0xff; \
        (oparg_) = unit_ >> 8; \
    } while (0)
#else
#define FETCH(op_, oparg_) do { \
        (op_) = f->instr[2 * (size_t)next]; \
        (oparg_) = f->instr[2 * (size_t)next + 1]; \
    } while (0)
#endif
#define JUMPBY(n) (next += (n))
#define GETNAME(i) PyTuple_GET_ITEM(co->co_names, (i))
#define CLEAR_VALUE(v) do { TrValue tmp_ = (v); tr_value_clear(&tmp_); } while (0)

static void stack_overflow(TrFrame *f)
{
    fprintf(stderr, "tracefuzz: tracer stack overflow in %s (stacksize %d)\n",
            PyUnicode_AsUTF8(f->code->co_qualname), f->stacksize);
    abort();
}

static int run_frame(TrRun *run, TrFrame *f, int throwing, TrValue *out);

/* A frame left by an exception: its stack released top first, before tr_frame_clear
 * releases the locals, as ceval's unwinding pops it (finalizers observe the order).
 * Out of run_frame's body: a loop there moved its register allocation (+0.35%). */
static __attribute__((noinline, cold)) void release_stack(TrFrame *f)
{
    while (f->sp > 0) {
        TrValue v = f->stack[--f->sp];
        tr_value_clear(&v);
    }
}

int tr_frame_init(TrFrame *f, PyCodeObject *co, PyObject *func, PyObject *globals,
                  PyObject *builtins, PyObject *locals, TrValue *localsplus)
{
    return tr_frame_init_buf(f, co, func, globals, builtins, locals, localsplus, NULL, 0);
}

int tr_frame_init_buf(TrFrame *f, PyCodeObject *co, PyObject *func, PyObject *globals,
                      PyObject *builtins, PyObject *locals, TrValue *localsplus,
                      TrValue *buf, int nbuf)
{
    memset(f, 0, sizeof *f);
    f->nlocalsplus = co->co_nlocalsplus;
    f->localsplus = localsplus;
    f->codebytes = PyCode_GetCode(co);
    if (f->codebytes == NULL)
        return -1;
    f->stacksize = co->co_stacksize + 1;
    if (buf != NULL && f->stacksize <= nbuf) {
        /* Not cleared: nothing reads a slot at or above f->sp before a push writes it
         * (tr_frame_clear, the traverse, the recorder and lltrace read below f->sp).
         * Builds with assertions poison it, so that a read there crashes the tests. */
#ifndef NDEBUG
        memset(buf, 0xdb, (size_t)f->stacksize * sizeof(TrValue));
#endif
        f->stack = buf;
        f->stack_borrowed = 1;
    }
    else {
        f->stack = PyMem_Calloc((size_t)f->stacksize, sizeof(TrValue));
    }
    if (f->stack == NULL) {
        Py_CLEAR(f->codebytes);
        PyErr_NoMemory();
        return -1;
    }
    f->code = (PyCodeObject *)Py_NewRef(co);
    f->func = Py_XNewRef(func);
    f->globals = Py_NewRef(globals);
    f->builtins = Py_NewRef(builtins);
    f->locals = Py_XNewRef(locals);
    f->instr = (const unsigned char *)PyBytes_AS_STRING(f->codebytes);
    f->ninstr = (int)((size_t)PyBytes_GET_SIZE(f->codebytes) / 2);   /* unsigned: a shift */
    return 0;
}

void tr_frame_clear(TrFrame *f)
{
    if (f->frameobj != NULL)   /* most frames never had sys._getframe() asked of them */
        tr_frameobj_detach(f);
    /* CPython's _PyFrame_Clear order: locals in slot order, then the value stack. */
    if (f->localsplus != NULL) {
        for (int i = 0; i < f->nlocalsplus; i++)
            tr_value_clear(&f->localsplus[i]);
    }
    if (f->stack != NULL) {
        for (int i = 0; i < f->sp; i++)
            tr_value_clear(&f->stack[i]);
        if (!f->stack_borrowed)
            PyMem_Free(f->stack);
        f->stack = NULL;
    }
    f->sp = 0;
    Py_CLEAR(f->code);
    Py_CLEAR(f->func);
    Py_CLEAR(f->globals);
    Py_CLEAR(f->builtins);
    Py_CLEAR(f->locals);
    Py_CLEAR(f->codebytes);
    Py_CLEAR(f->fast_locals_dict);
    if (f->constprov != NULL) {
        for (Py_ssize_t i = 0; i < f->nconstprov; i++)
            tr_prov_decref(f->constprov[i]);
        PyMem_Free(f->constprov);
        f->constprov = NULL;
    }
}

/* tr_frame_run's body, inline in tr_eval_code too (a function call runs one frame:
 * one call layer less). */
static inline int frame_run(TrRun *run, TrFrame *f, int throwing, TrValue *out)
{
    out->obj = NULL;
    out->prov = NULL;
    if (run->depth >= run->max_depth) {
        PyErr_Format(tr_LimitExceeded, "traced call depth exceeded %d", run->max_depth);
        return -1;
    }
    /* CPython 3.11 enters a Python frame with an empty suffix: "maximum recursion
     * depth exceeded", the message the traced program must see too. */
    if (tr_stack_check() < 0 || Py_EnterRecursiveCall(""))
        return -1;
    f->prev = current_frame;
    current_frame = f;
    run->depth++;
    int rc = run_frame(run, f, throwing, out);
    run->depth--;
    current_frame = f->prev;
    f->prev = NULL;
    Py_LeaveRecursiveCall();
    return rc;
}

int tr_frame_run(TrRun *run, TrFrame *f, int throwing, TrValue *out)
{
    return frame_run(run, f, throwing, out);
}

int tr_eval_code(TrRun *run, PyCodeObject *co, PyObject *func, PyObject *globals,
                 PyObject *builtins, PyObject *locals, TrValue *localsplus, TrValue *out)
{
    TrFrame frame;
    TrValue stackbuf[16];   /* most function bodies need fewer: no allocation for them */
    int rc = -1;
    out->obj = NULL;
    out->prov = NULL;
    int init = tr_frame_init_buf(&frame, co, func, globals, builtins, locals, localsplus,
                                 stackbuf, (int)(sizeof stackbuf / sizeof stackbuf[0]));
    if (init == 0) {
        rc = frame_run(run, &frame, 0, out);
        if (rc == 1) {
            /* Only generator frames (tr_gen.c) may yield. */
            fprintf(stderr, "tracefuzz: a function frame yielded\n");
            abort();
        }
    }
    /* Releases the values of localsplus (the frame's from its first line: tr_frame_init_buf
     * sets f->localsplus before anything may fail), the frame's own references, its stack. */
    tr_frame_clear(&frame);
    if (init < 0) {
        /* Belt and braces on the failure path only: tr_frame_clear released them (a
         * second pass over the success path's cleared values was ~13 instructions a call). */
        for (int i = 0; i < co->co_nlocalsplus; i++)
            tr_value_clear(&localsplus[i]);
    }
    return rc;
}

/* Runs f from f->next until it returns (0, *out the value), yields (1, *out the value,
 * f->next where to resume) or fails (-1). throwing: resume with the exception already
 * set, raised at the suspended instruction (generator.throw). */
static int run_frame(TrRun *run, TrFrame *f, int throwing, TrValue *out)
{
    PyCodeObject *co = f->code;
    TrValue *fastlocals = f->localsplus;
    TrValue *const stack = f->stack;     /* fixed for the frame's life */
    const int stacksize = f->stacksize;
    int sp = f->sp;                      /* f->sp's copy (PUSH, POP): a generator resumes
                                            with the sent value pushed */
    int next = f->next, op = 0, oparg = 0, info;
    int here = f->lasti;   /* the executing instruction: handlers are looked up for it,
                              even after RERAISE restored f->lasti (INSTR_OFFSET()-1) */
    int rc = -1;
    /* The exception being handled when the frame started: restored if the tracer's
     * own error unwinds the frame from inside an except block. */
    PyObject *saved_handled = PyErr_GetHandledException();
    if (lltrace < 0) {
        const char *e = getenv("TFJIT_LLTRACE");
        lltrace = e != NULL && e[0] == '1';
    }
    /* Debug mode checks each instruction's stack effect against the compiler's. */
    DebugStep dbg = {0, 0, 0, 0, 0};
    const int debug = lltrace;   /* read once: the loop tests it once per instruction */
    /* The recorder follows the top-level frame (tr_reuse.h). Both tests hold for the
     * whole of this frame's run: run->rec is set for the jit call's whole tr_call, and
     * the depth callees raise is restored when they return. */
    const int recording = run->rec != NULL && run->depth == 1;
    /* The recorder's tests that hold for this whole run of the frame (tr_reuse.h, quick):
     * the recorded code is this frame's and no fault is on (run->faults is set once per
     * run, before the call). */
    const int rec_quick = recording && run->faults == 0 &&
                          (PyObject *)co == run->rec->trace->code;
    /* The inline recorders' trace (quick frames only; run->rec->trace is fixed for the
     * whole traced call); other recording frames take tr_record_step for every step. */
    TrRecTrace *const rec_trace = rec_quick ? run->rec->trace : NULL;
#if TR_COMPUTED_GOTO
    /* Every byte a target: the opcodes of tr_opcodes.def their cases (a missing case
     * is a compile error), the others op_unknown. */
    TR_OVERRIDES_BEGIN
    static void *const op_targets[256] = {
        [0 ... 255] = &&op_unknown,
#define TR_OP(name, num, caches, status, why) [num] = &&op_##name,
#include "tr_opcodes.def"
#undef TR_OP
    };
    TR_OVERRIDES_END
#endif
    if (throwing)
        goto error;

dispatch:
    if (debug)
        debug_step(f, &dbg, next);
    if ((unsigned)next >= (unsigned)f->ninstr) {   /* next < 0 too */
        fprintf(stderr, "tracefuzz: tracer jumped outside the code of %s (%d)\n",
                PyUnicode_AsUTF8(co->co_qualname), next);
        abort();
    }
    FETCH(op, oparg);
    here = f->lasti = next++;
    while (op == TR_OP_EXTENDED_ARG) {
        int ext = oparg;
        FETCH(op, oparg);
        oparg |= ext << 8;
        here = f->lasti = next++;
        op_counts[TR_OP_EXTENDED_ARG]++;
    }
    info = op_info[op];
    next += info & OP_INFO_CACHES;
    op_counts[op]++;
    if (rec_trace != NULL) {                   /* tr_reuse.h: trace reuse records the path */
        if (info & OP_INFO_PLAIN)
            tr_record_plain_fast(run, rec_trace, f, here, op, oparg);
        else if ((info & OP_INFO_LOAD) && sp > 0)
            tr_record_load_fast(run, f, (PyObject *)co, TOP(), here, op, oparg);
        else
            tr_record_quick_step(run, f, here, op, oparg);
    }
    else if (recording) {                      /* not quick: every step in full */
        tr_record_step(run, f, here, op, oparg);
    }
    if (--run->budget < 0) {
        run->budget = 0;
        PyErr_SetString(tr_LimitExceeded, "traced call exceeded its instruction budget");
        goto error;
    }

#if TR_COMPUTED_GOTO
    goto *op_targets[op];
#endif
    switch ((unsigned char)op) {

    TARGET(NOP):
    TARGET(RESUME):
    TARGET(EXTENDED_ARG):
        DISPATCH();

    TARGET(POP_TOP):            /* (v -- ) */
        CLEAR_VALUE(POP());
        DISPATCH();

    TARGET(PUSH_NULL):          /* ( -- NULL) */
        PUSH_OBJ(NULL, NULL);
        DISPATCH();

    TARGET(LOAD_FAST): {        /* ( -- v) */
        TrValue v = fastlocals[oparg];
        if (v.obj == NULL) {
            tr_op_unbound_local(co, oparg);
            goto error;
        }
        PUSH(tr_value_dup(v));
        DISPATCH();
    }

    TARGET(STORE_FAST): {       /* (v -- ) */
        TrValue old = fastlocals[oparg];
        fastlocals[oparg] = POP();
        tr_value_clear(&old);
        DISPATCH();
    }

    TARGET(DELETE_FAST): {      /* ( -- ) */
        if (fastlocals[oparg].obj == NULL) {
            tr_op_unbound_local(co, oparg);
            goto error;
        }
        tr_value_clear(&fastlocals[oparg]);
        DISPATCH();
    }

    TARGET(LOAD_CONST): {       /* ( -- v) */
        PyObject *c = PyTuple_GET_ITEM(co->co_consts, oparg);
        /* One CONST[i] record per frame and constant: loops load constants often. */
        if (f->constprov == NULL) {
            f->nconstprov = PyTuple_GET_SIZE(co->co_consts);
            f->constprov = PyMem_Calloc((size_t)f->nconstprov + 1, sizeof(TrProv *));
        }
        TrProv *p;
        if (f->constprov != NULL) {
            if (f->constprov[oparg] == NULL)
                f->constprov[oparg] = mkprov(TR_PROV_CONST, NULL, NULL, NULL, oparg);
            p = f->constprov[oparg];
            tr_prov_incref(p);
        }
        else {
            p = mkprov(TR_PROV_CONST, NULL, NULL, NULL, oparg);
        }
        PUSH_OBJ(Py_NewRef(c), p);
        DISPATCH();
    }

    TARGET(LOAD_GLOBAL): {      /* ( -- [NULL] v) */
        PyObject *name = GETNAME(oparg >> 1);
        int builtin;
        PyObject *v = tr_op_load_global(f->globals, f->builtins, name, &builtin);
        if (v == NULL)
            goto error;
        if (oparg & 1)
            PUSH_OBJ(NULL, NULL);
        PUSH_OBJ(v, mkprov(builtin ? TR_PROV_BUILTIN : TR_PROV_GLOBAL, NULL, NULL, name, 0));
        if (tr_trace_record_name(run, "LOAD_GLOBAL", name, NULL, NULL, &TOP()) < 0)
            goto error;
        DISPATCH();
    }

    TARGET(STORE_GLOBAL): {     /* (v -- ) */
        TrValue v = POP();
        int err = PyDict_SetItem(f->globals, GETNAME(oparg), v.obj);
        tr_value_clear(&v);
        if (err < 0)
            goto error;
        DISPATCH();
    }

    TARGET(DELETE_GLOBAL): {    /* ( -- ) */
        PyObject *name = GETNAME(oparg);
        if (PyDict_DelItem(f->globals, name) < 0) {
            if (PyErr_ExceptionMatches(PyExc_KeyError))
                tr_op_name_error(name);
            goto error;
        }
        DISPATCH();
    }

    TARGET(LOAD_NAME): {        /* ( -- v) */
        PyObject *name = GETNAME(oparg);
        PyObject *v = NULL;
        TrProv *p = NULL;
        if (f->locals == NULL) {
            PyErr_Format(PyExc_SystemError, "no locals when loading %R", name);
            goto error;
        }
        v = PyObject_GetItem(f->locals, name);
        if (v == NULL) {
            if (!PyErr_ExceptionMatches(PyExc_KeyError))
                goto error;
            PyErr_Clear();
            int builtin;
            v = tr_op_load_global(f->globals, f->builtins, name, &builtin);
            if (v == NULL)
                goto error;
            p = mkprov(builtin ? TR_PROV_BUILTIN : TR_PROV_GLOBAL, NULL, NULL, name, 0);
        }
        else {
            p = mkprov(TR_PROV_SUBSCR, NULL, NULL, name, 0);
        }
        PUSH_OBJ(v, p);
        DISPATCH();
    }

    TARGET(STORE_NAME): {       /* (v -- ) */
        PyObject *name = GETNAME(oparg);
        if (f->locals == NULL) {
            PyErr_Format(PyExc_SystemError, "no locals found when storing %R", name);
            goto error;
        }
        TrValue v = POP();
        int err = PyObject_SetItem(f->locals, name, v.obj);
        tr_value_clear(&v);
        if (err < 0)
            goto error;
        DISPATCH();
    }

    TARGET(DELETE_NAME): {      /* ( -- ) */
        PyObject *name = GETNAME(oparg);
        if (f->locals == NULL) {
            PyErr_Format(PyExc_SystemError, "no locals when deleting %R", name);
            goto error;
        }
        if (PyObject_DelItem(f->locals, name) < 0) {
            if (PyErr_ExceptionMatches(PyExc_KeyError))
                tr_op_name_error(name);
            goto error;
        }
        DISPATCH();
    }

    TARGET(MAKE_CELL): {        /* ( -- ): wraps the slot's value in a new cell */
        TrValue old = fastlocals[oparg];
        PyObject *cell = PyCell_New(old.obj);
        if (cell == NULL)
            goto error;
        fastlocals[oparg] = tr_value_new(cell, NULL);
        tr_value_clear(&old);
        DISPATCH();
    }

    TARGET(COPY_FREE_VARS): {   /* ( -- ): the function's closure into the free slots */
        PyObject *closure = f->func != NULL ? ((PyFunctionObject *)f->func)->func_closure : NULL;
        if (closure == NULL || PyTuple_GET_SIZE(closure) < oparg) {
            PyErr_SetString(PyExc_SystemError, "tracer: COPY_FREE_VARS without a closure");
            goto error;
        }
        int offset = co->co_nlocalsplus - oparg;
        for (int i = 0; i < oparg; i++) {
            TrValue old = fastlocals[offset + i];
            fastlocals[offset + i] = tr_value_new(Py_NewRef(PyTuple_GET_ITEM(closure, i)), NULL);
            tr_value_clear(&old);
        }
        DISPATCH();
    }

    TARGET(LOAD_CLOSURE): {     /* ( -- cell) */
        TrValue v = fastlocals[oparg];
        if (v.obj == NULL) {
            tr_op_unbound_local(co, oparg);
            goto error;
        }
        PUSH(tr_value_dup(v));
        DISPATCH();
    }

    TARGET(LOAD_DEREF): {       /* ( -- v) */
        PyObject *cell = fastlocals[oparg].obj;
        PyObject *v = cell != NULL ? PyCell_GET(cell) : NULL;
        if (v == NULL) {
            tr_op_unbound_local(co, oparg);
            goto error;
        }
        PUSH_OBJ(Py_NewRef(v), mkprov(TR_PROV_CELL, NULL, NULL,
                                      PyTuple_GET_ITEM(co->co_localsplusnames, oparg), 0));
        DISPATCH();
    }

    TARGET(LOAD_CLASSDEREF): {  /* ( -- v): the class body's mapping, then the cell */
        PyObject *name = PyTuple_GET_ITEM(co->co_localsplusnames, oparg);
        PyObject *v = NULL;
        if (f->locals != NULL) {
            v = PyObject_GetItem(f->locals, name);
            if (v == NULL) {
                if (!PyErr_ExceptionMatches(PyExc_KeyError))
                    goto error;
                PyErr_Clear();
            }
        }
        if (v == NULL) {
            PyObject *cell = fastlocals[oparg].obj;
            v = cell != NULL ? PyCell_GET(cell) : NULL;
            if (v == NULL) {
                tr_op_unbound_local(co, oparg);
                goto error;
            }
            Py_INCREF(v);
        }
        PUSH_OBJ(v, mkprov(TR_PROV_CELL, NULL, NULL, name, 0));
        DISPATCH();
    }

    TARGET(STORE_DEREF): {      /* (v -- ) */
        TrValue v = POP();
        PyObject *cell = fastlocals[oparg].obj;
        PyObject *old = PyCell_GET(cell);
        PyCell_SET(cell, v.obj);   /* steals */
        Py_XDECREF(old);
        tr_prov_decref(v.prov);
        DISPATCH();
    }

    TARGET(DELETE_DEREF): {     /* ( -- ) */
        PyObject *cell = fastlocals[oparg].obj;
        PyObject *old = PyCell_GET(cell);
        if (old == NULL) {
            tr_op_unbound_local(co, oparg);
            goto error;
        }
        PyCell_SET(cell, NULL);
        Py_DECREF(old);
        DISPATCH();
    }

    TARGET(UNARY_POSITIVE):     /* (v -- r) */
    TARGET(UNARY_NEGATIVE):
    TARGET(UNARY_INVERT):
    TARGET(UNARY_NOT): {
        TrValue v = TOP();
        PyObject *r = tr_op_unary(op, v.obj);
        const char *sym = op == TR_OP_UNARY_NOT ? "not" : op == TR_OP_UNARY_POSITIVE ? "+"
                        : op == TR_OP_UNARY_NEGATIVE ? "-" : "~";
        note_opaque(run, v.obj, NULL);
        if (r == NULL) {
            tr_op_pop(f, 1);       /* ceval releases the operand before its error */
            SP_RELOAD();
            goto error;
        }
        TOP() = tr_value_new(r, prov_op(TR_PROV_UNOP, v.prov, NULL, sym, op));
        tr_value_clear(&v);
        DISPATCH();
    }

    TARGET(BINARY_OP): {        /* (a b -- r) */
        TrValue b = TOP(), a = SECOND();
        PyObject *r = tr_op_binary(oparg, a.obj, b.obj);
        note_opaque(run, a.obj, b.obj);
        TrProv *p = r == NULL ? NULL : prov_binop(a.prov, b.prov, oparg);
        tr_op_pop(f, 2);           /* ceval's order: lhs, then rhs, also before an error */
        SP_RELOAD();
        if (r == NULL)
            goto error;
        PUSH_OBJ(r, p);
        DISPATCH();
    }

    TARGET(COMPARE_OP): {       /* (a b -- r) */
        TrValue b = TOP(), a = SECOND();
        PyObject *r = tr_op_compare(oparg, a.obj, b.obj);
        note_opaque(run, a.obj, b.obj);
        TrProv *p = r == NULL ? NULL : prov_op(TR_PROV_BINOP, a.prov, b.prov,
                                               cmp_symbols[oparg], oparg);
        tr_op_pop(f, 2);
        SP_RELOAD();
        if (r == NULL)
            goto error;
        PUSH_OBJ(r, p);
        DISPATCH();
    }

    TARGET(IS_OP): {            /* (a b -- bool) */
        TrValue b = POP(), a = TOP();
        TOP() = tr_value_new(tr_op_is(a.obj, b.obj, oparg),
                             prov_op(TR_PROV_BINOP, a.prov, b.prov, oparg ? "is not" : "is", 0));
        tr_value_clear(&a);
        tr_value_clear(&b);
        DISPATCH();
    }

    TARGET(CONTAINS_OP): {      /* (a container -- bool) */
        TrValue b = POP(), a = TOP();
        PyObject *r = tr_op_contains(a.obj, b.obj, oparg);
        note_opaque(run, b.obj, a.obj);
        if (r == NULL) {
            CLEAR_VALUE(POP());    /* ceval releases the item, then the container */
            tr_value_clear(&b);
            goto error;
        }
        TOP() = tr_value_new(r, prov_op(TR_PROV_BINOP, a.prov, b.prov, oparg ? "not in" : "in", 0));
        tr_value_clear(&a);
        tr_value_clear(&b);
        DISPATCH();
    }

    TARGET(BINARY_SUBSCR): {    /* (container key -- v) */
        TrValue key = POP(), c = TOP();
        PyObject *r = tr_op_subscr(c.obj, key.obj);
        note_opaque(run, c.obj, key.obj);
        if (r == NULL) {
            CLEAR_VALUE(POP());    /* ceval releases the container, then the key */
            tr_value_clear(&key);
            goto error;
        }
        TOP() = tr_value_new(r, mkprov(TR_PROV_SUBSCR, c.prov, key.prov, NULL, 0));
        tr_value_clear(&c);
        tr_value_clear(&key);
        if (tr_trace_record(run, "BINARY_SUBSCR", &TOP()) < 0)
            goto error;
        DISPATCH();
    }

    TARGET(STORE_SUBSCR): {     /* (v container key -- ) */
        TrValue key = POP(), c = POP(), v = POP();
        int err = tr_op_store_subscr(c.obj, key.obj, v.obj);
        if (PyDict_Check(c.obj))
            tr_attr_note_dict_write(run, c.obj);
        note_opaque(run, c.obj, key.obj);
        tr_value_clear(&v);        /* ceval's order: value, container, key */
        tr_value_clear(&c);
        tr_value_clear(&key);
        if (err < 0)
            goto error;
        DISPATCH();
    }

    TARGET(DELETE_SUBSCR): {    /* (container key -- ) */
        TrValue key = POP(), c = POP();
        int err = tr_op_delete_subscr(c.obj, key.obj);
        if (PyDict_Check(c.obj))
            tr_attr_note_dict_write(run, c.obj);
        note_opaque(run, c.obj, key.obj);
        tr_value_clear(&c);        /* ceval's order: container, key */
        tr_value_clear(&key);
        if (err < 0)
            goto error;
        DISPATCH();
    }

    TARGET(GET_LEN): {          /* (v -- v len) */
        Py_ssize_t n = PyObject_Length(TOP().obj);
        note_opaque(run, TOP().obj, NULL);
        if (n < 0)
            goto error;
        PyObject *r = PyLong_FromSsize_t(n);
        if (r == NULL)
            goto error;
        PUSH_OBJ(r, prov_op(TR_PROV_UNOP, TOP().prov, NULL, "len", op));
        DISPATCH();
    }

    TARGET(BUILD_TUPLE):        /* (v*n -- tuple) */
    TARGET(BUILD_LIST): {       /* (v*n -- list) */
        PyObject *r = op == TR_OP_BUILD_TUPLE ? tr_op_build_tuple(&PEEK(oparg), oparg)
                                              : tr_op_build_list(&PEEK(oparg), oparg);
        if (r == NULL)
            goto error;
        for (int i = 0; i < oparg; i++)
            CLEAR_VALUE(POP());
        PUSH_OBJ(r, mkprov(TR_PROV_BUILD, NULL, NULL, NULL, op));
        DISPATCH();
    }

    TARGET(BUILD_SET): {        /* (v*n -- set) */
        PyObject *r = tr_op_build_set(&PEEK(oparg), oparg);
        note_opaque(run, r, NULL);
        for (int i = 0; i < oparg; i++)
            CLEAR_VALUE(POP());
        if (r == NULL)
            goto error;
        PUSH_OBJ(r, mkprov(TR_PROV_BUILD, NULL, NULL, NULL, op));
        DISPATCH();
    }

    TARGET(BUILD_MAP): {        /* (k v * n -- dict) */
        PyObject *r = tr_op_build_map(&PEEK(2 * oparg), oparg);
        for (int i = 0; i < 2 * oparg; i++)
            CLEAR_VALUE(POP());
        if (r == NULL)
            goto error;
        PUSH_OBJ(r, mkprov(TR_PROV_BUILD, NULL, NULL, NULL, op));
        DISPATCH();
    }

    TARGET(BUILD_CONST_KEY_MAP): {  /* (v*n keys -- dict) */
        TrValue keys = POP();
        PyObject *r = tr_op_build_const_key_map(&PEEK(oparg), keys.obj, oparg);
        tr_value_clear(&keys);
        for (int i = 0; i < oparg; i++)
            CLEAR_VALUE(POP());
        if (r == NULL)
            goto error;
        PUSH_OBJ(r, mkprov(TR_PROV_BUILD, NULL, NULL, NULL, op));
        DISPATCH();
    }

    TARGET(BUILD_STRING): {     /* (s*n -- str) */
        PyObject *r = tr_op_build_string(&PEEK(oparg), oparg);
        for (int i = 0; i < oparg; i++)
            CLEAR_VALUE(POP());
        if (r == NULL)
            goto error;
        PUSH_OBJ(r, mkprov(TR_PROV_BUILD, NULL, NULL, NULL, op));
        DISPATCH();
    }

    TARGET(BUILD_SLICE): {      /* (start stop [step] -- slice) */
        TrValue step = {NULL, NULL};
        if (oparg == 3)
            step = POP();
        TrValue stop = POP(), start = TOP();
        PyObject *r = tr_op_build_slice(start.obj, stop.obj, step.obj);
        tr_value_clear(&step);
        tr_value_clear(&stop);
        if (r == NULL)
            goto error;
        tr_value_clear(&start);
        TOP() = tr_value_new(r, mkprov(TR_PROV_BUILD, NULL, NULL, NULL, op));
        DISPATCH();
    }

    TARGET(LIST_APPEND): {      /* (list ... v -- list ...) */
        TrValue v = POP();
        int err = tr_op_list_append(PEEK(oparg).obj, v.obj);
        tr_value_clear(&v);
        if (err < 0)
            goto error;
        DISPATCH();
    }

    TARGET(SET_ADD): {          /* (set ... v -- set ...) */
        TrValue v = POP();
        int err = tr_op_set_add(PEEK(oparg).obj, v.obj);
        note_opaque(run, v.obj, NULL);
        tr_value_clear(&v);
        if (err < 0)
            goto error;
        DISPATCH();
    }

    TARGET(MAP_ADD): {          /* (dict ... k v -- dict ...) */
        TrValue v = POP(), k = POP();
        int err = tr_op_map_add(PEEK(oparg).obj, k.obj, v.obj);
        note_opaque(run, k.obj, NULL);
        tr_value_clear(&k);
        tr_value_clear(&v);
        if (err < 0)
            goto error;
        DISPATCH();
    }

    TARGET(LIST_EXTEND): {      /* (list ... it -- list ...) */
        TrValue it = POP();
        int err = tr_op_list_extend(PEEK(oparg).obj, it.obj);
        note_opaque(run, it.obj, NULL);
        tr_value_clear(&it);
        if (err < 0)
            goto error;
        DISPATCH();
    }

    TARGET(SET_UPDATE): {       /* (set ... it -- set ...) */
        TrValue it = POP();
        int err = tr_op_set_update(PEEK(oparg).obj, it.obj);
        note_opaque(run, it.obj, NULL);
        tr_value_clear(&it);
        if (err < 0)
            goto error;
        DISPATCH();
    }

    TARGET(DICT_UPDATE): {      /* (dict ... m -- dict ...) */
        TrValue m = POP();
        int err = tr_op_dict_update(PEEK(oparg).obj, m.obj);
        note_opaque(run, m.obj, NULL);
        tr_value_clear(&m);
        if (err < 0)
            goto error;
        DISPATCH();
    }

    TARGET(DICT_MERGE): {       /* (func ... dict ... m -- same) */
        TrValue m = POP();
        int err = tr_op_dict_merge(PEEK(oparg + 2).obj, PEEK(oparg).obj, m.obj);
        note_opaque(run, m.obj, NULL);
        tr_value_clear(&m);
        if (err < 0)
            goto error;
        DISPATCH();
    }

    TARGET(LIST_TO_TUPLE): {    /* (list -- tuple) */
        TrValue l = TOP();
        PyObject *t = tr_op_list_to_tuple(l.obj);
        if (t == NULL)
            goto error;
        TOP() = tr_value_new(t, mkprov(TR_PROV_BUILD, NULL, NULL, NULL, op));
        tr_value_clear(&l);
        DISPATCH();
    }

    TARGET(UNPACK_SEQUENCE):    /* (seq -- v*n) */
    TARGET(UNPACK_EX): {        /* (seq -- v*before list v*after) */
        int before = op == TR_OP_UNPACK_SEQUENCE ? oparg : (oparg & 0xFF);
        int after = op == TR_OP_UNPACK_SEQUENCE ? -1 : (oparg >> 8);
        int total = before + (after >= 0 ? after + 1 : 0);
        TrValue seq = POP();
        TrValue *vals = PyMem_Calloc((size_t)total + 1, sizeof(TrValue));
        if (vals == NULL) {
            tr_value_clear(&seq);
            PyErr_NoMemory();
            goto error;
        }
        int err = tr_op_unpack(seq, before, after, vals);
        note_opaque(run, seq.obj, NULL);
        tr_value_clear(&seq);
        if (err == 0) {
            for (int i = total - 1; i >= 0; i--)
                PUSH(vals[i]);
        }
        PyMem_Free(vals);
        if (err < 0)
            goto error;
        DISPATCH();
    }

    TARGET(GET_ITER): {         /* (iterable -- iter) */
        TrValue v = TOP();
        PyObject *fn = tr_op_special_function(v.obj, "__iter__");
        if (fn != NULL) {
            /* A Python __iter__ (slot_tp_iter): interpreted. */
            TrValue callee = {fn, NULL}, r = {NULL, NULL};
            int err = tr_call(run, callee, &v, 1, NULL, &r);
            Py_DECREF(fn);
            if (err < 0)
                goto error;
            if (!PyIter_Check(r.obj)) {
                PyErr_Format(PyExc_TypeError, "iter() returned non-iterator of type '%.100s'",
                             Py_TYPE(r.obj)->tp_name);
                tr_value_clear(&r);
                goto error;
            }
            TOP() = r;
            tr_value_clear(&v);
            DISPATCH();
        }
        if (PyErr_Occurred())
            goto error;
        PyObject *it = tr_op_get_iter(v.obj);
        note_opaque(run, v.obj, NULL);
        if (it == NULL)
            goto error;
        TOP() = tr_value_new(it, mkprov(TR_PROV_ITER, v.prov, NULL, NULL, 0));
        tr_value_clear(&v);
        DISPATCH();
    }

    TARGET(FOR_ITER): {         /* (iter -- iter v) or (iter -- ) and jump */
        TrValue it = TOP();
        PyObject *fn;
        TrValue nv = {NULL, NULL};
        if (tr_gen_check(it.obj)) {
            nv.obj = tr_gen_next_traced(it.obj);   /* its body is traced: no escape */
        }
        else if ((fn = tr_op_special_function(it.obj, "__next__")) != NULL) {
            /* A Python __next__ (slot_tp_iternext): interpreted. */
            TrValue callee = {fn, NULL};
            if (tr_call(run, callee, &it, 1, NULL, &nv) < 0)
                nv.obj = NULL;
            Py_DECREF(fn);
        }
        else if (!PyErr_Occurred()) {
            (void)tr_op_for_iter(it.obj, &nv.obj);   /* an error stays set for the check below */
            note_opaque(run, it.obj, NULL);
        }
        if (nv.obj != NULL) {
            if (nv.prov == NULL)
                nv.prov = mkprov(TR_PROV_ITER, it.prov, NULL, NULL, 1);
            PUSH(nv);
            DISPATCH();
        }
        if (tr_op_iter_end() < 0)
            goto error;
        CLEAR_VALUE(POP());
        JUMPBY(oparg);
        DISPATCH();
    }

    TARGET(JUMP_FORWARD):       /* ( -- ) */
        JUMPBY(oparg);
        DISPATCH();

    TARGET(JUMP_BACKWARD):
    TARGET(JUMP_BACKWARD_NO_INTERRUPT):
        JUMPBY(-oparg);
        DISPATCH();

    TARGET(POP_JUMP_FORWARD_IF_FALSE):   /* (cond -- ) */
    TARGET(POP_JUMP_FORWARD_IF_TRUE):
    TARGET(POP_JUMP_BACKWARD_IF_FALSE):
    TARGET(POP_JUMP_BACKWARD_IF_TRUE): {
        TrValue c = POP();
        int delta = 0;
        int t = tr_op_pop_jump(op, oparg, c.obj, &delta);
        note_opaque(run, c.obj, NULL);
        tr_value_clear(&c);
        if (t < 0)
            goto error;
        JUMPBY(delta);
        DISPATCH();
    }

    TARGET(POP_JUMP_FORWARD_IF_NONE):    /* (v -- ) */
    TARGET(POP_JUMP_FORWARD_IF_NOT_NONE):
    TARGET(POP_JUMP_BACKWARD_IF_NONE):
    TARGET(POP_JUMP_BACKWARD_IF_NOT_NONE): {
        TrValue c = POP();
        int delta = 0;
        (void)tr_op_pop_jump(op, oparg, c.obj, &delta);   /* an identity test: cannot fail */
        tr_value_clear(&c);
        JUMPBY(delta);
        DISPATCH();
    }

    TARGET(JUMP_IF_FALSE_OR_POP):        /* (cond -- cond) jump, or (cond -- ) */
    TARGET(JUMP_IF_TRUE_OR_POP): {
        int t = tr_op_jump_or_pop(op, TOP().obj);
        note_opaque(run, TOP().obj, NULL);
        if (t < 0)
            goto error;
        if (t)
            JUMPBY(oparg);
        else
            CLEAR_VALUE(POP());
        DISPATCH();
    }

    TARGET(RETURN_VALUE):       /* (v -- ) and leave */
        *out = POP();
        rc = 0;
        goto done;

    TARGET(LOAD_ATTR): {        /* (owner -- v) */
        PyObject *name = GETNAME(oparg);
        TrValue owner = TOP(), v = {NULL, NULL};
        tr_dict_settle(owner.obj);
        int hit = tr_attr_load_fast(run, owner, name, &v);   /* served, recorded, checked */
        if (hit < 0)
            goto error;
        if (!hit) {
            if (tr_attr_get(run, owner, name, &v) < 0)
                goto error;
            if (tr_provcheck_on && tr_provcheck_traced(owner.obj, name, v.obj, TR_PC_LOAD_ATTR,
                                                       v.prov) < 0) {
                tr_value_clear(&v);
                goto error;
            }
        }
        TOP() = v;                 /* tr_attr_get recorded the load in the trace */
        tr_value_clear(&owner);
        DISPATCH();
    }

    TARGET(LOAD_METHOD): {      /* (owner -- meth self) or (owner -- NULL attr) */
        PyObject *name = GETNAME(oparg);
        TrValue owner = TOP(), m = {NULL, NULL};
        tr_dict_settle(owner.obj);
        int unbound = tr_attr_get_method(run, owner, name, &m);
        if (unbound < 0)
            goto error;
        if (tr_provcheck_on && tr_provcheck_traced(owner.obj, name, m.obj, unbound ?
                                                   TR_PC_LOAD_METHOD : TR_PC_LOAD_ATTR,
                                                   m.prov) < 0) {
            tr_value_clear(&m);
            goto error;
        }
        if (unbound) {
            TOP() = m;
            PUSH(owner);
        }
        else {
            TOP() = tr_value_new(NULL, NULL);
            PUSH(m);
            tr_value_clear(&owner);
        }
        DISPATCH();
    }

    TARGET(STORE_ATTR): {       /* (v owner -- ) */
        PyObject *name = GETNAME(oparg);
        TrValue owner = POP(), v = POP();
        tr_dict_settle(owner.obj);
        int err = tr_attr_set(run, owner, name, v);
        tr_value_clear(&owner);
        tr_value_clear(&v);
        if (err < 0)
            goto error;
        DISPATCH();
    }

    TARGET(DELETE_ATTR): {      /* (owner -- ) */
        PyObject *name = GETNAME(oparg);
        TrValue owner = POP();
        tr_dict_settle(owner.obj);
        int err = tr_attr_del(run, owner, name);
        tr_value_clear(&owner);
        if (err < 0)
            goto error;
        DISPATCH();
    }

    TARGET(PRECALL): {          /* unpacks a bound method: (NULL m args -- f self args) */
        int is_meth = PEEK(oparg + 2).obj != NULL;
        TrValue *callable = &PEEK(oparg + 1);
        if (!is_meth && Py_IS_TYPE(callable->obj, &PyMethod_Type)) {
            PyObject *self = PyMethod_GET_SELF(callable->obj);
            PyObject *fn = PyMethod_GET_FUNCTION(callable->obj);
            TrValue m = *callable;
            PEEK(oparg + 2) = tr_value_new(Py_NewRef(fn), mkprov(TR_PROV_ATTR, m.prov, NULL,
                                                                 NULL, 0));
            *callable = tr_value_new(Py_NewRef(self), mkprov(TR_PROV_ATTR, m.prov, NULL, NULL, 1));
            if (PEEK(oparg + 2).prov != NULL)
                PEEK(oparg + 2).prov->detail = "__func__";
            if (callable->prov != NULL)
                callable->prov->detail = "__self__";
            tr_value_clear(&m);
        }
        DISPATCH();
    }

    TARGET(KW_NAMES):           /* ( -- ): names the next CALL's trailing arguments */
        f->kwnames = PyTuple_GET_ITEM(co->co_consts, oparg);
        DISPATCH();

    TARGET(CALL): {             /* (NULL|meth callable|self args -- r) */
        int is_meth = PEEK(oparg + 2).obj != NULL;
        int nargs = oparg + is_meth;
        TrValue callable = PEEK(nargs + 1);
        PyObject *kwnames = f->kwnames;
        f->kwnames = NULL;
        TrValue r = {NULL, NULL};
        int err = tr_call_stack(run, callable, &PEEK(nargs), nargs, kwnames, &r);
        tr_op_pop_call(f, oparg);  /* [NULL f args] or [meth self args], in ceval's order */
        SP_RELOAD();
        if (err < 0)
            goto error;
        PUSH(r);
        DISPATCH();
    }

    TARGET(CALL_FUNCTION_EX): { /* (NULL func callargs [kwargs] -- r) */
        TrValue kwargs = {NULL, NULL};
        if (oparg & 1)
            kwargs = POP();
        TrValue callargs = POP();
        TrValue r = {NULL, NULL};
        int err = call_ex(run, TOP(), callargs, kwargs, &r);
        CLEAR_VALUE(POP());        /* ceval's order: func, callargs, kwargs */
        tr_value_clear(&callargs);
        tr_value_clear(&kwargs);
        CLEAR_VALUE(POP());        /* the NULL below the function */
        if (err < 0)
            goto error;
        PUSH(r);
        DISPATCH();
    }

    TARGET(MAKE_FUNCTION): {    /* ([defaults] [kwdefaults] [annotations] [closure] code -- fn) */
        int n;
        PyObject *fn = tr_op_make_function_on_stack(f, oparg, &n);
        for (int i = 0; i < n; i++)
            CLEAR_VALUE(POP());
        if (fn == NULL)
            goto error;
        PUSH_OBJ(fn, mkprov(TR_PROV_FUNC, NULL, NULL, ((PyFunctionObject *)fn)->func_qualname, 0));
        DISPATCH();
    }

    TARGET(RAISE_VARARGS): {    /* ([exc [cause]] -- ) */
        TrValue cause = {NULL, NULL}, exc = {NULL, NULL};
        if (oparg > 2) {
            PyErr_SetString(PyExc_SystemError, "bad RAISE_VARARGS oparg");
            goto error;
        }
        if (oparg == 2)
            cause = POP();
        if (oparg >= 1)
            exc = POP();
        int reraise = tr_exc_do_raise(run, exc.obj, cause.obj);
        tr_value_clear(&exc);
        tr_value_clear(&cause);
        if (reraise)
            goto exception_unwind;
        goto error;
    }

    TARGET(LOAD_ASSERTION_ERROR):   /* ( -- AssertionError) */
        PUSH_OBJ(Py_NewRef(PyExc_AssertionError),
                 mkprov(TR_PROV_BUILTIN, NULL, NULL, NULL, 0));
        DISPATCH();

    TARGET(PUSH_EXC_INFO): {    /* (exc -- prev exc): exc becomes the handled exception */
        TrValue exc = POP();
        PUSH_OBJ(tr_op_push_exc_info(exc.obj), NULL);
        PUSH(exc);
        DISPATCH();
    }

    TARGET(POP_EXCEPT): {       /* (prev -- ): restores the handled exception */
        TrValue prev = POP();
        tr_op_pop_except(prev.obj);
        tr_value_clear(&prev);
        DISPATCH();
    }

    TARGET(RERAISE): {          /* ([lasti] ... exc -- ) */
        TrValue exc = POP();
        int err = tr_op_reraise(exc.obj, oparg ? PEEK(oparg).obj : NULL, &f->lasti);
        tr_value_clear(&exc);
        if (err < 0)
            goto error;
        goto exception_unwind;     /* a re-raise adds no traceback entry */
    }

    TARGET(CHECK_EXC_MATCH): {  /* (exc type -- exc bool) */
        TrValue right = POP();
        PyObject *r = tr_op_check_exc_match(TOP().obj, right.obj);
        tr_value_clear(&right);
        if (r == NULL)
            goto error;
        PUSH_OBJ(r, NULL);
        DISPATCH();
    }

    TARGET(CHECK_EG_MATCH): {   /* (exc type -- rest match) or (exc type -- exc None) */
        TrValue type = POP();
        if (tr_exc_check_star_type(type.obj) < 0) {
            tr_value_clear(&type);
            goto error;
        }
        PyObject *match, *rest;
        int err = tr_exc_group_match(TOP().obj, type.obj, &match, &rest);
        tr_value_clear(&type);
        if (err < 0)
            goto error;
        if (match == Py_None) {
            Py_DECREF(rest);
            PUSH_OBJ(match, NULL);
        }
        else {
            CLEAR_VALUE(TOP());
            TOP() = tr_value_new(rest, mkprov(TR_PROV_EXC, NULL, NULL, NULL, 0));
            PUSH_OBJ(match, mkprov(TR_PROV_EXC, NULL, NULL, NULL, 0));
            PyErr_SetHandledException(match);
        }
        DISPATCH();
    }

    TARGET(PREP_RERAISE_STAR): {    /* (orig excs -- exc) */
        TrValue excs = POP(), orig = TOP();
        PyObject *r = tr_exc_prep_reraise_star(orig.obj, excs.obj);
        tr_value_clear(&excs);
        if (r == NULL)
            goto error;
        TOP() = tr_value_new(r, mkprov(TR_PROV_EXC, NULL, NULL, NULL, 0));
        tr_value_clear(&orig);
        DISPATCH();
    }

    TARGET(BEFORE_WITH): {      /* (mgr -- exit res) */
        TrValue mgr = TOP();
        PyObject *enter = tr_op_lookup_special(mgr.obj, "__enter__");
        if (enter == NULL) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_TypeError,
                             "'%.200s' object does not support the context manager protocol",
                             Py_TYPE(mgr.obj)->tp_name);
            goto error;
        }
        PyObject *exit = tr_op_lookup_special(mgr.obj, "__exit__");
        if (exit == NULL) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_TypeError,
                             "'%.200s' object does not support the context manager protocol "
                             "(missed __exit__ method)", Py_TYPE(mgr.obj)->tp_name);
            Py_DECREF(enter);
            goto error;
        }
        TOP() = tr_value_new(exit, mkprov(TR_PROV_ATTR, mgr.prov, NULL, NULL, 0));
        TrValue callee = tr_value_new(enter, mkprov(TR_PROV_ATTR, mgr.prov, NULL, NULL, 0));
        tr_value_clear(&mgr);
        TrValue r = {NULL, NULL};
        int err = tr_call(run, callee, NULL, 0, NULL, &r);
        tr_value_clear(&callee);
        if (err < 0)
            goto error;
        PUSH(r);
        DISPATCH();
    }

    TARGET(WITH_EXCEPT_START): {    /* (exit lasti prev exc -- exit lasti prev exc r) */
        TrValue exc = TOP();
        TrValue exit = PEEK(4);
        PyObject *tb = PyException_GetTraceback(exc.obj);
        TrValue args[3] = {
            {(PyObject *)Py_TYPE(exc.obj), NULL}, exc, {tb != NULL ? tb : Py_None, NULL}};
        TrValue r = {NULL, NULL};
        int err = tr_call(run, exit, args, 3, NULL, &r);
        Py_XDECREF(tb);
        if (err < 0)
            goto error;
        PUSH(r);
        DISPATCH();
    }

    TARGET(MATCH_MAPPING):      /* (subject -- subject bool) */
    TARGET(MATCH_SEQUENCE): {
        unsigned long flag = op == TR_OP_MATCH_MAPPING ? Py_TPFLAGS_MAPPING : Py_TPFLAGS_SEQUENCE;
        int res = PyType_HasFeature(Py_TYPE(TOP().obj), flag);
        PUSH_OBJ(Py_NewRef(res ? Py_True : Py_False), NULL);
        DISPATCH();
    }

    TARGET(MATCH_KEYS): {       /* (subject keys -- subject keys values|None) */
        PyObject *values = tr_op_match_keys(SECOND().obj, TOP().obj);
        note_opaque(run, SECOND().obj, NULL);
        if (values == NULL)
            goto error;
        PUSH_OBJ(values, mkprov(TR_PROV_SUBSCR, SECOND().prov, NULL, NULL, 0));
        DISPATCH();
    }

    TARGET(MATCH_CLASS): {      /* (subject type names -- attrs|None) */
        TrValue names = POP(), type = POP();
        PyObject *attrs = NULL;
        int m = tr_op_match_class(run, TOP(), type.obj, oparg, names.obj, &attrs);
        tr_value_clear(&names);
        tr_value_clear(&type);
        if (m < 0)
            goto error;
        TrValue subject = TOP();
        TOP() = tr_value_new(m ? attrs : Py_NewRef(Py_None),
                             mkprov(TR_PROV_UNPACK, subject.prov, NULL, NULL, 0));
        tr_value_clear(&subject);
        DISPATCH();
    }

    TARGET(FORMAT_VALUE): {     /* (v [spec] -- str) */
        TrValue spec = {NULL, NULL};
        if ((oparg & 4) == 4)
            spec = POP();
        TrValue v = TOP();
        PyObject *r = tr_op_format(v.obj, oparg & 3, spec.obj);
        note_opaque(run, v.obj, NULL);
        tr_value_clear(&spec);
        if (r == NULL)
            goto error;
        TOP() = tr_value_new(r, prov_op(TR_PROV_UNOP, v.prov, NULL, "format", op));
        tr_value_clear(&v);
        DISPATCH();
    }

    TARGET(SWAP): {             /* (a ... b -- b ... a) */
        TrValue t = TOP();
        TOP() = PEEK(oparg);
        PEEK(oparg) = t;
        DISPATCH();
    }

    TARGET(COPY): {             /* (a ... -- a ... a) */
        PUSH(tr_value_dup(PEEK(oparg)));
        DISPATCH();
    }

    TARGET(IMPORT_NAME): {      /* (level fromlist -- module) */
        PyObject *name = GETNAME(oparg);
        TrValue fromlist = POP(), level = TOP();
        PyObject *m = tr_op_import_name(f, name, fromlist.obj, level.obj);
        tr_attr_note_escape(run);
        tr_value_clear(&fromlist);
        if (m == NULL)
            goto error;
        tr_value_clear(&level);
        TOP() = tr_value_new(m, mkprov(TR_PROV_IMPORT, NULL, NULL, name, 0));
        DISPATCH();
    }

    TARGET(IMPORT_FROM): {      /* (module -- module v) */
        PyObject *name = GETNAME(oparg);
        PyObject *v = tr_op_import_from(TOP().obj, name);
        if (v == NULL)
            goto error;
        PUSH_OBJ(v, mkprov(TR_PROV_IMPORT, TOP().prov, NULL, name, 0));
        DISPATCH();
    }

    TARGET(LOAD_BUILD_CLASS): { /* ( -- __build_class__) */
        PyObject *bc = PyDict_GetItemString(f->builtins, "__build_class__");
        if (bc == NULL) {
            PyErr_SetString(PyExc_NameError, "__build_class__ not found");
            goto error;
        }
        PyObject *name = PyUnicode_InternFromString("__build_class__");
        PUSH_OBJ(Py_NewRef(bc), mkprov(TR_PROV_BUILTIN, NULL, NULL, name, 0));
        Py_XDECREF(name);
        PyErr_Clear();
        DISPATCH();
    }

    TARGET(SETUP_ANNOTATIONS): {    /* ( -- ): __annotations__ = {} in the class body */
        if (f->locals == NULL) {
            PyErr_SetString(PyExc_SystemError, "no locals found when setting up annotations");
            goto error;
        }
        PyObject *key = PyUnicode_InternFromString("__annotations__");
        if (key == NULL)
            goto error;
        PyObject *ann = PyObject_GetItem(f->locals, key);
        if (ann != NULL) {
            Py_DECREF(ann);
            Py_DECREF(key);
            DISPATCH();
        }
        if (!PyErr_ExceptionMatches(PyExc_KeyError)) {
            Py_DECREF(key);
            goto error;
        }
        PyErr_Clear();
        ann = PyDict_New();
        int err = ann == NULL ? -1 : PyObject_SetItem(f->locals, key, ann);
        Py_XDECREF(ann);
        Py_DECREF(key);
        if (err < 0)
            goto error;
        DISPATCH();
    }

    TARGET(IMPORT_STAR): {      /* (module -- ): every public name into the locals */
        TrValue from = POP();
        int err = -1;
        if (f->locals == NULL)
            PyErr_SetString(PyExc_SystemError, "no locals found during 'import *'");
        else
            err = tr_op_import_star(f->locals, from.obj);
        tr_attr_note_escape(run);
        tr_value_clear(&from);
        if (err < 0)
            goto error;
        DISPATCH();
    }

    TARGET(PRINT_EXPR): {       /* (v -- ): sys.displayhook(v) */
        TrValue v = POP();
        PyObject *hook = PySys_GetObject("displayhook");
        PyObject *r = NULL;
        if (hook == NULL)
            PyErr_SetString(PyExc_RuntimeError, "lost sys.displayhook");
        else
            r = PyObject_CallOneArg(hook, v.obj);
        tr_attr_note_escape(run);
        tr_value_clear(&v);
        if (r == NULL)
            goto error;
        Py_DECREF(r);
        DISPATCH();
    }

    /* Generators (tr_gen.c): the generator object holds this frame; the first
     * resume runs from instruction 0, so RETURN_GENERATOR stands where CPython
     * resumes a new generator and pushes the value of that first send (None). */
    TARGET(RETURN_GENERATOR):   /* ( -- None) */
        PUSH_OBJ(Py_NewRef(Py_None), NULL);
        DISPATCH();

    TARGET(YIELD_VALUE):        /* (v -- ) and suspend; resumed with the sent value */
        *out = POP();
        f->next = next;
        rc = 1;
        goto done;

    TARGET(GET_YIELD_FROM_ITER): {  /* (iterable -- iter) */
        TrValue v = TOP();
        if (PyCoro_CheckExact(v.obj)) {
            if (!(co->co_flags & (CO_COROUTINE | CO_ITERABLE_COROUTINE))) {
                PyErr_SetString(PyExc_TypeError,
                                "cannot 'yield from' a coroutine object in a non-coroutine "
                                "generator");
                goto error;
            }
        }
        else if (!PyGen_CheckExact(v.obj) && !tr_gen_check(v.obj)) {
            PyObject *it = tr_op_get_iter(v.obj);
            note_opaque(run, v.obj, NULL);
            if (it == NULL)
                goto error;
            TOP() = tr_value_new(it, mkprov(TR_PROV_ITER, v.prov, NULL, NULL, 0));
            tr_value_clear(&v);
        }
        DISPATCH();
    }

    TARGET(SEND): {             /* (receiver v -- receiver r) or (receiver v -- r) jump */
        TrValue v = POP();
        TrValue receiver = TOP();
        PyObject *r = NULL;
        PySendResult st = PyIter_Send(receiver.obj, v.obj, &r);
        note_opaque(run, receiver.obj, NULL);
        tr_value_clear(&v);
        if (st == PYGEN_ERROR)
            goto error;
        if (st == PYGEN_RETURN) {
            TOP() = tr_value_new(r, mkprov(TR_PROV_ITER, receiver.prov, NULL, NULL, 2));
            tr_value_clear(&receiver);
            JUMPBY(oparg);
            DISPATCH();
        }
        PUSH_OBJ(r, mkprov(TR_PROV_ITER, receiver.prov, NULL, NULL, 1));
        DISPATCH();
    }

    /* Excluded opcodes (tr_opcodes.def gives each reason): never compiled into the
     * code the tracer interprets, since generator, coroutine and module bodies run
     * natively. Reaching one is a tracer limitation, reported as Unsupported. */
    TARGET(CACHE):
    TARGET(GET_AWAITABLE):
    TARGET(GET_AITER):
    TARGET(GET_ANEXT):
    TARGET(END_ASYNC_FOR):
    TARGET(BEFORE_ASYNC_WITH):
    TARGET(ASYNC_GEN_WRAP):
        PyErr_Format(tr_Unsupported, "the tracer does not interpret %s (in %U)",
                     op_names[op], co->co_qualname);
        goto error;

    default:
    TARGET_UNKNOWN
        PyErr_Format(tr_Unsupported, "unknown opcode %d in %U", op, co->co_qualname);
        goto error;
    }

error:
    if (!PyErr_Occurred()) {
        fprintf(stderr, "tracefuzz: %s failed without an exception\n",
                op_names[op] ? op_names[op] : "?");
        abort();
    }
    if (!tr_exc_is_internal()) {
        tr_exc_add_traceback(f);
        record_exception(run, f, "RAISE");
    }
exception_unwind: {
    int handler, level, push_lasti;
    if (tr_exc_is_internal()) {
        PyErr_SetHandledException(saved_handled);
        goto exit_error;
    }
    if (!tr_exc_find_handler(co, here, &handler, &level, &push_lasti))
        goto exit_error;
    int entered = tr_exc_enter_handler(f, level, push_lasti);
    SP_RELOAD();   /* popped to level, even when it fails */
    if (entered < 0)
        goto exit_error;
    TOP().prov = mkprov(TR_PROV_EXC, NULL, NULL, NULL, 0);
    if (tr_trace_record_cname(run, "EXCEPT", Py_TYPE(TOP().obj)->tp_name, co->co_qualname,
                              NULL, NULL) < 0)
        PyErr_Clear();   /* the trace is best effort; the program's exception is on the stack */
    f->kwnames = NULL;
    next = handler;
    dbg.check = 0;
    DISPATCH();
}

exit_error:
    release_stack(f);   /* f->sp is sp: written through */
    rc = -1;
    f->next = next;
done:
    Py_XDECREF(saved_handled);
    return rc;
}
