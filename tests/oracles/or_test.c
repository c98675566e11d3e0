/* or_test.c: the oracles' tests. One binary, one ctest per case (CMakeLists.txt):
 *
 *   or_test golden CASE.py GOLDEN.txt [--update]   observation text vs golden file
 *   or_test prop NAME                              a property of observations
 *   or_test verdict NAME                           a verdict / signature case
 *   or_test e2e NAME                               eager vs a toy target, decided
 *   or_test world NAME                             globals and class state (tfobs 2)
 *   or_test list                                   the prop and verdict names
 *   or_test bench CASE.py [N]                      observations per second
 *
 * CPython is initialised with an isolated config (hash seed 0). A case program is
 * run by a miniature of the harness's eager protocol (make, r1, between, r2,
 * make_other, r3, LOG copied after each step) in a fresh namespace. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "or_observe.h"
#include "or_verdict.h"
#include "../tf_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>




/* ---- running a program: a miniature of the harness's eager protocol ---- */

typedef struct {
    PyObject *globals;
    PyObject *target_globals;
    PyObject *owned[16];
    int nowned;
    OrRunRaw raw;
} Run;

static PyObject *
own(Run *run, PyObject *o)   /* steals o; returns it borrowed */
{
    if (o != NULL) {
        if (run->nowned == (int)(sizeof run->owned / sizeof run->owned[0])) {
            fprintf(stderr, "too many references in one run\n");
            abort();
        }
        run->owned[run->nowned++] = o;
    }
    return o;
}

static void
run_clear(Run *run)
{
    for (int i = run->nowned - 1; i >= 0; i--) {
        Py_DECREF(run->owned[i]);
    }
    if (run->globals != NULL) {
        PyDict_Clear(run->globals);   /* breaks the module's cycles */
        Py_DECREF(run->globals);
    }
    if (run->target_globals != NULL) {
        PyDict_Clear(run->target_globals);
        Py_DECREF(run->target_globals);
    }
    memset(run, 0, sizeof *run);
}

static PyObject *
global(Run *run, const char *name)   /* borrowed, NULL if absent */
{
    return PyDict_GetItemString(run->globals, name);
}

static int
run_step(Run *run, int i, PyObject *program, PyObject *args)
{
    PyObject *r = PyObject_Call(program, args, NULL);
    if (r != NULL) {
        run->raw.result[i] = own(run, r);
    }
    else {
        PyObject *t, *v, *tb;
        PyErr_Fetch(&t, &v, &tb);
        PyErr_NormalizeException(&t, &v, &tb);
        Py_XDECREF(t);
        Py_XDECREF(tb);
        run->raw.exc[i] = own(run, v);
    }
    PyObject *log = global(run, "LOG");
    if (log != NULL) {
        run->raw.log_after[i] = own(run, PySequence_List(log));
        if (run->raw.log_after[i] == NULL) {
            return -1;
        }
    }
    run->raw.steps_done = i + 1;
    return 0;
}

/* Runs the protocol, the program called through jit(program) when target_src
 * (a module defining jit) is given; 0, or -1 with the Python error printed. */
static int
run_program_through(const char *src, const char *target_src, Run *run)
{
    memset(run, 0, sizeof *run);
    run->globals = PyDict_New();
    if (run->globals == NULL
        || PyDict_SetItemString(run->globals, "__builtins__", PyEval_GetBuiltins()) < 0) {
        goto error;
    }
    PyObject *name = PyUnicode_FromString("tfprog");
    if (name == NULL || PyDict_SetItemString(run->globals, "__name__", name) < 0) {
        Py_XDECREF(name);
        goto error;
    }
    Py_DECREF(name);
    PyObject *mod = PyRun_String(src, Py_file_input, run->globals, run->globals);
    if (mod == NULL) {
        goto error;
    }
    Py_DECREF(mod);
    PyObject *make = global(run, "make"), *program = global(run, "program");
    PyObject *between = global(run, "between"), *make_other = global(run, "make_other");
    if (make == NULL || program == NULL) {
        fprintf(stderr, "case lacks make or program\n");
        return -1;
    }
    if (target_src != NULL) {
        PyObject *tg = run->target_globals = PyDict_New();
        if (tg == NULL
            || PyDict_SetItemString(tg, "__builtins__", PyEval_GetBuiltins()) < 0) {
            goto error;
        }
        PyObject *m = PyRun_String(target_src, Py_file_input, tg, tg);
        if (m == NULL) {
            goto error;
        }
        Py_DECREF(m);
        PyObject *jit = PyDict_GetItemString(tg, "jit");
        program = jit ? own(run, PyObject_CallOneArg(jit, program)) : NULL;
        if (program == NULL) {
            goto error;
        }
    }
    PyObject *args = own(run, PyObject_CallNoArgs(make));
    if (args == NULL || !PyTuple_Check(args)) {
        fprintf(stderr, "make() must return a tuple\n");
        goto error;
    }
    run->raw.args = args;
    if (run_step(run, 0, program, args) < 0) {
        goto error;
    }
    if (between != NULL) {
        PyObject *r = PyObject_Call(between, args, NULL);
        if (r == NULL) {
            goto error;
        }
        Py_DECREF(r);
    }
    if (run_step(run, 1, program, args) < 0) {
        goto error;
    }
    PyObject *args2 = own(run, PyObject_CallNoArgs(make_other ? make_other : make));
    if (args2 == NULL || !PyTuple_Check(args2)) {
        goto error;
    }
    run->raw.args2 = args2;
    if (run_step(run, 2, program, args2) < 0) {
        goto error;
    }
    run->raw.log = global(run, "LOG");
    run->raw.ns = run->globals;
    return 0;
error:
    if (PyErr_Occurred()) {
        PyErr_Print();
    }
    return -1;
}

static int
run_program(const char *src, Run *run)
{
    return run_program_through(src, NULL, run);
}

/* Runs src and observes it; the text (malloc'd) or NULL. obs may be NULL. */
static char *
observe_src(const char *src, OrObservation *obs)
{
    Run run;
    OrObservation local;
    OrObservation *o = obs ? obs : &local;
    char *text = NULL;
    if (run_program(src, &run) < 0) {
        run_clear(&run);
        return NULL;
    }
    if (or_observe(&run.raw, o) < 0) {
        PyErr_Print();
    }
    else {
        text = or_observation_text(o);
        if (obs == NULL) {
            or_observation_clear(o);
        }
    }
    run_clear(&run);
    return text;
}

static char *
read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *p = malloc((size_t)n + 1);
    if (p != NULL && fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    if (p != NULL) {
        p[n] = '\0';
    }
    fclose(f);
    return p;
}

/* ---- golden ---- */

static int
golden(const char *case_path, const char *golden_path, int update)
{
    char *src = read_file(case_path);
    if (src == NULL) {
        fprintf(stderr, "cannot read %s\n", case_path);
        return 1;
    }
    char *text = observe_src(src, NULL);
    char *again = observe_src(src, NULL);   /* a second run must read the same */
    CHECK(text != NULL, "observing %s failed", case_path);
    CHECK_STREQ(text, again);
    if (text != NULL && update) {
        FILE *f = fopen(golden_path, "wb");
        CHECK(f != NULL, "cannot write %s", golden_path);
        if (f != NULL) {
            fputs(text, f);
            fclose(f);
        }
    }
    else if (text != NULL) {
        char *want = read_file(golden_path);
        CHECK(want != NULL, "missing golden file %s (run with --update)", golden_path);
        if (want != NULL && strcmp(want, text) != 0) {
            fprintf(stderr, "observation of %s differs from %s\n--- got:\n%s--- want:\n%s",
                    case_path, golden_path, text, want);
            tf_failures++;
        }
        free(want);
    }
    free(text);
    free(again);
    free(src);
    return tf_failures != 0;
}

/* Observations per second of one case (not a test: a measurement). */
static int
bench(const char *case_path, long n)
{
    char *src = read_file(case_path);
    Run run;
    if (src == NULL || run_program(src, &run) < 0) {
        free(src);
        return 1;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    size_t bytes = 0;
    for (long i = 0; i < n; i++) {
        OrObservation obs;
        if (or_observe(&run.raw, &obs) < 0) {
            PyErr_Print();
            break;
        }
        for (int s = 0; s < OR_SEC__COUNT; s++) {
            bytes += strlen(obs.section[s]);
        }
        or_observation_clear(&obs);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double sec = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("%s: %ld observations in %.3f s: %.0f/s, %zu bytes each\n", case_path, n, sec,
           (double)n / sec, n ? bytes / (size_t)n : 0);
    run_clear(&run);
    free(src);
    return 0;
}

#include "or_test_props.h"
#include "or_test_verdicts.h"
#include "or_test_e2es.h"
#include "or_test_world.h"

/* ---- main ---- */

typedef struct {
    const char *name;
    void (*fn)(void);
} NamedTest;

static const NamedTest props[] = {
#define PROP(n) {#n, prop_##n},
    OR_TEST_PROPS(PROP)
#undef PROP
};

static const NamedTest verdicts[] = {
#define VERDICT(n) {#n, verdict_##n},
    OR_TEST_VERDICTS(VERDICT)
#undef VERDICT
};

static const NamedTest e2es[] = {
#define E2E(n) {#n, e2e_##n},
    OR_TEST_E2ES(E2E)
#undef E2E
};

static const NamedTest worlds[] = {
#define WORLD(n) {#n, world_##n},
    OR_TEST_WORLDS(WORLD)
#undef WORLD
};

static int
run_named(const NamedTest *tests, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(tests[i].name, name) == 0) {
            tests[i].fn();
            return tf_failures != 0;
        }
    }
    fprintf(stderr, "no test named %s\n", name);
    return 2;
}

static void
init_python(void)
{
    PyPreConfig pre;
    PyPreConfig_InitIsolatedConfig(&pre);
    const char *alloc = getenv("PYTHONMALLOC");
    if (alloc != NULL && strcmp(alloc, "malloc") == 0) {
        pre.allocator = PYMEM_ALLOCATOR_MALLOC;   /* lets ASan see Python objects */
    }
    PyStatus status = Py_PreInitialize(&pre);
    if (PyStatus_Exception(status)) {
        Py_ExitStatusException(status);
    }
    PyConfig config;
    PyConfig_InitIsolatedConfig(&config);
    config.use_hash_seed = 1;
    config.hash_seed = 0;
    config.write_bytecode = 0;
    config.buffered_stdio = 0;
    status = Py_InitializeFromConfig(&config);
    PyConfig_Clear(&config);
    if (PyStatus_Exception(status)) {
        Py_ExitStatusException(status);
    }
}

int
main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "list") == 0) {
        for (size_t i = 0; i < sizeof props / sizeof props[0]; i++) {
            printf("prop %s\n", props[i].name);
        }
        for (size_t i = 0; i < sizeof verdicts / sizeof verdicts[0]; i++) {
            printf("verdict %s\n", verdicts[i].name);
        }
        for (size_t i = 0; i < sizeof e2es / sizeof e2es[0]; i++) {
            printf("e2e %s\n", e2es[i].name);
        }
        for (size_t i = 0; i < sizeof worlds / sizeof worlds[0]; i++) {
            printf("world %s\n", worlds[i].name);
        }
        return 0;
    }
    if (argc < 3) {
        fprintf(stderr, "usage: %s golden CASE GOLDEN [--update] | prop NAME | "
                "verdict NAME | e2e NAME | world NAME | bench CASE [N] | list\n", argv[0]);
        return 2;
    }
    int rc;
    init_python();
    if (strcmp(argv[1], "bench") == 0) {
        rc = bench(argv[2], argc >= 4 ? atol(argv[3]) : 10000);
    }
    else if (strcmp(argv[1], "golden") == 0 && argc >= 4) {
        rc = golden(argv[2], argv[3], argc >= 5 && strcmp(argv[4], "--update") == 0);
    }
    else if (strcmp(argv[1], "prop") == 0) {
        rc = run_named(props, sizeof props / sizeof props[0], argv[2]);
    }
    else if (strcmp(argv[1], "verdict") == 0) {
        rc = run_named(verdicts, sizeof verdicts / sizeof verdicts[0], argv[2]);
    }
    else if (strcmp(argv[1], "e2e") == 0) {
        rc = run_named(e2es, sizeof e2es / sizeof e2es[0], argv[2]);
    }
    else if (strcmp(argv[1], "world") == 0) {
        rc = run_named(worlds, sizeof worlds / sizeof worlds[0], argv[2]);
    }
    else {
        fprintf(stderr, "unknown command %s\n", argv[1]);
        rc = 2;
    }
    if (PyErr_Occurred()) {
        PyErr_Print();
        fprintf(stderr, "a Python exception was left set\n");
        rc = 1;
    }
    if (Py_FinalizeEx() < 0) {
        rc = 1;
    }
    if (rc == 0) {
        printf("ok\n");
    }
    return rc;
}
