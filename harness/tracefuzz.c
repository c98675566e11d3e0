/* tracefuzz: the command-line tool. This comment is its manual (docs/CLI.md has the
 * same with examples).
 *
 * SYNOPSIS
 *   tracefuzz run   [options] PATH...
 *   tracefuzz show  [--base MODULE:CLASS] FILE
 *   tracefuzz gen   --count N --seed S --out DIR [--base MODULE:CLASS] [--py]
 *   tracefuzz stats (--random N [--seed S] | PATH...)
 *   tracefuzz fuzz  [--engine libfuzzer|afl] [--target T] [--faults F] [--time S]
 *                   [--jobs N] [--out DIR] [options]
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
 *     --timeout S        CPU-time limit per input in seconds (default 10; 10x as
 *                        much wall time as a backstop; an input over it runs once
 *                        more with 3x the limits before it is TIMEOUT)
 *     --isolation fork|shared  a fresh process per input (default), or inputs
 *                        one after the other in the warm worker (faster)
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
 *   Exit status: 0 when nothing failed; 1 when some input failed; 2 on usage and
 *   configuration errors (unknown fault, a target that does not load or fails the
 *   preflight or every input alike, an input that cannot be read, findings that
 *   cannot be written); 3 on an internal error; 128+N when signal N ended it.
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
 * fuzz
 *   Coverage-guided fuzzing (docs/FUZZING.md), the README's main job. Builds
 *   nothing: runs the prebuilt fuzz target tf_fuzz (fuzz/CMakeLists.txt) found next
 *   to this binary (or in ../fuzz-fast, ../fuzz; for --engine afl, ../afl of the build
 *   tree; --fuzzer PATH overrides) under libFuzzer, or under afl-fuzz with the
 *   structure-aware custom mutator libtfafl_mutator.so. Seeds: corpus/seed of the
 *   source tree (--seeds DIR), the dictionary corpus/tracefuzz.dict. For --time S
 *   seconds (default 300) on --jobs N processes (default 1: libFuzzer is rerun on the
 *   grown corpus after each crash; N > 1: libFuzzer's -fork=N, or one afl-fuzz -M
 *   and N-1 -S). Progress goes to stderr every few seconds; the engine's own output
 *   to DIR/fuzz.log. Afterwards each saved crash is replayed through a worker, as
 *   `run` would, and written into DIR/findings as NAME.tf (the input), NAME.py
 *   (`show`) and NAME.report (the verdict, report and observations). The summary
 *   on stdout: time, execs and execs/s, coverage (libFuzzer: edges, features and
 *   corpus; AFL++: map coverage), findings grouped by signature, most frequent
 *   first. DIR (--out, default out/fuzz) keeps DIR/corpus between runs; artifacts
 *   and findings are this run's. --target, --faults, --unsupported,
 *   --python-path and --strict mean what they mean for `run`.
 *   Exit status: 0 when nothing was found, 1 when something was, 2 when the fuzz
 *   target is missing, the target does not load or fails the preflight, a fault is
 *   unknown, or the engine ran no input. --jobs above the core count is capped.
 *
 * ENVIRONMENT
 *   TRACEFUZZ_FAULTS   default for --faults
 *   TRACEFUZZ_MALLOC=1 Python objects through malloc (sanitizer runs; always so in
 *                      ASan builds)
 *   VIRTUAL_ENV        its site-packages is searched for targets
 */
#include "hz_input.h"
#include "hz_program.h"
#include "hz_channel.h"
#include "hz_preflight.h"
#include "hz_worker.h"
#include "hz_jitstats.h"
#include "or_verdict.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define EXIT_USAGE 2
#define EXIT_INTERNAL 3
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
    "  fuzz   coverage-guided fuzzing with libFuzzer or AFL++ (the main job)\n"
    "\n"
    "`tracefuzz COMMAND --help` describes each command.\n";

static const char usage_run[] =
    "usage: tracefuzz run [--target T] [--unsupported MOD:EXC] [--python-path DIR]...\n"
    "                     [--faults F1,F2] [--strict] [--timeout S] [--isolation M]\n"
    "                     [--findings DIR]\n"
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
    "  --timeout S        CPU-time limit per input in seconds (default 10; 10x as\n"
    "                     much wall time as a backstop); an input over it runs\n"
    "                     once more with 3x the limits before it is TIMEOUT\n"
    "  --isolation M      fork (default): each input in a process forked from the\n"
    "                     warm worker, so nothing it changes reaches the next input;\n"
    "                     shared: inputs one after the other in the worker (faster)\n"
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
    "Counts, for each descriptor kind, access pattern, between kind and result\n"
    "collection mode (appended: out.append ends each statement; stored: out[i] = ...,\n"
    "no call between statements), how many programs use it (random programs from\n"
    "seed S, default 1, or the inputs under PATHs), with percentages.\n";

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
static const char *collect_name(int k) { return hz_collect_name((HzCollectMode)k); }

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
                  between[HZ_BETWEEN__COUNT] = {0}, collect[HZ_COLLECT__COUNT] = {0},
                  total = 0;
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
        for (int k = 0; k < HZ_COLLECT__COUNT; k++)
            collect[k] += f.collect[k];
    }
    hz_paths_free(files, nfiles);
    printf("%lu programs\n\n", total);
    stats_table("descriptor kind", HZ_DESC__COUNT, desc_name, desc, total);
    stats_table("access pattern", HZ_ACCESS__COUNT, access_name, access, total);
    stats_table("between kind", HZ_BETWEEN__COUNT, between_name, between, total);
    stats_table("result collection", HZ_COLLECT__COUNT, collect_name, collect, total);
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
    const char *target_name;   /* as the worker resolved it, for the report */
} RunOptions;

/* Findings whose files could not be written (an error of the run, exit 2). */
static unsigned long finding_write_errors;

/* The command line, for findings' reports (set by main). */
static char command_line[2048];

static void remember_command_line(int argc, char **argv)
{
    size_t o = 0;
    for (int i = 0; i < argc && o + 4 < sizeof command_line; i++) {
        int w = snprintf(command_line + o, sizeof command_line - o, "%s%s",
                         i ? " " : "", argv[i]);
        if (w < 0)
            break;
        o += (size_t)w;
    }
}

/* A finding's file name: its signature made file-safe, then a hash of the input's
 * bytes. The same input failing the same way always gets the same name (a rerun
 * overwrites it with itself); two different inputs never share one, whatever their
 * own names (two crash-000 files of two runs stay two findings). malloc'd. */
static char *finding_name(const char *signature, const void *data, size_t size)
{
    uint64_t h = 1469598103934665603ULL;   /* FNV-1a 64 */
    for (size_t i = 0; i < size; i++) {
        h ^= ((const unsigned char *)data)[i];
        h *= 1099511628211ULL;
    }
    char slug[96];
    size_t o = 0;
    for (const char *p = signature ? signature : "finding"; *p && o < 80; p++) {
        char c = *p;
        bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    (c >= '0' && c <= '9') || c == '_' || c == '.';
        if (keep)
            slug[o++] = c;
        else if (o > 0 && slug[o - 1] != '-')
            slug[o++] = '-';
    }
    while (o > 0 && slug[o - 1] == '-')
        o--;
    slug[o] = 0;
    char *name = malloc(o + 24);
    if (name == NULL)
        abort();
    snprintf(name, o + 24, "%s-%012llx", o ? slug : "finding",
             (unsigned long long)(h & 0xffffffffffffULL));
    return name;
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

/* The file name (without extension) of an input's finding. malloc'd. */
static char *finding_stem(const HzInput *in, const HzOutcome *oc)
{
    return in->is_source ? finding_name(oc->signature, in->source, strlen(in->source))
                         : finding_name(oc->signature, in->data, in->size);
}

static void write_finding(const RunOptions *o, const HzInput *in, const HzOutcome *oc,
                          const char *line)
{
    char *stem = finding_stem(in, oc);
    size_t n = strlen(o->findings) + strlen(stem) + 16;
    char *path = malloc(n);
    if (path == NULL)
        abort();
    snprintf(path, n, "%s/%s.py", o->findings, stem);
    int rc = write_file(path, in->source, strlen(in->source));
    snprintf(path, n, "%s/%s.report", o->findings, stem);
    FILE *f = fopen(path, "w");
    if (f != NULL) {
        time_t now = time(NULL);
        char when[64];
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
        fprintf(f, "%s\n\ninput: %s\ntarget: %s\nfaults: %s\ntracefuzz: %s (decoder "
                "version %d, observation version %d)\ncommand: %s\ntime: %s\n\n%s\n",
                line, in->path, o->target_name ? o->target_name : "?",
                o->faults ? o->faults : "none", TF_VERSION, HZ_DECODER_VERSION,
                OR_OBS_VERSION, command_line, when, oc->report ? oc->report : "");
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
    if (rc < 0) {
        finding_write_errors++;
        fprintf(stderr, "tracefuzz run: cannot write findings for %s into %s: %s\n",
                in->path, o->findings, strerror(errno));
    }
    free(path);
    free(stem);
}

/* SIGINT and SIGTERM end a run early but cleanly: the waits for workers return
 * (hz_channel.h), every worker and input process is killed with its group, the
 * summary covers what ran, and the exit status is 128 + the signal. */
static void on_interrupt(int sig)
{
    hz_channel_on_signal(sig);
}

static void on_signals_interrupt(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;   /* no SA_RESTART: a blocked wait returns */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* A failing input's finding (files under --findings) or, without it, its report on
 * stderr. */
static void report_failure(const RunOptions *o, const HzInput *in, const HzOutcome *oc,
                           const char *line)
{
    if (o->findings != NULL)
        write_finding(o, in, oc, line);
    else if (oc->report != NULL && *oc->report)
        fprintf(stderr, "==== %s\n%s\n", line, oc->report);
}

/* Failing inputs whose findings are held back while they may all be one target
 * problem (hz_samefail). */
typedef struct {
    HzInput in;
    HzOutcome oc;
    char *line;
} HeldFailure;

static void held_release(const RunOptions *o, HeldFailure *held, size_t *n, bool report)
{
    for (size_t i = 0; i < *n; i++) {
        if (report)
            report_failure(o, &held[i].in, &held[i].oc, held[i].line);
        hz_input_clear(&held[i].in);
        hz_outcome_clear(&held[i].oc);
        free(held[i].line);
    }
    *n = 0;
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
    HzSameFail same;
    memset(&same, 0, sizeof same);
    HeldFailure held[HZ_SAMEFAIL_WINDOW];
    size_t nheld = 0;

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
        else if (strcmp(a, "--isolation") == 0) {
            const char *v = i + 1 < argc ? argv[++i] : "";
            if (strcmp(v, "fork") != 0 && strcmp(v, "shared") != 0) {
                rc = usage_error(usage_run, "--isolation %s: want fork or shared", v);
                goto done;
            }
            o.wc.shared = strcmp(v, "shared") == 0;
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
    o.target_name = target;
    if (o.wc.target == NULL)
        fprintf(stderr, "tracefuzz run: target %s (the default)\n", target);
    if (hz_preflight(w, err, sizeof err) < 0) {
        fprintf(stderr, "tracefuzz run: target %s: %s\n", target, err);
        rc = EXIT_USAGE;
        goto done;
    }

    jst = o.stats ? hz_jitstats_new() : NULL;
    unsigned long fed = 0;   /* inputs the target ran (not the unreadable ones) */
    int interrupted = 0;     /* the signal that ended the run early */
    on_signals_interrupt();
    bool target_problem = false;
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
        int wr = hz_worker_run(w, filename, in.source, &oc, err, sizeof err);
        if (wr == -2) {
            free(want);
            free(want_report);
            hz_input_clear(&in);
            interrupted = hz_channel_interrupted();
            break;
        }
        if (wr < 0) {   /* no worker can run it: tracefuzz's own failure */
            fprintf(stderr, "tracefuzz run: internal error: %s\n", err);
            free(want);
            free(want_report);
            hz_input_clear(&in);
            rc = EXIT_INTERNAL;
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
        fed++;
        HzSameFailStep st = hz_samefail_add(&same, !ok, oc.kind, oc.signature);
        if (st == HZ_SAMEFAIL_FLUSH)
            held_release(&o, held, &nheld, true);
        free(want);
        free(want_report);
        if (st == HZ_SAMEFAIL_HOLD) {
            held[nheld].in = in;   /* the held entry owns them now */
            held[nheld].oc = oc;
            held[nheld].line = strdup(line);
            if (held[nheld++].line == NULL)
                abort();
        }
        else {
            if (!ok)
                report_failure(&o, &in, &oc, line);
            hz_outcome_clear(&oc);
            hz_input_clear(&in);
        }
        if (hz_samefail_decided(&same, fed, false)) {
            target_problem = true;
            break;
        }
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
    if (!target_problem && hz_samefail_decided(&same, fed, true))
        target_problem = true;
    if (target_problem) {
        /* One message for the set-up problem, with the first input's report. */
        if (same.kind == OR_TIMEOUT)
            fprintf(stderr, "tracefuzz run: target %s: every one of the %lu inputs run "
                    "timed out (%s): the target needs more than %g s of CPU time per "
                    "input (each input also timed out at %g s on a second try); raise "
                    "--timeout\n", target, fed, same.signature, o.wc.timeout,
                    o.wc.timeout * HZ_RETRY_FACTOR);
        else
            fprintf(stderr, "tracefuzz run: target %s: every one of the %lu inputs run "
                    "failed the same way (%s): a problem of the target or its set-up, not "
                    "%lu findings\n", target, fed, same.signature, fed);
        if (nheld > 0 && held[0].oc.report != NULL) {
            const char *r = held[0].oc.report, *prog = strstr(r, "\nprogram:\n");
            fprintf(stderr, "==== the first of them: %s\n%.*s\n", held[0].line,
                    prog ? (int)(prog - r) : (int)strlen(r), r);
        }
        held_release(&o, held, &nheld, false);
    }
    held_release(&o, held, &nheld, true);
    if (interrupted)
        fprintf(stderr, "tracefuzz run: interrupted by %s after %lu of %zu inputs; "
                "the summary covers those\n", strsignal(interrupted), fed, nfiles);
    printf("%lu passed, %lu failed\n", passed, failed);
    errors += finding_write_errors;
    if (errors > 0)
        fprintf(stderr, "tracefuzz run: %lu input%s could not be read or written "
                "(ERROR lines): exit status 2\n", errors, errors == 1 ? "" : "s");
    rc = interrupted ? 128 + interrupted
         : target_problem || errors > 0 ? EXIT_USAGE : failed > 0 ? 1 : 0;
done:
    held_release(&o, held, &nheld, false);
    hz_samefail_clear(&same);
    hz_jitstats_free(jst);
    hz_worker_free(w);
    hz_paths_free(files, nfiles);
    free(pypath);
    free(paths);
    return rc;
}

/* ---- fuzz ------------------------------------------------------------------ */

/* `tracefuzz fuzz` builds nothing: it runs the prebuilt fuzz target (tf_fuzz, built
 * by fuzz/CMakeLists.txt next to this binary) under libFuzzer or afl-fuzz, relays
 * progress, then replays every saved crash through a worker (as `run` would) to
 * write the finding's files and group the findings by signature. */

#define FUZZ_MAX_SIGS 256

typedef struct {
    const char *engine, *target, *faults, *unsupported, *out, *seeds, *fuzzer;
    const char **pypath;
    size_t npypath;
    double time_s;
    unsigned jobs;
    bool strict;
    bool first;                    /* --first: stop at the first finding (libFuzzer, 1 job) */
} FuzzOptions;

typedef struct {
    unsigned long long execs;      /* total inputs run */
    unsigned long long base;       /* inputs run by earlier engine processes */
    double execs_per_s;
    long cov, ft, corpus;          /* libFuzzer: edges, features, corpus size */
    double map_pct;                /* AFL++: bitmap coverage */
    unsigned long crashes;         /* crashes the engine reported */
    unsigned long nondet;          /* NONDETERMINISTIC inputs (generator bugs) seen */
} FuzzStats;

typedef struct {
    char *signature;
    char *example;                 /* the first finding's stem */
    unsigned long count;
} FuzzSig;

static const char usage_fuzz[] =
    "usage: tracefuzz fuzz [--engine libfuzzer|afl] [--target T] [--faults F1,F2]\n"
    "                      [--time S] [--jobs N] [--first] [--out DIR] [--unsupported MOD:EXC]\n"
    "                      [--python-path DIR]... [--strict] [--seeds DIR]\n"
    "                      [--fuzzer PATH]\n"
    "\n"
    "Coverage-guided fuzzing of the target with the prebuilt fuzz target tf_fuzz\n"
    "(next to this binary; for --engine afl, the one of the afl build folder). Runs\n"
    "for S seconds (default 300) on N cores (default 1), shows progress, writes each\n"
    "finding into DIR/findings as NAME.tf (the input), NAME.py and NAME.report, and\n"
    "ends in a summary: execs, execs/s, coverage, findings by signature. Exit 0 when\n"
    "nothing was found, 1 otherwise, 2 on usage errors or a missing fuzz target.\n"
    "\n"
    "  --engine E         libfuzzer (default) or afl (afl-fuzz with the custom mutator)\n"
    "  --target T         builtin | identity | path/file.py:attr | package.module:attr\n"
    "  --faults F1,F2     tracer faults to inject (default: $TRACEFUZZ_FAULTS)\n"
    "  --time S           seconds of fuzzing (default 300)\n"
    "  --jobs N           parallel fuzzing processes (default 1)\n"
    "  --first            stop at the first finding (libFuzzer on one job; for tests\n"
    "                     and time-to-find measurements)\n"
    "  --out DIR          output directory (default out/fuzz); DIR/corpus is kept,\n"
    "                     so a second run continues where the first stopped\n"
    "  --unsupported M:E  the target's \"cannot trace this\" exception\n"
    "  --python-path DIR  extra directory to find the target in (repeatable)\n"
    "  --strict           UNSUPPORTED is a finding\n"
    "  --seeds DIR        seed corpus (default: corpus/seed of the source tree)\n"
    "  --fuzzer PATH      the fuzz target binary to run instead of the one found\n";

/* The directory holding this executable (malloc'd), or NULL. */
static char *exe_dir(void)
{
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        return NULL;
    buf[n] = 0;
    char *slash = strrchr(buf, '/');
    if (slash == NULL)
        return NULL;
    *slash = 0;
    return strdup(buf);
}

static bool is_file(const char *path, bool exec)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && (!exec || access(path, X_OK) == 0);
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The first of dir/rel for rel in rels that exists (as an executable when exec);
 * malloc'd absolute path, or NULL. */
static char *find_near(const char *dir, const char *const *rels, bool exec, bool want_dir)
{
    for (const char *const *r = rels; dir != NULL && *r != NULL; r++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, *r);
        if (want_dir ? is_dir(path) : is_file(path, exec)) {
            char *real = realpath(path, NULL);
            if (real != NULL)
                return real;
        }
    }
    return NULL;
}

/* Parses one line of the engine's output into st. libFuzzer's status lines:
 *   #4096  NEW  cov: 21 ft: 1240 corp: 429/59Kb ... exec/s: 217 rss: 38Mb ...
 *   #4096: cov: 21 ft: 1240 corp: 429 exec/s 217 oom/timeout/crash: 0/0/3 time: ...
 * (the second is -fork mode's). */
static void parse_libfuzzer_line(const char *line, FuzzStats *st)
{
    static const char nondet[] = "tracefuzz fuzz target: NONDETERMINISTIC input";
    if (strncmp(line, nondet, sizeof nondet - 1) == 0)
        st->nondet++;
    if (line[0] != '#' || !isdigit((unsigned char)line[1]))
        return;
    st->execs = st->base + strtoull(line + 1, NULL, 10);
    const char *p;
    if ((p = strstr(line, "cov: ")) != NULL)
        st->cov = strtol(p + 5, NULL, 10);
    if ((p = strstr(line, "ft: ")) != NULL)
        st->ft = strtol(p + 4, NULL, 10);
    if ((p = strstr(line, "corp: ")) != NULL)
        st->corpus = strtol(p + 6, NULL, 10);
    if ((p = strstr(line, "exec/s")) != NULL) {
        p += 6;
        while (*p == ':' || *p == ' ')
            p++;
        st->execs_per_s = strtod(p, NULL);
    }
    if ((p = strstr(line, "oom/timeout/crash: ")) != NULL) {
        unsigned long o = 0, t = 0, c = 0;
        if (sscanf(p + 19, "%lu/%lu/%lu", &o, &t, &c) == 3)
            st->crashes = o + t + c;
    }
}

/* Reads AFL++'s fuzzer_stats of one instance into st (sums over instances). */
static void read_afl_stats(const char *path, FuzzStats *st)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return;
    char line[512];
    while (fgets(line, sizeof line, f) != NULL) {
        char key[64];
        double v;
        if (sscanf(line, "%63s : %lf", key, &v) != 2)
            continue;
        if (strcmp(key, "execs_done") == 0)
            st->execs += (unsigned long long)v;
        else if (strcmp(key, "execs_per_sec") == 0)
            st->execs_per_s += v;
        else if (strcmp(key, "bitmap_cvg") == 0 && v > st->map_pct)
            st->map_pct = v;
        else if (strcmp(key, "corpus_count") == 0)
            st->corpus += (long)v;
        else if (strcmp(key, "saved_crashes") == 0 || strcmp(key, "unique_crashes") == 0 ||
                 strcmp(key, "saved_hangs") == 0 || strcmp(key, "unique_hangs") == 0)
            st->crashes += (unsigned long)v;
    }
    fclose(f);
}

static void afl_stats(const char *aflout, unsigned jobs, FuzzStats *st)
{
    FuzzStats s = {0};
    for (unsigned j = 0; j < jobs; j++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/f%u/fuzzer_stats", aflout, j);
        read_afl_stats(path, &s);
    }
    *st = s;
}

static void fuzz_progress(const FuzzStats *st, double elapsed, bool afl)
{
    /* The overall rate: -fork mode's status lines carry none, AFL++'s is a recent
     * window that starts out wild. */
    if (afl)
        fprintf(stderr, "tracefuzz fuzz: %4.0fs  %llu execs (%.0f/s)  map %.2f%%  corpus %ld  "
                "crashes %lu\n", elapsed, st->execs,
                elapsed > 0 ? (double)st->execs / elapsed : 0.0, st->map_pct, st->corpus,
                st->crashes);
    else
        fprintf(stderr, "tracefuzz fuzz: %4.0fs  %llu execs (%.0f/s)  cov %ld  ft %ld  "
                "corpus %ld  crashes %lu\n", elapsed, st->execs,
                elapsed > 0 ? (double)st->execs / elapsed : 0.0, st->cov, st->ft, st->corpus,
                st->crashes);
}

/* Sets the environment the fuzz target reads (hz_fuzz.c's header). */
static void fuzz_env(const FuzzOptions *o)
{
    if (o->target != NULL)
        setenv("TRACEFUZZ_TARGET", o->target, 1);
    if (o->faults != NULL)
        setenv("TRACEFUZZ_FAULTS", o->faults, 1);
    else
        unsetenv("TRACEFUZZ_FAULTS");
    if (o->unsupported != NULL)
        setenv("TRACEFUZZ_UNSUPPORTED", o->unsupported, 1);
    if (o->strict)
        setenv("TRACEFUZZ_STRICT", "1", 1);
    if (o->npypath > 0) {
        size_t n = 1;
        for (size_t i = 0; i < o->npypath; i++)
            n += strlen(o->pypath[i]) + 1;
        char *pp = calloc(1, n);
        if (pp == NULL)
            abort();
        for (size_t i = 0; i < o->npypath; i++) {
            if (i > 0)
                strcat(pp, ":");
            strcat(pp, o->pypath[i]);
        }
        setenv("TRACEFUZZ_PYTHON_PATH", pp, 1);
        free(pp);
    }
}

/* Runs argv with stdout+stderr into a pipe; every line goes to the log and through
 * parse (libFuzzer) and a progress line is printed every few seconds. The child is
 * killed (SIGTERM, then SIGKILL) if it overruns deadline_s. Returns the child's exit
 * status (128+signal when killed), or -1 if it could not start. */
static int fuzz_spawn(char *const argv[], FILE *log, double start, double deadline_s,
                      const FuzzOptions *o, const char *aflout, FuzzStats *st)
{
    int fds[2];
    if (pipe(fds) < 0)
        return -1;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        close(fds[0]);
        close(fds[1]);
        execvp(argv[0], argv);
        fprintf(stderr, "tracefuzz fuzz: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    bool afl = aflout != NULL;
    double last = now_s();
    char line[8192];
    size_t len = 0;
    int status = 0, killed = 0;
    for (;;) {
        struct pollfd pfd = {fds[0], POLLIN, 0};
        poll(&pfd, 1, 500);
        ssize_t n;
        char buf[4096];
        bool eof = false;
        while ((n = read(fds[0], buf, sizeof buf)) > 0) {
            fwrite(buf, 1, (size_t)n, log);
            for (ssize_t i = 0; i < n; i++) {
                if (buf[i] == '\n' || len + 1 >= sizeof line) {
                    line[len] = 0;
                    if (!afl)
                        parse_libfuzzer_line(line, st);
                    len = 0;
                }
                else {
                    line[len++] = buf[i];
                }
            }
        }
        if (n == 0)
            eof = true;
        double t = now_s();
        if (t - last >= PROGRESS_EVERY_S) {
            last = t;
            if (afl)
                afl_stats(aflout, o->jobs, st);
            fuzz_progress(st, t - start, afl);
        }
        if (t - start > deadline_s && killed < 2) {
            kill(pid, killed == 0 ? SIGTERM : SIGKILL);
            killed++;
            deadline_s += 10;
        }
        if (eof)
            break;
    }
    close(fds[0]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (afl)
        afl_stats(aflout, o->jobs, st);
    fflush(log);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Crash files the engine saved: libFuzzer's crash-* / timeout-* / oom-* in dir, or
 * AFL++'s fN/crashes/id:* and fN/hangs/id:*. Appends paths to *list. */
static void collect_artifacts(const char *dir, bool afl, unsigned jobs, char ***list,
                              size_t *n)
{
    for (unsigned j = 0; j < (afl ? jobs * 2 : 1); j++) {
        char sub[4096];
        if (afl)
            snprintf(sub, sizeof sub, "%s/f%u/%s", dir, j / 2, j % 2 ? "hangs" : "crashes");
        else
            snprintf(sub, sizeof sub, "%s", dir);
        DIR *d = opendir(sub);
        if (d == NULL)
            continue;
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            const char *nm = e->d_name;
            bool take = afl ? strncmp(nm, "id:", 3) == 0
                            : (strncmp(nm, "crash-", 6) == 0 || strncmp(nm, "timeout-", 8) == 0 ||
                               strncmp(nm, "oom-", 4) == 0 || strncmp(nm, "leak-", 5) == 0);
            if (!take)
                continue;
            char *path = malloc(strlen(sub) + strlen(nm) + 2);
            if (path == NULL)
                abort();
            sprintf(path, "%s/%s", sub, nm);
            *list = realloc(*list, (*n + 1) * sizeof **list);
            if (*list == NULL)
                abort();
            (*list)[(*n)++] = path;
        }
        closedir(d);
    }
}

static int cmp_sig(const void *a, const void *b)
{
    const FuzzSig *x = a, *y = b;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return strcmp(x->signature, y->signature);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replays each artifact through a worker, writes its finding files and groups the
 * findings by signature. Returns the number of findings (reproduced or not). */
/* The worker configuration of fuzz's own runs (preflight, replaying artifacts). */
static HzWorkerConfig fuzz_worker_config(const FuzzOptions *o, double timeout)
{
    HzWorkerConfig wc;
    memset(&wc, 0, sizeof wc);
    wc.target = o->target;
    wc.unsupported = o->unsupported;
    wc.python_path = o->pypath;
    wc.n_python_path = o->npypath;
    wc.faults = o->faults;
    wc.timeout = timeout;
    return wc;
}

static unsigned long fuzz_triage(const FuzzOptions *o, char **arts, size_t narts,
                                 const char *findings, FuzzSig *sigs, size_t *nsigs)
{
    RunOptions ro;
    memset(&ro, 0, sizeof ro);
    ro.wc = fuzz_worker_config(o, 20.0);
    ro.findings = findings;
    ro.faults = o->faults;
    ro.target_name = o->target ? o->target : "builtin";   /* for the reports */
    HzWorker *w = hz_worker_new(&ro.wc);
    char err[4096];
    unsigned long total = 0;
    for (size_t i = 0; i < narts; i++) {
        HzInput in;
        if (hz_input_load(arts[i], NULL, &in, err, sizeof err) < 0)
            continue;
        HzOutcome oc;
        memset(&oc, 0, sizeof oc);
        const char *filename = in.is_source ? "<tfseed>" : "<tfprog>";
        char sig[1024];
        if (hz_worker_run(w, filename, in.source, &oc, err, sizeof err) < 0) {
            snprintf(sig, sizeof sig, "UNREPRODUCED (%s)", err);
        }
        else if (oc.kind == OR_OK || oc.kind == OR_INVALID ||
                 oc.kind == OR_NONDETERMINISTIC ||
                 (oc.kind == OR_UNSUPPORTED && !o->strict)) {
            /* The engine saw it fail, the replay does not: an OOM, a wall-clock timeout
             * of libFuzzer's, or state carried over from earlier inputs. */
            const char *base = strrchr(arts[i], '/');
            base = base ? base + 1 : arts[i];
            snprintf(sig, sizeof sig, "UNREPRODUCED %s (replay: %s)",
                     strncmp(base, "timeout-", 8) == 0 ? "timeout" :
                     strncmp(base, "oom-", 4) == 0 ? "oom" : "crash",
                     or_verdict_name(oc.kind));
        }
        else {
            snprintf(sig, sizeof sig, "%s", oc.signature ? oc.signature : "?");
        }
        char line[4096];
        snprintf(line, sizeof line, "%s: %s", in.path, sig);
        /* Files named by signature and content (finding_name), in DIR/findings. */
        char *stem = finding_stem(&in, &oc);
        write_finding(&ro, &in, &oc, line);
        size_t k = 0;
        while (k < *nsigs && strcmp(sigs[k].signature, sig) != 0)
            k++;
        if (k == *nsigs && *nsigs < FUZZ_MAX_SIGS) {
            sigs[k].signature = strdup(sig);
            sigs[k].example = strdup(stem);
            sigs[k].count = 0;
            (*nsigs)++;
        }
        if (k < *nsigs)
            sigs[k].count++;
        total++;
        free(stem);
        hz_outcome_clear(&oc);
        hz_input_clear(&in);
    }
    hz_worker_free(w);
    return total;
}

/* The target must load and pass the trivial program (hz_preflight.h) before the
 * engine starts: a broken set-up is one clear message, not a run of 0 execs or of
 * N findings. Returns 0 or -1 (message printed). */
static int fuzz_preflight(const FuzzOptions *o)
{
    HzWorkerConfig wc = fuzz_worker_config(o, 30.0);
    HzWorker *w = hz_worker_new(&wc);
    char err[4096];
    int rc = hz_worker_start(w, err, sizeof err);
    if (rc == 0)
        rc = hz_preflight(w, err, sizeof err);
    if (rc < 0)
        fprintf(stderr, "tracefuzz fuzz: target %s: %s\n",
                o->target ? o->target : "(default)", err);
    hz_worker_free(w);
    return rc;
}

static int cmd_fuzz(int argc, char **argv)
{
    FuzzOptions o;
    memset(&o, 0, sizeof o);
    o.engine = "libfuzzer";
    o.time_s = 300;
    o.jobs = 1;
    o.out = "out/fuzz";
    o.pypath = calloc((size_t)argc + 1, sizeof *o.pypath);
    if (o.pypath == NULL)
        abort();
    int rc = 0;
    char *dir = NULL, *fuzzer = NULL, *seeds = NULL, *dict = NULL, *mutator = NULL;
    char **arts = NULL;
    size_t narts = 0;
    FuzzSig sigs[FUZZ_MAX_SIGS];
    size_t nsigs = 0;
    FILE *log = NULL;

    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (is_help(a)) {
            fputs(usage_fuzz, stdout);
            goto done;
        }
        if (strcmp(a, "--strict") == 0) {
            o.strict = true;
            continue;
        }
        if (strcmp(a, "--first") == 0) {
            o.first = true;
            continue;
        }
        if (i + 1 >= argc || strncmp(a, "--", 2) != 0) {
            rc = usage_error(usage_fuzz, strncmp(a, "--", 2) == 0 ? "%s needs a value"
                                                                   : "unexpected argument %s", a);
            goto done;
        }
        const char *v = argv[++i];
        uint64_t u;
        if (strcmp(a, "--engine") == 0)
            o.engine = v;
        else if (strcmp(a, "--target") == 0)
            o.target = v;
        else if (strcmp(a, "--faults") == 0)
            o.faults = v;
        else if (strcmp(a, "--unsupported") == 0)
            o.unsupported = v;
        else if (strcmp(a, "--out") == 0)
            o.out = v;
        else if (strcmp(a, "--seeds") == 0)
            o.seeds = v;
        else if (strcmp(a, "--fuzzer") == 0)
            o.fuzzer = v;
        else if (strcmp(a, "--python-path") == 0)
            o.pypath[o.npypath++] = v;
        else if (strcmp(a, "--time") == 0 || strcmp(a, "--jobs") == 0) {
            if (parse_u64(v, &u) < 0 || u == 0 || u > 10000000) {
                rc = usage_error(usage_fuzz, "%s wants a positive integer", a);
                goto done;
            }
            if (a[2] == 't')
                o.time_s = (double)u;
            else
                o.jobs = (unsigned)u;
        }
        else {
            rc = usage_error(usage_fuzz, "unknown option %s", a);
            goto done;
        }
    }
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (ncpu > 0 && o.jobs > (unsigned)ncpu) {
        fprintf(stderr, "tracefuzz fuzz: warning: --jobs %u is more than the %ld cores "
                "here; using %ld\n", o.jobs, ncpu, ncpu);
        o.jobs = (unsigned)ncpu;
    }
    bool afl = strcmp(o.engine, "afl") == 0;
    if (!afl && strcmp(o.engine, "libfuzzer") != 0) {
        rc = usage_error(usage_fuzz, "--engine %s: want libfuzzer or afl", o.engine);
        goto done;
    }
    if (o.faults == NULL)
        o.faults = getenv("TRACEFUZZ_FAULTS");
    if (o.faults != NULL && *o.faults == 0)
        o.faults = NULL;

    /* The prebuilt pieces: nothing is built here. */
    dir = exe_dir();
    static const char *const lf_rels[] = {"tf_fuzz", "../fuzz-fast/tf_fuzz", "../fuzz/tf_fuzz",
                                          NULL};
    static const char *const afl_rels[] = {"../afl/tf_fuzz", "tf_fuzz_afl", NULL};
    static const char *const mut_rels[] = {"libtfafl_mutator.so", "../afl/libtfafl_mutator.so",
                                           "../dev/libtfafl_mutator.so", NULL};
    static const char *const seed_rels[] = {"../../corpus/seed", "../corpus/seed", NULL};
    static const char *const dict_rels[] = {"../../corpus/tracefuzz.dict",
                                            "../corpus/tracefuzz.dict", NULL};
    static const char *const cwd_seed[] = {"corpus/seed", NULL};
    static const char *const cwd_dict[] = {"corpus/tracefuzz.dict", NULL};
    if (o.fuzzer != NULL)
        fuzzer = realpath(o.fuzzer, NULL);
    else
        fuzzer = find_near(dir, afl ? afl_rels : lf_rels, true, false);
    if (fuzzer == NULL || !is_file(fuzzer, true)) {
        fprintf(stderr, "tracefuzz fuzz: no %s fuzz target %s%s: build it first:\n  %s\n",
                afl ? "AFL++" : "libFuzzer", o.fuzzer ? "at " : "next to this binary",
                o.fuzzer ? o.fuzzer : "",
                afl ? "cmake --preset afl && cmake --build --preset afl   (build/afl/tf_fuzz)"
                    : "cmake --build --preset dev   (or fuzz-fast; builds tf_fuzz with clang)");
        rc = EXIT_USAGE;
        goto done;
    }
    seeds = o.seeds ? realpath(o.seeds, NULL) : find_near(dir, seed_rels, false, true);
    if (seeds == NULL && o.seeds == NULL)
        seeds = find_near(".", cwd_seed, false, true);
    if (seeds == NULL) {
        fprintf(stderr, "tracefuzz fuzz: no seed corpus (give --seeds DIR)\n");
        rc = EXIT_USAGE;
        goto done;
    }
    dict = find_near(dir, dict_rels, false, false);
    if (dict == NULL)
        dict = find_near(".", cwd_dict, false, false);
    if (afl) {
        mutator = find_near(dir, mut_rels, false, false);
        if (mutator == NULL) {
            fprintf(stderr, "tracefuzz fuzz: no libtfafl_mutator.so near %s\n", fuzzer);
            rc = EXIT_USAGE;
            goto done;
        }
    }

    if (fuzz_preflight(&o) < 0) {
        rc = EXIT_USAGE;
        goto done;
    }

    char corpus[4096], artifacts[4096], findings[4096], logpath[4096], aflout[4096];
    snprintf(corpus, sizeof corpus, "%s/corpus", o.out);
    snprintf(artifacts, sizeof artifacts, "%s/artifacts/", o.out);
    snprintf(findings, sizeof findings, "%s/findings", o.out);
    snprintf(logpath, sizeof logpath, "%s/fuzz.log", o.out);
    snprintf(aflout, sizeof aflout, "%s/afl", o.out);
    /* Findings and artifacts are this run's; the corpus carries over. */
    char cmd[8192];
    /* Findings of earlier runs stay (named by signature and content: a rerun of the
     * same input overwrites it with itself); the engine's own files are this run's. */
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", artifacts, aflout);
    if (strchr(o.out, '\'') != NULL || system(cmd) != 0) {
        fprintf(stderr, "tracefuzz fuzz: cannot clear %s\n", o.out);
        rc = EXIT_USAGE;
        goto done;
    }
    if (mkdir_p(corpus) < 0 || mkdir_p(artifacts) < 0 || mkdir_p(findings) < 0 ||
        (log = fopen(logpath, "w")) == NULL) {
        fprintf(stderr, "tracefuzz fuzz: cannot create %s: %s\n", o.out, strerror(errno));
        rc = EXIT_USAGE;
        goto done;
    }
    fuzz_env(&o);
    fprintf(stderr, "tracefuzz fuzz: %s, target %s, faults %s, %.0f s on %u core%s\n"
            "tracefuzz fuzz: fuzzer %s\ntracefuzz fuzz: seeds %s, output %s (log: %s)\n",
            afl ? "AFL++" : "libFuzzer", o.target ? o.target : "(default)",
            o.faults ? o.faults : "none", o.time_s, o.jobs, o.jobs == 1 ? "" : "s",
            fuzzer, seeds, o.out, logpath);

    char a_time[64], a_fork[64], a_dict[4200], a_art[4200], a_tmo[64];
    char *args[64];
    int na = 0;
    FuzzStats st;
    memset(&st, 0, sizeof st);
    double start = now_s();
    int erc;
    if (!afl) {
        /* libFuzzer stops at the first crash. On one core, rerun it on the grown
         * corpus for the time left (full speed: measured twice -fork=1's); on more,
         * fork mode keeps N jobs going past crashes and merges their corpora. A seed
         * that crashes would end every rerun before it starts: fork mode then too. */
        bool use_fork = o.jobs > 1;
        snprintf(a_fork, sizeof a_fork, "-fork=%u", o.jobs);
        snprintf(a_art, sizeof a_art, "-artifact_prefix=%s", artifacts);
        snprintf(a_dict, sizeof a_dict, "-dict=%s", dict ? dict : "");
        erc = 0;
        for (;;) {
            double left = o.time_s - (now_s() - start);
            if (left < 1)
                break;
            snprintf(a_time, sizeof a_time, "-max_total_time=%.0f", left);
            na = 0;
            args[na++] = fuzzer;
            args[na++] = a_time;
            if (use_fork) {
                args[na++] = a_fork;
                args[na++] = "-ignore_crashes=1";
                args[na++] = "-ignore_timeouts=1";
                args[na++] = "-ignore_ooms=1";
            }
            args[na++] = "-timeout=30";
            args[na++] = "-rss_limit_mb=4096";
            args[na++] = "-detect_leaks=0";
            args[na++] = "-print_final_stats=1";
            args[na++] = a_art;
            if (dict != NULL)
                args[na++] = a_dict;
            args[na++] = corpus;
            args[na++] = seeds;
            args[na] = NULL;
            unsigned long long before = st.execs;
            erc = fuzz_spawn(args, log, start, left + 60, &o, NULL, &st);
            if (erc <= 0 || use_fork)
                break;   /* time is up, or the engine failed: its log says why */
            st.crashes++;
            st.base = st.execs;
            if (o.first)
                break;   /* --first: one finding is what was asked for */
            if (st.execs == before) {
                fprintf(stderr, "tracefuzz fuzz: an input of the corpus fails: going on "
                        "in fork mode\n");
                use_fork = true;
            }
        }
    }
    else {
        /* One afl-fuzz per job (-M f0, -S f1..), each in its own process. */
        setenv("AFL_SKIP_CPUFREQ", "1", 1);
        setenv("AFL_NO_UI", "1", 1);
        setenv("AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES", "1", 1);
        setenv("AFL_CUSTOM_MUTATOR_LIBRARY", mutator, 1);
        setenv("TRACEFUZZ_QUIET", "1", 1);
        if (mkdir_p(aflout) < 0) {
            rc = EXIT_USAGE;
            goto done;
        }
        pid_t kids[64];
        unsigned nk = o.jobs < 64 ? o.jobs : 64;
        o.jobs = nk;
        snprintf(a_time, sizeof a_time, "%.0f", o.time_s);
        snprintf(a_tmo, sizeof a_tmo, "30000");
        char name[64][8];
        for (unsigned j = nk; j-- > 0;) {
            /* Instance f0 last: this process relays its output. */
            snprintf(name[j], sizeof name[j], "f%u", j);
            na = 0;
            args[na++] = "afl-fuzz";
            args[na++] = "-i";
            args[na++] = seeds;
            args[na++] = "-o";
            args[na++] = aflout;
            args[na++] = j == 0 && nk > 1 ? "-M" : "-S";
            args[na++] = name[j];
            args[na++] = "-V";
            args[na++] = a_time;
            args[na++] = "-t";
            args[na++] = a_tmo;
            if (dict != NULL) {
                args[na++] = "-x";
                args[na++] = dict;
            }
            args[na++] = "--";
            args[na++] = fuzzer;
            args[na] = NULL;
            if (j == 0)
                break;
            fflush(stdout);
            fflush(stderr);
            kids[j] = fork();
            if (kids[j] == 0) {
                int devnull = open("/dev/null", O_WRONLY);
                dup2(devnull, 1);
                dup2(devnull, 2);
                execvp(args[0], args);
                _exit(127);
            }
        }
        erc = fuzz_spawn(args, log, start, o.time_s + 60, &o, aflout, &st);
        for (unsigned j = 1; j < nk; j++)
            if (kids[j] > 0)
                waitpid(kids[j], NULL, 0);
        afl_stats(aflout, nk, &st);
    }
    double elapsed = now_s() - start;
    if (erc < 0) {
        fprintf(stderr, "tracefuzz fuzz: cannot start %s\n", args[0]);
        rc = EXIT_USAGE;
        goto done;
    }
    if (st.execs == 0 && st.crashes == 0) {
        fprintf(stderr, "tracefuzz fuzz: the engine ran no input (exit status %d); its "
                "output is in %s\n", erc, logpath);
        rc = EXIT_USAGE;
        goto done;
    }

    collect_artifacts(afl ? aflout : artifacts, afl, o.jobs, &arts, &narts);
    if (narts > 0) {   /* qsort wants a non-null array even for no elements */
        qsort(arts, narts, sizeof *arts, cmp_str);
        fprintf(stderr, "tracefuzz fuzz: replaying %zu saved input%s\n", narts,
                narts == 1 ? "" : "s");
    }
    unsigned long nfind = fuzz_triage(&o, arts, narts, findings, sigs, &nsigs);

    printf("\ntracefuzz fuzz summary (%s, target %s, faults %s)\n", afl ? "AFL++" : "libFuzzer",
           o.target ? o.target : "default", o.faults ? o.faults : "none");
    printf("  time      %.0f s on %u core%s\n", elapsed, o.jobs, o.jobs == 1 ? "" : "s");
    printf("  execs     %llu (%.0f/s overall)\n", st.execs,
           elapsed > 0 ? (double)st.execs / elapsed : 0.0);
    if (afl)
        printf("  coverage  %.2f%% of the AFL++ map, corpus %ld\n", st.map_pct, st.corpus);
    else
        printf("  coverage  %ld edges, %ld features, corpus %ld\n", st.cov, st.ft, st.corpus);
    printf("  findings  %lu in %zu signature%s%s%s\n", nfind, nsigs, nsigs == 1 ? "" : "s",
           nfind ? ", files in " : "", nfind ? findings : "");
    if (st.nondet > 0)
        printf("  note      %lu NONDETERMINISTIC inputs (generator bugs, not findings; "
               "see %s)\n", st.nondet, logpath);
    if (nsigs > 0)
        qsort(sigs, nsigs, sizeof sigs[0], cmp_sig);
    for (size_t k = 0; k < nsigs; k++)
        printf("    %5lu  %s   (e.g. %s)\n", sigs[k].count, sigs[k].signature, sigs[k].example);
    rc = nfind > 0 ? 1 : 0;
done:
    for (size_t k = 0; k < nsigs; k++) {
        free(sigs[k].signature);
        free(sigs[k].example);
    }
    hz_paths_free(arts, narts);
    if (log != NULL)
        fclose(log);
    free(dir);
    free(fuzzer);
    free(seeds);
    free(dict);
    free(mutator);
    free(o.pypath);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage_main, stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    remember_command_line(argc, argv);
    if (is_help(cmd) || strcmp(cmd, "help") == 0) {
        fputs(usage_main, stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("tracefuzz " TF_VERSION " (decoder version %d, observation version %d)\n",
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
    if (strcmp(cmd, "fuzz") == 0)
        return cmd_fuzz(argc - 2, argv + 2);
    return usage_error(usage_main, "unknown command '%s'", cmd);
}
