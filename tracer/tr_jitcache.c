/* tr_jitcache.c: the bounded set of traces of one jit object, the reuse policy and
 * the statistics (docs/REUSE.md).
 *
 * Each tfjit.jit object keeps at most TR_JIT_MAX_TRACES reusable traces, oldest first.
 * A call checks the entry guards of the newest first: the argument types, then the
 * guards of the attribute steps that can be checked before anything runs (owner an
 * argument or a class object kept by the step) up to the first store of the trace
 * (after a store the recorded guards describe a state the call itself made). The first
 * trace that passes is replayed; when none does the call is traced again (a retrace,
 * counted under the kind of the first guard that failed on the newest trace) and the
 * new trace evicts the oldest beyond the bound. Inline guards are checked again during
 * the replay in any case: the entry check only chooses, it never makes a replay right.
 */
#include "tr_reuse.h"
#include "tr_core.h"
#include "tr_faults.h"

static uint64_t stats[TR_STAT__COUNT];
static uint64_t retrace_kind[TR_GUARD__COUNT + 1];     /* last: the traces were unreusable */
static uint64_t unreusable[TR_UR__COUNT];
static uint64_t exits[TR_EXIT__COUNT];
static uint64_t exit_guard[TR_GUARD__COUNT];

void tr_stat_add(TrStat s)
{
    stats[s]++;
}

void tr_stat_retrace(int kind)
{
    stats[TR_STAT_RETRACES]++;
    retrace_kind[kind >= 0 && kind < TR_GUARD__COUNT ? kind : TR_GUARD__COUNT]++;
}

void tr_stat_unreusable(int reason)
{
    if (reason >= 0 && reason < TR_UR__COUNT)
        unreusable[reason]++;
}

void tr_stat_side_exit(TrExitReason why, int guard_kind)
{
    stats[TR_STAT_SIDE_EXITS]++;
    exits[why]++;
    if (guard_kind >= 0 && guard_kind < TR_GUARD__COUNT)
        exit_guard[guard_kind]++;
}

void tr_stats_reset(void)
{
    memset(stats, 0, sizeof stats);
    memset(retrace_kind, 0, sizeof retrace_kind);
    memset(unreusable, 0, sizeof unreusable);
    memset(exits, 0, sizeof exits);
    memset(exit_guard, 0, sizeof exit_guard);
}

static int put(PyObject *d, const char *prefix, const char *name, uint64_t n)
{
    char key[96];
    snprintf(key, sizeof key, "%s%s", prefix, name);
    PyObject *v = PyLong_FromUnsignedLongLong(n);
    int err = v == NULL ? -1 : PyDict_SetItemString(d, key, v);
    Py_XDECREF(v);
    return err;
}

/* A flat {name: count} dict, so that sums over runs are key-wise: a new reference. */
PyObject *tr_stats_dict(void)
{
    static const char *const names[TR_STAT__COUNT] = {
        "traces", "replays", "replays_completed", "side_exits", "retraces", "evictions",
    };
    static const char *const ur_names[TR_UR__COUNT] = {
#define TR_UR_NAME(id, name) name,
        TR_UNREUSABLE_LIST(TR_UR_NAME)
#undef TR_UR_NAME
    };
    static const char *const exit_names[TR_EXIT__COUNT] = {
#define TR_EXIT_NAME(id, name) name,
        TR_EXIT_LIST(TR_EXIT_NAME)
#undef TR_EXIT_NAME
    };
    PyObject *d = PyDict_New();
    if (d == NULL)
        return NULL;
    for (int i = 0; i < TR_STAT__COUNT; i++) {
        if (put(d, "", names[i], stats[i]) < 0)
            goto fail;
    }
    for (int i = 0; i <= TR_GUARD__COUNT; i++) {
        if (put(d, "retrace.", i < TR_GUARD__COUNT ? tr_guard_kind_name(i) : "unreusable",
                retrace_kind[i]) < 0)
            goto fail;
    }
    for (int i = 0; i < TR_UR__COUNT; i++) {
        if (put(d, "unreusable.", ur_names[i], unreusable[i]) < 0)
            goto fail;
    }
    for (int i = 0; i < TR_EXIT__COUNT; i++) {
        if (put(d, "side_exit.", exit_names[i], exits[i]) < 0)
            goto fail;
    }
    for (int i = 0; i < TR_GUARD__COUNT; i++) {
        if (put(d, "side_exit.guard.", tr_guard_kind_name(i), exit_guard[i]) < 0)
            goto fail;
    }
    return d;
fail:
    Py_DECREF(d);
    return NULL;
}

/* ---- the set of traces ---- */

static void trace_release(TrRecTrace *t)
{
    if (--t->refs == 0)
        tr_rectrace_free(t);
}

void tr_jitcache_clear(TrJitCache *c)
{
    int n = c->n;
    c->n = 0;
    for (int i = 0; i < n; i++) {
        TrRecTrace *t = c->traces[i];
        c->traces[i] = NULL;
        trace_release(t);
    }
}

TR_NO_COVERAGE int tr_jitcache_traverse(TrJitCache *c, visitproc visit, void *arg)
{
    for (int i = 0; i < c->n; i++) {
        int err = tr_rectrace_traverse(c->traces[i], visit, arg);
        if (err)
            return err;
    }
    return 0;
}

/* -1 when t's entry guards pass for these arguments, else the failing guard kind. */
static int entry_check(TrRecTrace *t, PyObject *const *args, Py_ssize_t nargs,
                       unsigned faults)
{
    if (nargs != t->nargs)
        return TR_GUARD_INPUT_TYPE;
    for (Py_ssize_t i = 0; i < nargs; i++) {
        if (Py_TYPE(args[i]) != t->arg_types[i])
            return TR_GUARD_INPUT_TYPE;
    }
    /* Entries are appended in step order and shared only with later steps, so those
     * made before the first store are exactly the ones its earlier steps use: each
     * checked once, in the order of its first step. */
    Py_ssize_t end = t->precheck_end >= 0 ? t->precheck_attrs : t->nattrs;
    for (Py_ssize_t i = 0; i < end; i++) {
        TrAttrStep *s = &t->attrs[i];
        PyObject *owner = s->input >= 0 ? args[s->input] : s->cls;
        if (owner == NULL)
            continue;
        int g = tr_guard_check_fast(s, owner, faults);   /* tr_guard_check's answer */
        if (g >= 0)
            return g;
    }
    return -1;
}

int tr_jit_try_replay(TrJitCache *c, PyObject *fn, PyObject *const *args, size_t nargsf,
                      PyObject *kwnames, int64_t budget, int max_depth, PyObject **result)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    unsigned faults = tr_faults_active();
    int first_fail = -2;
    *result = NULL;
    if (c->n == 0)
        return 0;
    if (kwnames != NULL && PyTuple_GET_SIZE(kwnames) > 0) {
        tr_stat_retrace(TR_GUARD__COUNT);
        return 0;
    }
    for (int k = c->n - 1; k >= 0; k--) {
        TrRecTrace *t = c->traces[k];
        if (t->func != fn)
            continue;
        int g = t->stale >= 0 ? t->stale : entry_check(t, args, nargs, faults);
        if (g >= 0) {
            if (first_fail == -2)
                first_fail = g;
            continue;
        }
        tr_stat_add(TR_STAT_REPLAYS);
        t->refs++;
        *result = tr_replay(t, fn, args, nargsf, kwnames, budget, max_depth);
        trace_release(t);
        return 1;
    }
    tr_stat_retrace(first_fail >= 0 ? first_fail : TR_GUARD__COUNT);
    return 0;
}

struct TrRecorder *tr_jit_record_begin(PyObject *fn, PyObject *const *args, size_t nargsf,
                                       PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (!Py_IS_TYPE(fn, &PyFunction_Type)) {
        tr_stat_unreusable(TR_UR_NOT_FUNCTION);
        return NULL;
    }
    PyCodeObject *co = (PyCodeObject *)PyFunction_GET_CODE(fn);
    if ((co->co_flags & (CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR |
                         CO_ITERABLE_COROUTINE)) || !(co->co_flags & CO_OPTIMIZED) ||
        co->co_ncellvars != 0 || co->co_nfreevars != 0) {
        tr_stat_unreusable(TR_UR_CODE_FLAGS);
        return NULL;
    }
    struct TrRecorder *r = PyMem_Calloc(1, sizeof *r);
    if (r == NULL)
        return NULL;
    r->trace = tr_rectrace_new(fn, args, nargs, kwnames != NULL && PyTuple_GET_SIZE(kwnames) > 0);
    if (r->trace == NULL) {
        PyErr_Clear();
        PyMem_Free(r);
        return NULL;
    }
    r->args = args;
    r->nargs = nargs;
    r->last = -1;
    return r;
}

void tr_jit_record_end(TrJitCache *c, struct TrRecorder *rec, int ok)
{
    TrRecTrace *t = rec->trace;
    PyMem_Free(rec->last_attr);
    PyMem_Free(rec);
    tr_stat_add(TR_STAT_TRACES);
    if (!ok && t->unreusable < 0)
        t->unreusable = TR_UR_FAILED;
    if (t->has_kwargs && t->unreusable < 0)
        t->unreusable = TR_UR_NOT_FUNCTION;
    if (t->nsteps == 0 && t->unreusable < 0)
        t->unreusable = TR_UR_FAILED;
    if (t->unreusable >= 0) {
        tr_stat_unreusable(t->unreusable);
        tr_rectrace_free(t);
        return;
    }
    for (int k = 0; k < c->n; ) {        /* stale traces go first */
        if (c->traces[k]->stale < 0) {
            k++;
            continue;
        }
        TrRecTrace *old = c->traces[k];
        memmove(&c->traces[k], &c->traces[k + 1], (size_t)(c->n - k - 1) * sizeof(TrRecTrace *));
        c->n--;
        tr_stat_add(TR_STAT_EVICTIONS);
        trace_release(old);
    }
    if (c->n == TR_JIT_MAX_TRACES) {
        TrRecTrace *old = c->traces[0];
        memmove(&c->traces[0], &c->traces[1], (TR_JIT_MAX_TRACES - 1) * sizeof(TrRecTrace *));
        c->n--;
        tr_stat_add(TR_STAT_EVICTIONS);
        trace_release(old);
    }
    tr_rectrace_compact(t);
    t->refs = 1;
    c->traces[c->n++] = t;
}
