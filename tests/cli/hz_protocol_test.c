/* hz_protocol_test.c: the run protocol in-process (as the fuzz entry points use it):
 * verdicts for a few targets, no references leaked per input (the allocated
 * block count stays flat over hundreds of runs), the periodic collection's freeze.
 * One case per argv[1]. */
#include "hz_embed.h"
#include "hz_protocol.h"
#include "hz_target.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char motivating[] =
    "LOG = []\n"
    "class Test:\n"
    "    @property\n"
    "    def test(self):\n"
    "        LOG.append('test')\n"
    "        return object()\n"
    "def make():\n"
    "    return (Test(),)\n"
    "def between(t):\n"
    "    t.extra = [1, 2]\n"
    "def program(t):\n"
    "    try:\n"
    "        return t.test, t.test, t.missing\n"
    "    except AttributeError as e:\n"
    "        return e.args\n";

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *buf = malloc(1 << 20);
    size_t n = fread(buf, 1, (1 << 20) - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

/* sys.getallocatedblocks() (pymalloc's count of live blocks). */
static Py_ssize_t allocated_blocks(void)
{
    PyObject *sys = PyImport_ImportModule("sys");
    PyObject *r = sys ? PyObject_CallMethod(sys, "getallocatedblocks", NULL) : NULL;
    Py_XDECREF(sys);
    Py_ssize_t n = r ? PyLong_AsSsize_t(r) : -1;
    Py_XDECREF(r);
    return n;
}

static int setup(const char *spec, const char *dir, HzTarget *t)
{
    char err[2048];
    HzEmbedConfig ec = {NULL, 0, dir};
    if (hz_embed_init(&ec, err, sizeof err) < 0 ||
        hz_target_load(spec, NULL, t, err, sizeof err) < 0) {
        fprintf(stderr, "setup: %s\n", err);
        return -1;
    }
    return 0;
}

/* The toy target that memoises every attribute read, loaded from the source tree. */
static int setup_memo_silent(const char *srcdir, HzTarget *t)
{
    char spec[4096], dir[4096];
    snprintf(spec, sizeof spec, "%s/tests/targets/memo_silent.py:jit", srcdir);
    snprintf(dir, sizeof dir, "%s/tests/targets", srcdir);
    return setup(spec, dir, t);
}

static int expect_verdict(HzProtocol *p, const char *src, const char *filename,
                          OrVerdictKind want)
{
    HzOutcome o;
    if (hz_protocol_run(p, src, filename, NULL, &o) < 0) {
        fprintf(stderr, "hz_protocol_run failed\n");
        return 1;
    }
    int bad = o.kind != want;
    if (bad)
        fprintf(stderr, "verdict %s, expected %s\n%s\n", or_verdict_name(o.kind),
                or_verdict_name(want), o.report ? o.report : "");
    hz_outcome_clear(&o);
    return bad;
}

/* identity: OK, and the number of allocated blocks does not grow with inputs. */
static int test_no_leak(void)
{
    HzTarget t;
    if (setup("identity", NULL, &t) < 0)
        return 1;
    HzProtocol *p = hz_protocol_new(&t);
    Py_ssize_t base = 0;
    for (int i = 0; i < 600; i++) {
        if (expect_verdict(p, motivating, "<tfprog>", OR_OK))
            return 1;
        if (i == 199) {
            PyGC_Collect();
            base = allocated_blocks();
        }
    }
    PyGC_Collect();
    Py_ssize_t now = allocated_blocks();
    printf("allocated blocks after 200 inputs: %zd, after 600: %zd\n", base, now);
    hz_protocol_free(p);
    hz_target_clear(&t);
    /* Under the malloc allocator (sanitizer builds) the count is always 0: LSan
     * checks those runs instead. */
    if (now - base > 100) {
        fprintf(stderr, "leak: %zd blocks over 400 inputs\n", now - base);
        return 1;
    }
    return 0;
}

/* A toy target loaded from a file: the motivating program is MISMATCH_RESULT, an
 * uncompilable source and a source without program() are INVALID. */
static int test_verdicts(const char *srcdir)
{
    char spec[4096];
    HzTarget t;
    if (setup_memo_silent(srcdir, &t) < 0)
        return 1;
    HzProtocol *p = hz_protocol_new(&t);
    /* the getter's second event is lost before the results differ (the last read
     * raises AttributeError on both sides) */
    int bad = expect_verdict(p, motivating, "<tfprog>", OR_MISMATCH_EVENTS) ||
              expect_verdict(p, "def make(:\n", "<tfprog>", OR_INVALID) ||
              expect_verdict(p, "def make():\n    return ()\n", "<tfprog>", OR_INVALID) ||
              expect_verdict(p, "def make():\n    return 5\ndef program(x):\n    return x\n",
                             "<tfprog>", OR_INVALID);
    snprintf(spec, sizeof spec, "%s/corpus/regression/motivating.py", srcdir);
    char *src = read_file(spec);
    if (src == NULL || expect_verdict(p, src, spec, OR_MISMATCH_RESULT))
        bad = 1;
    free(src);
    hz_protocol_free(p);
    hz_target_clear(&t);
    return bad;
}

/* Runs src in fast and full mode; the outcomes must agree on kind, signature and
 * report (but for OK, whose fast report is empty and full report is not: the fuzz
 * loop never reads it), and the fast one has texts exactly when its verdict is not OK. */
static int same_as_full(HzProtocol *p, const char *src, OrVerdictKind want, bool reports)
{
    HzOutcome fast, full;
    hz_protocol_set_fast(p, true);
    int rc1 = hz_protocol_run(p, src, "<tfprog>", NULL, &fast);
    hz_protocol_set_fast(p, false);
    int rc2 = hz_protocol_run(p, src, "<tfprog>", NULL, &full);
    if (rc1 < 0 || rc2 < 0)
        return 1;
    int bad = 0;
    if (fast.kind != want || full.kind != want) {
        fprintf(stderr, "fast %s, full %s, expected %s\n", or_verdict_name(fast.kind),
                or_verdict_name(full.kind), or_verdict_name(want));
        bad = 1;
    }
    if (want == OR_OK && (fast.report[0] != '\0' || full.report[0] == '\0')) {
        fprintf(stderr, "OK reports: fast %zu bytes (expected 0), full %zu\n",
                strlen(fast.report), strlen(full.report));
        bad = 1;
    }
    if (strcmp(fast.signature, full.signature) != 0 ||
        (reports && want != OR_OK && strcmp(fast.report, full.report) != 0)) {
        fprintf(stderr, "fast and full differ:\n%s\n%s\n----\n%s\n%s\n", fast.signature,
                fast.report, full.signature, full.report);
        bad = 1;
    }
    bool texts = fast.obs_text[0] != NULL;
    if (texts != (want != OR_OK && want != OR_INVALID) ||
        (want != OR_INVALID && full.obs_text[0] == NULL)) {
        fprintf(stderr, "observation texts: fast %s, full %s\n", texts ? "yes" : "no",
                full.obs_text[0] ? "yes" : "no");
        bad = 1;
    }
    hz_outcome_clear(&fast);
    hz_outcome_clear(&full);
    return bad;
}

/* Fast mode (hz_protocol_set_fast): the same verdicts and reports as the full
 * protocol: OK on identity, the toy bug's mismatch, a nondeterministic program
 * (which fast mode first sees as a disagreement with the target). */
static int test_fast(const char *srcdir)
{
    HzTarget t;
    if (setup_memo_silent(srcdir, &t) < 0)
        return 1;
    HzProtocol *p = hz_protocol_new(&t);
    static const char nondet[] =
        "import builtins\n"
        "def make():\n    return ()\n"
        "def program():\n"
        "    builtins.tf_calls = getattr(builtins, 'tf_calls', 0) + 1\n"
        "    return builtins.tf_calls % 2\n";
    static const char plain[] =
        "class A:\n    x = 1\n"
        "def make():\n    return (A(),)\n"
        "def program(a):\n    return a.x\n";
    /* (the nondeterministic program's reports show different values each time) */
    int bad = same_as_full(p, motivating, OR_MISMATCH_EVENTS, true) ||
              same_as_full(p, nondet, OR_NONDETERMINISTIC, false) ||
              same_as_full(p, plain, OR_OK, true) ||
              same_as_full(p, "def make(:\n", OR_INVALID, true);
    hz_protocol_free(p);
    hz_target_clear(&t);
    return bad;
}

/* An int from evaluating expr in __main__, or -1 (message printed). */
static long eval_long(const char *expr)
{
    PyObject *main = PyImport_AddModule("__main__");   /* borrowed */
    PyObject *g = main ? PyModule_GetDict(main) : NULL;   /* borrowed */
    PyObject *r = g ? PyRun_String(expr, Py_eval_input, g, g) : NULL;
    long v = r != NULL ? PyLong_AsLong(r) : -1;
    Py_XDECREF(r);
    if (PyErr_Occurred()) {
        PyErr_Print();
        return -1;
    }
    return v;
}

/* Runs n inputs of the motivating program; 0, or 1 (message printed). */
static int run_inputs(HzProtocol *p, int n)
{
    for (int i = 0; i < n; i++)
        if (expect_verdict(p, motivating, "<tfprog>", OR_OK))
            return 1;
    return 0;
}

/* The periodic collection freezes what survives it (hz_protocol.c, periodic_collect):
 * right after it nothing alive is left for later collections to traverse; a cycle
 * that becomes garbage while frozen stays until the thaw, and the thaw's collection
 * frees it. Collections every 10 inputs, a thaw every 50 here. */
static int test_gc_freeze(void)
{
    HzTarget t;
    if (setup("identity", NULL, &t) < 0)
        return 1;
    HzProtocol *p = hz_protocol_new(&t);
    hz_protocol_set_gc(p, 10, 50);
    if (PyRun_SimpleString("import gc, sys, weakref\n"
                           "class Cycle: pass\n"
                           "c = Cycle(); c.me = c; ref = weakref.ref(c); del c\n"
                           "sys.tf_keep = ref()\n") != 0 ||
        run_inputs(p, 10))
        return 1;
    long frozen = eval_long("gc.get_freeze_count()"), loose = eval_long("len(gc.get_objects())");
    printf("after 10 inputs: %ld objects frozen, %ld tracked outside\n", frozen, loose);
    if (frozen < 1000 || loose < 0 || loose > 50) {
        fprintf(stderr, "the collection after input 10 did not freeze the survivors\n");
        return 1;
    }
    if (PyRun_SimpleString("del sys.tf_keep\n") != 0 || run_inputs(p, 30))
        return 1;
    long kept = eval_long("ref() is not None");
    if (kept != 1) {
        fprintf(stderr, "a frozen cycle was collected before the thaw (%ld)\n", kept);
        return 1;
    }
    if (run_inputs(p, 10))
        return 1;
    long after = eval_long("ref() is not None");
    printf("the dropped cycle: alive after 40 inputs, %s after the thaw at 50\n",
           after == 0 ? "freed" : "still alive");
    hz_protocol_free(p);
    hz_target_clear(&t);
    return after == 0 ? 0 : 1;
}

/* Who collects during an input (hz_protocol.c, input_collect): with a target of
 * ours the automatic collector is off while the input runs and the input's cycles
 * are freed as soon as it ends, long before the periodic collection (every 100
 * inputs); a jit written in Python keeps the automatic collector. */
static const char cycle_program[] =
    "import gc, sys, weakref\n"
    "LOG = []\n"
    "class Cycle:\n"
    "    pass\n"
    "def make():\n"
    "    c = Cycle()\n"
    "    c.me = c\n"
    "    sys.tf_ref = weakref.ref(c)\n"
    "    sys.tf_enabled = gc.isenabled()\n"
    "    return (1,)\n"
    "def program(x):\n"
    "    return x + 1\n";

static int test_gc_per_input(const char *srcdir)
{
    HzTarget t;
    if (setup("identity", NULL, &t) < 0)
        return 1;
    HzProtocol *p = hz_protocol_new(&t);
    if (expect_verdict(p, cycle_program, "<tfprog>", OR_OK))
        return 1;
    long enabled = eval_long("__import__('sys').tf_enabled");
    long alive = eval_long("__import__('sys').tf_ref() is not None");
    printf("identity: automatic collector %s during the input; its cycle %s after it\n",
           enabled ? "on" : "off", alive ? "alive" : "freed");
    hz_protocol_free(p);
    hz_target_clear(&t);
    if (enabled != 0 || alive != 0)
        return 1;
    if (eval_long("__import__('gc').isenabled()") != 1) {
        fprintf(stderr, "hz_protocol_free left the automatic collector off\n");
        return 1;
    }
    /* CPython is initialised already: the target's folder goes on sys.path here. */
    char path[4200];
    snprintf(path, sizeof path, "import sys; sys.path.insert(0, '%s/tests/targets')", srcdir);
    if (PyRun_SimpleString(path) != 0 || setup_memo_silent(srcdir, &t) < 0)
        return 1;
    p = hz_protocol_new(&t);
    if (expect_verdict(p, cycle_program, "<tfprog>", OR_OK))
        return 1;
    enabled = eval_long("__import__('sys').tf_enabled");
    printf("a jit written in Python: automatic collector %s during the input\n",
           enabled ? "on" : "off");
    hz_protocol_free(p);
    hz_target_clear(&t);
    return enabled == 1 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[1], "gc_per_input") == 0)
        return test_gc_per_input(argv[2]);
    if (argc > 1 && strcmp(argv[1], "gc_freeze") == 0)
        return test_gc_freeze();
    if (argc > 2 && strcmp(argv[1], "fast") == 0)
        return test_fast(argv[2]);
    if (argc > 1 && strcmp(argv[1], "no_leak") == 0)
        return test_no_leak();
    if (argc > 2 && strcmp(argv[1], "verdicts") == 0)
        return test_verdicts(argv[2]);
    fprintf(stderr, "usage: hz_protocol_test no_leak | gc_freeze | gc_per_input SRCDIR | verdicts SRCDIR | fast SRCDIR\n");
    return 2;
}
