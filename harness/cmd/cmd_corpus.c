/* tracefuzz corpus: corpus upkeep. This comment is its manual (docs/CLI.md has the same
 * with examples).
 *
 *   tracefuzz corpus merge [options] OUT IN...
 *     Adds to OUT (created if missing) the inputs of the IN directories that reach
 *     coverage OUT does not have yet: libFuzzer's -merge=1 on the prebuilt fuzz target
 *     tf_fuzz (found as `fuzz` finds it; --fuzzer PATH overrides). OUT's own inputs
 *     all stay.
 *   tracefuzz corpus prune [options] DIR
 *     The same merge of DIR into a new, empty directory: the smallest set of DIR's
 *     inputs with all of DIR's coverage. DIR's content is replaced only when the merge
 *     succeeded (exit 0 and libFuzzer's MERGE-OUTER summary); otherwise DIR is left
 *     as it was. Then a check: DIR's old inputs are merged back into the pruned
 *     DIR, which must add nothing (an input it adds is kept: its features depended on
 *     the inputs run before it). `fuzz` keeps its corpus across runs (OUT/corpus or
 *     --corpus DIR): prune it between campaigns, e.g. nightly.
 *   Before and after, both print the files and bytes and the coverage (edges cov
 *   and features ft, libFuzzer's INITED line of a -runs=0 pass over the inputs:
 *   they run once, nothing is written). The coverage is the fuzz target's, so
 *   --target, --faults, --unsupported and --python-path must be the campaign's.
 *   Exit status: 0 done; 2 usage or configuration (a missing directory, no fuzz
 *   target, a target that does not load); 3 the engine failed (its log is kept and
 *   named).
 */
#define _GNU_SOURCE   /* nftw, mkstemps */
#include "cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char usage_corpus[] =
    "usage: tracefuzz corpus merge [options] OUT IN...\n"
    "       tracefuzz corpus prune [options] DIR\n"
    "\n"
    "merge adds to OUT the inputs of IN... that reach new coverage; prune keeps the\n"
    "smallest subset of DIR with all of DIR's coverage, replacing DIR's content only\n"
    "when the merge succeeded. Both use libFuzzer's -merge=1 on the prebuilt tf_fuzz\n"
    "and print files, bytes and coverage (edges, features) before and after.\n"
    "Exit 0, 2 on usage or configuration errors, 3 when the engine failed.\n"
    "\n"
    "  --target T         the campaign's target (coverage is the fuzz target's)\n"
    "  --faults F1,F2     its injected faults (default: $TRACEFUZZ_FAULTS)\n"
    "  --unsupported M:E  its \"cannot trace this\" exception\n"
    "  --python-path DIR  extra directory to find the target in (repeatable)\n"
    "  --fuzzer PATH      the fuzz target binary to run instead of the one found\n";

#define CORPUS_MAX_DIRS 1024   /* OUT and the INs, on one engine command line */

typedef struct {
    unsigned long files;
    unsigned long long bytes;
} CorpusCount;

typedef struct {
    long cov, ft;       /* -1 when the pass did not print them */
} CorpusCov;

static CorpusCount counting;

static int count_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)path;
    (void)ftw;
    if (type == FTW_F && S_ISREG(st->st_mode)) {
        counting.files++;
        counting.bytes += (unsigned long long)st->st_size;
    }
    return 0;
}

/* Regular files under dir, recursively (as libFuzzer reads a corpus directory). */
static CorpusCount count_dir(const char *dir)
{
    counting = (CorpusCount){0, 0};
    nftw(dir, count_one, 16, FTW_PHYS);
    return counting;
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    return (type == FTW_DP ? rmdir(path) : unlink(path)) == 0 ? 0 : -1;
}

static int remove_tree(const char *dir)
{
    return nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Runs argv with stdout and stderr into log (truncated). Returns the exit status,
 * 128+signal, or -1 when it could not start. */
static int run_logged(char *const argv[], const char *log)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0)
            _exit(127);
        dup2(fd, 1);
        dup2(fd, 2);
        close(fd);
        execv(argv[0], argv);
        fprintf(stderr, "tracefuzz corpus: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The last "cov: N ft: M" of libFuzzer's status lines in log (INITED/DONE), and
 * whether a line starting with key occurs (copied into found, when given). */
static CorpusCov read_log(const char *log, const char *key, char *found, size_t nfound)
{
    CorpusCov c = {-1, -1};
    FILE *f = fopen(log, "r");
    if (f == NULL)
        return c;
    char line[8192];
    while (fgets(line, sizeof line, f) != NULL) {
        const char *p;
        if (line[0] == '#' && (p = strstr(line, "cov: ")) != NULL) {
            c.cov = strtol(p + 5, NULL, 10);
            if ((p = strstr(line, "ft: ")) != NULL)
                c.ft = strtol(p + 4, NULL, 10);
        }
        if (key != NULL && strncmp(line, key, strlen(key)) == 0 && found != NULL) {
            line[strcspn(line, "\n")] = 0;
            snprintf(found, nfound, "%s", line);
        }
    }
    fclose(f);
    return c;
}

typedef struct {
    char *fuzzer;
    char log[4096];
    char empty[4096];   /* an empty first corpus directory for the -runs=0 passes */
} CorpusEngine;

/* The engine's flags shared by every pass (fuzz uses the same limits). */
static int engine_args(const CorpusEngine *e, char **args, const char *mode)
{
    int n = 0;
    args[n++] = e->fuzzer;
    args[n++] = (char *)mode;
    args[n++] = "-timeout=30";
    args[n++] = "-rss_limit_mb=4096";
    args[n++] = "-detect_leaks=0";
    return n;
}

/* The target's set-up problem, as the fuzz target printed it, for a message. */
static void report_engine_failure(const CorpusEngine *e, const char *what, int rc)
{
    char line[1024] = "";
    read_log(e->log, "tracefuzz fuzz target:", line, sizeof line);
    if (line[0] != 0)
        fprintf(stderr, "tracefuzz corpus: %s failed (exit status %d): %s (log: %s)\n", what,
                rc, line, e->log);
    else
        fprintf(stderr, "tracefuzz corpus: %s failed (exit status %d); its output is in %s\n",
                what, rc, e->log);
}

/* Coverage of the inputs in dirs: a -runs=0 pass (every input runs once, none is
 * written: the output directory is the empty one). 0, or EXIT_USAGE/EXIT_INTERNAL
 * (message printed). */
static int measure(const CorpusEngine *e, char **dirs, int ndirs, CorpusCov *c)
{
    char *args[16 + CORPUS_MAX_DIRS + 1];
    int n = engine_args(e, args, "-runs=0");
    args[n++] = (char *)e->empty;
    for (int i = 0; i < ndirs; i++)
        args[n++] = dirs[i];
    args[n] = NULL;
    int rc = run_logged(args, e->log);
    *c = read_log(e->log, NULL, NULL, 0);
    if (rc != 0 || c->cov < 0) {
        report_engine_failure(e, "the coverage pass", rc);
        /* The fuzz target exits 2 when the target does not load (hz_fuzz.c). */
        return rc == 2 ? EXIT_USAGE : EXIT_INTERNAL;
    }
    return 0;
}

/* libFuzzer's -merge=1 of srcs into dest. Returns its summary ("N new files with F
 * new features added; ..."), static until the next call, or NULL when the merge
 * failed (reported as `what`). */
static const char *merge(const CorpusEngine *e, const char *dest, char **srcs, int nsrcs,
                         const char *what)
{
    static char summary[1024];
    char *args[16 + CORPUS_MAX_DIRS + 1];
    int n = engine_args(e, args, "-merge=1");
    args[n++] = (char *)dest;
    for (int i = 0; i < nsrcs; i++)
        args[n++] = srcs[i];
    args[n] = NULL;
    int rc = run_logged(args, e->log);
    summary[0] = 0;
    read_log(e->log, "MERGE-OUTER: ", summary, sizeof summary);
    /* The summary line is the last thing a completed merge prints (after "N new files
     * ... added"); without it the merge stopped part way. */
    if (rc != 0 || strstr(summary, "new files") == NULL) {
        report_engine_failure(e, what, rc);
        return NULL;
    }
    return summary + strlen("MERGE-OUTER: ");
}

static void print_state(const char *when, CorpusCount n, CorpusCov c)
{
    printf("  %-7s %7lu files  %10llu bytes  cov %ld  ft %ld\n", when, n.files, n.bytes, c.cov,
           c.ft);
}

/* merge (prune == false: into out from ins) or prune (dir = out, into a new directory
 * that replaces it). */
static int corpus_run(const CmdFuzzerEnv *env, const char *fuzzer_opt, bool prune,
                      const char *out, char **ins, int nins)
{
    int rc = 0;
    CorpusEngine e;
    memset(&e, 0, sizeof e);
    char newdir[4096] = "", olddir[4096] = "";
    char *real_out = NULL;
    for (int i = 0; i < nins; i++)
        if (!cmd_is_dir(ins[i])) {
            fprintf(stderr, "tracefuzz corpus: %s: not a directory\n", ins[i]);
            return EXIT_USAGE;
        }
    if (!prune && !cmd_is_dir(out) && cmd_mkdir_p(out) < 0) {
        fprintf(stderr, "tracefuzz corpus: cannot create %s: %s\n", out, strerror(errno));
        return EXIT_USAGE;
    }
    real_out = realpath(out, NULL);
    if (real_out == NULL) {
        fprintf(stderr, "tracefuzz corpus: %s: %s\n", out, strerror(errno));
        return EXIT_USAGE;
    }
    for (int i = 0; !prune && i < nins; i++) {
        char *r = realpath(ins[i], NULL);
        bool same = r != NULL && strcmp(r, real_out) == 0;
        free(r);
        if (same) {
            fprintf(stderr, "tracefuzz corpus: %s is OUT itself (to shrink a directory: "
                    "tracefuzz corpus prune %s)\n", ins[i], out);
            free(real_out);
            return EXIT_USAGE;
        }
    }
    e.fuzzer = cmd_find_fuzzer(fuzzer_opt, false, "corpus");
    if (e.fuzzer == NULL) {
        free(real_out);
        return EXIT_USAGE;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(e.empty, sizeof e.empty, "%s/tracefuzz-corpus-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    snprintf(e.log, sizeof e.log, "%s/tracefuzz-corpus-XXXXXX.log", tmp && *tmp ? tmp : "/tmp");
    int lfd = mkstemps(e.log, 4);
    bool have_empty = lfd >= 0 && mkdtemp(e.empty) != NULL;
    if (lfd >= 0)
        close(lfd);
    if (!have_empty) {
        fprintf(stderr, "tracefuzz corpus: cannot create a temporary file: %s\n",
                strerror(errno));
        if (lfd >= 0)
            unlink(e.log);
        e.empty[0] = 0;
        rc = EXIT_INTERNAL;
        goto done;
    }
    cmd_fuzzer_env(env);
    setenv("TRACEFUZZ_QUIET", "1", 1);

    /* Before: OUT and the INs together (prune: DIR). */
    char *before_dirs[CORPUS_MAX_DIRS + 1];
    int nb = 0;
    before_dirs[nb++] = real_out;
    for (int i = 0; i < nins; i++)
        before_dirs[nb++] = ins[i];
    CorpusCount nbefore = {0, 0};
    for (int i = 0; i < nb; i++) {
        CorpusCount c = count_dir(before_dirs[i]);
        nbefore.files += c.files;
        nbefore.bytes += c.bytes;
    }
    printf("tracefuzz corpus %s: %s%s (fuzz target %s)\n", prune ? "prune" : "merge", out,
           prune ? "" : " <- inputs", e.fuzzer);
    CorpusCov cbefore;
    if ((rc = measure(&e, before_dirs, nb, &cbefore)) != 0)
        goto done;
    print_state("before", nbefore, cbefore);
    fflush(stdout);

    /* The merge: into OUT, or for prune into a new sibling of DIR (same file system,
     * so the swap below is two renames). */
    const char *dest = real_out;
    char **srcs = ins;
    int nsrcs = nins;
    char *prune_src[1] = {real_out};
    if (prune) {
        snprintf(newdir, sizeof newdir, "%s.prune-XXXXXX", real_out);
        if (mkdtemp(newdir) == NULL) {
            fprintf(stderr, "tracefuzz corpus: cannot create %s: %s\n", newdir,
                    strerror(errno));
            newdir[0] = 0;
            rc = EXIT_USAGE;
            goto done;
        }
        dest = newdir;
        srcs = prune_src;
        nsrcs = 1;
    }
    const char *summary = merge(&e, dest, srcs, nsrcs, "the merge");
    if (summary == NULL) {
        if (prune)
            fprintf(stderr, "tracefuzz corpus: %s is unchanged\n", out);
        rc = EXIT_INTERNAL;
        goto done;
    }
    printf("  merge   %s\n", summary);

    if (prune) {
        /* DIR -> DIR.old-XXXXXX, the merged directory -> DIR, then the old one goes. */
        snprintf(olddir, sizeof olddir, "%s.old-XXXXXX", real_out);
        if (mkdtemp(olddir) == NULL || rename(real_out, olddir) < 0) {
            fprintf(stderr, "tracefuzz corpus: cannot move %s aside: %s; %s is unchanged\n",
                    out, strerror(errno), out);
            if (olddir[0] != 0)
                rmdir(olddir);
            olddir[0] = 0;
            rc = EXIT_INTERNAL;
            goto done;
        }
        if (rename(newdir, real_out) < 0) {
            fprintf(stderr, "tracefuzz corpus: cannot move the pruned corpus into %s: %s\n",
                    out, strerror(errno));
            rename(olddir, real_out);   /* put it back */
            olddir[0] = 0;
            rc = EXIT_INTERNAL;
            goto done;
        }
        newdir[0] = 0;
    }

    /* The check, for prune: merging the old inputs back into the pruned DIR, in one
     * process as the prune itself ran, must find nothing new. What it does find
     * (an input whose features depend on what ran before it) is added, so DIR keeps
     * every feature either way. */
    long readded = 0;
    if (prune) {
        char *old_src[1] = {olddir};
        summary = merge(&e, real_out, old_src, 1, "the check merge");
        if (summary == NULL) {
            rc = EXIT_INTERNAL;
            goto done;
        }
        readded = strtol(summary, NULL, 10);
        printf("  check   the old inputs merged back: %s\n", summary);
    }

    CorpusCov cafter;
    char *after_dirs[1] = {real_out};
    if ((rc = measure(&e, after_dirs, 1, &cafter)) != 0)
        goto done;
    print_state("after", count_dir(real_out), cafter);
    if (cafter.cov == cbefore.cov && cafter.ft == cbefore.ft && readded == 0)
        printf("  coverage kept\n");
    else if (prune && readded == 0)
        printf("  coverage kept (the check merge found nothing new); the -runs=0 passes "
               "differ by cov %+ld, ft %+ld: the first inputs of a pass also pay the "
               "process's one-time set-up\n", cafter.cov - cbefore.cov, cafter.ft - cbefore.ft);
    else
        printf("  coverage changed: cov %+ld, ft %+ld%s (inputs that behave differently when "
               "run after other inputs; tests/fuzz/feature_determinism.c finds them)\n",
               cafter.cov - cbefore.cov, cafter.ft - cbefore.ft,
               readded > 0 ? "; the check re-added inputs" : "");
done:
    if (olddir[0] != 0 && remove_tree(olddir) < 0)
        fprintf(stderr, "tracefuzz corpus: warning: cannot remove %s\n", olddir);
    if (newdir[0] != 0)
        remove_tree(newdir);
    if (e.empty[0] != 0)
        remove_tree(e.empty);
    if (rc == 0)
        unlink(e.log);   /* kept (and named) when something failed */
    free(e.fuzzer);
    free(real_out);
    return rc;
}

int cmd_corpus(int argc, char **argv)
{
    if (argc < 1 || cmd_is_help(argv[0])) {
        fputs(usage_corpus, argc < 1 ? stderr : stdout);
        return argc < 1 ? EXIT_USAGE : 0;
    }
    const char *sub = argv[0];
    bool prune = strcmp(sub, "prune") == 0;
    if (!prune && strcmp(sub, "merge") != 0)
        return cmd_usage_error(usage_corpus, "unknown corpus command %s (merge or prune)", sub);
    CmdFuzzerEnv env;
    memset(&env, 0, sizeof env);
    const char *fuzzer = NULL;
    const char **pypath = calloc((size_t)argc + 1, sizeof *pypath);
    char **pos = calloc((size_t)argc + 1, sizeof *pos);
    if (pypath == NULL || pos == NULL)
        abort();
    int npos = 0, rc = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cmd_is_help(a)) {
            fputs(usage_corpus, stdout);
            goto done;
        }
        if (strncmp(a, "--", 2) != 0) {
            pos[npos++] = argv[i];
            continue;
        }
        if (i + 1 >= argc) {
            rc = cmd_usage_error(usage_corpus, "%s needs a value", a);
            goto done;
        }
        const char *v = argv[++i];
        if (strcmp(a, "--target") == 0)
            env.target = v;
        else if (strcmp(a, "--faults") == 0)
            env.faults = v;
        else if (strcmp(a, "--unsupported") == 0)
            env.unsupported = v;
        else if (strcmp(a, "--python-path") == 0)
            pypath[env.npypath++] = v;
        else if (strcmp(a, "--fuzzer") == 0)
            fuzzer = v;
        else {
            rc = cmd_usage_error(usage_corpus, "unknown option %s", a);
            goto done;
        }
    }
    env.pypath = pypath;
    if (env.faults == NULL)
        env.faults = getenv("TRACEFUZZ_FAULTS");
    if (env.faults != NULL && *env.faults == 0)
        env.faults = NULL;
    if (prune && npos != 1) {
        rc = cmd_usage_error(usage_corpus, "%s", "prune wants one directory");
        goto done;
    }
    if (!prune && npos < 2) {
        rc = cmd_usage_error(usage_corpus, "%s", "merge wants OUT and at least one IN");
        goto done;
    }
    if (npos > CORPUS_MAX_DIRS) {
        rc = cmd_usage_error(usage_corpus, "%s", "too many directories (at most 1024)");
        goto done;
    }
    if (prune && !cmd_is_dir(pos[0])) {
        fprintf(stderr, "tracefuzz corpus: %s: not a directory\n", pos[0]);
        rc = EXIT_USAGE;
        goto done;
    }
    rc = corpus_run(&env, fuzzer, prune, pos[0], pos + 1, npos - 1);
done:
    free(pypath);
    free(pos);
    return rc;
}
