/* tracefuzz fuzz: coverage-guided fuzzing, the main job. This comment is its manual (docs/CLI.md has the same with
 * examples).
 *
 *   Coverage-guided fuzzing (docs/FUZZING.md), the README's main job. Builds
 *   nothing: runs the prebuilt fuzz target tf_fuzz (fuzz/CMakeLists.txt) found next
 *   to this binary (or in ../fuzz-fast, ../fuzz; for --engine afl, ../afl of the build
 *   tree; --fuzzer PATH overrides) under libFuzzer, or under afl-fuzz with the
 *   structure-aware custom mutator libtfafl_mutator.so. Seeds: corpus/seed of the
 *   source tree (--seeds DIR), the dictionary corpus/tracefuzz.dict. For --time S
 *   seconds (default 300) on --jobs N processes (default 1). libFuzzer: N persistent
 *   jobs (CPython initialised once per process) sharing the corpus directory (each
 *   rereads it every second), job J's -seed --seed+J (default random); a job that
 *   stops at a crash is rerun on the grown corpus for the time left, and one whose
 *   corpus or seeds fail before fuzzing goes on in fork mode (-fork=1, crashes
 *   ignored). AFL++: one afl-fuzz -M and N-1 -S. Progress goes to stderr every few
 *   seconds (execs and crashes summed over the jobs, coverage and corpus the best
 *   job's); the engine's own output to DIR/fuzz.log (with N > 1 libFuzzer jobs, each
 *   line prefixed "[J] ", and job J's alone in DIR/fuzz-J.log). Afterwards each
 *   saved crash is replayed through a worker, as `run` would, and written into
 *   DIR/findings as NAME.tf (the input), NAME.py (the repro script, `tracefuzz
 *   repro`) and NAME.report (the verdict, report and observations). The summary
 *   on stdout: time, execs and execs/s, coverage (libFuzzer: edges, features and
 *   corpus; AFL++: map coverage), findings grouped by signature, most frequent
 *   first. DIR (--out, default out/fuzz) keeps DIR/corpus between runs (--corpus
 *   puts it elsewhere; libFuzzer only, AFL++'s queue is this run's; `tracefuzz corpus
 *   prune` shrinks it) and appends the campaign's time series to DIR/stats.csv (a row
 *   per progress line, then findings per signature; `tracefuzz plot`); artifacts
 *   and findings are this run's. --target, --faults, --unsupported,
 *   --python-path and --strict mean what they mean for `run`. The first finding of
 *   each new signature is reduced (`tracefuzz reduce`, at most --reduce-time S
 *   seconds each, default 30; --no-reduce skips it) into NAME.min.py (and
 *   NAME.min.tf) beside it, unless NAME.min.py exists already; the summary gives
 *   its size in program lines. NAME.min.py is a repro script like NAME.py: the
 *   reduced program, then the repro footer, so `python3.11 NAME.min.py` runs it
 *   through the target it was found with (exit 1 diverges, 0 agrees).
 *   --memory-limit means what it means for `run` (also the engine's -rss_limit_mb).
 *   SIGINT/SIGTERM end every engine process (each libFuzzer job's process group)
 *   and remove their temporary directories; the saved inputs are not replayed (the
 *   summary names where they are) and the exit status is 128 + the signal.
 *   Exit status: 0 when nothing was found, 1 when something was, 2 when the fuzz
 *   target is missing, the target does not load or fails the preflight, a fault is
 *   unknown, or the engine ran no input. --jobs above the core count is capped.
 * */
#include "cmd.h"
#include "cmd_fuzz.h"
#include "hz_channel.h"
#include "hz_preflight.h"
#include "hz_reduce.h"
#include "hz_repro.h"
#include "or_verdict.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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
    bool first;                    /* --first: stop at the first finding (libFuzzer) */
    const char *json, *junit, *sarif, *baseline;   /* as for `run` (cmd_results.c) */
    bool no_reduce;                /* --no-reduce */
    double reduce_time;            /* --reduce-time S per new signature */
    const char *corpus_dir;        /* --corpus: the corpus kept across runs (OUT/corpus) */
    long memory_mb;                /* --memory-limit: engine RSS and workers' address space */
    uint32_t seed;                 /* --seed: libFuzzer job J's first process runs seed+J */
    bool seed_given;
} FuzzOptions;

/* The target's name for messages, reports and results: --target, else the default. */
static const char *target_name(const FuzzOptions *o)
{
    return o->target ? o->target : "builtin";
}

typedef struct {
    char *signature;
    char *example;                 /* the first finding's stem */
    long min_lines;                /* its reduction's program lines; -1 none */
    unsigned long count;
} FuzzSig;

static const char usage_fuzz[] =
    "usage: tracefuzz fuzz [--engine libfuzzer|afl] [--target T] [--faults F1,F2]\n"
    "                      [--time S] [--jobs N] [--seed N] [--first] [--out DIR]\n"
    "                      [--unsupported MOD:EXC]\n"
    "                      [--python-path DIR]... [--strict] [--seeds DIR]\n"
    "                      [--fuzzer PATH] [--corpus DIR] [--reduce-time S | --no-reduce]\n"
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
    "  --jobs N           parallel fuzzing processes (default 1): libFuzzer runs N\n"
    "                     persistent jobs on one corpus, logs DIR/fuzz-J.log\n"
    "  --seed N           libFuzzer's -seed of job J is N+J (default: random)\n"
    "  --first            stop every job at the first finding (libFuzzer; for tests\n"
    "                     and time-to-find measurements)\n"
    "  --out DIR          output directory (default out/fuzz); DIR/corpus is kept,\n"
    "                     so a second run continues where the first stopped\n"
    "  --unsupported M:E  the target's \"cannot trace this\" exception\n"
    "  --python-path DIR  extra directory to find the target in (repeatable)\n"
    "  --strict           UNSUPPORTED is a finding\n"
    "  --seeds DIR        seed corpus (default: corpus/seed of the source tree)\n"
    "  --corpus DIR       the corpus kept across runs (default DIR/corpus of --out);\n"
    "                     `tracefuzz corpus prune` keeps it small\n"
    "  --fuzzer PATH      the fuzz target binary to run instead of the one found\n"
    "  --json/--junit/--sarif FILE  the findings for CI (as for `run`; a record per\n"
    "                     signature standing for its count)\n"
    "  --baseline FILE    known signatures: their findings are listed as known and do\n"
    "                     not make the exit status 1\n"
    "  --reduce-time S    seconds to reduce the first finding of each new signature\n"
    "                     into NAME.min.py / NAME.min.tf (default 30)\n"
    "  --no-reduce        do not reduce findings\n"
    "  --memory-limit MB  memory of an input (default 4096): the engine's RSS limit,\n"
    "                     the address space of a replayed input (over it: OOM)\n";

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

/* OUT/stats.csv, the campaign's time series (cmd_statscsv.c), opened for this run. */
static int fuzz_stats_open(const char *out)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/stats.csv", out);
    return cmd_statscsv_open(path);
}

static void fuzz_stats_row(const FuzzStats *st, double elapsed, bool afl)
{
    CmdStatsTick t = {elapsed, st->execs, afl ? -1 : st->cov, afl ? -1 : st->ft, st->corpus,
                      afl ? st->map_pct : -1.0, st->crashes};
    cmd_statscsv_tick(&t);
}

void cmd_fuzz_progress(const FuzzStats *st, double elapsed, bool afl)
{
    fuzz_stats_row(st, elapsed, afl);
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
    CmdFuzzerEnv e = {o->target, o->faults, o->unsupported, o->pypath, o->npypath, o->strict};
    cmd_fuzzer_env(&e);
}

/* Runs afl-fuzz (argv) with stdout+stderr into the log; a progress line every few
 * seconds from the instances' fuzzer_stats. The child is killed (SIGTERM, then
 * SIGKILL) if it overruns deadline_s or SIGINT/SIGTERM arrived. Returns the child's
 * exit status (128+signal when killed), or -1 if it could not start. */
static int fuzz_spawn_afl(char *const argv[], FILE *log, double start, double deadline_s,
                          unsigned jobs, const char *aflout, FuzzStats *st)
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
    double last = cmd_now();
    int status = 0, killed = 0;
    for (;;) {
        struct pollfd pfd = {fds[0], POLLIN, 0};
        poll(&pfd, 1, 500);
        ssize_t n;
        char buf[4096];
        while ((n = read(fds[0], buf, sizeof buf)) > 0)
            fwrite(buf, 1, (size_t)n, log);
        bool eof = n == 0;
        double t = cmd_now();
        if (t - last >= PROGRESS_EVERY_S) {
            last = t;
            afl_stats(aflout, jobs, st);
            cmd_fuzz_progress(st, t - start, true);
        }
        if (hz_channel_interrupted() && killed == 0)
            deadline_s = 0;
        if (t - start > deadline_s && killed < 2) {
            kill(pid, killed == 0 ? SIGTERM : SIGKILL);
            killed++;
            deadline_s = t - start + 10;
        }
        if (eof)
            break;
    }
    close(fds[0]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    afl_stats(aflout, jobs, st);
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
    wc.memory_mb = o->memory_mb;
    return wc;
}

/* Reduces a new signature's first finding into DIR/STEM.min.py (.min.tf) within
 * --reduce-time; a reduction already there (the same finding in an earlier run) is
 * kept. Returns its program lines, or -1 when there is none. */
static long fuzz_reduce(const FuzzOptions *o, const HzInput *in, const char *dir,
                        const char *stem)
{
    char py[4096], tf[4096], err[4096];
    snprintf(py, sizeof py, "%s/%s.min.py", dir, stem);
    snprintf(tf, sizeof tf, "%s/%s.min.tf", dir, stem);
    FILE *f = fopen(py, "r");
    if (f != NULL) {   /* reduced before: count its program's lines */
        char *text = NULL;
        size_t cap = 0;
        ssize_t n = getdelim(&text, &cap, 0, f);
        fclose(f);
        if (n >= 0)
            cmd_program_cut_footer(text);
        long lines = n >= 0 ? (long)hz_program_text_size(text) : -1;
        free(text);
        return lines;
    }
    HzWorkerConfig wc = fuzz_worker_config(o, 20.0);
    HzReduceConfig rc = {&wc, 1, o->reduce_time, false, NULL};
    HzReduceResult res;
    fprintf(stderr, "tracefuzz fuzz: reducing %s (at most %.0f s)\n", stem, o->reduce_time);
    int r = hz_reduce_input(&rc, in, &res, err, sizeof err);
    long lines = -1;
    if (r == 0 && res.py != NULL) {
        /* a script the JIT developer can run, as NAME.py is: `python3.11 NAME.min.py`
         * with nothing but the program would define classes and exit 0 */
        HzReproSetup setup = {o->target, o->faults, o->unsupported,
                              (const char *const *)o->pypath, o->npypath};
        char *script = hz_repro_script(res.py, &setup);
        int wrote = cmd_write_file(py, script, strlen(script));
        free(script);
        if (wrote < 0 ||
            (res.tf != NULL && cmd_write_file(tf, res.tf, res.tf_size) < 0))
            fprintf(stderr, "tracefuzz fuzz: cannot write %s: %s\n", py, strerror(errno));
        else
            lines = (long)res.lines_after;
        fprintf(stderr, "tracefuzz fuzz: %s: %zu -> %zu program lines in %.1f s\n", stem,
                res.lines_before, res.lines_after, res.seconds);
    }
    else if (r != -2) {
        fprintf(stderr, "tracefuzz fuzz: %s not reduced: %s\n", stem,
                r == 0 ? "no result" : err);
    }
    hz_reduce_result_clear(&res);
    return lines;
}

static unsigned long fuzz_triage(const FuzzOptions *o, char **arts, size_t narts,
                                 const char *findings, FuzzSig *sigs, size_t *nsigs)
{
    HzWorkerConfig wc = fuzz_worker_config(o, 20.0);
    CmdFindings dest = {findings, target_name(o), o->faults, "fuzz",
                        o->unsupported, (const char *const *)o->pypath, o->npypath};
    HzWorker *w = hz_worker_new(&wc);
    char err[4096];
    unsigned long total = 0;
    for (size_t i = 0; i < narts && !hz_channel_interrupted(); i++) {
        HzInput in;
        if (hz_input_load(arts[i], NULL, &in, err, sizeof err) < 0)
            continue;
        HzOutcome oc;
        memset(&oc, 0, sizeof oc);
        const char *filename = in.is_source ? "<tfseed>" : "<tfprog>";
        char sig[1024];
        int wr = hz_worker_run(w, filename, in.source, &oc, err, sizeof err);
        if (wr == -2) {   /* interrupted: not a finding of its own */
            hz_outcome_clear(&oc);
            hz_input_clear(&in);
            break;
        }
        if (wr < 0) {
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
        char *stem = cmd_finding_stem(&in, &oc);
        cmd_finding_write(&dest, &in, &oc, sig, line);
        cmd_statscsv_finding(arts[i], sig);
        size_t k = 0;
        while (k < *nsigs && strcmp(sigs[k].signature, sig) != 0)
            k++;
        if (k == *nsigs && *nsigs < FUZZ_MAX_SIGS) {
            sigs[k].signature = strdup(sig);
            sigs[k].example = strdup(stem);
            sigs[k].count = 0;
            sigs[k].min_lines = -1;
            (*nsigs)++;
            if (!o->no_reduce && strncmp(sig, "UNREPRODUCED", 12) != 0)
                sigs[k].min_lines = fuzz_reduce(o, &in, findings, stem);
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
                target_name(o), err);
    hz_worker_free(w);
    return rc;
}

/* The findings by signature on stdout, most frequent first; those the baseline knows
 * marked so. Returns how many findings are new (not known). */
static unsigned long fuzz_report_signatures(const FuzzOptions *o, CmdBaseline *base,
                                            FuzzSig *sigs, size_t nsigs)
{
    unsigned long nnew = 0, nknown = 0;
    if (nsigs > 0)
        qsort(sigs, nsigs, sizeof sigs[0], cmp_sig);
    for (size_t k = 0; k < nsigs; k++) {
        bool known = cmd_baseline_known(base, sigs[k].signature);
        char red[64] = "";
        if (sigs[k].min_lines >= 0)
            snprintf(red, sizeof red, ", reduced: %ld lines in .min.py", sigs[k].min_lines);
        printf("    %5lu  %s%s   (e.g. %s%s)\n", sigs[k].count, sigs[k].signature,
               known ? "  (known)" : "", sigs[k].example, red);
        if (known)
            nknown += sigs[k].count;
        else
            nnew += sigs[k].count;
    }
    if (nknown > 0)
        printf("  known     %lu finding%s with signatures of the baseline %s\n", nknown,
               nknown == 1 ? "" : "s", o->baseline);
    return nnew;
}

/* --json, --junit and --sarif of a fuzz run: one record per signature, standing for
 * its count of findings, located at its example finding. Returns 0 or -1. */
static int fuzz_write_results(const FuzzOptions *o, CmdBaseline *base, const FuzzSig *sigs,
                              size_t nsigs, const char *findings, double elapsed,
                              const FuzzStats *st, int exit_status)
{
    if (o->json == NULL && o->junit == NULL && o->sarif == NULL)
        return 0;
    CmdResults *r = cmd_results_new("fuzz", target_name(o), o->faults);
    for (size_t k = 0; k < nsigs; k++) {
        char stem[4096], report_path[4200];
        snprintf(stem, sizeof stem, "%s/%s", findings, sigs[k].example);
        snprintf(report_path, sizeof report_path, "%s.report", stem);
        char *report = cmd_read_text(report_path, 65536);
        const char *sig = sigs[k].signature;
        size_t vlen = strcspn(sig, " ");
        char verdict[64];
        snprintf(verdict, sizeof verdict, "%.*s", (int)(vlen < 63 ? vlen : 63), sig);
        bool known = cmd_baseline_known(base, sig);
        CmdResult res = {.path = stem, .verdict = verdict, .signature = sig,
                         .finding = stem, .report = report, .passed = false,
                         .known = known, .count = sigs[k].count};
        cmd_results_add(r, &res);
        free(report);
    }
    cmd_results_number(r, "seconds", elapsed);
    cmd_results_number(r, "execs", (double)st->execs);
    cmd_results_number(r, "execs_per_s", elapsed > 0 ? (double)st->execs / elapsed : 0.0);
    cmd_results_number(r, "coverage_edges", (double)st->cov);
    cmd_results_number(r, "coverage_features", (double)st->ft);
    cmd_results_number(r, "corpus", (double)st->corpus);
    int rc = 0;
    if ((o->json && cmd_results_write_json(r, o->json, exit_status) < 0) ||
        (o->junit && cmd_results_write_junit(r, o->junit) < 0) ||
        (o->sarif && cmd_results_write_sarif(r, o->sarif) < 0))
        rc = -1;
    cmd_results_free(r);
    return rc;
}

int cmd_fuzz(int argc, char **argv)
{
    FuzzOptions o;
    memset(&o, 0, sizeof o);
    o.engine = "libfuzzer";
    o.time_s = 300;
    o.reduce_time = 30;
    o.jobs = 1;
    o.out = "out/fuzz";
    o.pypath = calloc((size_t)argc + 1, sizeof *o.pypath);
    if (o.pypath == NULL)
        abort();
    int rc = 0, interrupted = 0;
    char *dir = NULL, *fuzzer = NULL, *seeds = NULL, *dict = NULL, *mutator = NULL;
    char **arts = NULL;
    size_t narts = 0;
    FuzzSig sigs[FUZZ_MAX_SIGS];
    size_t nsigs = 0;
    FILE *log = NULL;
    CmdBaseline *base = NULL;

    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (cmd_is_help(a)) {
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
        if (strcmp(a, "--no-reduce") == 0) {
            o.no_reduce = true;
            continue;
        }
        if (i + 1 >= argc || strncmp(a, "--", 2) != 0) {
            rc = cmd_usage_error(usage_fuzz, strncmp(a, "--", 2) == 0 ? "%s needs a value"
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
        else if (strcmp(a, "--json") == 0)
            o.json = v;
        else if (strcmp(a, "--junit") == 0)
            o.junit = v;
        else if (strcmp(a, "--sarif") == 0)
            o.sarif = v;
        else if (strcmp(a, "--baseline") == 0)
            o.baseline = v;
        else if (strcmp(a, "--corpus") == 0)
            o.corpus_dir = v;
        else if (strcmp(a, "--python-path") == 0)
            o.pypath[o.npypath++] = v;
        else if (strcmp(a, "--reduce-time") == 0) {
            char *end;
            o.reduce_time = strtod(v, &end);
            if (*v == 0 || *end != 0 || !(o.reduce_time > 0)) {
                rc = cmd_usage_error(usage_fuzz, "--reduce-time %s: want seconds > 0", v);
                goto done;
            }
        }
        else if (strcmp(a, "--seed") == 0) {
            if (cmd_parse_u64(v, &u) < 0 || u == 0 || u > UINT32_MAX) {
                rc = cmd_usage_error(usage_fuzz, "--seed %s: want 1..4294967295", v);
                goto done;
            }
            o.seed = (uint32_t)u;
            o.seed_given = true;
        }
        else if (strcmp(a, "--memory-limit") == 0) {
            if (cmd_parse_memory_limit(v, &o.memory_mb) < 0) {
                rc = cmd_usage_error(usage_fuzz, "--memory-limit %s: want MiB, 64 or more", v);
                goto done;
            }
        }
        else if (strcmp(a, "--time") == 0 || strcmp(a, "--jobs") == 0) {
            if (cmd_parse_u64(v, &u) < 0 || u == 0 || u > 10000000) {
                rc = cmd_usage_error(usage_fuzz, "%s wants a positive integer", a);
                goto done;
            }
            if (a[2] == 't')
                o.time_s = (double)u;
            else
                o.jobs = (unsigned)u;
        }
        else {
            rc = cmd_usage_error(usage_fuzz, "unknown option %s", a);
            goto done;
        }
    }
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (ncpu > 0 && o.jobs > (unsigned)ncpu) {
        fprintf(stderr, "tracefuzz fuzz: warning: --jobs %u is more than the %ld cores "
                "here; using %ld\n", o.jobs, ncpu, ncpu);
        o.jobs = (unsigned)ncpu;
    }
    if (o.jobs > CMD_FUZZ_JOBS_MAX)
        o.jobs = CMD_FUZZ_JOBS_MAX;
    bool afl = strcmp(o.engine, "afl") == 0;
    if (!afl && strcmp(o.engine, "libfuzzer") != 0) {
        rc = cmd_usage_error(usage_fuzz, "--engine %s: want libfuzzer or afl", o.engine);
        goto done;
    }
    if (afl && o.corpus_dir != NULL) {
        rc = cmd_usage_error(usage_fuzz, "--corpus %s: libFuzzer only (AFL++'s queue is "
                             "the run's own, in DIR/afl)", o.corpus_dir);
        goto done;
    }
    if (o.faults == NULL)
        o.faults = getenv("TRACEFUZZ_FAULTS");
    if (o.faults != NULL && *o.faults == 0)
        o.faults = NULL;

    /* The prebuilt pieces: nothing is built here. */
    dir = cmd_exe_dir();
    static const char *const mut_rels[] = {"libtfafl_mutator.so", "../afl/libtfafl_mutator.so",
                                           "../dev/libtfafl_mutator.so", NULL};
    static const char *const seed_rels[] = {"../../corpus/seed", "../corpus/seed", NULL};
    static const char *const dict_rels[] = {"../../corpus/tracefuzz.dict",
                                            "../corpus/tracefuzz.dict", NULL};
    static const char *const cwd_seed[] = {"corpus/seed", NULL};
    static const char *const cwd_dict[] = {"corpus/tracefuzz.dict", NULL};
    fuzzer = cmd_find_fuzzer(o.fuzzer, afl, "fuzz");
    if (fuzzer == NULL) {
        rc = EXIT_USAGE;
        goto done;
    }
    seeds = o.seeds ? realpath(o.seeds, NULL) : cmd_find_near(dir, seed_rels, false, true);
    if (seeds == NULL && o.seeds == NULL)
        seeds = cmd_find_near(".", cwd_seed, false, true);
    if (seeds == NULL) {
        fprintf(stderr, "tracefuzz fuzz: no seed corpus (give --seeds DIR)\n");
        rc = EXIT_USAGE;
        goto done;
    }
    dict = cmd_find_near(dir, dict_rels, false, false);
    if (dict == NULL)
        dict = cmd_find_near(".", cwd_dict, false, false);
    if (afl) {
        mutator = cmd_find_near(dir, mut_rels, false, false);
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
    char berr[4096];
    if (o.baseline != NULL &&
        (base = cmd_baseline_load(o.baseline, false, berr, sizeof berr)) == NULL) {
        fprintf(stderr, "tracefuzz fuzz: %s\n", berr);
        rc = EXIT_USAGE;
        goto done;
    }

    char corpus[4096], artifacts[4096], findings[4096], logpath[4096], aflout[4096];
    if (o.corpus_dir != NULL)
        snprintf(corpus, sizeof corpus, "%s", o.corpus_dir);
    else
        snprintf(corpus, sizeof corpus, "%s/corpus", o.out);
    snprintf(artifacts, sizeof artifacts, "%s/artifacts/", o.out);
    snprintf(findings, sizeof findings, "%s/findings", o.out);
    snprintf(logpath, sizeof logpath, "%s/fuzz.log", o.out);
    snprintf(aflout, sizeof aflout, "%s/afl", o.out);
    /* Findings and artifacts are this run's; the corpus carries over. */
    char cmd[8192];
    /* Findings of earlier runs stay (named by signature and content: a rerun of the
     * same input overwrites it with itself); the engine's own files are this run's. */
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s' '%s'/fuzz-[0-9]*.log", artifacts, aflout, o.out);
    if (strchr(o.out, '\'') != NULL || system(cmd) != 0) {
        fprintf(stderr, "tracefuzz fuzz: cannot clear %s\n", o.out);
        rc = EXIT_USAGE;
        goto done;
    }
    if (cmd_mkdir_p(corpus) < 0 || cmd_mkdir_p(artifacts) < 0 || cmd_mkdir_p(findings) < 0 ||
        (log = fopen(logpath, "w")) == NULL || fuzz_stats_open(o.out) < 0) {
        fprintf(stderr, "tracefuzz fuzz: cannot create %s: %s\n", o.out, strerror(errno));
        rc = EXIT_USAGE;
        goto done;
    }
    fuzz_env(&o);
    fprintf(stderr, "tracefuzz fuzz: %s, target %s, faults %s, %.0f s on %u core%s\n"
            "tracefuzz fuzz: fuzzer %s\ntracefuzz fuzz: seeds %s, output %s (log: %s)\n",
            afl ? "AFL++" : "libFuzzer", target_name(&o),
            o.faults ? o.faults : "none", o.time_s, o.jobs, o.jobs == 1 ? "" : "s",
            fuzzer, seeds, o.out, logpath);

    char a_time[64], a_tmo[64];
    char *args[64];
    int na = 0;
    FuzzStats st;
    memset(&st, 0, sizeof st);
    /* From here on SIGINT/SIGTERM end the engines and skip the replay: the summary
     * covers what ran, the exit status is 128 + the signal. */
    cmd_on_signals_interrupt();
    double start = cmd_now();
    int erc;
    if (!afl) {
        /* N persistent libFuzzer jobs on the shared corpus, each restarted after a
         * finding (cmd_fuzz_jobs.c). */
        CmdFuzzJobs jc = {fuzzer, corpus, seeds, dict, artifacts, o.out,
                          o.memory_mb > 0 ? o.memory_mb : HZ_MEMORY_DEFAULT_MB, o.jobs,
                          o.time_s, o.first,
                          o.seed_given ? o.seed : (uint32_t)(hz_random_token() & 0x7fffffff)};
        CmdFuzzJobsResult jr;
        erc = cmd_fuzz_libfuzzer(&jc, log, start, &jr);
        if (erc == 0)
            erc = jr.last_status;
        st = jr.total;
        interrupted = jr.interrupted;
        args[0] = fuzzer;
    }
    else {
        /* One afl-fuzz per job (-M f0, -S f1..), each in its own process. */
        setenv("AFL_SKIP_CPUFREQ", "1", 1);
        setenv("AFL_NO_UI", "1", 1);
        setenv("AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES", "1", 1);
        setenv("AFL_CUSTOM_MUTATOR_LIBRARY", mutator, 1);
        setenv("TRACEFUZZ_QUIET", "1", 1);
        if (cmd_mkdir_p(aflout) < 0) {
            rc = EXIT_USAGE;
            goto done;
        }
        pid_t kids[CMD_FUZZ_JOBS_MAX];
        unsigned nk = o.jobs;
        snprintf(a_time, sizeof a_time, "%.0f", o.time_s);
        snprintf(a_tmo, sizeof a_tmo, "30000");
        char name[CMD_FUZZ_JOBS_MAX][8];
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
        erc = fuzz_spawn_afl(args, log, start, o.time_s + 60, nk, aflout, &st);
        for (unsigned j = 1; j < nk; j++) {
            bool termed = false;
            while (kids[j] > 0) {
                if (hz_channel_interrupted() && !termed) {
                    kill(kids[j], SIGTERM);
                    termed = true;
                }
                if (waitpid(kids[j], NULL, 0) >= 0 || errno != EINTR)
                    break;
            }
        }
        interrupted = hz_channel_interrupted();
        afl_stats(aflout, nk, &st);
    }
    double elapsed = cmd_now() - start;
    fuzz_stats_row(&st, elapsed, afl);   /* the engine's final numbers */
    if (erc < 0) {
        fprintf(stderr, "tracefuzz fuzz: cannot start %s\n", args[0]);
        rc = EXIT_USAGE;
        goto done;
    }
    if (st.execs == 0 && st.crashes == 0 && !interrupted) {
        fprintf(stderr, "tracefuzz fuzz: the engine ran no input (exit status %d); its "
                "output is in %s\n", erc, logpath);
        rc = EXIT_USAGE;
        goto done;
    }

    collect_artifacts(afl ? aflout : artifacts, afl, o.jobs, &arts, &narts);
    if (narts > 0)   /* qsort wants a non-null array even for no elements */
        qsort(arts, narts, sizeof *arts, cmp_str);
    if (narts > 0 && !interrupted) {
        fprintf(stderr, "tracefuzz fuzz: replaying %zu saved input%s\n", narts,
                narts == 1 ? "" : "s");
    }
    /* Interrupted: the saved inputs stay in the artifacts directory, unreplayed. */
    unsigned long nfind = interrupted ? 0 : fuzz_triage(&o, arts, narts, findings, sigs, &nsigs);
    if (!interrupted)
        interrupted = hz_channel_interrupted();   /* during the replay */
    cmd_statscsv_close();   /* the findings per signature, after the replay */
    if (interrupted)
        fprintf(stderr, "tracefuzz fuzz: interrupted by %s; the summary covers what ran\n",
                strsignal(interrupted));

    printf("\ntracefuzz fuzz summary (%s, target %s, faults %s)\n", afl ? "AFL++" : "libFuzzer",
           target_name(&o), o.faults ? o.faults : "none");
    printf("  time      %.0f s on %u core%s\n", elapsed, o.jobs, o.jobs == 1 ? "" : "s");
    if (o.jobs > 1)   /* summed over the jobs */
        printf("  execs     %llu (%.0f/s overall, %.0f/s per core)\n", st.execs,
               elapsed > 0 ? (double)st.execs / elapsed : 0.0,
               elapsed > 0 ? (double)st.execs / elapsed / o.jobs : 0.0);
    else
        printf("  execs     %llu (%.0f/s overall)\n", st.execs,
               elapsed > 0 ? (double)st.execs / elapsed : 0.0);
    if (afl)
        printf("  coverage  %.2f%% of the AFL++ map, corpus %ld\n", st.map_pct, st.corpus);
    else
        printf("  coverage  %ld edges, %ld features, corpus %ld\n", st.cov, st.ft, st.corpus);
    printf("  findings  %lu in %zu signature%s%s%s\n", nfind, nsigs, nsigs == 1 ? "" : "s",
           nfind ? ", files in " : "", nfind ? findings : "");
    if (interrupted && narts > 0)
        printf("  unreplayed %zu saved input%s in %s (interrupted; `tracefuzz run` them)\n",
               narts, narts == 1 ? "" : "s", afl ? aflout : artifacts);
    if (st.nondet > 0)
        printf("  note      %lu NONDETERMINISTIC inputs (generator bugs, not findings; "
               "see %s)\n", st.nondet, logpath);
    unsigned long nnew = fuzz_report_signatures(&o, base, sigs, nsigs);
    rc = interrupted ? 128 + interrupted : nnew > 0 ? 1 : 0;
    if (fuzz_write_results(&o, base, sigs, nsigs, findings, elapsed, &st, rc) < 0 &&
        !interrupted)
        rc = EXIT_USAGE;
done:
    cmd_baseline_free(base);
    cmd_statscsv_close();
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
