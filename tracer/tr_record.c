/* tr_record.c: recording the replayable path of a traced call (docs/REUSE.md).
 *
 * tr_eval.c calls tr_record_step before each instruction of the top-level frame while
 * TrRun.rec is set. The step keeps the instruction pre-decoded (offset, opcode, oparg),
 * for attribute loads the guards of tr_guard.c (the owner is on the stack, the load has
 * not run yet, so the guards describe the state the load resolved against), and marks
 * the trace unreusable when it meets what the replayer does not execute. The path itself
 * is the sequence of offsets: a replay checks after each step that the next instruction
 * is the recorded next step, which is how branches, loops and exceptions are checked.
 */
#include "tr_reuse.h"
#include "tr_frame.h"
#include "tr_faults.h"

/* The recording's scratch arrays, kept for the process: a trace grows step by step
 * and only then is known to be kept, so it is recorded here (grown once per process,
 * not once per call) and copied out at its exact size. Growing and releasing a
 * fresh array per traced call made glibc extend and trim the heap on every call, and
 * while older traces lived each doubling copied into fresh pages (issue 14: tracing
 * 4-13x slower). One recording owns them at a time; a nested one (jit called inside a
 * traced call) grows its own arrays. */
static TrStep *scratch_steps;
static TrAttrStep *scratch_attrs;
static Py_ssize_t scratch_cap, scratch_capattrs;
static int scratch_busy;

/* The size of the last trace kept (tr_rectrace_compact) and its function, by a weak
 * reference (owned; NULL before the first): a recording of that function again (the
 * next traced call of it, mostly along the same path) records straight into blocks of
 * that size (hinted_arrays), so that the compaction has nothing to copy (the steps'
 * copy was ~4% of a traced call's instructions, 16 bytes a step) and at most shrinks a
 * block in place. A wrong guess (another path) costs a growth or a shrink, nothing else:
 * the steps recorded are the same. By the function's identity, not its code's address:
 * a freed code's address is taken again by other code, and the fuzz harness shares code
 * objects between inputs (hz_codecache.h), where a hint from another input would make
 * the recorder's growth tests depend on the inputs run before; each input makes its own
 * function objects. */
static PyObject *hint_fn;
static Py_ssize_t hint_steps, hint_attrs;

/* Blocks of the hinted sizes for t (1), or 0 with t untouched: no hint for its function,
 * or no memory (then the scratch arrays, as without a hint). The attribute entries get
 * one more than the hint: tr_record_load_fast shares an entry only with room for a new
 * one, which an exact block lacks after its last entry. */
TR_NO_COVERAGE static int hinted_arrays(TrRecTrace *t)
{
    if (hint_fn == NULL || tr_weakref_object(hint_fn) != t->func || hint_steps <= 0)
        return 0;
    TrStep *s = PyMem_Malloc((size_t)hint_steps * sizeof(TrStep));
    TrAttrStep *a = PyMem_Malloc((size_t)(hint_attrs + 1) * sizeof(TrAttrStep));
    if (s == NULL || a == NULL) {
        PyMem_Free(s);
        PyMem_Free(a);
        return 0;
    }
    t->steps = s;
    t->cap = hint_steps;
    t->attrs = a;
    t->capattrs = hint_attrs + 1;
    return 1;
}

/* t is kept: its sizes become the hint for its function. Keeps any exception set (the
 * weak reference is made only when the function changes). */
TR_NO_COVERAGE static void hint_keep(TrRecTrace *t)
{
    if (hint_fn == NULL || tr_weakref_object(hint_fn) != t->func) {
        PyObject *et, *ev, *etb;
        PyErr_Fetch(&et, &ev, &etb);
        PyObject *w = PyWeakref_NewRef(t->func, NULL);   /* a function: weakly referenceable */
        if (w == NULL)
            PyErr_Clear();
        PyErr_Restore(et, ev, etb);
        Py_XSETREF(hint_fn, w);   /* releasing a weak reference without a callback runs no code */
        if (w == NULL)
            return;
    }
    hint_steps = t->nsteps;
    hint_attrs = t->nattrs;
}

TrRecTrace *tr_rectrace_new(PyObject *fn, PyObject *const *args, Py_ssize_t nargs,
                            int has_kwargs)
{
    TrRecTrace *t = PyMem_Calloc(1, sizeof *t);
    if (t == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    t->unreusable = -1;
    t->precheck_end = -1;
    t->stale = -1;
    t->has_kwargs = has_kwargs;
    t->func = Py_NewRef(fn);
    if (PyFunction_Check(fn))
        t->code = Py_NewRef(PyFunction_GET_CODE(fn));
    t->arg_types = PyMem_Calloc((size_t)nargs + 1, sizeof(PyTypeObject *));
    if (t->arg_types == NULL) {
        tr_rectrace_free(t);
        PyErr_NoMemory();
        return NULL;
    }
    t->nargs = nargs;
    for (Py_ssize_t i = 0; i < nargs; i++)
        t->arg_types[i] = (PyTypeObject *)Py_NewRef(Py_TYPE(args[i]));
    if (hinted_arrays(t)) {
        /* t->scratch 0: its own blocks, grown by tr_record_step if the path is longer */
    }
    else if (!scratch_busy) {
        scratch_busy = 1;
        t->scratch = 1;
        t->steps = scratch_steps;
        t->cap = scratch_cap;
        t->attrs = scratch_attrs;
        t->capattrs = scratch_capattrs;
    }
    return t;
}

/* Hands the (possibly grown) scratch arrays back for the next recording. */
static void release_scratch(TrRecTrace *t)
{
    scratch_steps = t->steps;
    scratch_cap = t->cap;
    scratch_attrs = t->attrs;
    scratch_capattrs = t->capattrs;
    scratch_busy = 0;
    t->scratch = 0;
    t->steps = NULL;
    t->attrs = NULL;
    t->cap = t->capattrs = 0;
}

void tr_rectrace_free(TrRecTrace *t)
{
    if (t == NULL)
        return;
    for (Py_ssize_t i = 0; i < t->nattrs; i++)
        tr_step_clear(&t->attrs[i]);
    if (t->scratch)
        release_scratch(t);
    else {
        PyMem_Free(t->attrs);
        PyMem_Free(t->steps);
    }
    if (t->arg_types != NULL) {
        for (Py_ssize_t i = 0; i < t->nargs; i++)
            Py_XDECREF(t->arg_types[i]);
        PyMem_Free(t->arg_types);
    }
    Py_XDECREF(t->func);
    Py_XDECREF(t->code);
    PyMem_Free(t);
}

TR_NO_COVERAGE void tr_rectrace_compact(TrRecTrace *t)
{
    hint_keep(t);
    if (t->scratch) {
        TrStep *s = PyMem_Malloc((size_t)(t->nsteps ? t->nsteps : 1) * sizeof(TrStep));
        TrAttrStep *a = PyMem_Malloc((size_t)(t->nattrs ? t->nattrs : 1) * sizeof(TrAttrStep));
        if (s == NULL || a == NULL) {
            /* Keep the scratch arrays themselves: the next recording grows new ones. */
            PyMem_Free(s);
            PyMem_Free(a);
            t->scratch = 0;
            scratch_busy = 0;
            scratch_steps = NULL;
            scratch_attrs = NULL;
            scratch_cap = scratch_capattrs = 0;
            return;
        }
        memcpy(s, t->steps, (size_t)t->nsteps * sizeof(TrStep));
        if (t->nattrs > 0)   /* no attribute load yet in this process: attrs is NULL */
            memcpy(a, t->attrs, (size_t)t->nattrs * sizeof(TrAttrStep));   /* moves the refs */
        Py_ssize_t n = t->nsteps, na = t->nattrs;
        release_scratch(t);
        t->steps = s;
        t->nsteps = t->cap = n;
        t->attrs = a;
        t->nattrs = t->capattrs = na;
        return;
    }
    /* Shrinking never moves a block in glibc or pymalloc; on failure the larger block
     * stays, which is as good. */
    if (t->nsteps > 0 && t->nsteps < t->cap) {
        TrStep *s = PyMem_Realloc(t->steps, (size_t)t->nsteps * sizeof(TrStep));
        if (s != NULL) {
            t->steps = s;
            t->cap = t->nsteps;
        }
    }
    if (t->nattrs > 0 && t->nattrs < t->capattrs) {
        TrAttrStep *a = PyMem_Realloc(t->attrs, (size_t)t->nattrs * sizeof(TrAttrStep));
        if (a != NULL) {
            t->attrs = a;
            t->capattrs = t->nattrs;
        }
    }
}

TR_NO_COVERAGE int tr_rectrace_traverse(TrRecTrace *t, visitproc visit, void *arg)
{
    Py_VISIT(t->func);
    Py_VISIT(t->code);
    for (Py_ssize_t i = 0; i < t->nargs; i++)
        Py_VISIT(t->arg_types[i]);
    for (Py_ssize_t i = 0; i < t->nattrs; i++) {
        TrAttrStep *s = &t->attrs[i];
        Py_VISIT(s->type);
        Py_VISIT(s->cls);
        Py_VISIT(s->descr);
        Py_VISIT(s->meta_descr);
        Py_VISIT(s->hook);
        Py_VISIT(s->result);
    }
    return 0;
}

int tr_replay_supports(int op)
{
    switch (op) {
    case TR_OP_NOP: case TR_OP_RESUME: case TR_OP_POP_TOP: case TR_OP_PUSH_NULL:
    case TR_OP_LOAD_FAST: case TR_OP_STORE_FAST: case TR_OP_DELETE_FAST:
    case TR_OP_LOAD_CONST: case TR_OP_LOAD_GLOBAL:
    case TR_OP_UNARY_POSITIVE: case TR_OP_UNARY_NEGATIVE: case TR_OP_UNARY_INVERT:
    case TR_OP_UNARY_NOT:
    case TR_OP_BINARY_OP: case TR_OP_COMPARE_OP: case TR_OP_IS_OP: case TR_OP_CONTAINS_OP:
    case TR_OP_BINARY_SUBSCR: case TR_OP_STORE_SUBSCR: case TR_OP_DELETE_SUBSCR:
    case TR_OP_BUILD_TUPLE: case TR_OP_BUILD_LIST: case TR_OP_BUILD_MAP:
    case TR_OP_BUILD_CONST_KEY_MAP: case TR_OP_BUILD_STRING: case TR_OP_LIST_APPEND:
    case TR_OP_LIST_EXTEND: case TR_OP_LIST_TO_TUPLE:
    case TR_OP_GET_ITER: case TR_OP_FOR_ITER:
    case TR_OP_JUMP_FORWARD: case TR_OP_JUMP_BACKWARD:
    case TR_OP_JUMP_BACKWARD_NO_INTERRUPT:
    case TR_OP_POP_JUMP_FORWARD_IF_FALSE: case TR_OP_POP_JUMP_FORWARD_IF_TRUE:
    case TR_OP_POP_JUMP_BACKWARD_IF_FALSE: case TR_OP_POP_JUMP_BACKWARD_IF_TRUE:
    case TR_OP_POP_JUMP_FORWARD_IF_NONE: case TR_OP_POP_JUMP_FORWARD_IF_NOT_NONE:
    case TR_OP_POP_JUMP_BACKWARD_IF_NONE: case TR_OP_POP_JUMP_BACKWARD_IF_NOT_NONE:
    case TR_OP_JUMP_IF_FALSE_OR_POP: case TR_OP_JUMP_IF_TRUE_OR_POP:
    case TR_OP_RETURN_VALUE:
    case TR_OP_LOAD_ATTR: case TR_OP_LOAD_METHOD: case TR_OP_STORE_ATTR:
    case TR_OP_DELETE_ATTR:
    case TR_OP_PRECALL: case TR_OP_KW_NAMES: case TR_OP_CALL:
    case TR_OP_MAKE_FUNCTION: case TR_OP_FORMAT_VALUE:
    case TR_OP_PUSH_EXC_INFO: case TR_OP_POP_EXCEPT: case TR_OP_CHECK_EXC_MATCH:
    case TR_OP_RERAISE: case TR_OP_COPY: case TR_OP_SWAP:
        return 1;
    default:
        return 0;
    }
}

unsigned char tr_record_plain[256];
static unsigned char tr_record_supported[256];   /* tr_replay_supports by table */

void tr_record_init(void)
{
    for (int op = 0; op < 256; op++) {
        tr_record_supported[op] = (unsigned char)tr_replay_supports(op);
        switch (op) {
        case TR_OP_LOAD_ATTR: case TR_OP_LOAD_METHOD: case TR_OP_STORE_ATTR:
        case TR_OP_DELETE_ATTR: case TR_OP_STORE_SUBSCR: case TR_OP_DELETE_SUBSCR:
        case TR_OP_CALL: case TR_OP_MAKE_FUNCTION:
            tr_record_plain[op] = 0;   /* tr_record_step's switch handles them */
            break;
        default:
            tr_record_plain[op] = (unsigned char)tr_replay_supports(op);
        }
    }
}

/* C functions that read the caller's frame: replayed natively they would see the
 * replayer instead of the program's frame. */
static const char *const frame_readers[] = {
    "locals", "globals", "eval", "exec", "breakpoint", "_getframe", "warn", "warn_explicit",
    NULL,
};
static const char *const frame_readers_no_args[] = {"vars", "dir", NULL};
static const char *const frame_peekers[] = {
    "_getframe", "warn", "warn_explicit", "_current_frames", NULL,
};

int tr_is_frame_call(PyObject *callable, Py_ssize_t nargs)
{
    if (callable == (PyObject *)&PySuper_Type)
        return 1;
    if (PyFunction_Check(callable) || !PyCFunction_Check(callable))   /* the first exact */
        return 0;
    const char *n = ((PyCFunctionObject *)callable)->m_ml->ml_name;
    if (tr_name_in(n, frame_readers))
        return 1;
    return nargs == 0 && tr_name_in(n, frame_readers_no_args);
}

static void mark(TrRecTrace *t, TrUnreusable why)
{
    if (t->unreusable < 0)
        t->unreusable = why;
}

void tr_record_call(TrRun *run, PyObject *callable)
{
    if (PyFunction_Check(callable) || !PyCFunction_Check(callable))   /* the first exact */
        return;
    const char *n = ((PyCFunctionObject *)callable)->m_ml->ml_name;
    if (tr_name_in(n, frame_peekers))
        mark(run->rec->trace, TR_UR_FRAME_CALL);
}

/* The index of the attribute entry just filled at t->attrs[t->nattrs]: an earlier
 * entry of the same instruction when it is identical (then the new one is released),
 * else the new one. Under skip_getter_on_replay every step keeps its own entry: that
 * fault stores a getter's result per step. */
static int intern_attr(struct TrRecorder *r, TrRecTrace *t, int offset, int per_step)
{
    PyCodeObject *co = (PyCodeObject *)t->code;
    if (!per_step && r->last_attr == NULL) {
        Py_ssize_t n = Py_SIZE(co);
        r->last_attr = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
        if (r->last_attr != NULL) {
            for (Py_ssize_t i = 0; i < n; i++)
                r->last_attr[i] = -1;
        }
    }
    TrAttrStep *a = &t->attrs[t->nattrs];
    if (!per_step && r->last_attr != NULL && offset >= 0 && offset < Py_SIZE(co)) {
        int prev = r->last_attr[offset];
        if (prev >= 0 && tr_attr_step_equal(&t->attrs[prev], a)) {
            tr_step_clear(a);
            return prev;
        }
        r->last_attr[offset] = (int)t->nattrs;
    }
    return (int)t->nattrs++;
}

/* tr_reuse.h: a quick frame's step that is neither plain nor an attribute load. With room
 * for it, a store (STORE_ATTR, DELETE_ATTR, STORE_SUBSCR, DELETE_SUBSCR: the entry check's
 * end noted at the first) and a CALL of a plain function or bound method (most calls)
 * are stored here as tr_record_step would store them (a quick frame runs the recorded
 * code with no fault on, these opcodes are replayed, room implies the bound, and
 * reusability is not asked, as in tr_record_plain_fast), in a function that saves no
 * registers; everything else is tr_record_step. The room depends on earlier recordings:
 * out of coverage. */
TR_NO_COVERAGE void tr_record_quick_step(TrRun *run, TrFrame *f, int offset, int op, int oparg)
{
    TrRecTrace *t = run->rec->trace;
    if (t->nsteps < t->cap) {
        if (op == TR_OP_CALL) {
            const TrValue *top = f->stack + f->sp;
            int is_meth = top[-(oparg + 2)].obj != NULL;
            PyObject *callable = top[-(oparg + is_meth + 1)].obj;
            if (!Py_IS_TYPE(callable, &PyFunction_Type) && !Py_IS_TYPE(callable, &PyMethod_Type))
                goto full;
        }
        else if (op == TR_OP_STORE_ATTR || op == TR_OP_STORE_SUBSCR ||
                 op == TR_OP_DELETE_ATTR || op == TR_OP_DELETE_SUBSCR) {
            if (t->precheck_end < 0) {
                t->precheck_end = (int)t->nsteps;
                t->precheck_attrs = (int)t->nattrs;
            }
        }
        else {
            goto full;
        }
        tr_step_put(&t->steps[t->nsteps++], offset, op, oparg);
        return;
    }
full:
    tr_record_step(run, f, offset, op, oparg);
}

void tr_record_step(TrRun *run, TrFrame *f, int offset, int op, int oparg)
{
    struct TrRecorder *r = run->rec;
    TrRecTrace *t = r->trace;
    if (t->unreusable >= 0)
        return;
    if ((PyObject *)f->code != t->code) {
        mark(t, TR_UR_NOT_FUNCTION);
        return;
    }
    /* Under skip_getter_on_replay the trace keeps what the previous getter returned
     * (that bug): the previous step's result is on top of the stack now. */
    if (TR_FAULT_ON(run, TR_FAULT_SKIP_GETTER_ON_REPLAY) && t->nsteps > 0 && f->sp > 0) {
        TrStep *ps = &t->steps[t->nsteps - 1];
        TrAttrStep *p = ps->attr >= 0 ? &t->attrs[ps->attr] : NULL;
        if (p != NULL && ps->op == TR_OP_LOAD_ATTR && p->result == NULL &&
            (p->kind == TR_AK_DATA_DESC || p->kind == TR_AK_NONDATA_DESC ||
             p->kind == TR_AK_GETATTR || p->kind == TR_AK_META_DATA ||
             p->kind == TR_AK_TYPE_DESC || p->kind == TR_AK_META_NONDATA) &&
            offset == ps->offset + 1 + tr_opcode_caches(TR_OP_LOAD_ATTR))
            p->result = Py_XNewRef(f->stack[f->sp - 1].obj);
    }
    if (!tr_record_supported[op] || (op == TR_OP_MAKE_FUNCTION && (oparg & 8))) {
        mark(t, TR_UR_OPCODE);
        return;
    }
    if (t->nsteps >= TR_TRACE_MAX_STEPS) {
        mark(t, TR_UR_TOO_LONG);
        return;
    }
    if (t->nsteps == t->cap) {
        /* Never above the bound: the inline recorders (tr_reuse.h) then test the room
         * alone, nsteps < cap implying nsteps < TR_TRACE_MAX_STEPS. */
        Py_ssize_t cap = t->cap ? 2 * t->cap : 64;
        if (cap > TR_TRACE_MAX_STEPS)
            cap = TR_TRACE_MAX_STEPS;
        TrStep *ns = PyMem_Realloc(t->steps, (size_t)cap * sizeof(TrStep));
        if (ns == NULL) {
            mark(t, TR_UR_TOO_LONG);
            return;
        }
        t->steps = ns;
        t->cap = cap;
    }
    TrStep *s = &t->steps[t->nsteps];
    tr_step_put(s, offset, op, oparg);
    switch (op) {
    case TR_OP_LOAD_ATTR:
    case TR_OP_LOAD_METHOD: {
        if (t->nattrs == t->capattrs) {
            Py_ssize_t cap = t->capattrs ? 2 * t->capattrs : 16;
            TrAttrStep *na = PyMem_Realloc(t->attrs, (size_t)cap * sizeof(TrAttrStep));
            if (na == NULL) {
                mark(t, TR_UR_TOO_LONG);
                return;
            }
            t->attrs = na;
            t->capattrs = cap;
        }
        TrValue owner = f->stack[f->sp - 1];
        PyObject *name = PyTuple_GET_ITEM(f->code->co_names, oparg);
        int input = -1;
        if (owner.prov != NULL && owner.prov->kind == TR_PROV_INPUT && owner.prov->name == NULL &&
            owner.prov->index >= 0 && owner.prov->index < r->nargs &&
            r->args[owner.prov->index] == owner.obj)
            input = owner.prov->index;
        int per_step = TR_FAULT_ON(run, TR_FAULT_SKIP_GETTER_ON_REPLAY);
        if (!per_step && r->last_attr != NULL && offset < Py_SIZE(f->code)) {
            /* The entry this instruction recorded last, when every one of its guards
             * (fully: no fault skips any) holds for this owner, is what recording
             * would make again: share it without classifying the load anew. Not for
             * NATIVE entries, whose two checks do not pin what recording decides, nor
             * for a class attribute whose descriptor-ness changed (its __class__
             * assigned: the class-access guards compare it by identity only). */
            int prev = r->last_attr[offset];
            if (prev >= 0) {
                TrAttrStep *p = &t->attrs[prev];
                int cls_kind_holds = !(p->kind == TR_AK_TYPE_DESC || p->kind == TR_AK_TYPE_STABLE) ||
                    (Py_TYPE(p->descr)->tp_descr_get != NULL) == (p->kind == TR_AK_TYPE_DESC);
                if (p->kind != TR_AK_NATIVE && cls_kind_holds && p->input == input &&
                    tr_guard_check_fast(p, owner.obj, 0) < 0) {
                    s->attr = prev;
                    break;
                }
            }
        }
        TrAttrStep *a = &t->attrs[t->nattrs];
        memset(a, 0, sizeof *a);
        a->input = input;
        if (tr_guard_record(a, owner.obj, name, op == TR_OP_LOAD_METHOD, run->faults) < 0) {
            PyErr_Clear();
            tr_step_clear(a);
            mark(t, TR_UR_FAILED);
            return;
        }
        /* What tr_record_load_fast would otherwise ask of this entry on every load
         * (fixed from here on: only the dict memo and the replay's fields change). */
        a->rec_quick = a->kind != TR_AK_NATIVE && a->kind != TR_AK_TYPE_DESC &&
                       a->kind != TR_AK_TYPE_STABLE && a->cls == NULL && a->type_tag != 0;
        s->attr = intern_attr(r, t, offset, per_step);
        break;
    }
    case TR_OP_STORE_ATTR:
    case TR_OP_DELETE_ATTR:
    case TR_OP_STORE_SUBSCR:
    case TR_OP_DELETE_SUBSCR:
        if (t->precheck_end < 0) {
            t->precheck_end = (int)t->nsteps;
            t->precheck_attrs = (int)t->nattrs;
        }
        break;
    case TR_OP_CALL: {
        int is_meth = f->stack[f->sp - (oparg + 2)].obj != NULL;
        int nargs = oparg + is_meth;
        PyObject *callable = f->stack[f->sp - (nargs + 1)].obj;
        /* A plain function or bound method (most calls) is never one: not asked */
        if (!Py_IS_TYPE(callable, &PyFunction_Type) && !Py_IS_TYPE(callable, &PyMethod_Type) &&
            tr_is_frame_call(callable, nargs)) {
            mark(t, TR_UR_FRAME_CALL);
            return;
        }
        break;
    }
    default:
        break;
    }
    t->nsteps++;
}
