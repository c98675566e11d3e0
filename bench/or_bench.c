/* or_bench.c: observations per second (the bench_observe target; issue 5).
 *
 *   or_bench CASES.py [SECONDS]
 *   or_bench CASES.py --rounds N    observe every run N times, print nothing else
 *                                   (for `perf stat -e instructions:u`, which a
 *                                   busy machine does not disturb as it does time)
 *
 * Imports CASES.py (bench/observe_cases.py), takes the raw runs its runs() returns,
 * and observes them round-robin for about SECONDS (default 2) of CPU time (the
 * machine is shared: wall time would measure the neighbours): the rate of
 * or_observe over the whole set, then of each run alone, then of
 * or_observation_diff on two equal observations. It also prints an FNV-1a
 * checksum of the text of every observation, so two builds that must write the
 * same text (an optimisation) can be compared by one number. Not a test: timings
 * are not pass/fail. CPython is initialised isolated with hash seed 0. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "or_observe.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_RUNS 32

typedef struct {
    char name[32];
    OrRunRaw raw;
} BenchRun;

static double
now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static uint64_t
fnv1a(uint64_t h, const char *s)
{
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ull;
    }
    return h;
}

/* A borrowed item of a tuple, None read as NULL. */
static PyObject *
item_or_null(PyObject *t, Py_ssize_t i)
{
    PyObject *o = PyTuple_GET_ITEM(t, i);
    return o == Py_None ? NULL : o;
}

/* Fills r from (steps_done, results, excs, log_after, args, args2, log[, ns]);
 * the references stay borrowed from the list `runs` holds. 0, or -1 on a bad
 * shape. */
static int
raw_from_tuple(PyObject *t, OrRunRaw *r)
{
    memset(r, 0, sizeof *r);
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) < 7 || PyTuple_GET_SIZE(t) > 8) {
        return -1;
    }
    r->steps_done = (int)PyLong_AsLong(PyTuple_GET_ITEM(t, 0));
    for (int part = 1; part <= 3; part++) {
        PyObject *three = PyTuple_GET_ITEM(t, part);
        if (!PyTuple_Check(three) || PyTuple_GET_SIZE(three) != OR_STEPS) {
            return -1;
        }
        for (int i = 0; i < OR_STEPS; i++) {
            PyObject *o = item_or_null(three, i);
            if (part == 1) {
                r->result[i] = o;
            }
            else if (part == 2) {
                r->exc[i] = o;
            }
            else {
                r->log_after[i] = o;
            }
        }
    }
    r->args = item_or_null(t, 4);
    r->args2 = item_or_null(t, 5);
    r->log = item_or_null(t, 6);
    r->ns = PyTuple_GET_SIZE(t) == 8 ? item_or_null(t, 7) : NULL;
    return 0;
}

/* The runs of the module at path; a new reference to the list runs() returned
 * (it owns every object the raws borrow), or NULL with an exception set. */
static PyObject *
load_runs(const char *path, BenchRun *runs, size_t *n)
{
    PyObject *list = NULL, *mod = NULL;
    const char *slash = strrchr(path, '/');
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    const char *base = slash ? slash + 1 : path;
    char modname[256];
    snprintf(modname, sizeof modname, "%.*s", (int)strcspn(base, "."), base);

    PyObject *sys_path = PySys_GetObject("path");   /* borrowed */
    PyObject *d = PyUnicode_FromString(dir);
    if (sys_path == NULL || d == NULL || PyList_Insert(sys_path, 0, d) < 0) {
        Py_XDECREF(d);
        goto error;
    }
    Py_DECREF(d);
    mod = PyImport_ImportModule(modname);
    if (mod == NULL) {
        goto error;
    }
    list = PyObject_CallMethod(mod, "runs", NULL);
    if (list == NULL) {
        goto error;
    }
    if (!PyList_Check(list) || PyList_GET_SIZE(list) > MAX_RUNS) {
        PyErr_SetString(PyExc_TypeError, "runs() must return a list of at most 32 runs");
        goto error;
    }
    *n = (size_t)PyList_GET_SIZE(list);
    for (size_t i = 0; i < *n; i++) {
        PyObject *pair = PyList_GET_ITEM(list, (Py_ssize_t)i);
        const char *name = PyTuple_Check(pair) && PyTuple_GET_SIZE(pair) == 2
                           ? PyUnicode_AsUTF8(PyTuple_GET_ITEM(pair, 0)) : NULL;
        if (name == NULL || raw_from_tuple(PyTuple_GET_ITEM(pair, 1), &runs[i].raw) < 0) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "run %zu is not (name, raw)", i);
            goto error;
        }
        snprintf(runs[i].name, sizeof runs[i].name, "%s", name);
    }
    Py_DECREF(mod);
    return list;   /* new */
error:
    Py_XDECREF(mod);
    Py_XDECREF(list);
    return NULL;
}

/* Observes runs[first..first+count) round-robin until `seconds` pass; the rate
 * (observations/s), or -1 on failure. *bytes gets the text size of one round. */
static double
rate(BenchRun *runs, size_t first, size_t count, double seconds, size_t *bytes)
{
    long done = 0;
    double t0 = now(), t = t0;
    *bytes = 0;
    while (t - t0 < seconds) {
        for (int rep = 0; rep < 50; rep++) {
            for (size_t i = first; i < first + count; i++) {
                OrObservation obs;
                if (or_observe(&runs[i].raw, &obs) < 0) {
                    PyErr_Print();
                    return -1;
                }
                if (done < (long)count) {
                    for (int s = 0; s < OR_SEC__COUNT; s++) {
                        *bytes += strlen(obs.section[s]);
                    }
                }
                or_observation_clear(&obs);
                done++;
            }
        }
        t = now();
    }
    return (double)done / (t - t0);
}

int
main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s CASES.py [SECONDS | --rounds N]\n", argv[0]);
        return 2;
    }
    long rounds = argc >= 4 && strcmp(argv[2], "--rounds") == 0 ? atol(argv[3]) : -1;
    double seconds = argc >= 3 && rounds < 0 ? atof(argv[2]) : 2.0;
    PyConfig config;
    PyConfig_InitIsolatedConfig(&config);
    config.use_hash_seed = 1;
    config.hash_seed = 0;
    PyStatus status = Py_InitializeFromConfig(&config);
    PyConfig_Clear(&config);
    if (PyStatus_Exception(status)) {
        Py_ExitStatusException(status);
    }

    static BenchRun runs[MAX_RUNS];
    size_t n = 0;
    int rc = 1;
    PyObject *keep = load_runs(argv[1], runs, &n);   /* new */
    if (keep == NULL) {
        PyErr_Print();
        goto done;
    }

    /* The checksum: every run's whole text, in order. */
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        OrObservation obs;
        if (or_observe(&runs[i].raw, &obs) < 0) {
            PyErr_Print();
            goto done;
        }
        char *text = or_observation_text(&obs);
        if (text == NULL) {
            or_observation_clear(&obs);
            goto done;
        }
        h = fnv1a(h, text);
        free(text);
        or_observation_clear(&obs);
    }

    if (rounds >= 0) {
        for (long k = 0; k < rounds; k++) {
            for (size_t i = 0; i < n; i++) {
                OrObservation obs;
                if (or_observe(&runs[i].raw, &obs) < 0) {
                    PyErr_Print();
                    goto done;
                }
                or_observation_clear(&obs);
            }
        }
        printf("observe: %zu runs x %ld rounds, checksum %016llx\n", n, rounds,
               (unsigned long long)h);
        rc = 0;
        goto done;
    }

    size_t bytes;
    double all = rate(runs, 0, n, seconds, &bytes);
    if (all < 0) {
        goto done;
    }
    printf("observe: %zu runs, %zu bytes of text per round, checksum %016llx\n", n, bytes,
           (unsigned long long)h);
    printf("observe all: %.0f observations/s\n", all);
    for (size_t i = 0; i < n; i++) {
        double r = rate(runs, i, 1, seconds / (double)n, &bytes);
        if (r < 0) {
            goto done;
        }
        printf("  %-12s %8.0f/s  %6zu bytes\n", runs[i].name, r, bytes);
    }

    /* Comparison of two equal observations of every run (what the verdict does
     * for eager 1 vs eager 2 and eager vs target on a passing input). */
    OrObservation a[MAX_RUNS], b[MAX_RUNS];
    for (size_t i = 0; i < n; i++) {
        if (or_observe(&runs[i].raw, &a[i]) < 0 || or_observe(&runs[i].raw, &b[i]) < 0) {
            PyErr_Print();
            goto done;
        }
    }
    long diffs = 0, differ = 0;
    double t0 = now(), t = t0;
    while (t - t0 < seconds / 4) {
        for (int rep = 0; rep < 1000; rep++) {
            for (size_t i = 0; i < n; i++) {
                differ += or_observation_diff(&a[i], &b[i]) != OR_SEC__COUNT;
                diffs++;
            }
        }
        t = now();
    }
    for (size_t i = 0; i < n; i++) {
        or_observation_clear(&a[i]);
        or_observation_clear(&b[i]);
    }
    printf("diff (equal pairs): %.0f comparisons/s%s\n", (double)diffs / (t - t0),
           differ ? " (SOME DIFFERED: a nondeterministic observation)" : "");
    rc = differ != 0;
done:
    Py_XDECREF(keep);
    if (Py_FinalizeEx() < 0) {
        rc = 1;
    }
    return rc;
}
