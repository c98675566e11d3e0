/* tr_replay.c: replaying a recorded trace, and side exits (docs/REUSE.md).
 *
 * The replayer runs the steps of a TrRecTrace over a real TrFrame (tr_frame.h) whose
 * values carry no provenance: nothing is decoded, attribute loads run only their
 * resolved step once the inline guards of tr_guard.c hold (a getter's __get__ called
 * again, the instance dict read again, a guarded class attribute reused), calls run
 * natively (CPython itself runs the callees, so the event log is eager's). After each
 * step the instruction that comes next must be the next recorded step: a branch taken
 * the other way, a loop running longer or shorter, an exception where the trace had
 * none (or none where it had one), a failing inline guard, all leave the trace there: a
 * SIDE EXIT hands the same frame (locals, stack, handled exception) to the tracer's
 * interpreter (tr_frame_run), which continues from that instruction, so nothing that
 * ran runs again. Side exits only ever happen in the top-level frame: callees are not
 * inlined into a trace, so there is nothing to resume inside them.
 *
 * Under the fault no_invalidate_on_store, instance-dict loads are forwarded within one
 * replay (a load of (obj, name) remembered and reused by the next load of it) as long
 * as nothing that may run user code ran in between: escaping calls forget them, stores
 * forget nothing, which is the bug. Without the fault nothing is forwarded: the dict
 * key guard checked just before the load hands it the dict's live value (its memo or
 * its lookup), which is what a correct forward would return.
 */
#include "tr_reuse.h"
#include "tr_frame.h"
#include "tr_attr.h"
#include "tr_faults.h"
#include "tr_provcheck.h"
#include "tr_ops.h"
#include <structmember.h>

/* ---- load forwarding ---- */
#define TR_FWD_MAX 16
typedef struct {
    PyObject *obj;       /* borrowed: one of the call's arguments, alive for the call */
    PyObject *name;      /* strong */
    PyObject *value;     /* strong (the instance dict holds it too until a store or an
                            escape, which forget it first: no lifetime is extended) */
} TrFwd;

typedef struct {
    TrFwd fwd[TR_FWD_MAX];
    int nfwd;                /* stays 0 unless forward */
    int forward;             /* the fault no_invalidate_on_store is on */
    unsigned faults;
    PyObject *const *args;   /* the call's positional arguments (borrowed) */
    Py_ssize_t nargs;
} TrReplayState;

static void fwd_forget_slow(TrReplayState *st)
{
    for (int i = 0; i < st->nfwd; i++) {
        st->fwd[i].obj = NULL;
        Py_CLEAR(st->fwd[i].name);
        Py_CLEAR(st->fwd[i].value);
    }
    st->nfwd = 0;
}

static inline void fwd_forget_all(TrReplayState *st)
{
    if (st->nfwd != 0)
        fwd_forget_slow(st);
}

static PyObject *fwd_find(TrReplayState *st, PyObject *obj, PyObject *name)  /* borrowed */
{
    for (int i = 0; i < st->nfwd; i++) {
        if (st->fwd[i].obj == obj && st->fwd[i].name == name)
            return st->fwd[i].value;
    }
    return NULL;
}

static void fwd_remember(TrReplayState *st, PyObject *obj, PyObject *name, PyObject *value)
{
    for (int i = 0; i < st->nfwd; i++) {
        if (st->fwd[i].obj == obj && st->fwd[i].name == name) {
            Py_SETREF(st->fwd[i].value, Py_NewRef(value));
            return;
        }
    }
    int is_arg = 0;
    for (Py_ssize_t k = 0; k < st->nargs && !is_arg; k++)
        is_arg = st->args[k] == obj;
    if (st->nfwd == TR_FWD_MAX || !is_arg)
        return;
    st->fwd[st->nfwd].obj = obj;
    st->fwd[st->nfwd].name = Py_NewRef(name);
    st->fwd[st->nfwd].value = Py_NewRef(value);
    st->nfwd++;
}

/* A store or delete of owner.name through the attribute protocol. */
static void fwd_note_store(TrReplayState *st, PyObject *owner, PyObject *name)
{
    if ((st->faults >> TR_FAULT_NO_INVALIDATE_ON_STORE) & 1u)
        return;   /* the bug: what was remembered stays */
    (void)owner;
    (void)name;
    fwd_forget_all(st);   /* __setattr__, __set__ or a class write may run user code */
}

/* A call that runs no user code and writes no instance dict: list.append and
 * list.insert through LOAD_METHOD (an unbound method descriptor and an exact list),
 * or what the tracer's own allow-list says (tr_call_is_pure). */
static int pure_call(PyObject *callable, const TrValue *args, Py_ssize_t nargs,
                     PyObject *kwnames)
{
    if (Py_IS_TYPE(callable, &PyMethodDescr_Type) && kwnames == NULL && nargs >= 1 &&
        PyDescr_TYPE(callable) == &PyList_Type && PyList_CheckExact(args[0].obj)) {
        const char *n = ((PyMethodDescrObject *)callable)->d_method->ml_name;
        return strcmp(n, "append") == 0 || strcmp(n, "insert") == 0;
    }
    return tr_call_is_pure(callable, args, nargs, kwnames);
}

/* ---- the resolved step of an attribute load ---- */

/* The load of a step whose guards passed: a new reference or NULL. */
static PyObject *replay_load(TrReplayState *st, TrAttrStep *s, PyObject *owner)
{
    PyObject *r = NULL;
    if (s->result != NULL)          /* fault skip_getter_on_replay */
        return Py_NewRef(s->result);
    switch (s->kind) {
    case TR_AK_INST_DICT: {
        PyObject *v;
        if (st->forward && (v = fwd_find(st, owner, s->name)) != NULL)
            return Py_NewRef(v);
        /* The guard that just passed looked the key up: its value, nothing ran since. */
        v = tr_guard_dict_value(s);
        if (v == NULL) {
            PyErr_SetString(PyExc_SystemError, "tracer: guarded dict key vanished");
            return NULL;
        }
        if (st->forward)
            fwd_remember(st, owner, s->name, v);
        return Py_NewRef(v);
    }
    case TR_AK_CLASS_ATTR:
    case TR_AK_TYPE_STABLE:
        return Py_NewRef(s->descr);      /* stable: the guarded class attribute */
    case TR_AK_META_STABLE:
        return Py_NewRef(s->meta_descr);
    case TR_AK_DATA_DESC:
        if (Py_IS_TYPE(s->descr, &PyMemberDescr_Type) &&
            !(((PyMemberDescrObject *)s->descr)->d_member->flags & PY_AUDIT_READ)) {
            /* A slot: member_get runs no user code (no audit hook), so forwarded
             * loads stay; a set T_OBJECT_EX slot (the guard checked it and the
             * owner's type) is read in place. */
            PyMemberDef *m = ((PyMemberDescrObject *)s->descr)->d_member;
            if (s->slot_set == 1 && m->type == T_OBJECT_EX) {
                PyObject *v = *(PyObject **)((char *)owner + m->offset);
                if (v != NULL)
                    return Py_NewRef(v);
            }
            r = s->dget(s->descr, owner, (PyObject *)Py_TYPE(owner));
            break;
        }
        /* fall through */
    case TR_AK_NONDATA_DESC:
        fwd_forget_all(st);
        r = s->dget(s->descr, owner, (PyObject *)Py_TYPE(owner));
        break;
    case TR_AK_META_DATA:
    case TR_AK_META_NONDATA:
        fwd_forget_all(st);
        return s->dget(s->meta_descr, owner, (PyObject *)Py_TYPE(owner));
    case TR_AK_TYPE_DESC:
        fwd_forget_all(st);
        return Py_TYPE(s->descr)->tp_descr_get(s->descr, NULL, owner);
    case TR_AK_GETATTR:
        fwd_forget_all(st);
        PyErr_SetNone(PyExc_AttributeError);   /* replaced by the hook's result below */
        break;
    default:
        fwd_forget_all(st);
        return PyObject_GetAttr(owner, s->name);
    }
    /* slot_tp_getattr_hook: any AttributeError of the generic part calls __getattr__. */
    if (r == NULL && s->hook != NULL && PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear();
        descrgetfunc g = Py_TYPE(s->hook)->tp_descr_get;
        if (g == NULL) {              /* call_attribute: not bound, called with the name */
            r = PyObject_CallOneArg(s->hook, s->name);
        }
        else {
            PyObject *bound = g(s->hook, owner, (PyObject *)Py_TYPE(owner));
            r = bound != NULL ? PyObject_CallOneArg(bound, s->name) : NULL;
            Py_XDECREF(bound);
        }
    }
    return r;
}

/* 1 when replay_load of s, its guards passed, runs no user code and frees nothing: a
 * dict value (or a forwarded one), a guarded stable value, a set T_OBJECT_EX slot read
 * in place (the guard checked it is set), LOAD_METHOD's unbound function. Such a
 * load may follow LOAD_FAST without the owner on the stack (the local holds it), and
 * moves no epoch. */
static int fused_kind_of(const TrAttrStep *s, int op)
{
    switch (s->kind) {
    case TR_AK_INST_DICT:
    case TR_AK_CLASS_ATTR:
    case TR_AK_TYPE_STABLE:
    case TR_AK_META_STABLE:
        return 1;
    case TR_AK_METHOD:
        return op == TR_OP_LOAD_METHOD;
    case TR_AK_DATA_DESC:
        return s->slot_set == 1 && Py_IS_TYPE(s->descr, &PyMemberDescr_Type) &&
               ((PyMemberDescrObject *)s->descr)->d_member->type == T_OBJECT_EX &&
               !(((PyMemberDescrObject *)s->descr)->d_member->flags & PY_AUDIT_READ);
    default:
        return 0;
    }
}

/* fused_kind_of, kept in the entry (an entry belongs to one instruction): calm 1 no,
 * 2 yes, 3 yes and the entry's loads may hoist (prepare, hoist_sites). */
TR_HOT_INLINE int fused_kind(TrAttrStep *s, int op)
{
    if (s->calm == 0)
        s->calm = (unsigned char)(1 + fused_kind_of(s, op));
    return s->calm >= 2;
}

/* A calm-4 entry's oracle pass for owner, its guards passed in full just before, no
 * fault on (provcheck_hoisted with hoists 4): the versions the guards and the oracle
 * read are kept for versioned_hit, the owner's type's valid version tag and its
 * instance dict's version. Returns 1 when kept; 0 when the type has no valid tag
 * (nothing written: the entry's last record, if any, still stands for the versions it
 * kept). Out of line: the replay's loop stays as it was for the other entries.
 * Borrows owner, takes nothing. */
static __attribute__((noinline)) int provcheck_keep_versions(TrAttrStep *a, PyObject *owner)
{
    unsigned int tag = tr_pc_valid_tag(Py_TYPE(owner));
    if (tag == 0)
        return 0;
    a->vh_tag = tag;
    a->vh_dict_ver = tr_pc_dict_version(owner);
    return 1;
}

/* 1 when a calm-4 entry's load on owner reads what its last full pass read
 * (provcheck_versioned): the same owner (address and type), the type's valid version
 * tag unchanged, the instance dict's version unchanged (0 both: no dict), no fault on
 * and the oracle on. What the guards and the oracle read is then the same state: the
 * type's attributes and slots (tp_getattro, the MRO's dicts, the descriptor found)
 * change only with a new tag (type_setattro calls PyType_Modified, which reaches the
 * subclasses; tags are never given twice), the instance dict only with a new version
 * (PEP 509: one counter for every dict state; a new dict, another owner at the same
 * address included, has a new one), the descriptor's type is immutable (hoist_sites)
 * and the entry reads no slot. So both would pass again with the same value, pc_value,
 * which the dict or the type still holds (the same version). The epoch is not asked:
 * the versions stand for it, across calls. Borrows owner; may materialise its dict
 * (tr_dict_ptr: the epoch moves, the version then differs). */
TR_HOT_INLINE int versioned_hit(const TrAttrStep *a, PyObject *owner)
{
    PyTypeObject *tp = Py_TYPE(owner);
    return a->pc_owner == owner && a->pc_type == tp && tr_provcheck_on &&
           tr_pc_valid_tag(tp) == a->vh_tag && tr_pc_dict_version(owner) == a->vh_dict_ver;
}

/* The provenance oracle's check of entry a's load (tr_provcheck_step_fast, method as
 * there), or its hoist: the oracle passed for this very owner (same address and type),
 * this very value and entry in the current replay epoch (TrAttrStep.pc_*), so it would
 * read the same state again and pass again. What the check reads (the owner's type and
 * its version tag, the MRO's dicts, the instance dict and its version, a slot) changes
 * only through user code, the replay's own stores or the release of an object that is
 * not simple, and each of them moves the epoch first (see tr_replay_epoch); an object
 * freed without moving it is a simple one, and an owner of another type at its address
 * is checked in full. Counted as checked, as the check it stands for (the statistics
 * stay those of a check per load). A pass is kept only when it was one (the oracle
 * counted a check: not "not checkable") and moved no epoch (a dict materialised).
 * Faults do not turn it off: it keeps a pass only for the state that passed. hoists:
 * 0 nothing kept (the check in full), 1 the epoch's hoist above (calm 3), 4 a calm-4
 * entry's pass kept with its versions for versioned_hit (no fault on: the caller's
 * choice; the epoch's hoist is not asked). Owner and value borrowed; nothing taken.
 * Returns 0, or -1 with the oracle's error set. */
TR_HOT_INLINE int provcheck_hoisted(TrAttrStep *a, PyObject *owner, PyObject *value,
                                    int method, int hoists)
{
    uint64_t epoch = tr_replay_epoch;
    if (hoists == 1 && a->pc_epoch == epoch && a->pc_value == value && a->pc_owner == owner &&
        a->pc_type == Py_TYPE(owner)) {
        tr_provcheck_n_checked++;
        return 0;
    }
    Py_ssize_t checked = tr_provcheck_n_checked;
    if (tr_provcheck_step_fast(a, owner, value, method) < 0)
        return -1;
    if (hoists && tr_provcheck_n_checked != checked && tr_replay_epoch == epoch) {
        if (hoists == 4 && !provcheck_keep_versions(a, owner))
            return 0;
        a->pc_owner = owner;
        a->pc_type = Py_TYPE(owner);
        a->pc_value = value;
        a->pc_epoch = epoch;
    }
    return 0;
}

TR_HOT_INLINE int int_or_float(PyObject *o)
{
    return Py_IS_TYPE(o, &PyLong_Type) || Py_IS_TYPE(o, &PyFloat_Type);
}

/* 1 when no user code can run for operands a (and b): builtin scalars and exact
 * builtin containers, as the tracer's own rule (tr_is_plain_operands). */
static inline int plain(PyObject *a, PyObject *b)
{
    /* ints and floats first: most operands of a loop body, without the call */
    if ((Py_IS_TYPE(a, &PyLong_Type) || Py_IS_TYPE(a, &PyFloat_Type)) &&
        (b == NULL || Py_IS_TYPE(b, &PyLong_Type) || Py_IS_TYPE(b, &PyFloat_Type)))
        return 1;
    return tr_is_plain_operands(a, b);
}

/* tr_op_take for the replay's stack, whose level replay_frame keeps in a local (sp,
 * the slot above the top; stack its bottom): the deepest of the top n values, which is
 * the new level. A stack holding fewer is the tracer's own bug: abort, naming `what`
 * pops (as tr_op_take). Borrows everything, releases nothing. */
TR_HOT_INLINE TrValue *take(TrValue *sp, const TrValue *stack, int n, const char *what)
{
    if (n > sp - stack) {
        fprintf(stderr, "tracefuzz: %s pops %d values from a stack of %d\n", what, n,
                (int)(sp - stack));
        abort();
    }
    return sp - n;
}

/* tr_op_pop_call for the replay's stack, whose values carry no provenance: the same
 * releases in the same order (the function, then self or the callable slot and the
 * arguments), without tr_value_clear's provenance test and call per value. base: the
 * oparg + 2 values taken (take), their references released here. */
TR_HOT_INLINE void pop_call(TrValue *base, int oparg)
{
    int n = oparg + 2;
    int first = base[0].obj != NULL ? 0 : 1;     /* the function */
    for (int k = first; k < n; k++) {
        PyObject *o = base[k].obj;
        assert(base[k].prov == NULL);
        base[k].obj = NULL;
        Py_XDECREF(o);
    }
}

/* tr_op_pop(f, 2) for the replay's stack, whose values carry no provenance: the two
 * operands released deepest first, without tr_value_clear's test per value. v: the two
 * values taken (take), their references released here. */
TR_HOT_INLINE void pop_two(TrValue *v)
{
    PyObject *a = v[0].obj, *b = v[1].obj;
    assert(v[0].prov == NULL && v[1].prov == NULL);
    v[0].obj = NULL;
    v[1].obj = NULL;
    Py_XDECREF(a);
    Py_XDECREF(b);
}

/* BINARY_OP on two operands of the same exact type, int or float: the type's own slot
 * for +, - and * (and their in-place forms), as CPython's specialised BINARY_OP_ADD_INT
 * and friends do. What PyNumber_Add and the rest do then: binary_op1 asks only the left
 * operand's slot when both types are the same, long_add / float_add never answer
 * NotImplemented to their own type, and neither type has in-place slots (binary_iop1
 * falls back to binary_op1). A subclass (bool, a user's int) or mixed operands go
 * through tr_op_binary. A new reference or NULL. */
enum {   /* BINARY_OP's opargs (CPython 3.11's opcode.h, NB_*) */
    BOP_ADD = 0, BOP_MULTIPLY = 5, BOP_SUBTRACT = 10,
    BOP_INPLACE_ADD = 13, BOP_INPLACE_MULTIPLY = 18, BOP_INPLACE_SUBTRACT = 23,
};

TR_HOT_INLINE PyObject *binary_same_type(int oparg, PyObject *a, PyObject *b)
{
    PyTypeObject *t = Py_TYPE(a);
    if (t == Py_TYPE(b) && (t == &PyLong_Type || t == &PyFloat_Type)) {
        switch (oparg) {
        case BOP_ADD:
        case BOP_INPLACE_ADD:
            return t->tp_as_number->nb_add(a, b);
        case BOP_SUBTRACT:
        case BOP_INPLACE_SUBTRACT:
            return t->tp_as_number->nb_subtract(a, b);
        case BOP_MULTIPLY:
        case BOP_INPLACE_MULTIPLY:
            return t->tp_as_number->nb_multiply(a, b);
        default:
            break;
        }
    }
    return tr_op_binary(oparg, a, b);
}

/* ---- the side exit: the tracer's interpreter takes the frame over ---- */
static int side_exit(TrFrame *f, int next, int throwing, int64_t budget, int max_depth,
                     unsigned faults, TrValue *out)
{
    TrRun run = {budget, 0, max_depth, NULL, NULL, faults, NULL};
    int rc = -1;
    PyObject *et = NULL, *ev = NULL, *etb = NULL;
    if (throwing)
        PyErr_Fetch(&et, &ev, &etb);
    run.cache = tr_cache_new();
    if (run.cache != NULL)
        run.trace = tr_trace_new();
    if (run.trace == NULL) {
        Py_XDECREF(et);
        Py_XDECREF(ev);
        Py_XDECREF(etb);
        goto done;
    }
    if (throwing)
        PyErr_Restore(et, ev, etb);
    f->next = next;
    tr_run_register(&run);
    rc = tr_frame_run(&run, f, throwing, out);
    tr_run_unregister(&run);
done:
    if (run.trace != NULL)
        tr_trace_free(run.trace);
    if (run.cache != NULL)
        tr_cache_free(run.cache);
    return rc;
}

/* replay_frame's stack: its level in a local (sp, the slot above the top, between
 * stack and stack_end), which the compiler may keep in a register (f->sp is an int
 * behind f, reloaded after every store of a value: -fno-strict-aliasing). f->sp is
 * written (SP_SAVE) before whatever reads it (tr_op_make_function_on_stack, the
 * exception paths, the side exit, the return: tr_frame_clear releases what is left)
 * and read again (SP_LOAD) after what moves it (tr_exc_enter_handler). Nothing else
 * sees a replayed frame: it is linked nowhere (no prev, no frame object), and callees
 * run natively. */
#define SP_SAVE() (f->sp = (int)(sp - stack))
#define SP_LOAD() (sp = stack + f->sp)
#define TOP() (sp[-1])
#define PEEK(n) (sp[-(n)])
#define POP() (*--sp)
#define PUSH_OBJ(o) do { \
        if (sp >= stack_end) { \
            fprintf(stderr, "tracefuzz: replay stack overflow\n"); \
            abort(); \
        } \
        sp->obj = (o); \
        sp->prov = NULL; \
        sp++; \
    } while (0)
/* tr_op_pop(f, n) on the local level: the top n values released deepest first. */
#define POP_CLEAR(n, what) do { \
        int n_ = (n); \
        TrValue *v_ = sp = take(sp, stack, n_, what); \
        for (int k_ = 0; k_ < n_; k_++) \
            tr_value_clear(&v_[k_]); \
    } while (0)
#define CLEAR_VALUE(v) do { TrValue tmp_ = (v); tr_value_clear(&tmp_); } while (0)
#define SET_TOP_OBJ(o) do { CLEAR_VALUE(TOP()); TOP().obj = (o); } while (0)

/* Inline CACHE entries after each opcode (tr_opcode_caches, without its call). */
static const unsigned char op_caches[256] = {
#define TR_OP(name, num, caches, status, why) [num] = caches,
#include "tr_opcodes.def"
#undef TR_OP
};

/* ---- hoisted guards ----
 * A load's guards read the owner's type (its slots, version tag, the descriptor's
 * type), a slot and the instance dict: only user code, or the replay's own stores,
 * change them. The epoch moves at the start of every step that could run user code
 * (every case of replay_frame's switch but the calm ones: loads, stores of locals,
 * constants, jumps, and operators, tests and FOR_ITER on simple operands, which move
 * it themselves otherwise), before a release that could free an object whose deallocation could (a
 * finaliser, a weakref callback, a container's items), before a load's getter, and
 * in tr_dict_ptr when a dict is materialised (an allocation that may collect). An
 * entry whose guards passed for an owner in this epoch (TrAttrStep.hoist_*) passes
 * for it again unchecked; the provenance oracle still checks every load. One
 * counter for all replays, moved again when a replay ends: a hoist a nested replay
 * made (inside a call of the outer one) never reaches the code after it. Only
 * replays hoist; the tracer after a side exit, a retrace, only run user code. */
uint64_t tr_replay_epoch = 1;

/* Simple: an exact int, float, str, bool or None; testing, comparing or adding such
 * operands runs no code, and freeing one runs nothing either. */
TR_HOT_INLINE int simple(PyObject *o)
{
    PyTypeObject *t = Py_TYPE(o);
    return t == &PyLong_Type || t == &PyFloat_Type || t == &PyBool_Type ||
           t == &PyUnicode_Type || o == Py_None;
}

/* Before releasing o (may be NULL): the release could run code when it frees an object
 * that is not simple. */
TR_HOT_INLINE void before_release(PyObject *o)
{
    if (o != NULL && Py_REFCNT(o) == 1 && !simple(o))
        tr_replay_epoch++;
}

/* Skips EXTENDED_ARG prefixes: the code unit of the instruction they introduce. */
static int skip_prefixes(const TrFrame *f, int i)
{
    while (i < f->ninstr && f->instr[2 * i] == TR_OP_EXTENDED_ARG)
        i++;
    return i;
}

/* The code unit where the instruction at i starts, its EXTENDED_ARG prefixes included:
 * where the tracer must resume to decode it. (The unit before an instruction is a
 * prefix, a zeroed CACHE entry or another instruction, never an EXTENDED_ARG that is
 * not this one's prefix.) */
static int prefix_start(const TrFrame *f, int i)
{
    while (i > 0 && f->instr[2 * (i - 1)] == TR_OP_EXTENDED_ARG)
        i--;
    return i;
}

/* The opcodes whose step may set the next instruction elsewhere than its fall-through. */
static int may_jump(int op)
{
    switch (op) {
    case TR_OP_FOR_ITER:
    case TR_OP_JUMP_FORWARD:
    case TR_OP_JUMP_BACKWARD:
    case TR_OP_JUMP_BACKWARD_NO_INTERRUPT:
    case TR_OP_POP_JUMP_FORWARD_IF_FALSE:
    case TR_OP_POP_JUMP_FORWARD_IF_TRUE:
    case TR_OP_POP_JUMP_BACKWARD_IF_FALSE:
    case TR_OP_POP_JUMP_BACKWARD_IF_TRUE:
    case TR_OP_POP_JUMP_FORWARD_IF_NONE:
    case TR_OP_POP_JUMP_FORWARD_IF_NOT_NONE:
    case TR_OP_POP_JUMP_BACKWARD_IF_NONE:
    case TR_OP_POP_JUMP_BACKWARD_IF_NOT_NONE:
    case TR_OP_JUMP_IF_FALSE_OR_POP:
    case TR_OP_JUMP_IF_TRUE_OR_POP:
        return 1;
    default:
        return 0;
    }
}

/* The steps whose replay always moves the epoch (replay_frame's cases that move it
 * unconditionally; those that move it only for some operands are left out). */
static int moves_epoch(int op)
{
    switch (op) {
    case TR_OP_LOAD_GLOBAL:
    case TR_OP_DELETE_FAST:
    case TR_OP_IS_OP:
    case TR_OP_STORE_SUBSCR:
    case TR_OP_DELETE_SUBSCR:
    case TR_OP_BUILD_TUPLE:
    case TR_OP_BUILD_LIST:
    case TR_OP_BUILD_MAP:
    case TR_OP_BUILD_CONST_KEY_MAP:
    case TR_OP_BUILD_STRING:
    case TR_OP_LIST_APPEND:
    case TR_OP_LIST_EXTEND:
    case TR_OP_GET_ITER:
    case TR_OP_STORE_ATTR:
    case TR_OP_DELETE_ATTR:
    case TR_OP_PRECALL:
    case TR_OP_KW_NAMES:
    case TR_OP_CALL:
    case TR_OP_MAKE_FUNCTION:
    case TR_OP_FORMAT_VALUE:
        return 1;
    default:
        return 0;
    }
}

/* Which calm entries may hoist (calm 3): those with two loads on the recorded path
 * with no step between them that always moves the epoch (moves_epoch, or a load of an
 * entry that is not calm). Elsewhere the epoch has always moved by the next load of
 * the entry, so a hoist kept for it never serves: such an entry keeps none (no
 * bookkeeping per load; class_methods' loads are all separated by calls). Only a hint:
 * an entry marked may hoist or not, its loads are checked as the hoist's tests say.
 * Takes and keeps no reference (reads the steps and entries, sets TrAttrStep.calm); its
 * own array is freed before it returns; without memory for the walk (no exception set)
 * every calm entry may hoist, as before this walk existed. */
static void hoist_sites(TrRecTrace *t)
{
    Py_ssize_t *last = PyMem_Malloc((size_t)(t->nattrs + 1) * sizeof(Py_ssize_t));
    Py_ssize_t era = 0;        /* steps that always move the epoch, so far */
    for (Py_ssize_t k = 0; last != NULL && k < t->nattrs; k++)
        last[k] = -1;
    for (Py_ssize_t i = 0; i < t->nsteps; i++) {
        TrStep *s = &t->steps[i];
        if (s->op != TR_OP_LOAD_ATTR && s->op != TR_OP_LOAD_METHOD) {
            era += moves_epoch(s->op);
            continue;
        }
        TrAttrStep *a = &t->attrs[s->attr];
        if (!fused_kind(a, s->op)) {
            era++;             /* a getter may run: the epoch moves before it */
            continue;
        }
        if (last == NULL || last[s->attr] == era)
            a->calm = 3;
        else if (last != NULL)
            last[s->attr] = era;
    }
    PyMem_Free(last);
    /* The others may be served by versions (calm 4, versioned_hit) in a trace that
     * stores no attribute (where one does, the dict versions move: a version kept
     * would seldom serve), when what their guards read is versioned: no class access,
     * no slot, no fault's recorded result, a descriptor of an immutable type (its
     * tp_descr_get and tp_descr_set cannot change), a kind whose load reads the dict
     * or the type only. */
    for (Py_ssize_t i = 0; i < t->nsteps; i++)
        if (t->steps[i].op == TR_OP_STORE_ATTR || t->steps[i].op == TR_OP_DELETE_ATTR)
            return;
    for (Py_ssize_t k = 0; k < t->nattrs; k++) {
        TrAttrStep *a = &t->attrs[k];
        if (a->calm == 2 && a->cls == NULL && a->slot_set < 0 && a->result == NULL &&
            (a->kind == TR_AK_INST_DICT || a->kind == TR_AK_CLASS_ATTR ||
             a->kind == TR_AK_TYPE_STABLE || a->kind == TR_AK_METHOD) &&
            (a->descr == NULL || PyType_HasFeature(Py_TYPE(a->descr), Py_TPFLAGS_IMMUTABLETYPE)))
            a->calm = 4;
    }
}

/* Before a trace's first replay: each step's path check answered once. A step that
 * never jumps always continues at its fall-through when it completes, so whether the
 * recorded path goes on there (the check after every step) is known from the steps
 * alone: not at the last step, not where the recorded run raised (its next step is a
 * handler). Jumping steps keep the check at run time. */
static void prepare(TrRecTrace *t, const TrFrame *f)
{
    for (Py_ssize_t i = 0; i < t->nsteps; i++) {
        TrStep *s = &t->steps[i];
        int fall = s->offset + 1 + op_caches[s->op];
        s->falls_on = i + 1 < t->nsteps && !may_jump(s->op) &&
                      (t->steps[i + 1].offset == fall ||
                       t->steps[i + 1].offset == skip_prefixes(f, fall));
        /* LOAD_FAST's fusion with the next step (see LOAD_FAST in replay_frame), the
         * same tests: the recorded load is the next instruction (LOAD_FAST has no
         * cache entries) and its entry's kind is calm; both are fixed with the trace. */
        s->fuses = s->op == TR_OP_LOAD_FAST && i + 1 < t->nsteps &&
                   t->steps[i + 1].offset == fall &&
                   (t->steps[i + 1].op == TR_OP_LOAD_ATTR ||
                    t->steps[i + 1].op == TR_OP_LOAD_METHOD) &&
                   fused_kind(&t->attrs[t->steps[i + 1].attr], t->steps[i + 1].op);
    }
    hoist_sites(t);
    t->prepared = 1;
}

/* The jump to a step's case: one load and an indirect jump through a table of the
 * cases' labels where the compiler has labels as values (as run_frame's op_targets:
 * clang's switch spent a range test and a relative table's add here); the switch
 * everywhere else. Each case is RCASE(name), a case label and, with the table, a
 * label rop_name; an opcode without a case goes to the switch's default. */
#if defined(__GNUC__) || defined(__clang__)
#define TR_REPLAY_GOTO 1
#define RCASE(name) case TR_OP_##name: rop_##name
#define RCASE_UNSUPPORTED rop_unsupported:
#define TR_REPLAY_LIKELY(x) __builtin_expect((x) != 0, 1)
#else
#define TR_REPLAY_GOTO 0
#define RCASE(name) case TR_OP_##name
#define RCASE_UNSUPPORTED
#define TR_REPLAY_LIKELY(x) (x)
#endif

/* Runs the steps over f. Returns 0 with *out (returned: the value's strong reference,
 * handed to the caller), or -1 with an exception. f's values are f's (tr_frame_clear
 * releases what is left); a load's owner is borrowed from the stack or a local, the
 * entries' and memos' pointers (hoist_*, pc_*, dict_value) are borrowed or compared
 * only. */
static int replay_frame(TrRecTrace *t, TrFrame *f, TrReplayState *st, int64_t budget,
                        int max_depth, TrValue *out)
{
    PyCodeObject *co = f->code;
    PyObject *callbuf[16];
    PyObject *owner;      /* an attribute load's owner (borrowed) */
    int fused;            /* owner is LOAD_FAST's local, not on the stack */
    Py_ssize_t i = 0;
    int next = 0, exit_reason = TR_EXIT_OTHER, guard_kind = -1, throwing = 0;
    TrValue *const stack = f->stack, *const stack_end = f->stack + f->stacksize;
    TrValue *sp = stack + f->sp;   /* the level (SP_SAVE, SP_LOAD) */
#if TR_REPLAY_GOTO
    TR_OVERRIDES_BEGIN
    static void *const targets[256] = {
        [0 ... 255] = &&rop_unsupported,
        [TR_OP_NOP] = &&rop_NOP,
        [TR_OP_RESUME] = &&rop_RESUME,
        [TR_OP_POP_TOP] = &&rop_POP_TOP,
        [TR_OP_PUSH_NULL] = &&rop_PUSH_NULL,
        [TR_OP_LOAD_FAST] = &&rop_LOAD_FAST,
        [TR_OP_STORE_FAST] = &&rop_STORE_FAST,
        [TR_OP_DELETE_FAST] = &&rop_DELETE_FAST,
        [TR_OP_LOAD_CONST] = &&rop_LOAD_CONST,
        [TR_OP_LOAD_GLOBAL] = &&rop_LOAD_GLOBAL,
        [TR_OP_UNARY_POSITIVE] = &&rop_UNARY_POSITIVE,
        [TR_OP_UNARY_NEGATIVE] = &&rop_UNARY_NEGATIVE,
        [TR_OP_UNARY_INVERT] = &&rop_UNARY_INVERT,
        [TR_OP_UNARY_NOT] = &&rop_UNARY_NOT,
        [TR_OP_BINARY_OP] = &&rop_BINARY_OP,
        [TR_OP_COMPARE_OP] = &&rop_COMPARE_OP,
        [TR_OP_CONTAINS_OP] = &&rop_CONTAINS_OP,
        [TR_OP_BINARY_SUBSCR] = &&rop_BINARY_SUBSCR,
        [TR_OP_IS_OP] = &&rop_IS_OP,
        [TR_OP_STORE_SUBSCR] = &&rop_STORE_SUBSCR,
        [TR_OP_DELETE_SUBSCR] = &&rop_DELETE_SUBSCR,
        [TR_OP_BUILD_TUPLE] = &&rop_BUILD_TUPLE,
        [TR_OP_BUILD_LIST] = &&rop_BUILD_LIST,
        [TR_OP_BUILD_MAP] = &&rop_BUILD_MAP,
        [TR_OP_BUILD_CONST_KEY_MAP] = &&rop_BUILD_CONST_KEY_MAP,
        [TR_OP_BUILD_STRING] = &&rop_BUILD_STRING,
        [TR_OP_LIST_APPEND] = &&rop_LIST_APPEND,
        [TR_OP_LIST_EXTEND] = &&rop_LIST_EXTEND,
        [TR_OP_LIST_TO_TUPLE] = &&rop_LIST_TO_TUPLE,
        [TR_OP_GET_ITER] = &&rop_GET_ITER,
        [TR_OP_FOR_ITER] = &&rop_FOR_ITER,
        [TR_OP_JUMP_FORWARD] = &&rop_JUMP_FORWARD,
        [TR_OP_JUMP_BACKWARD] = &&rop_JUMP_BACKWARD,
        [TR_OP_JUMP_BACKWARD_NO_INTERRUPT] = &&rop_JUMP_BACKWARD_NO_INTERRUPT,
        [TR_OP_POP_JUMP_FORWARD_IF_FALSE] = &&rop_POP_JUMP_FORWARD_IF_FALSE,
        [TR_OP_POP_JUMP_FORWARD_IF_TRUE] = &&rop_POP_JUMP_FORWARD_IF_TRUE,
        [TR_OP_POP_JUMP_BACKWARD_IF_FALSE] = &&rop_POP_JUMP_BACKWARD_IF_FALSE,
        [TR_OP_POP_JUMP_BACKWARD_IF_TRUE] = &&rop_POP_JUMP_BACKWARD_IF_TRUE,
        [TR_OP_POP_JUMP_FORWARD_IF_NONE] = &&rop_POP_JUMP_FORWARD_IF_NONE,
        [TR_OP_POP_JUMP_FORWARD_IF_NOT_NONE] = &&rop_POP_JUMP_FORWARD_IF_NOT_NONE,
        [TR_OP_POP_JUMP_BACKWARD_IF_NONE] = &&rop_POP_JUMP_BACKWARD_IF_NONE,
        [TR_OP_POP_JUMP_BACKWARD_IF_NOT_NONE] = &&rop_POP_JUMP_BACKWARD_IF_NOT_NONE,
        [TR_OP_JUMP_IF_FALSE_OR_POP] = &&rop_JUMP_IF_FALSE_OR_POP,
        [TR_OP_JUMP_IF_TRUE_OR_POP] = &&rop_JUMP_IF_TRUE_OR_POP,
        [TR_OP_RETURN_VALUE] = &&rop_RETURN_VALUE,
        [TR_OP_LOAD_ATTR] = &&rop_LOAD_ATTR,
        [TR_OP_LOAD_METHOD] = &&rop_LOAD_METHOD,
        [TR_OP_STORE_ATTR] = &&rop_STORE_ATTR,
        [TR_OP_DELETE_ATTR] = &&rop_DELETE_ATTR,
        [TR_OP_PRECALL] = &&rop_PRECALL,
        [TR_OP_KW_NAMES] = &&rop_KW_NAMES,
        [TR_OP_CALL] = &&rop_CALL,
        [TR_OP_MAKE_FUNCTION] = &&rop_MAKE_FUNCTION,
        [TR_OP_FORMAT_VALUE] = &&rop_FORMAT_VALUE,
        [TR_OP_PUSH_EXC_INFO] = &&rop_PUSH_EXC_INFO,
        [TR_OP_POP_EXCEPT] = &&rop_POP_EXCEPT,
        [TR_OP_CHECK_EXC_MATCH] = &&rop_CHECK_EXC_MATCH,
        [TR_OP_RERAISE] = &&rop_RERAISE,
        [TR_OP_COPY] = &&rop_COPY,
        [TR_OP_SWAP] = &&rop_SWAP,
    };
    TR_OVERRIDES_END
#endif
    if (!t->prepared)
        prepare(t, f);
    for (i = 0; i < t->nsteps; i++) {
        TrStep *s = &t->steps[i];
        int op = s->op, oparg = s->oparg;
        /* here and op are not read once the step's case has run: the error and exit
         * paths read s->offset and s->op (the same values), so that neither must
         * live through the case's calls (clang kept both in callee-saved registers
         * and spilled the loop's own state instead: 2-4% of a replayed call). */
        int here = s->offset;     /* f->lasti: written where it is read (below) */
        next = here + 1 + op_caches[op];
        int jumped = 0;
#if TR_REPLAY_GOTO
        goto *targets[op];
#endif
        switch (op) {
        RCASE(NOP):
        RCASE(RESUME):
            break;
        RCASE(POP_TOP):
            before_release(TOP().obj);
            CLEAR_VALUE(POP());
            break;
        RCASE(PUSH_NULL):
            PUSH_OBJ(NULL);
            break;
        RCASE(LOAD_FAST): {
            PyObject *v = f->localsplus[oparg].obj;
            if (v == NULL) {
                tr_op_unbound_local(co, oparg);
                goto error;
            }
            /* LOAD_FAST + LOAD_ATTR / LOAD_METHOD in one step when the recorded load
             * is the next instruction and its kind runs no user code (fused_kind):
             * the owner is read from the local, not pushed and popped again. Nothing
             * can see the missing stack reference; where the load cannot finish (a
             * guard, an error) the owner is pushed first, so the state is the one the
             * two steps leave. */
            if (s->fuses) {                /* worked out by prepare */
                s = &t->steps[++i];
                op = s->op;
                here = s->offset;
                next = here + 1 + op_caches[op];
                owner = v;
                fused = 1;
                goto load_attr;
            }
            PUSH_OBJ(Py_NewRef(v));
            break;
        }
        RCASE(STORE_FAST): {
            TrValue v = POP();
            TrValue old = f->localsplus[oparg];
            before_release(old.obj);
            f->localsplus[oparg] = v;
            tr_value_clear(&old);   /* a local bound by tr_call_bind may carry some */
            break;
        }
        RCASE(DELETE_FAST):
            tr_replay_epoch++;    /* may run user code: hoisted guards end */
            if (f->localsplus[oparg].obj == NULL) {
                tr_op_unbound_local(co, oparg);
                goto error;
            }
            tr_value_clear(&f->localsplus[oparg]);
            break;
        RCASE(LOAD_CONST):
            PUSH_OBJ(Py_NewRef(PyTuple_GET_ITEM(co->co_consts, oparg)));
            break;
        RCASE(LOAD_GLOBAL): {
            tr_replay_epoch++;    /* may run user code: hoisted guards end */
            PyObject *name = PyTuple_GET_ITEM(co->co_names, oparg >> 1);
            int builtin;
            if (!PyDict_CheckExact(f->globals) || !PyDict_CheckExact(f->builtins))
                fwd_forget_all(st);    /* a mapping's __getitem__ */
            PyObject *v = tr_op_load_global(f->globals, f->builtins, name, &builtin);
            if (v == NULL)
                goto error;
            if (oparg & 1)
                PUSH_OBJ(NULL);
            PUSH_OBJ(v);
            break;
        }
        RCASE(UNARY_POSITIVE):
        RCASE(UNARY_NEGATIVE):
        RCASE(UNARY_INVERT):
        RCASE(UNARY_NOT): {
            tr_replay_epoch++;    /* may run user code: hoisted guards end */
            PyObject *v = TOP().obj;
            if (!plain(v, NULL))
                fwd_forget_all(st);
            PyObject *r = tr_op_unary(op, v);
            POP_CLEAR(1, "tr_op_pop");   /* ceval releases the operand, also before an error */
            if (r == NULL)
                goto error;
            PUSH_OBJ(r);
            break;
        }
        RCASE(BINARY_OP):
        RCASE(COMPARE_OP):
        RCASE(CONTAINS_OP):
        RCASE(BINARY_SUBSCR): {
            PyObject *a = PEEK(2).obj, *b = TOP().obj, *r = NULL;
            if (!int_or_float(a) || !int_or_float(b)) {   /* the common case first */
                if (!tr_is_plain_operands(a, b))
                    fwd_forget_all(st);
                if (!simple(a) || !simple(b))
                    tr_replay_epoch++;     /* also for the uncalm CONTAINS_OP, BINARY_SUBSCR */
            }
            /* op's own call: BINARY_OP's first and expected (clang's layout
             * otherwise tested the three others first; the cases share the rest) */
            if (TR_REPLAY_LIKELY(op == TR_OP_BINARY_OP))
                r = binary_same_type(oparg, a, b);
            else if (op == TR_OP_COMPARE_OP)
                r = tr_op_compare(oparg, a, b);
            else if (op == TR_OP_BINARY_SUBSCR)
                r = tr_op_subscr(a, b);
            else
                r = tr_op_contains(a, b, oparg);
            sp = take(sp, stack, 2, "tr_op_pop");
            pop_two(sp);               /* ceval's order: the deeper operand first */
            if (r == NULL)
                goto error;
            sp->obj = r;               /* in the deeper operand's slot: room for it */
            sp->prov = NULL;
            sp++;
            break;
        }
        RCASE(IS_OP): {
            tr_replay_epoch++;    /* may run user code: hoisted guards end */
            PyObject *r = tr_op_is(PEEK(2).obj, TOP().obj, oparg);
            POP_CLEAR(2, "tr_op_pop");
            PUSH_OBJ(r);
            break;
        }
        RCASE(STORE_SUBSCR):
        RCASE(DELETE_SUBSCR): {
            tr_replay_epoch++;    /* may run user code: hoisted guards end */
            int err;
            fwd_forget_all(st);       /* a dict write may be an instance dict */
            if (op == TR_OP_STORE_SUBSCR)
                err = tr_op_store_subscr(PEEK(2).obj, TOP().obj, PEEK(3).obj);
            else
                err = tr_op_delete_subscr(PEEK(2).obj, TOP().obj);
            POP_CLEAR(op == TR_OP_STORE_SUBSCR ? 3 : 2, "tr_op_pop");   /* value, container, key */
            if (err < 0)
                goto error;
            break;
        }
        RCASE(BUILD_TUPLE):
        RCASE(BUILD_LIST): {
            tr_replay_epoch++;    /* may run user code: hoisted guards end */
            PyObject *r = op == TR_OP_BUILD_TUPLE ? tr_op_build_tuple(&PEEK(oparg), oparg)
                                                  : tr_op_build_list(&PEEK(oparg), oparg);
            if (r == NULL)
                goto error;
            for (int k = 0; k < oparg; k++)
                CLEAR_VALUE(POP());
            PUSH_OBJ(r);
            break;
        }
        RCASE(BUILD_MAP): {
            tr_replay_epoch++;    /* may run user code: hoisted guards end */
            fwd_forget_all(st);       /* keys' __hash__ / __eq__ */
            PyObject *r = tr_op_build_map(&PEEK(2 * oparg), oparg);
            if (r == NULL)
                goto error;
            for (int k = 0; k < 2 * oparg; k++)
                CLEAR_VALUE(POP());
            PUSH_OBJ(r);
            break;
        }
        RCASE(BUILD_CONST_KEY_MAP): {
            tr_replay_epoch++;    /* may run user code: hoisted guards end */
            PyObject *r = tr_op_build_const_key_map(&PEEK(oparg + 1), TOP().obj, oparg);
            if (r == NULL)
                goto error;
            for (int k = 0; k < oparg + 1; k++)
                CLEAR_VALUE(POP());
            PUSH_OBJ(r);
            break;
        }
        RCASE(BUILD_STRING): {
            tr_replay_epoch++;    /* may run user code: hoisted guards end */
            PyObject *r = tr_op_build_string(&PEEK(oparg), oparg);
            if (r == NULL)
                goto error;
            for (int k = 0; k < oparg; k++)
                CLEAR_VALUE(POP());
            PUSH_OBJ(r);
            break;
        }
        RCASE(LIST_APPEND):
            tr_replay_epoch++;    /* may run user code: hoisted guards end */
            if (tr_op_list_append(PEEK(oparg + 1).obj, TOP().obj) < 0)
                goto error;
            CLEAR_VALUE(POP());
            break;
        RCASE(LIST_EXTEND): {
            tr_replay_epoch++;    /* may run user code: hoisted guards end */
            if (!PyList_CheckExact(TOP().obj) && !PyTuple_CheckExact(TOP().obj))
                fwd_forget_all(st);   /* iterating may run user code */
            if (tr_op_list_extend(PEEK(oparg + 1).obj, TOP().obj) < 0)
                goto error;
            CLEAR_VALUE(POP());
            break;
        }
        RCASE(LIST_TO_TUPLE): {
            tr_replay_epoch++;    /* may run user code: hoisted guards end */
            PyObject *r = tr_op_list_to_tuple(TOP().obj);
            if (r == NULL)
                goto error;
            SET_TOP_OBJ(r);
            break;
        }
        RCASE(GET_ITER): {
            tr_replay_epoch++;    /* may run user code: hoisted guards end */
            if (!plain(TOP().obj, NULL))
                fwd_forget_all(st);
            PyObject *it = tr_op_get_iter(TOP().obj);
            if (it == NULL)
                goto error;
            SET_TOP_OBJ(it);
            break;
        }
        RCASE(FOR_ITER): {
            PyObject *it = TOP().obj;
            /* FOR_ITER's operand is the iterator GET_ITER made: those of ranges, lists
             * and tuples yield without running code (the test named the iterables,
             * so every loop forgot its forwarded loads on each iteration). */
            PyTypeObject *itt = Py_TYPE(it);
            if (itt != &PyRangeIter_Type && itt != &PyLongRangeIter_Type &&
                itt != &PyListIter_Type && itt != &PyTupleIter_Type) {
                fwd_forget_all(st);
                tr_replay_epoch++;
            }
            PyObject *v;
            int more = tr_op_for_iter(it, &v);
            if (more < 0)
                goto error;
            if (more) {
                PUSH_OBJ(v);
                break;
            }
            /* an exhausted list or tuple iterator has released its sequence, maybe
             * the last reference (the items' finalisers) */
            tr_replay_epoch++;
            CLEAR_VALUE(POP());
            next += oparg;
            jumped = 1;
            break;
        }
        RCASE(JUMP_FORWARD):
            next += oparg;
            break;
        RCASE(JUMP_BACKWARD):
        RCASE(JUMP_BACKWARD_NO_INTERRUPT):
            next -= oparg;
            break;
        RCASE(POP_JUMP_FORWARD_IF_FALSE):
        RCASE(POP_JUMP_FORWARD_IF_TRUE):
        RCASE(POP_JUMP_BACKWARD_IF_FALSE):
        RCASE(POP_JUMP_BACKWARD_IF_TRUE):
        RCASE(POP_JUMP_FORWARD_IF_NONE):
        RCASE(POP_JUMP_FORWARD_IF_NOT_NONE):
        RCASE(POP_JUMP_BACKWARD_IF_NONE):
        RCASE(POP_JUMP_BACKWARD_IF_NOT_NONE): {
            int delta = 0, is_none_test = op == TR_OP_POP_JUMP_FORWARD_IF_NONE ||
                op == TR_OP_POP_JUMP_FORWARD_IF_NOT_NONE || op == TR_OP_POP_JUMP_BACKWARD_IF_NONE ||
                op == TR_OP_POP_JUMP_BACKWARD_IF_NOT_NONE;
            if (!is_none_test && !plain(TOP().obj, NULL))
                fwd_forget_all(st);
            if (!simple(TOP().obj))
                tr_replay_epoch++;     /* __bool__, or the release */
            int taken = tr_op_pop_jump(op, oparg, TOP().obj, &delta);
            CLEAR_VALUE(POP());       /* ceval pops the condition before a failing test too */
            if (taken < 0)
                goto error;
            if (taken) {
                next += delta;
                jumped = 1;
            }
            break;
        }
        RCASE(JUMP_IF_FALSE_OR_POP):
        RCASE(JUMP_IF_TRUE_OR_POP): {
            tr_replay_epoch++;    /* may run user code: hoisted guards end */
            if (!plain(TOP().obj, NULL))
                fwd_forget_all(st);
            int jump = tr_op_jump_or_pop(op, TOP().obj);
            if (jump < 0)
                goto error;
            if (jump) {
                next += oparg;
                jumped = 1;
            }
            else {
                CLEAR_VALUE(POP());
            }
            break;
        }
        RCASE(RETURN_VALUE):
            *out = POP();
            SP_SAVE();
            tr_stat_add(TR_STAT_REPLAYS_DONE);
            return 0;
        RCASE(LOAD_ATTR):
        RCASE(LOAD_METHOD): {
            owner = TOP().obj;
            fused = 0;
        load_attr: ;
            /* fused: owner is LOAD_FAST's local, not on the stack (see LOAD_FAST) */
            TrAttrStep *a = &t->attrs[s->attr];
            PyObject *r;
            if (a->calm == 3) {
                /* Hoisted in full (below), asked first: the guards' hoist and the
                 * oracle's for this owner in this epoch. The owner's dict was settled
                 * by the load that kept hoist_owner, in this epoch, and nothing gives
                 * a dict its values back (another object at its address needs user
                 * code, which moves the epoch): no tr_dict_settle here. */
                uint64_t ep = tr_replay_epoch;
                if (a->hoist_owner == owner && a->hoist_epoch == ep && a->pc_epoch == ep &&
                    a->pc_owner == owner && a->pc_type == Py_TYPE(owner))
                    goto hoisted_full;
            }
            tr_dict_settle(owner);
            uint64_t epoch = tr_replay_epoch;
            int g = -1;
            /* only a calm load hoists: any other moves the epoch below anyway; and
             * only an entry whose next load may find the epoch unmoved (hoist_sites) */
            int calm = fused || fused_kind(a, op);
            /* 1 the entry hoists by epochs, 4 it keeps versions (no fault on) */
            int hoists = a->calm == 3 ? 1 : a->calm == 4 && st->faults == 0 ? 4 : 0;
            if (hoists != 1 || a->hoist_owner != owner || a->hoist_epoch != epoch) {
                if (hoists == 4 && versioned_hit(a, owner))
                    goto hoisted_full;
                g = tr_guard_check_fast(a, owner, st->faults);
                /* the epoch read before the check: one the check moved (a dict
                 * materialised) is not kept */
                if (hoists == 1 && g < 0 && st->faults == 0) {
                    a->hoist_owner = owner;
                    a->hoist_epoch = epoch;
                }
            }
            else if (a->pc_epoch == epoch && a->pc_owner == owner &&
                     a->pc_type == Py_TYPE(owner)) {
                /* Hoisted in full (no fault on: the guards hoist only then): the
                 * guards and the oracle passed for this owner in this epoch, the
                 * oracle for the value pc_value, so the dict, slot or class
                 * attribute the load reads holds it still; the oracle's check stands
                 * as provcheck_hoisted's (counted). The oracle was on in this epoch
                 * (it passed), and only Python code (tfjit.set_checks) turns it off,
                 * which moves the epoch. A calm-4 entry comes here when its
                 * versions are unchanged (versioned_hit): the same reasoning. */
            hoisted_full:
                tr_provcheck_n_checked++;
                r = a->pc_value;
                if (op == TR_OP_LOAD_METHOD && a->kind == TR_AK_METHOD)
                    goto method_push;      /* r is a->descr, the function checked */
                Py_INCREF(r);
                goto load_push;
            }
            if (g >= 0) {
                if (fused)
                    PUSH_OBJ(Py_NewRef(owner));
                exit_reason = TR_EXIT_GUARD;
                guard_kind = g;
                next = prefix_start(f, s->offset);
                goto exit;
            }
            if (op == TR_OP_LOAD_METHOD && a->kind == TR_AK_METHOD) {
                /* (owner -- meth self): the function found on the type, unbound. */
                if (tr_provcheck_on && provcheck_hoisted(a, owner, a->descr, 1, hoists) < 0) {
                    if (fused)
                        PUSH_OBJ(Py_NewRef(owner));
                    goto error;
                }
            method_push:
                if (fused) {
                    PUSH_OBJ(Py_NewRef(a->descr));
                    PUSH_OBJ(Py_NewRef(owner));
                    break;
                }
                TOP().obj = Py_NewRef(a->descr);
                PUSH_OBJ(owner);
                break;
            }
            if (!calm)
                tr_replay_epoch++;         /* a getter, __get__, __getattr__ may run */
            r = replay_load(st, a, owner);
            if (r != NULL && tr_provcheck_on && provcheck_hoisted(a, owner, r, 0, hoists) < 0)
                Py_CLEAR(r);
            if (r == NULL) {
                if (fused)
                    PUSH_OBJ(Py_NewRef(owner));
                goto error;
            }
        load_push:
            if (fused) {
                if (op == TR_OP_LOAD_METHOD)
                    PUSH_OBJ(NULL);
                PUSH_OBJ(r);
                break;
            }
            /* The owner's stack reference released in place: a replay's values
             * carry no provenance (tr_value_clear's test and call not needed). */
            before_release(owner);
            assert(TOP().obj == owner && TOP().prov == NULL);
            TOP().obj = op == TR_OP_LOAD_METHOD ? NULL : r;
            Py_DECREF(owner);
            if (op == TR_OP_LOAD_METHOD)
                PUSH_OBJ(r);
            break;
        }
        RCASE(STORE_ATTR):
        RCASE(DELETE_ATTR): {
            tr_replay_epoch++;    /* may run user code: hoisted guards end */
            PyObject *name = PyTuple_GET_ITEM(co->co_names, oparg);
            owner = TOP().obj;
            tr_dict_settle(owner);
            fwd_note_store(st, owner, name);   /* first: the old value may be freed */
            int err = op == TR_OP_STORE_ATTR ? PyObject_SetAttr(owner, name, PEEK(2).obj)
                                             : PyObject_DelAttr(owner, name);
            if (err < 0)
                goto error;
            CLEAR_VALUE(POP());
            if (op == TR_OP_STORE_ATTR)
                CLEAR_VALUE(POP());
            break;
        }
        RCASE(PRECALL): {
            tr_replay_epoch++;    /* may run user code: hoisted guards end */
            TrValue *callable = &PEEK(oparg + 1);
            if (PEEK(oparg + 2).obj == NULL && Py_IS_TYPE(callable->obj, &PyMethod_Type)) {
                PyObject *m = callable->obj;
                PEEK(oparg + 2).obj = Py_NewRef(PyMethod_GET_FUNCTION(m));
                callable->obj = Py_NewRef(PyMethod_GET_SELF(m));
                Py_DECREF(m);
            }
            break;
        }
        RCASE(KW_NAMES):
            tr_replay_epoch++;    /* may run user code: hoisted guards end */
            f->kwnames = PyTuple_GET_ITEM(co->co_consts, oparg);
            break;
        RCASE(CALL): {
            tr_replay_epoch++;    /* may run user code: hoisted guards end */
            int is_meth = PEEK(oparg + 2).obj != NULL;
            int nargs = oparg + is_meth;
            PyObject *callable = PEEK(nargs + 1).obj;
            PyObject *kwnames = f->kwnames;
            /* A Python function (exact type) is neither a frame call nor pure: asked
             * first, since both tests ask PyCFunction_Check, a subtype walk for it. */
            int pyfunc = PyFunction_Check(callable);
            if (!pyfunc && tr_is_frame_call(callable, nargs)) {
                exit_reason = TR_EXIT_FRAME_CALL;
                next = prefix_start(f, s->offset);
                goto exit;
            }
            f->kwnames = NULL;
            if (pyfunc || !pure_call(callable, &PEEK(nargs), nargs, kwnames))
                fwd_forget_all(st);
            PyObject **argv = nargs <= 16 ? callbuf : PyMem_Malloc((size_t)nargs * sizeof(PyObject *));
            if (argv == NULL) {
                PyErr_NoMemory();
                goto error;
            }
            for (int k = 0; k < nargs; k++)
                argv[k] = PEEK(nargs - k).obj;
            Py_ssize_t npos = nargs - (kwnames != NULL ? PyTuple_GET_SIZE(kwnames) : 0);
            /* A Python function through its own vectorcall slot (what PyObject_Vectorcall
             * calls, without its result assertion: a Python function's result and error
             * state always agree; CPython's CALL_PY_EXACT_ARGS has none either). */
            PyObject *r = pyfunc ? ((PyFunctionObject *)callable)->vectorcall(
                                       callable, argv, (size_t)npos, kwnames)
                                 : PyObject_Vectorcall(callable, argv, (size_t)npos, kwnames);
            if (argv != callbuf)
                PyMem_Free(argv);
            sp = take(sp, stack, oparg + 2, "CALL");
            pop_call(sp, oparg);  /* in ceval's order, also before an error */
            if (r == NULL)
                goto error;
            PUSH_OBJ(r);
            break;
        }
        RCASE(MAKE_FUNCTION): {
            tr_replay_epoch++;    /* may run user code: hoisted guards end */
            int n;
            SP_SAVE();
            PyObject *fn = tr_op_make_function_on_stack(f, oparg, &n);
            if (fn == NULL)
                goto error;
            for (int k = 0; k < n; k++)
                CLEAR_VALUE(POP());
            PUSH_OBJ(fn);
            break;
        }
        RCASE(FORMAT_VALUE): {
            tr_replay_epoch++;    /* may run user code: hoisted guards end */
            PyObject *spec = (oparg & 4) == 4 ? TOP().obj : NULL;
            PyObject *v = spec != NULL ? PEEK(2).obj : TOP().obj;
            if (!PyUnicode_CheckExact(v) || (oparg & 3) != 0)
                fwd_forget_all(st);
            PyObject *r = tr_op_format(v, oparg & 3, spec);
            if (r == NULL)
                goto error;
            if (spec != NULL)
                CLEAR_VALUE(POP());
            SET_TOP_OBJ(r);
            break;
        }
        RCASE(PUSH_EXC_INFO): {
            tr_replay_epoch++;    /* may run user code: hoisted guards end */
            TrValue exc = POP();
            PUSH_OBJ(tr_op_push_exc_info(exc.obj));
            *sp++ = exc;
            break;
        }
        RCASE(POP_EXCEPT): {
            tr_replay_epoch++;    /* may run user code: hoisted guards end */
            TrValue prev = POP();
            tr_op_pop_except(prev.obj);
            tr_value_clear(&prev);
            break;
        }
        RCASE(CHECK_EXC_MATCH): {
            tr_replay_epoch++;    /* may run user code: hoisted guards end */
            PyObject *r = tr_op_check_exc_match(PEEK(2).obj, TOP().obj);
            if (r == NULL)
                goto error;
            SET_TOP_OBJ(r);
            break;
        }
        RCASE(RERAISE): {
            tr_replay_epoch++;    /* may run user code: hoisted guards end */
            TrValue exc = POP();
            f->lasti = s->offset;   /* tr_exc_enter_handler's push_lasti when oparg is 0 */
            int err = tr_op_reraise(exc.obj, oparg ? PEEK(oparg).obj : NULL, &f->lasti);
            tr_value_clear(&exc);
            if (err < 0)
                goto error;
            goto unwind;   /* a re-raise adds no traceback entry */
        }
        RCASE(COPY):
            PUSH_OBJ(Py_XNewRef(PEEK(oparg).obj));
            break;
        RCASE(SWAP): {
            TrValue tmp = TOP();
            TOP() = PEEK(oparg);
            PEEK(oparg) = tmp;
            break;
        }
        default:
        RCASE_UNSUPPORTED
            fprintf(stderr, "tracefuzz: replay of unsupported opcode %d\n", op);
            abort();
        }
        goto check_path;

    error:
        /* The step raised. Where the recorded path raised here too (its next step is
         * this frame's handler) the replay unwinds; else the tracer takes over. */
        tr_replay_epoch++;            /* the unwinding releases what the stack held */
        f->lasti = s->offset;
        if (!tr_exc_is_internal())
            tr_exc_add_traceback(f);
    unwind: {
        int handler, level, push_lasti;
        SP_SAVE();                    /* also from RERAISE */
        tr_replay_epoch++;
        if (tr_exc_is_internal())
            return -1;
        if (!tr_exc_find_handler(co, s->offset, &handler, &level, &push_lasti)) {
            if (i + 1 == t->nsteps) {
                tr_stat_add(TR_STAT_REPLAYS_DONE);
                return -1;            /* the trace ended with this exception too */
            }
            exit_reason = TR_EXIT_EXCEPTION;
            goto leave_error;
        }
        if (i + 1 == t->nsteps || t->steps[i + 1].offset != skip_prefixes(f, handler)) {
            exit_reason = TR_EXIT_EXCEPTION;
            goto leave_error;
        }
        if (tr_exc_enter_handler(f, level, push_lasti) < 0)
            return -1;
        SP_LOAD();
        f->kwnames = NULL;
        continue;
    }
    leave_error:
        /* The exception was raised where the trace did not raise: the tracer unwinds
         * from this instruction (the traceback entry is already there, so the
         * tracer's own RAISE path must not add one: resume at the handler). */
        {
            int handler, level, push_lasti;
            if (!tr_exc_find_handler(co, s->offset, &handler, &level, &push_lasti)) {
                tr_stat_side_exit(TR_EXIT_EXCEPTION, -1);
                return -1;            /* propagates out of the frame, as in the tracer */
            }
            if (tr_exc_enter_handler(f, level, push_lasti) < 0)
                return -1;
            SP_LOAD();
            f->kwnames = NULL;
            next = handler;
            goto exit;
        }

    check_path:
        if (s->falls_on)
            continue;             /* answered by prepare */
        /* A recorded offset is never an EXTENDED_ARG: equal to next is the common case,
         * a prefix between them the rare one. */
        if (i + 1 < t->nsteps && (t->steps[i + 1].offset == next ||
                                  t->steps[i + 1].offset == skip_prefixes(f, next)))
            continue;
        exit_reason = jumped || s->op == TR_OP_FOR_ITER || s->op == TR_OP_JUMP_IF_FALSE_OR_POP ||
                              s->op == TR_OP_JUMP_IF_TRUE_OR_POP ||
                              (s->op >= TR_OP_POP_JUMP_FORWARD_IF_FALSE &&
                               s->op <= TR_OP_POP_JUMP_FORWARD_IF_TRUE) ||
                              s->op == TR_OP_POP_JUMP_BACKWARD_IF_FALSE ||
                              s->op == TR_OP_POP_JUMP_BACKWARD_IF_TRUE
                          ? TR_EXIT_BRANCH : TR_EXIT_OTHER;
        goto exit;
    }
    /* Every step ran and none returned: the recorded path ended in an exception
     * that this replay did not raise (handled above), so this is not reached unless
     * the trace is empty. */
    next = i > 0 ? next : 0;
exit:
    SP_SAVE();
    /* The instruction the replay left at (the step that ran, failed or found its
     * guard failing; the last one if every step ran): f->lasti is not written per
     * step, nothing reads it while the replay runs (a replayed frame is linked
     * nowhere, tr_frame_run makes it the current frame only from here on). */
    if (t->nsteps > 0)
        f->lasti = t->steps[i < t->nsteps ? i : t->nsteps - 1].offset;
    tr_stat_side_exit((TrExitReason)exit_reason, guard_kind);
    if (exit_reason == TR_EXIT_GUARD)
        t->stale = guard_kind;
    fwd_forget_all(st);   /* the forwarded values are dropped before the tracer runs */
    return side_exit(f, next, throwing, budget, max_depth, st->faults, out);
}

PyObject *tr_replay(TrRecTrace *t, PyObject *func, PyObject *const *args, size_t nargsf,
                    PyObject *kwnames, int64_t budget, int max_depth)
{
    PyFunctionObject *fn = (PyFunctionObject *)func;
    PyCodeObject *co = (PyCodeObject *)fn->func_code;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    Py_ssize_t nkw = kwnames != NULL ? PyTuple_GET_SIZE(kwnames) : 0;
    /* Not zeroed as a whole: fwd[] is read only below nfwd (its 16 entries were a
     * memset per call). */
    TrReplayState st;
    st.nfwd = 0;
    st.faults = tr_faults_active();
    st.args = args;
    st.nargs = nargs;
    st.forward = (st.faults >> TR_FAULT_NO_INVALIDATE_ON_STORE) & 1u;
    tr_replay_epoch++;        /* nothing hoisted by an earlier replay holds */
    TrValue *vals = NULL, *lp = NULL, res = {NULL, NULL};
    TrFrame frame;
    int inited = 0;
    PyObject *result = NULL;
    /* The arguments as values for tr_call_bind, which copies them: on the C stack for
     * the usual few. */
    TrValue valbuf[8];
    vals = nargs + nkw <= 8 ? valbuf : PyMem_Calloc((size_t)(nargs + nkw + 1), sizeof(TrValue));
    if (vals == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t k = 0; k < nargs + nkw; k++)
        vals[k] = tr_value_new(Py_NewRef(args[k]), NULL);
    lp = tr_call_bind(fn, vals, nargs + nkw, kwnames);
    if (lp == NULL)
        goto done;
    if (tr_frame_init(&frame, co, func, fn->func_globals, fn->func_builtins, NULL, lp) < 0)
        goto done;
    inited = 1;
    if (Py_EnterRecursiveCall(" in a replayed trace") == 0) {
        if (replay_frame(t, &frame, &st, budget, max_depth, &res) == 0) {
            result = res.obj;
            res.obj = NULL;
        }
        Py_LeaveRecursiveCall();
    }
done:
    /* Its end too: hoists this replay made (a nested one's, inside a call of the
     * outer replay) must not outlive it, the code after it runs unseen. */
    tr_replay_epoch++;
    fwd_forget_all(&st);
    tr_value_clear(&res);
    if (inited)
        tr_frame_clear(&frame);
    else if (lp != NULL) {
        for (int k = 0; k < co->co_nlocalsplus; k++)
            tr_value_clear(&lp[k]);
    }
    PyMem_Free(lp);
    if (vals != NULL) {
        for (Py_ssize_t k = 0; k < nargs + nkw; k++)
            tr_value_clear(&vals[k]);
        if (vals != valbuf)
            PyMem_Free(vals);
    }
    return result;
}
