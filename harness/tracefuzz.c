/* tracefuzz: the command-line tool. This comment is its manual (docs/CLI.md has the
 * same with examples).
 *
 * SYNOPSIS
 *   tracefuzz run   [options] PATH...
 *   tracefuzz show  [--base MODULE:CLASS] FILE
 *   tracefuzz gen   --count N --seed S --out DIR [--base MODULE:CLASS] [--py]
 *   tracefuzz stats (--random N [--seed S] | PATH...)
 *   tracefuzz COMMAND --help | tracefuzz --help | tracefuzz --version
 *
 * INPUTS
 *   An input file is either bytes, decoded into a program (every byte string is a
 *   valid program; the decoder's version is corpus/VERSION), or Python source: a
 *   file named *.py or any file whose first line is `#tracefuzz-py`. A program
 *   defines make(), program(*args), optionally between(*args) and make_other()
 *   (docs/ARCHITECTURE.md, DESIGN.md "The program contract").
 *
 * run
 *   Runs every input (files, or directories walked recursively in sorted order,
 *   hidden entries skipped) eagerly twice and once through the target, and prints
 *   one line per input:   PATH: VERDICT  SIGNATURE
 *   then a table of counts per verdict and, last, exactly `N passed, N failed`.
 *   The report of each failure goes to stderr, or with --findings DIR into
 *   DIR/NAME.py (the program), DIR/NAME.report (the report and the observations)
 *   and, for a bytes input, DIR/NAME.tf (the input bytes).
 *     --target T         builtin (tfjit.jit, the default once the tracer has jit;
 *                        identity until then), identity (lambda fn: fn),
 *                        path/to/file.py:attr, or package.module:attr
 *     --unsupported M:E  the exception the target raises for what it cannot trace
 *                        (default for builtin: tfjit.Unsupported); -> UNSUPPORTED
 *     --python-path DIR  where to find the target (repeatable); an active
 *                        virtualenv (VIRTUAL_ENV) is searched as well
 *     --faults F1,F2     faults injected into the built-in tracer (also read from
 *                        TRACEFUZZ_FAULTS); they also select expectation lines
 *     --strict           UNSUPPORTED counts as failed
 *     --timeout S        wall-time limit per input in seconds (default 10)
 *     --findings DIR     write reports there instead of stderr
 *     --quiet            print only failed inputs' lines and the summary
 *     --stats            print the built-in tracer's trace-reuse statistics summed
 *                        over the run (traces, replays, side exits, retraces by
 *                        guard kind, per between kind the programs whose call 2
 *                        retraced) before the verdict table (docs/REUSE.md)
 *     --no-fork          run inputs in this process (to debug a crash under gdb;
 *                        no time limit, and a crash ends the run)
 *   Passed means: the verdict is OK (or UNSUPPORTED without --strict); INVALID and
 *   NONDETERMINISTIC are failures (of the corpus or the generator). A source input
 *   may carry expectation headers; when one matches the current target and faults,
 *   passed means the verdict equals it (and the report contains the text of a
 *   matching expect-report line):
 *     # expect[TARGET]: VERDICT
 *     # expect[TARGET faults=F1,F2]: VERDICT
 *     # expect-report[TARGET]: text the report must contain
 *   TARGET is spelled as given to --target. Each input runs in a worker process
 *   that initialises CPython once; a worker that dies makes that input
 *   TARGET_CRASH (with the signal), one over the time limit is killed (TIMEOUT),
 *   and the run goes on with a fresh worker. Progress goes to stderr every few
 *   seconds on long runs.
 *   Exit status: 0 when nothing failed, 1 when some input failed, 2 on usage errors
 *   or a target that cannot be loaded.
 *
 * show
 *   Prints the program of an input on stdout: bytes are decoded and emitted, source
 *   is printed as is. --base MODULE:CLASS makes generated classes derive from it.
 *
 * gen
 *   Writes N random programs into DIR (created if missing): DIR/gen-S-000000.tf ...
 *   as bytes (hz_encode of the program generated from seed S and the index), or
 *   with --py as Python source (.py). --base MODULE:CLASS (e.g. torch.nn:Module)
 *   implies --py, so that `run` sees the base.
 *
 * stats
 *   For each descriptor kind, access pattern and between kind (the IDs of
 *   DESIGN.md), how many programs use it and the percentage: of N programs
 *   generated from seed S (default 1), or of the inputs under PATHs.
 *
 * ENVIRONMENT
 *   TRACEFUZZ_FAULTS   default for --faults
 *   TRACEFUZZ_MALLOC=1 Python objects through malloc (sanitizer runs; always so in
 *                      ASan builds)
 *   VIRTUAL_ENV        its site-packages is searched for targets
 */
#include "hz_input.h"
#include "hz_program.h"
#include "hz_worker.h"
#include "hz_jitstats.h"
#include "or_verdict.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define EXIT_USAGE 2
#define PROGRESS_EVERY_S 5.0

static const char usage_main[] =
    "usage: tracefuzz COMMAND [options]\n"
    "\n"
    "Fuzzes Python tracing JITs on attribute access: runs programs eagerly and\n"
    "through a target jit(fn) and compares results, event logs and final state.\n"
    "\n"
    "commands:\n"
    "  run    run inputs (files or directories) and print one verdict per input\n"
    "  show   print the Python program of an input\n"
    "  gen    write random inputs into a directory\n"
    "  stats  feature coverage of random programs or of inputs\n"
    "\n"
    "`tracefuzz COMMAND --help` describes each command.\n";

static const char usage_run[] =
    "usage: tracefuzz run [--target T] [--unsupported MOD:EXC] [--python-path DIR]...\n"
    "                     [--faults F1,F2] [--strict] [--timeout S] [--findings DIR]\n"
    "                     [--quiet] [--stats] [--no-fork] PATH...\n"
    "\n"
    "Runs each input (files; directories recursively, sorted) eagerly twice and once\n"
    "through the target; prints `PATH: VERDICT  SIGNATURE` per input, a count per\n"
    "verdict, and last `N passed, N failed`. Exit 0 if none failed, 1 if some did.\n"
    "\n"
    "  --target T         builtin | identity | path/file.py:attr | package.module:attr\n"
    "                     (default: builtin when tfjit.jit exists, else identity)\n"
    "  --unsupported M:E  the target's \"cannot trace this\" exception (-> UNSUPPORTED)\n"
    "  --python-path DIR  extra directory to find the target in (repeatable)\n"
    "  --faults F1,F2     tracer faults to inject (default: $TRACEFUZZ_FAULTS)\n"
    "  --strict           count UNSUPPORTED as failed\n"
    "  --timeout S        wall-time limit per input in seconds (default 10)\n"
    "  --findings DIR     write NAME.py, NAME.report (and the input) per failure\n"
    "  --quiet            print only failures and the summary\n"
    "  --stats            print the tracer's trace-reuse statistics summed over the run\n"
    "  --no-fork          run in this process (debugging: no time limit, no isolation)\n"
    "\n"
    "Source inputs may carry `# expect[TARGET]: VERDICT`, `# expect[TARGET\n"
    "faults=F1,F2]: VERDICT` and `# expect-report[TARGET]: TEXT` headers.\n";

static const char usage_show[] =
    "usage: tracefuzz show [--base MODULE:CLASS] FILE\n"
    "\n"
    "Prints the program of an input: bytes are decoded and emitted as Python, a .py\n"
    "or `#tracefuzz-py` file is printed as is.\n";

static const char usage_gen[] =
    "usage: tracefuzz gen --count N --seed S --out DIR [--base MODULE:CLASS] [--py]\n"
    "\n"
    "Writes N random programs into DIR as gen-S-NNNNNN.tf (bytes) or, with --py or\n"
    "--base, as gen-S-NNNNNN.py (Python source; --base sets the classes' base).\n";

static const char usage_stats[] =
    "usage: tracefuzz stats (--random N [--seed S] | PATH...)\n"
    "\n"
    "Counts, for each descriptor kind, access pattern and between kind, how many\n"
    "programs use it (random programs from seed S, default 1, or the inputs under\n"
    "PATHs), with percentages.\n";

static int usage_error(const char *usage, const char *fmt, const char *arg)
{
    fprintf(stderr, "tracefuzz: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n\n%s", usage);
    return EXIT_USAGE;
}

static bool is_help(const char *a)
{
    return strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
    if (s == NULL || *s == 0 || *s == '-')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != 0)
        return -1;
    *out = v;
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The seed of program i in a run of seed s (splitmix64: neighbouring indices give
 * unrelated programs). */
static uint64_t mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static uint64_t program_seed(uint64_t seed, uint64_t i)
{
    return mix64(seed ^ mix64(i));
}

/* Splits "module:Class" into emit options (pointing into a copy kept by the caller).
 * Returns 0, or -1 when malformed. */
static int parse_base(const char *spec, char **copy, HzEmitOptions *opts)
{
    const char *colon = strrchr(spec, ':');
    if (colon == NULL || colon == spec || colon[1] == 0)
        return -1;
    *copy = strdup(spec);
    if (*copy == NULL)
        abort();
    (*copy)[colon - spec] = 0;
    opts->base_module = *copy;
    opts->base_class = *copy + (colon - spec) + 1;
    return 0;
}

/* ---- show ------------------------------------------------------------------ */

static int cmd_show(int argc, char **argv)
{
    const char *file = NULL, *base = NULL;
    for (int i = 0; i < argc; i++) {
        if (is_help(argv[i])) {
            fputs(usage_show, stdout);
            return 0;
        }
        if (strcmp(argv[i], "--base") == 0) {
            if (++i >= argc)
                return usage_error(usage_show, "%s needs a value", "--base");
            base = argv[i];
        }
        else if (argv[i][0] == '-' && argv[i][1] != 0)
            return usage_error(usage_show, "unknown option %s", argv[i]);
        else if (file != NULL)
            return usage_error(usage_show, "show takes one FILE (got also %s)", argv[i]);
        else
            file = argv[i];
    }
    if (file == NULL)
        return usage_error(usage_show, "%s", "show needs a FILE");
    HzEmitOptions opts = {0};
    char *base_copy = NULL;
    if (base != NULL && parse_base(base, &base_copy, &opts) < 0)
        return usage_error(usage_show, "--base %s: want MODULE:CLASS", base);
    HzInput in;
    char err[1024];
    int rc = hz_input_load(file, &opts, &in, err, sizeof err);
    free(base_copy);
    if (rc < 0) {
        fprintf(stderr, "tracefuzz show: %s\n", err);
        return 1;
    }
    fputs(in.source, stdout);
    size_t n = strlen(in.source);
    if (n == 0 || in.source[n - 1] != '\n')
        fputc('\n', stdout);
    hz_input_clear(&in);
    return 0;
}

/* ---- gen ------------------------------------------------------------------- */

static int mkdir_p(const char *path)
{
    char *tmp = strdup(path);
    if (tmp == NULL)
        abort();
    for (char *p = tmp + 1; ; p++) {
        if (*p == '/' || *p == 0) {
            char c = *p;
            *p = 0;
            if (mkdir(tmp, 0777) < 0 && errno != EEXIST) {
                free(tmp);
                return -1;
            }
            *p = c;
            if (c == 0)
                break;
        }
    }
    free(tmp);
    return 0;
}

static int write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return -1;
    size_t w = fwrite(data, 1, n, f);
    int rc = (w == n && fclose(f) == 0) ? 0 : -1;
    if (w != n)
        fclose(f);
    return rc;
}

static int cmd_gen(int argc, char **argv)
{
    const char *count_s = NULL, *seed_s = NULL, *out = NULL, *base = NULL;
    bool py = false;
    for (int i = 0; i < argc; i++) {
        const char **slot = NULL;
        if (is_help(argv[i])) {
            fputs(usage_gen, stdout);
            return 0;
        }
        if (strcmp(argv[i], "--count") == 0)
            slot = &count_s;
        else if (strcmp(argv[i], "--seed") == 0)
            slot = &seed_s;
        else if (strcmp(argv[i], "--out") == 0)
            slot = &out;
        else if (strcmp(argv[i], "--base") == 0)
            slot = &base;
        else if (strcmp(argv[i], "--py") == 0)
            py = true;
        else
            return usage_error(usage_gen, "unexpected argument %s", argv[i]);
        if (slot != NULL) {
            if (++i >= argc)
                return usage_error(usage_gen, "%s needs a value", argv[i - 1]);
            *slot = argv[i];
        }
    }
    uint64_t count, seed;
    if (count_s == NULL || parse_u64(count_s, &count) < 0)
        return usage_error(usage_gen, "%s", "--count N (a non-negative integer) is required");
    if (seed_s == NULL || parse_u64(seed_s, &seed) < 0)
        return usage_error(usage_gen, "%s", "--seed S (a non-negative integer) is required");
    if (out == NULL)
        return usage_error(usage_gen, "%s", "--out DIR is required");
    HzEmitOptions opts = {0};
    char *base_copy = NULL;
    if (base != NULL) {
        if (parse_base(base, &base_copy, &opts) < 0)
            return usage_error(usage_gen, "--base %s: want MODULE:CLASS", base);
        py = true;
    }
    if (mkdir_p(out) < 0) {
        fprintf(stderr, "tracefuzz gen: cannot create %s: %s\n", out, strerror(errno));
        free(base_copy);
        return 1;
    }
    int rc = 0;
    size_t plen = strlen(out) + 64;
    char *path = malloc(plen);
    if (path == NULL)
        abort();
    for (uint64_t i = 0; i < count && rc == 0; i++) {
        HzProgram *p = hz_generate(program_seed(seed, i));
        snprintf(path, plen, "%s/gen-%llu-%06llu.%s", out, (unsigned long long)seed,
                 (unsigned long long)i, py ? "py" : "tf");
        if (py) {
            char *src = hz_emit(p, &opts);
            if (src == NULL || write_file(path, src, strlen(src)) < 0)
                rc = 1;
            free(src);
        }
        else {
            uint8_t *bytes = NULL;
            size_t n = 0;
            if (hz_encode(p, &bytes, &n) < 0 || write_file(path, bytes, n) < 0)
                rc = 1;
            free(bytes);
        }
        hz_program_free(p);
        if (rc != 0)
            fprintf(stderr, "tracefuzz gen: cannot write %s: %s\n", path, strerror(errno));
    }
    free(path);
    free(base_copy);
    if (rc == 0)
        fprintf(stderr, "tracefuzz gen: wrote %llu programs into %s\n",
                (unsigned long long)count, out);
    return rc;
}

/* ---- stats ----------------------------------------------------------------- */

static void stats_table(const char *title, int nkinds, const char *(*name)(int),
                        const unsigned long *counts, unsigned long total)
{
    printf("%-20s %8s %7s\n", title, "programs", "%");
    for (int k = 0; k < nkinds; k++)
        printf("%-20s %8lu %6.1f%%\n", name(k), counts[k],
               total ? 100.0 * (double)counts[k] / (double)total : 0.0);
    printf("\n");
}

static const char *desc_name(int k) { return hz_desc_kind_name((HzDescKind)k); }
static const char *access_name(int k) { return hz_access_name((HzAccessPattern)k); }
static const char *between_name(int k) { return hz_between_name((HzBetweenKind)k); }

static int cmd_stats(int argc, char **argv)
{
    const char *random_s = NULL, *seed_s = NULL;
    char **paths = calloc((size_t)argc + 1, sizeof *paths);
    size_t npaths = 0;
    if (paths == NULL)
        abort();
    int rc = 0;
    for (int i = 0; i < argc; i++) {
        if (is_help(argv[i])) {
            fputs(usage_stats, stdout);
            goto done;
        }
        if (strcmp(argv[i], "--random") == 0 || strcmp(argv[i], "--seed") == 0) {
            if (i + 1 >= argc) {
                rc = usage_error(usage_stats, "%s needs a value", argv[i]);
                goto done;
            }
            *(argv[i][2] == 'r' ? &random_s : &seed_s) = argv[i + 1];
            i++;
        }
        else if (argv[i][0] == '-' && argv[i][1] != 0) {
            rc = usage_error(usage_stats, "unknown option %s", argv[i]);
            goto done;
        }
        else {
            paths[npaths++] = argv[i];
        }
    }
    if ((random_s == NULL) == (npaths == 0)) {
        rc = usage_error(usage_stats, "%s", "give either --random N or PATHs");
        goto done;
    }
    uint64_t n = 0, seed = 1;
    if (random_s != NULL && parse_u64(random_s, &n) < 0) {
        rc = usage_error(usage_stats, "--random %s: want a non-negative integer", random_s);
        goto done;
    }
    if (seed_s != NULL && parse_u64(seed_s, &seed) < 0) {
        rc = usage_error(usage_stats, "--seed %s: want a non-negative integer", seed_s);
        goto done;
    }
    unsigned long desc[HZ_DESC__COUNT] = {0}, access[HZ_ACCESS__COUNT] = {0},
                  between[HZ_BETWEEN__COUNT] = {0}, total = 0;
    char **files = NULL;
    size_t nfiles = 0;
    if (random_s == NULL) {
        char err[1024];
        if (hz_input_collect(paths, npaths, &files, &nfiles, err, sizeof err) < 0) {
            fprintf(stderr, "tracefuzz stats: %s\n", err);
            rc = EXIT_USAGE;
            goto done;
        }
        n = nfiles;
    }
    for (uint64_t i = 0; i < n; i++) {
        HzFeatures f;
        memset(&f, 0, sizeof f);
        if (files == NULL) {
            HzProgram *p = hz_generate(program_seed(seed, i));
            hz_program_features(p, &f);
            hz_program_free(p);
        }
        else {
            HzInput in;
            char err[1024];
            if (hz_input_load(files[i], NULL, &in, err, sizeof err) < 0) {
                fprintf(stderr, "tracefuzz stats: %s\n", err);
                rc = 1;
                continue;
            }
            if (in.is_source) {
                hz_source_features(in.source, &f);
            }
            else {
                HzProgram *p = hz_decode(in.data, in.size);
                hz_program_features(p, &f);
                hz_program_free(p);
            }
            hz_input_clear(&in);
        }
        total++;
        for (int k = 0; k < HZ_DESC__COUNT; k++)
            desc[k] += f.desc[k];
        for (int k = 0; k < HZ_ACCESS__COUNT; k++)
            access[k] += f.access[k];
        for (int k = 0; k < HZ_BETWEEN__COUNT; k++)
            between[k] += f.between[k];
    }
    hz_paths_free(files, nfiles);
    printf("%lu programs\n\n", total);
    stats_table("descriptor kind", HZ_DESC__COUNT, desc_name, desc, total);
    stats_table("access pattern", HZ_ACCESS__COUNT, access_name, access, total);
    stats_table("between kind", HZ_BETWEEN__COUNT, between_name, between, total);
done:
    free(paths);
    return rc;
}

/* ---- run ------------------------------------------------------------------- */

typedef struct {
    HzWorkerConfig wc;
    const char *findings;
    bool strict, quiet, stats;
    const char *faults;
} RunOptions;

/* The base name of path without its extension, for findings files. malloc'd. */
static char *stem_of(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char *s = strdup(base);
    if (s == NULL)
        abort();
    char *dot = strrchr(s, '.');
    if (dot != NULL && dot != s)
        *dot = 0;
    return s;
}

/* Occurrences of needle in hay. The report quotes the program, expectation headers
 * included, so an expected text must occur in the report more often than in the
 * source to count as found. */
static size_t count_of(const char *hay, const char *needle)
{
    size_t n = 0, len = strlen(needle);
    if (hay == NULL || len == 0)
        return 0;
    for (const char *p = strstr(hay, needle); p != NULL; p = strstr(p + len, needle))
        n++;
    return n;
}

static void write_finding(const RunOptions *o, const HzInput *in, const HzOutcome *oc,
                          const char *line)
{
    char *stem = stem_of(in->path);
    size_t n = strlen(o->findings) + strlen(stem) + 16;
    char *path = malloc(n);
    if (path == NULL)
        abort();
    snprintf(path, n, "%s/%s.py", o->findings, stem);
    int rc = write_file(path, in->source, strlen(in->source));
    snprintf(path, n, "%s/%s.report", o->findings, stem);
    FILE *f = fopen(path, "w");
    if (f != NULL) {
        fprintf(f, "%s\n\n%s\n", line, oc->report ? oc->report : "");
        static const char *const names[3] = {"eager run 1", "eager run 2", "target run"};
        for (int i = 0; i < 3; i++)
            if (oc->obs_text[i] != NULL)
                fprintf(f, "\n---- observation, %s\n%s", names[i], oc->obs_text[i]);
        if (fclose(f) != 0)
            rc = -1;
    }
    else {
        rc = -1;
    }
    if (!in->is_source) {
        snprintf(path, n, "%s/%s.tf", o->findings, stem);
        if (write_file(path, in->data, in->size) < 0)
            rc = -1;
    }
    if (rc < 0)
        fprintf(stderr, "tracefuzz run: cannot write findings for %s into %s: %s\n",
                in->path, o->findings, strerror(errno));
    free(path);
    free(stem);
}

static int cmd_run(int argc, char **argv)
{
    RunOptions o;
    memset(&o, 0, sizeof o);
    o.wc.timeout = 10.0;
    const char **pypath = calloc((size_t)argc + 1, sizeof *pypath);
    char **paths = calloc((size_t)argc + 1, sizeof *paths);
    if (pypath == NULL || paths == NULL)
        abort();
    size_t npaths = 0;
    int rc = 0;
    HzWorker *w = NULL;
    HzJitStats *jst = NULL;
    char **files = NULL;
    size_t nfiles = 0;
    const char *faults_opt = NULL;

    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char **slot = NULL;
        if (is_help(a)) {
            fputs(usage_run, stdout);
            goto done;
        }
        if (strcmp(a, "--target") == 0)
            slot = &o.wc.target;
        else if (strcmp(a, "--unsupported") == 0)
            slot = &o.wc.unsupported;
        else if (strcmp(a, "--faults") == 0)
            slot = &faults_opt;
        else if (strcmp(a, "--findings") == 0)
            slot = &o.findings;
        else if (strcmp(a, "--python-path") == 0 || strcmp(a, "--timeout") == 0) {
            if (i + 1 >= argc) {
                rc = usage_error(usage_run, "%s needs a value", a);
                goto done;
            }
            const char *v = argv[++i];
            if (a[2] == 'p') {
                pypath[o.wc.n_python_path++] = v;
            }
            else {
                char *end;
                o.wc.timeout = strtod(v, &end);
                if (*v == 0 || *end != 0 || !(o.wc.timeout > 0)) {
                    rc = usage_error(usage_run, "--timeout %s: want seconds > 0", v);
                    goto done;
                }
            }
            continue;
        }
        else if (strcmp(a, "--strict") == 0) {
            o.strict = true;
            continue;
        }
        else if (strcmp(a, "--quiet") == 0) {
            o.quiet = true;
            continue;
        }
        else if (strcmp(a, "--stats") == 0) {
            o.stats = true;
            continue;
        }
        else if (strcmp(a, "--no-fork") == 0) {
            o.wc.in_process = true;
            continue;
        }
        else if (a[0] == '-' && a[1] != 0) {
            rc = usage_error(usage_run, "unknown option %s", a);
            goto done;
        }
        else {
            paths[npaths++] = argv[i];
            continue;
        }
        if (i + 1 >= argc) {
            rc = usage_error(usage_run, "%s needs a value", a);
            goto done;
        }
        *slot = argv[++i];
    }
    if (npaths == 0) {
        rc = usage_error(usage_run, "%s", "run needs at least one PATH");
        goto done;
    }
    o.wc.python_path = pypath;
    o.faults = faults_opt ? faults_opt : getenv("TRACEFUZZ_FAULTS");
    if (o.faults != NULL && *o.faults == 0)
        o.faults = NULL;
    o.wc.faults = o.faults;

    char err[4096];
    if (hz_input_collect(paths, npaths, &files, &nfiles, err, sizeof err) < 0) {
        fprintf(stderr, "tracefuzz run: %s\n", err);
        rc = EXIT_USAGE;
        goto done;
    }
    if (o.findings != NULL && mkdir_p(o.findings) < 0) {
        fprintf(stderr, "tracefuzz run: cannot create %s: %s\n", o.findings, strerror(errno));
        rc = EXIT_USAGE;
        goto done;
    }
    w = hz_worker_new(&o.wc);
    if (hz_worker_start(w, err, sizeof err) < 0) {
        fprintf(stderr, "tracefuzz run: %s\n", err);
        rc = EXIT_USAGE;
        goto done;
    }
    const char *target = hz_worker_target_name(w);
    if (o.wc.target == NULL)
        fprintf(stderr, "tracefuzz run: target %s (the default)\n", target);
    if (hz_worker_note(w) != NULL)
        fprintf(stderr, "tracefuzz run: note: %s\n", hz_worker_note(w));

    jst = o.stats ? hz_jitstats_new() : NULL;
    unsigned long counts[OR_VERDICT__COUNT] = {0};
    unsigned long passed = 0, failed = 0, errors = 0;
    double start = now_s(), last_progress = start;
    for (size_t i = 0; i < nfiles; i++) {
        HzInput in;
        if (hz_input_load(files[i], NULL, &in, err, sizeof err) < 0) {
            printf("%s: ERROR  %s\n", files[i], err);
            failed++;
            errors++;
            continue;
        }
        char *want = NULL, *want_report = NULL;
        int has_expect = 0;
        if (in.is_source) {
            has_expect = hz_input_expectation(in.source, target, o.faults, &want,
                                              &want_report, err, sizeof err);
            if (has_expect < 0) {
                printf("%s: ERROR  %s\n", in.path, err);
                failed++;
                errors++;
                hz_input_clear(&in);
                continue;
            }
        }
        HzOutcome oc;
        const char *filename = in.is_source ? in.path : "<tfprog>";
        if (hz_worker_run(w, filename, in.source, &oc, err, sizeof err) < 0) {
            fprintf(stderr, "tracefuzz run: %s\n", err);
            free(want);
            free(want_report);
            hz_input_clear(&in);
            rc = EXIT_USAGE;
            goto done;
        }
        if (jst != NULL) {
            long call2;
            const char *text = hz_worker_jitstats(w, &call2);
            hz_jitstats_add(jst, text, in.source, call2);
        }
        const char *vname = or_verdict_name(oc.kind);
        bool ok;
        char note[256] = "";
        if (has_expect) {
            ok = strcmp(vname, want) == 0;
            if (!ok)
                snprintf(note, sizeof note, "  (expected %s)", want);
            else if (want_report != NULL &&
                     count_of(oc.report, want_report) <= count_of(in.source, want_report)) {
                ok = false;
                snprintf(note, sizeof note, "  (report lacks \"%.200s\")", want_report);
            }
        }
        else {
            ok = oc.kind == OR_OK || (!o.strict && oc.kind == OR_UNSUPPORTED);
        }
        counts[oc.kind]++;
        if (ok)
            passed++;
        else
            failed++;
        char line[4096];
        snprintf(line, sizeof line, "%s: %s  %s%s", in.path, vname,
                 oc.signature ? oc.signature : "", note);
        if (!ok || !o.quiet) {
            printf("%s\n", line);
            fflush(stdout);
        }
        if (!ok) {
            if (o.findings != NULL)
                write_finding(&o, &in, &oc, line);
            else if (oc.report != NULL && *oc.report)
                fprintf(stderr, "==== %s\n%s\n", line, oc.report);
        }
        hz_outcome_clear(&oc);
        free(want);
        free(want_report);
        hz_input_clear(&in);
        double t = now_s();
        if (t - last_progress >= PROGRESS_EVERY_S) {
            last_progress = t;
            fprintf(stderr, "tracefuzz run: %zu/%zu inputs, %lu passed, %lu failed, "
                    "%.0f inputs/s\n", i + 1, nfiles, passed, failed,
                    (double)(i + 1) / (t - start));
        }
    }
    if (jst != NULL)
        hz_jitstats_print(jst, stdout);
    printf("\n%-20s %8s\n", "verdict", "inputs");
    for (int k = 0; k < OR_VERDICT__COUNT; k++)
        if (counts[k] > 0)
            printf("%-20s %8lu\n", or_verdict_name((OrVerdictKind)k), counts[k]);
    if (errors > 0)
        printf("%-20s %8lu\n", "ERROR", errors);
    if (hz_worker_restarts(w) > 0)
        fprintf(stderr, "tracefuzz run: the worker was restarted %u times\n",
                hz_worker_restarts(w));
    printf("%lu passed, %lu failed\n", passed, failed);
    rc = failed > 0 ? 1 : 0;
done:
    hz_jitstats_free(jst);
    hz_worker_free(w);
    hz_paths_free(files, nfiles);
    free(pypath);
    free(paths);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage_main, stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (is_help(cmd) || strcmp(cmd, "help") == 0) {
        fputs(usage_main, stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("tracefuzz (decoder version %d, observation version %d)\n",
               HZ_DECODER_VERSION, OR_OBS_VERSION);
        return 0;
    }
    if (strcmp(cmd, "run") == 0)
        return cmd_run(argc - 2, argv + 2);
    if (strcmp(cmd, "show") == 0)
        return cmd_show(argc - 2, argv + 2);
    if (strcmp(cmd, "gen") == 0)
        return cmd_gen(argc - 2, argv + 2);
    if (strcmp(cmd, "stats") == 0)
        return cmd_stats(argc - 2, argv + 2);
    return usage_error(usage_main, "unknown command '%s'", cmd);
}
