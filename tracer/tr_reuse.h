/* tr_reuse.h: trace reuse, what turns the reference tracer into a JIT (docs/REUSE.md).
 *
 * A traced call of jit(fn) records the path its top-level frame took: one TrStep per
 * instruction executed, pre-decoded, attribute loads specialised on how they resolved
 * (TrAttrKind) with the guards that make the specialisation valid (type of the owner,
 * identity of what the MRO lookup found, instance dict key present or absent, slot set
 * or unset, __getattr__/__getattribute__ identity, the metaclass's lookup for class
 * access). A later call whose entry guards pass REPLAYS the steps (tr_replay.c): no
 * bytecode is decoded, stable values (guarded class attributes) are reused, everything
 * else (getters, __get__, __getattr__, calls) runs again natively, and every step checks
 * that the path goes on as recorded (branch taken, exception raised or not, inline
 * guards); where it does not, the replay leaves the trace (a side exit) and the tracer's
 * interpreter resumes the same frame at that instruction with the replay's locals and
 * stack, so nothing that ran runs twice.
 *
 * Files: tr_record.c (the recorder hook of tr_eval.c), tr_guard.c (classification and
 * guards), tr_replay.c (replay and side exits), tr_jitcache.c (the bounded set of traces
 * per jit object, the policy and the statistics).
 */
#ifndef TR_REUSE_H
#define TR_REUSE_H

#include "tr_run.h"
#include "tr_core.h"

struct TrFrame;   /* tr_frame.h */

/* How a recorded attribute step is replayed. */
typedef enum {
    TR_AK_NONE = 0,
    TR_AK_NATIVE,          /* PyObject_GetAttr as is (opaque getattro, __getattribute__) */
    TR_AK_INST_DICT,       /* the instance dict's value, read again */
    TR_AK_DATA_DESC,       /* type's data descriptor: its __get__ called again */
    TR_AK_NONDATA_DESC,    /* non-data descriptor, dict key absent: __get__ called again */
    TR_AK_CLASS_ATTR,      /* plain class attribute, dict key absent: the value reused */
    TR_AK_GETATTR,         /* nothing found: __getattr__ called again */
    TR_AK_METHOD,          /* LOAD_METHOD of a plain function: (function, self) pushed */
    TR_AK_META_DATA,       /* class access: metatype data descriptor's __get__ */
    TR_AK_TYPE_DESC,       /* class access: descriptor in the class's MRO, __get__(None, C) */
    TR_AK_TYPE_STABLE,     /* class access: plain value in the class's MRO, reused */
    TR_AK_META_NONDATA,    /* class access: metatype non-data descriptor's __get__ */
    TR_AK_META_STABLE,     /* class access: plain value on the metatype, reused */
} TrAttrKind;

/* Guard kinds: what a failing guard was about (statistics, retrace reasons). */
#define TR_GUARD_LIST(X) \
    X(INPUT_TYPE, "input_type")        /* type of an argument */ \
    X(TYPE, "type")                    /* type of an attribute's owner (__class__) */ \
    X(CLASS_ATTR, "class_attr")        /* identity of what the MRO lookup finds */ \
    X(META_ATTR, "meta_attr")          /* the same on the metatype (class access) */ \
    X(DICT_KEY, "dict_key")            /* instance dict key present / absent */ \
    X(SLOT, "slot")                    /* __slots__ member set / unset */ \
    X(HOOK, "getattr_hook")            /* tp_getattro, __getattr__, __getattribute__ */ \
    X(DESCR_TYPE, "descr_type")        /* the descriptor's type still data / non-data */ \
    X(CLASS_IDENTITY, "class_identity") /* class access on the same class object */

typedef enum {
#define TR_GUARD_ENUM(id, name) TR_GUARD_##id,
    TR_GUARD_LIST(TR_GUARD_ENUM)
#undef TR_GUARD_ENUM
    TR_GUARD__COUNT
} TrGuardKind;

/* The provenance oracle's resolution of an instance load, the part that depends on the
 * owner's type alone (tr_provcheck.c, resolve_type): memoised with the type's version
 * tag. Borrowed pointers, valid while the tag holds (the type's dict keeps them). */
typedef struct {
    int unknown;                 /* 1: not checkable, whatever the instance holds */
    int hooked;                  /* the type has a __getattr__ behind the generic lookup */
    PyMemberDef *member;         /* a data descriptor that is a readable slot, or NULL */
    PyObject *descr;             /* else: lookup(type, name) after the dict, or NULL */
    int has_get;                 /* descr has a __get__ */
} TrPcType;

/* The provenance oracle's memo of one load site (a replayed step's, or a slot of the
 * traced calls' table in tr_provcheck.c): the type's part kept with the type's version
 * tag, the last resolution with the instance dict's version. */
typedef struct {
    PyTypeObject *type;          /* borrowed; with its version tag below */
    unsigned int tag;            /* 0: nothing memoised */
    TrPcType ty;                 /* the type's part of the resolution, valid with tag */
    uint64_t dict_ver;           /* the last resolution's instance dict version (0: the
                                    owner had no dict) and its outcome */
    PyObject *found;             /* borrowed: the resolution's object */
    int rs;                      /* its resolution kind (tr_provcheck.h) */
    int hint;                    /* tr_dict_find's entry hint for the next dict (any
                                    value is safe: it is bounds-checked) */
} TrPcMemo;

/* How one recorded attribute load (LOAD_ATTR, LOAD_METHOD) resolved, with its guards.
 * Objects are strong references owned by the trace (a guard keeps alive what it
 * compares, so a freed object whose address is reused can never pass it); never the
 * call's arguments or results, except `result` under the fault skip_getter_on_replay,
 * which is that bug. Kept apart from TrStep: a quarter of the steps or fewer are
 * attribute loads, and a trace lives as long as its jit object (issue 14: 112-byte
 * steps made a kept trace ~60 KiB and its growth and release churned the heap). */
typedef struct {
    TrAttrKind kind;
    int input;                   /* owner was INPUT[input] (positional), else -1 */
    PyObject *name;              /* borrowed from co_names (the code is kept alive) */
    PyTypeObject *type;          /* type(owner) */
    getattrofunc getattro;       /* type(owner)->tp_getattro when recorded */
    PyObject *cls;               /* class access: the class itself */
    PyObject *descr;             /* lookup(type, name), or NULL when absent */
    descrgetfunc dget;           /* type(descr)->tp_descr_get when recorded */
    descrsetfunc dset;           /* type(descr)->tp_descr_set when recorded */
    PyObject *meta_descr;        /* class access: lookup(metatype, name) */
    PyObject *hook;              /* lookup(type, "__getattr__") or NULL */
    unsigned int type_tag;       /* type(owner)'s tp_version_tag after the lookups, 0 none */
    unsigned int cls_tag;        /* class access: the class's tag, 0 none */
    int dict_has;                /* -1 no dict, 0 key absent, 1 key present */
    int slot_set;                /* -1 not a slot, 0 unset, 1 set */
    Py_ssize_t slot_offset;      /* slot_set >= 0: the T_OBJECT_EX member's offset in the
                                    owner (what slot_state reads), else 0 */
    PyObject *result;            /* fault skip_getter_on_replay only */
    /* The dict key guard's memo (tr_guard.c): the ma_version_tag of the instance dict
     * it last looked into and what the key held there (borrowed, NULL when absent).
     * CPython 3.11 gives every dict state a globally unique version (PEP 509: a new
     * dict and every change take the next value of one counter), so an equal version
     * is the same dict, unchanged: the key and its value are as they were. */
    uint64_t dict_ver;           /* 0: nothing memoised */
    PyObject *dict_value;
    /* The provenance oracle's own memo (tr_provcheck.c), apart from the guards'. */
    TrPcMemo pc;
    /* The replay's hoisted guard (tr_replay.c): the owner whose guards last passed in
     * full, no fault on, and the replay epoch (tr_replay_epoch) they passed in. The
     * same owner in the same epoch passes again unchecked: the epoch moves before
     * anything that could run user code or free an object that could. */
    union {
        struct {
            PyObject *hoist_owner;   /* compared only, never dereferenced */
            uint64_t hoist_epoch;    /* 0: none */
        };
        /* calm 4 only (hoist_sites): the versions the last full pass of this entry's
         * guards and oracle read, no fault on (tr_replay.c, versioned_hit): the
         * owner's type's valid version tag (never 0 once kept) and its instance dict's
         * version (0: no dict), kept with pc_owner, pc_type and pc_value. */
        struct {
            uint64_t vh_dict_ver;
            unsigned int vh_tag;
        };
    };
    unsigned char calm;          /* the replay's fused_kind, worked out once: 0 not yet,
                                    1 no, 2 yes, 3 yes and its loads may hoist, 4 yes and
                                    its loads may be served by versions (set by
                                    tr_replay.c's hoist_sites before the first replay) */
    unsigned char rec_quick;     /* set when recorded (tr_record_step): instance access
                                    (cls NULL), a type tag, a kind neither NATIVE nor
                                    TYPE_DESC/TYPE_STABLE: the tests of the recorder's
                                    sharing that depend on the entry alone, asked once
                                    (tr_record_load_fast) */
    int dict_hint;               /* the dict key guard's tr_dict_find hint (tr_core.h):
                                    where the key was in the last dict that held it */
    /* The replay's hoisted oracle check (tr_replay.c, provcheck_hoisted): the owner, its
     * type and the value the provenance oracle last passed for this entry, and the
     * replay epoch it passed in (0: none). All compared only, never dereferenced. */
    PyObject *pc_owner;
    PyTypeObject *pc_type;
    PyObject *pc_value;
    uint64_t pc_epoch;
} TrAttrStep;

/* One recorded instruction of the top-level frame. */
typedef struct {
    int offset;                  /* code unit of the instruction (after EXTENDED_ARG) */
    int oparg;
    int attr;                    /* attribute loads: index in TrRecTrace.attrs, else -1;
                                    steps of one instruction that resolved alike share
                                    one entry */
    unsigned char op;
    unsigned char falls_on;      /* the replay's (tr_replay.c, prepare): 1 when op never
                                    jumps and the next step is its fall-through, the
                                    path check answered in advance */
    unsigned char fuses;         /* the replay's (prepare): 1 when op is LOAD_FAST and
                                    the next step its fused LOAD_ATTR / LOAD_METHOD */
} TrStep;

/* Why a trace cannot be reused (statistics). */
#define TR_UNREUSABLE_LIST(X) \
    X(NOT_FUNCTION, "not_function")    /* fn is not a plain Python function */ \
    X(CODE_FLAGS, "code_flags")        /* generator, coroutine, closure cells */ \
    X(OPCODE, "opcode")                /* an instruction the replayer does not execute */ \
    X(FRAME_CALL, "frame_call")        /* locals(), super(), eval() ... need the frame */ \
    X(TOO_LONG, "too_long")            /* more steps than TR_TRACE_MAX_STEPS */ \
    X(FAILED, "failed")                /* the traced call raised the tracer's own error */

typedef enum {
#define TR_UR_ENUM(id, name) TR_UR_##id,
    TR_UNREUSABLE_LIST(TR_UR_ENUM)
#undef TR_UR_ENUM
    TR_UR__COUNT
} TrUnreusable;

#define TR_TRACE_MAX_STEPS 200000

/* A recorded trace: the path of one call of one function. */
typedef struct TrRecTrace {
    PyObject *func;              /* strong: the function traced */
    PyObject *code;              /* strong: its code object (names are borrowed from it) */
    Py_ssize_t nargs;            /* positional arguments of the traced call */
    PyTypeObject **arg_types;    /* strong: type of each positional argument */
    int has_kwargs;              /* keyword arguments: never replayed (not recorded) */
    TrStep *steps;
    Py_ssize_t nsteps, cap;
    TrAttrStep *attrs;           /* the attribute loads' resolutions, in step order */
    Py_ssize_t nattrs, capattrs;
    int scratch;                 /* steps and attrs are the recorder's scratch arrays
                                    (tr_record.c) until tr_rectrace_compact */
    int unreusable;              /* -1 reusable, else a TrUnreusable */
    int precheck_end;            /* steps before the first store: checked at entry */
    int precheck_attrs;          /* attrs entries made before that store: the entry check
                                    walks these once each instead of every step (a loop's
                                    40 iterations share their entries) */
    int refs;                    /* the cache's 1 + replays running it (a replayed call
                                    may retrace the same jit and evict it) */
    int prepared;                /* the replay set the steps' falls_on and fuses */
    int stale;                   /* -1, or the guard kind that failed inline in a replay:
                                    the trace is no longer chosen (the next call retraces
                                    instead of leaving the trace at the same guard again) */
} TrRecTrace;

/* The recorder lives in TrRun.rec while a call of jit(fn) is traced. */
struct TrRecorder {
    TrRecTrace *trace;
    PyObject *const *args;       /* borrowed: the call's positional arguments */
    Py_ssize_t nargs;
    int last;                    /* index of the last step, -1 before the first */
    /* Per code unit of the function, the attrs index last recorded there (-1 none), or
     * NULL: a load that resolves as its previous execution did (every iteration of a
     * loop, mostly) shares that entry instead of storing ~100 bytes again. */
    int *last_attr;
};

/* ---- tr_record.c ---- */
/* A new trace for a call of fn with these arguments (types kept), or NULL with
 * MemoryError. */
TrRecTrace *tr_rectrace_new(PyObject *fn, PyObject *const *args, Py_ssize_t nargs,
                            int has_kwargs);
void tr_rectrace_free(TrRecTrace *t);                  /* NULL-safe */
/* The trace is kept from now on: its steps move out of the scratch arrays into blocks
 * of their exact size (or keep a larger block if that allocation fails). */
void tr_rectrace_compact(TrRecTrace *t);
int tr_rectrace_traverse(TrRecTrace *t, visitproc visit, void *arg);
/* The hook of tr_eval.c: called before each instruction of the top-level frame. */
void tr_record_step(TrRun *run, struct TrFrame *f, int offset, int op, int oparg);
/* 1 for the opcodes whose step is the instruction alone: executed by the replayer and
 * neither an attribute load, a store that ends the entry check, a call nor
 * MAKE_FUNCTION (filled by tr_record_init at module init). */
extern unsigned char tr_record_plain[256];
void tr_record_init(void);
/* Step s as the instruction alone: its offset, opcode and argument, no attribute. */
TR_HOT_INLINE void tr_step_put(TrStep *s, int offset, int op, int oparg)
{
    s->offset = offset;
    s->op = (unsigned char)op;
    s->oparg = oparg;
    s->attr = -1;
}

/* tr_record_step's common case inline (the recorder runs before every instruction), for
 * run_frame's "quick" frames only: the top-level frame of a run with no fault on (the
 * fault skip_getter_on_replay looks at every step) whose code is the recorded code, all
 * of which hold for the whole run of the frame (run->faults is set once per run, a
 * frame's code never changes), so they are asked once per frame, not here. op is one
 * run_frame found tr_record_plain (read with the opcode's cache count, one table). When
 * the trace is still reusable and has room (cap never exceeds TR_TRACE_MAX_STEPS, see
 * tr_record_step) the same step tr_record_step would make is stored; anything else is
 * tr_record_step. Whether the trace is still reusable is not asked: an unreusable trace
 * is never kept nor read (tr_jit_record_end frees it; tr_record_step, which returns at
 * once for it, reads the last step only under a fault, in frames that are not quick),
 * so the steps stored into it until its room runs out are dead, and cheaper than the
 * test on every step. t is run->rec->trace. Borrows everything, takes no reference. */
TR_HOT_INLINE void tr_record_plain_fast(TrRun *run, TrRecTrace *t, struct TrFrame *f,
                                        int offset, int op, int oparg)
{
    if (t->nsteps < t->cap) {   /* reusable or not: see above */
        tr_step_put(&t->steps[t->nsteps++], offset, op, oparg);
        return;
    }
    tr_record_step(run, f, offset, op, oparg);
}

/* A quick frame's step (as for tr_record_plain_fast) that is neither plain nor an
 * attribute load: a CALL of a plain function or bound method stored at once, anything
 * else tr_record_step. */
void tr_record_quick_step(TrRun *run, struct TrFrame *f, int offset, int op, int oparg);

/* The hook of tr_call.c: any call of the traced call (callees included). A call that
 * walks up the stack (sys._getframe, warnings.warn) makes the trace unreusable: in a
 * replay its callers are native and the top-level frame is the replayer's. */
void tr_record_call(TrRun *run, PyObject *callable);
/* 1 when the replayer executes op. */
int tr_replay_supports(int op);
/* 1 when callable needs the caller's frame (locals(), super() ...) with nargs args. */
int tr_is_frame_call(PyObject *callable, Py_ssize_t nargs);

/* ---- tr_guard.c ---- */
/* Fills step's guards and kind for an attribute load of name on owner (LOAD_ATTR, or
 * LOAD_METHOD when method is 1). 0, or -1 with an exception set. */
int tr_guard_record(TrAttrStep *step, PyObject *owner, PyObject *name, int method,
                    unsigned faults);
/* Checks step's guards against owner now: -1 when they pass, else the TrGuardKind of
 * the first that fails. Never sets an exception. Updates the step's dict memo. */
int tr_guard_check(TrAttrStep *step, PyObject *owner, unsigned faults);
/* tr_guard_check_fast past its type tests (an owner of s->type with its getattro and
 * valid tag as recorded, no fault, instance access, not NATIVE): the descriptor's type,
 * the slot's state, the dict key's memo. -1 when they pass, else a TrGuardKind, or
 * tr_guard_check's answer where the memo cannot tell. */
TR_HOT_INLINE int tr_guard_check_rest(TrAttrStep *s, PyObject *owner)
{
    if (s->descr != NULL && (Py_TYPE(s->descr)->tp_descr_get != s->dget ||
                             Py_TYPE(s->descr)->tp_descr_set != s->dset))
        return TR_GUARD_DESCR_TYPE;
    if (s->slot_set >= 0 &&
        (*(PyObject **)((char *)owner + s->slot_offset) != NULL) != s->slot_set)
        return TR_GUARD_SLOT;
    if (s->kind != TR_AK_DATA_DESC) {
        PyObject **dp = tr_dict_ptr(owner);
        int has;
        if (dp == NULL) {
            has = -1;
        }
        else if (*dp == NULL) {
            s->dict_value = NULL;
            has = 0;
        }
        else if (!PyDict_CheckExact(*dp) || ((PyDictObject *)*dp)->ma_version_tag == 0) {
            return tr_guard_check(s, owner, 0);
        }
        else if (((PyDictObject *)*dp)->ma_version_tag == s->dict_ver) {
            has = s->dict_value != NULL;
        }
        else {
            /* Another dict version (another owner, a store): the key found by identity
             * is what dict_has_memo's lookup finds (tr_dict_find); else that lookup. */
            PyObject *v = tr_dict_find(*dp, s->name, &s->dict_hint);
            if (v == NULL)
                return tr_guard_check(s, owner, 0);
            s->dict_ver = ((PyDictObject *)*dp)->ma_version_tag;
            s->dict_value = v;
            has = 1;
        }
        if (has != s->dict_has)
            return TR_GUARD_DICT_KEY;
    }
    return -1;
}

/* tr_guard_check's common case, inline for the replayer (every replayed load checks
 * its guards): no fault on, instance access on an owner of the recorded type whose
 * version tag is unchanged (so the hook and MRO lookups answer as recorded, tr_guard.c's
 * valid_tag), a slot read at its offset, the dict key's memo hit (same dict version).
 * The same checks in the same order as tr_guard_check, so the same answer; anything
 * else is tr_guard_check itself. */
TR_HOT_INLINE int tr_guard_check_fast(TrAttrStep *s, PyObject *owner, unsigned faults)
{
    PyTypeObject *t = Py_TYPE(owner);
    if (faults != 0 || t != s->type || t->tp_getattro != s->getattro ||
        s->kind == TR_AK_NATIVE || s->cls != NULL || s->type_tag == 0 ||
        !PyType_HasFeature(t, Py_TPFLAGS_VALID_VERSION_TAG) || t->tp_version_tag != s->type_tag)
        return tr_guard_check(s, owner, faults);
    return tr_guard_check_rest(s, owner);
}
/* tr_record_step's attribute load (LOAD_ATTR, LOAD_METHOD; owner the value on top of the
 * stack, borrowed; in a quick frame, as for tr_record_plain_fast, so offset is an
 * instruction of the recorded code, within last_attr) when it shares the entry its
 * instruction recorded last: room for the step and (as tr_record_step makes first) for
 * an entry, that entry rec_quick (so not NATIVE nor a class access, whose kinds
 * tr_record_step tests), of the same input, and its guards passing for this owner
 * (tr_guard_check_fast's tests, those on the entry alone answered by rec_quick). It
 * shares exactly when tr_record_step would; everything else is tr_record_step. code is
 * unused (the recorded code). */
TR_HOT_INLINE void tr_record_load_fast(TrRun *run, struct TrFrame *f, PyObject *code,
                                       TrValue owner, int offset, int op, int oparg)
{
    struct TrRecorder *r = run->rec;
    TrRecTrace *t = r->trace;
    (void)code;
    assert(offset >= 0 && offset < Py_SIZE(code));
    /* no reusability test, as in tr_record_plain_fast: a step shared into an unreusable
     * trace is dead, and so is the entry's guard memo it updates */
    if (t->nsteps < t->cap && t->nattrs < t->capattrs && r->last_attr != NULL) {
        int prev = r->last_attr[offset];
        if (prev >= 0) {
            TrAttrStep *p = &t->attrs[prev];
            PyTypeObject *tp = Py_TYPE(owner.obj);
            int input = -1;
            if (owner.prov != NULL && owner.prov->kind == TR_PROV_INPUT &&
                owner.prov->name == NULL && owner.prov->index >= 0 &&
                owner.prov->index < r->nargs && r->args[owner.prov->index] == owner.obj)
                input = owner.prov->index;
            if (p->rec_quick && p->input == input && tp == p->type &&
                tp->tp_getattro == p->getattro &&
                PyType_HasFeature(tp, Py_TPFLAGS_VALID_VERSION_TAG) &&
                tp->tp_version_tag == p->type_tag && tr_guard_check_rest(p, owner.obj) < 0) {
                TrStep *s = &t->steps[t->nsteps++];
                s->offset = offset;
                s->op = (unsigned char)op;
                s->oparg = oparg;
                s->attr = prev;
                return;
            }
        }
    }
    tr_record_step(run, f, offset, op, oparg);
}

/* After tr_guard_check passed on an INST_DICT step: the value the instance dict holds
 * for the name now (borrowed), found by the guard's own lookup; valid until anything
 * runs. */
static inline PyObject *tr_guard_dict_value(const TrAttrStep *step) {
    return step->dict_value;
}
void tr_step_clear(TrAttrStep *step);
/* 1 when a and b resolve the same way behind the same guards (every field identical but
 * the version tags, which only shortcut the checks). */
int tr_attr_step_equal(const TrAttrStep *a, const TrAttrStep *b);

/* ---- tr_replay.c ---- */
/* Replays t for a call with these arguments. Returns a new reference (the call's
 * result) or NULL with the program's exception set, as the call would. */
PyObject *tr_replay(TrRecTrace *t, PyObject *func, PyObject *const *args, size_t nargsf,
                    PyObject *kwnames, int64_t budget, int max_depth);

/* ---- tr_jitcache.c: the bounded set of traces of one jit object ---- */
#define TR_JIT_MAX_TRACES 4
typedef struct TrJitCache {
    TrRecTrace *traces[TR_JIT_MAX_TRACES];   /* oldest first */
    int n;
} TrJitCache;

/* A call of jit(fn): when a trace's entry guards pass, replays it and returns 1 with
 * *result (a new reference, or NULL with the program's exception); else returns 0 and
 * the caller traces (the retrace and its reason are counted). */
int tr_jit_try_replay(TrJitCache *c, PyObject *fn, PyObject *const *args, size_t nargsf,
                      PyObject *kwnames, int64_t budget, int max_depth, PyObject **result);
/* A recorder for a traced call of fn, or NULL when fn's calls are never replayed (the
 * reason is counted). Never sets an exception. */
struct TrRecorder *tr_jit_record_begin(PyObject *fn, PyObject *const *args, size_t nargsf,
                                       PyObject *kwnames);
/* Ends the recording: ok when the call did not fail with the tracer's own error. The
 * trace is kept in c when it is reusable. Keeps any exception set. */
void tr_jit_record_end(TrJitCache *c, struct TrRecorder *rec, int ok);
void tr_jitcache_clear(TrJitCache *c);
int tr_jitcache_traverse(TrJitCache *c, visitproc visit, void *arg);

/* Statistics since the module started (tfjit.stats()). */
typedef enum {
    TR_STAT_TRACES,          /* traces recorded */
    TR_STAT_REPLAYS,         /* calls answered by a replay */
    TR_STAT_REPLAYS_DONE,    /* replays that reached the end of the trace */
    TR_STAT_SIDE_EXITS,      /* replays that left the trace */
    TR_STAT_RETRACES,        /* calls traced again although traces existed */
    TR_STAT_EVICTIONS,       /* traces dropped beyond TR_JIT_MAX_TRACES */
    TR_STAT__COUNT
} TrStat;

/* Side exit reasons. */
#define TR_EXIT_LIST(X) \
    X(BRANCH, "branch")            /* a branch or a loop went the other way */ \
    X(EXCEPTION, "exception")      /* an exception where the trace had none, or none */ \
    X(GUARD, "guard")              /* an inline guard failed */ \
    X(FRAME_CALL, "frame_call")    /* a call that needs the frame */ \
    X(OTHER, "other")              /* unbound local, end of the recorded path ... */

typedef enum {
#define TR_EXIT_ENUM(id, name) TR_EXIT_##id,
    TR_EXIT_LIST(TR_EXIT_ENUM)
#undef TR_EXIT_ENUM
    TR_EXIT__COUNT
} TrExitReason;

void tr_stat_add(TrStat s);
void tr_stat_retrace(int guard_kind);          /* a TrGuardKind */
void tr_stat_unreusable(int reason);           /* a TrUnreusable */
void tr_stat_side_exit(TrExitReason why, int guard_kind);   /* guard_kind -1 if none */
PyObject *tr_stats_dict(void);                 /* new reference */
void tr_stats_reset(void);
const char *tr_guard_kind_name(int kind);

#endif
