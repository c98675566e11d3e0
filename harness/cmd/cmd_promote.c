/* tracefuzz promote: from a finding to a regression case. This comment is its
 * manual (docs/CLI.md has the same with examples).
 *
 *   tracefuzz promote FINDING... --to DIR [--target T] [--faults F] [--name NAME]
 *                     [--python-path D]... [--unsupported M:E] [--timeout S]
 *
 *   FINDING names a finding by any of its files (STEM.report, STEM.py,
 *   STEM.min.py, STEM.tf) or by its STEM; its report must be beside it. The case
 *   DIR/NAME.py (NAME: the STEM unless --name) is the reproducer, STEM.min.py when
 *   present, else STEM.py (only the text above the repro footer; for a bytes
 *   input without either, the program it decodes to), without its own
 *   expectation headers, under a first comment line saying what it catches (the
 *   signature) and three headers:
 *     # expect[T faults=F]: VERDICT         the target and faults it failed on
 *     # expect-report[T faults=F]: signature: SIGNATURE
 *     # expect[builtin]: OK                 the fault-free built-in tracer
 *   T and F are the report's target: and faults: unless --target/--faults say
 *   otherwise. The case is then run with `tracefuzz run` under both
 *   expectations (--python-path, --unsupported, --timeout are passed on); when
 *   either does not hold it is refused (exit 1) and not written. A DIR/NAME.py that
 *   exists is never overwritten: the same text is a no-op, another is refused
 *   (exit 2; choose --name). Exit status: 0 all promoted, 1 some refused, 2 usage
 *   or configuration (no report, unknown target, DIR not writable), 3 internal.
 */
#include "cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char usage_promote[] =
    "usage: tracefuzz promote FINDING... --to DIR [--target T] [--faults F]\n"
    "                         [--name NAME] [--python-path D]... [--unsupported M:E]\n"
    "                         [--timeout S]\n"
    "\n"
    "Turns a finding (STEM.report beside STEM.min.py or STEM.py) into a regression\n"
    "case DIR/NAME.py: the program with `# expect[T faults=F]: VERDICT` for the\n"
    "target it failed on and `# expect[builtin]: OK`, checked with `tracefuzz run`\n"
    "before it is written (refused, exit 1, when either does not hold). Never\n"
    "overwrites a different case.\n"
    "\n"
    "  --to DIR           the regression directory (created if missing)\n"
    "  --target T         the target to expect the failure from (default: the\n"
    "                     report's target:)\n"
    "  --faults F1,F2     its faults (default: the report's faults:)\n"
    "  --name NAME        the case's file name without .py (one FINDING only;\n"
    "                     default: the finding's STEM)\n"
    "  --python-path D, --unsupported M:E, --timeout S   passed to `run`\n";

typedef struct {
    const char *dir, *target, *faults, *name;
    const char *pass[16];      /* options passed to run */
    int npass;
} PromoteOptions;

/* The report of a finding named by any of its files or its stem. malloc'd. */
static char *report_of(const char *finding)
{
    static const char *const exts[] = {".report", ".min.py", ".min.tf", ".py", ".tf"};
    size_t n = strlen(finding);
    for (size_t k = 0; k < sizeof exts / sizeof exts[0]; k++) {
        size_t e = strlen(exts[k]);
        if (n > e && strcmp(finding + n - e, exts[k]) == 0) {
            n -= e;
            break;
        }
    }
    char *r = malloc(n + 8);
    if (r == NULL)
        abort();
    snprintf(r, n + 8, "%.*s.report", (int)n, finding);
    return r;
}

/* Runs `tracefuzz run ARGS... case` (this executable) without TRACEFUZZ_FAULTS,
 * its output collected into *out (malloc'd). Returns run's exit status, or -1 when
 * it could not be started. */
static int run_case(const PromoteOptions *o, const char *target, const char *faults,
                    const char *path, char **out)
{
    const char *argv[32];
    int a = 0;
    argv[a++] = "tracefuzz";
    argv[a++] = "run";
    argv[a++] = "--target";
    argv[a++] = target;
    if (faults != NULL) {
        argv[a++] = "--faults";
        argv[a++] = faults;
    }
    for (int i = 0; i < o->npass; i++)
        argv[a++] = o->pass[i];
    argv[a++] = path;
    argv[a] = NULL;
    *out = NULL;
    int fd[2];
    if (pipe(fd) < 0)
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(fd[1], 1);
        dup2(fd[1], 2);
        close(fd[0]);
        close(fd[1]);
        unsetenv("TRACEFUZZ_FAULTS");   /* the faults are exactly --faults */
        execv("/proc/self/exe", (char *const *)argv);
        _exit(127);
    }
    close(fd[1]);
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (buf == NULL)
        abort();
    for (;;) {
        if (n + 1 >= cap) {
            char *nb = realloc(buf, cap *= 2);
            if (nb == NULL)
                abort();
            buf = nb;
        }
        ssize_t r = read(fd[0], buf + n, cap - n - 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    buf[n] = 0;
    close(fd[0]);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    *out = buf;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The program without its own expectation headers (the case's are the truth). */
static char *without_expectations(const char *src)
{
    char *out = malloc(strlen(src) + 1);
    if (out == NULL)
        abort();
    size_t o = 0;
    for (const char *line = src; *line; ) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) + 1 : strlen(line);
        if (strncmp(line, "# expect[", 9) != 0 && strncmp(line, "# expect-report[", 16) != 0) {
            memcpy(out + o, line, len);
            o += len;
        }
        line += len;
    }
    out[o] = 0;
    return out;
}

/* A file's whole text equals text (NULL when it cannot be read: not equal). */
static bool file_equals(const char *path, const char *text)
{
    char *cur = cmd_read_text(path, CMD_PROGRAM_MAX);
    bool same = cur != NULL && strcmp(cur, text) == 0;
    free(cur);
    return same;
}

/* 0 promoted (or already there), EXIT_FINDINGS refused, EXIT_USAGE configuration. */
static int promote_one(const PromoteOptions *o, const char *finding)
{
    char *report = report_of(finding);
    CmdFindingInfo fi;
    if (cmd_finding_read(report, &fi) < 0) {
        fprintf(stderr, "tracefuzz promote: %s: no finding's report at %s\n", finding, report);
        free(report);
        return EXIT_USAGE;
    }
    free(report);
    int rc = EXIT_USAGE;
    char *case_text = NULL, *tmp = NULL, *final = NULL, *out = NULL;
    const char *target = o->target ? o->target : fi.target;
    const char *faults = o->faults ? o->faults : fi.faults;
    if (faults != NULL && (strcmp(faults, "none") == 0 || *faults == 0))
        faults = NULL;
    if (target == NULL || strcmp(target, "?") == 0) {
        fprintf(stderr, "tracefuzz promote: %s: the report names no target; give --target\n",
                fi.report);
        goto done;
    }
    if (fi.program == NULL) {
        /* A bytes input alone: the program it decodes to (no Python runs). */
        HzInput in;
        char err[256];
        const char *exts[] = {".min.tf", ".tf"};
        size_t dl = strlen(fi.report) - 7;
        for (int k = 0; k < 2 && fi.program == NULL; k++) {
            size_t n = dl + 8;
            char *p = malloc(n);
            if (p == NULL)
                abort();
            snprintf(p, n, "%.*s%s", (int)dl, fi.report, exts[k]);
            if (access(p, R_OK) == 0 && hz_input_load(p, NULL, &in, err, sizeof err) == 0) {
                fi.program = strdup(in.source);
                fi.program_path = p;
                p = NULL;
                hz_input_clear(&in);
            }
            free(p);
        }
        if (fi.program == NULL) {
            fprintf(stderr, "tracefuzz promote: %s: no program beside the report "
                    "(STEM.min.py, STEM.py or STEM.tf)\n", fi.report);
            goto done;
        }
    }
    if (strcmp(fi.verdict, "OK") == 0 || strcmp(fi.verdict, "INVALID") == 0
        || strcmp(fi.verdict, "NONDETERMINISTIC") == 0) {
        fprintf(stderr, "tracefuzz promote: %s: verdict %s is no finding about a target\n",
                fi.report, fi.verdict);
        rc = EXIT_FINDINGS;
        goto done;
    }
    char *faults_canon = hz_faults_canonical(faults);
    if (strcmp(target, "builtin") == 0 && *faults_canon == 0) {
        fprintf(stderr, "tracefuzz promote: %s: found on the fault-free built-in tracer "
                "itself: it cannot also expect OK there (a bug of tfjit to fix)\n", fi.report);
        free(faults_canon);
        rc = EXIT_FINDINGS;
        goto done;
    }
    /* The case: what it catches, the expectations, the program. */
    char *program = without_expectations(fi.program);
    char key[1024];
    snprintf(key, sizeof key, "%s%s%s", target, *faults_canon ? " faults=" : "", faults_canon);
    size_t cap = strlen(program) + strlen(key) * 2 + strlen(fi.signature) * 2
                 + strlen(fi.stem) + strlen(target) + 512;
    case_text = malloc(cap);
    if (case_text == NULL)
        abort();
    /* The report quotes the signature in a `signature:` line: pinning it keeps the
     * case failing the way it was found (fuzz's UNREPRODUCED ones are not). */
    bool pin = strncmp(fi.signature, fi.verdict, strlen(fi.verdict)) == 0;
    int w = snprintf(case_text, cap,
                     "# tracefuzz regression: catches %s (finding %s on %s)\n"
                     "# expect[%s]: %s\n"
                     "%s%s%s%s%s"
                     "# expect[builtin]: OK\n"
                     "%s",
                     fi.signature, fi.stem, key, key, fi.verdict,
                     pin ? "# expect-report[" : "", pin ? key : "",
                     pin ? "]: signature: " : "", pin ? fi.signature : "", pin ? "\n" : "",
                     program);
    free(program);
    free(faults_canon);
    if (w < 0 || (size_t)w >= cap)
        abort();
    const char *name = o->name ? o->name : fi.stem;
    size_t n = strlen(o->dir) + strlen(name) + 64;
    final = malloc(n);
    tmp = malloc(n);
    if (final == NULL || tmp == NULL)
        abort();
    snprintf(final, n, "%s/%s.py", o->dir, name);
    if (access(final, F_OK) == 0) {
        if (file_equals(final, case_text)) {
            printf("%s: already promoted as %s\n", finding, final);
            rc = 0;
        }
        else {
            fprintf(stderr, "tracefuzz promote: %s exists and holds another case: not "
                    "overwritten (give --name)\n", final);
        }
        goto done;
    }
    /* Checked under its own name-to-be, hidden until it holds. */
    snprintf(tmp, n, "%s/.%s.promote-%ld.py", o->dir, name, (long)getpid());
    if (cmd_write_file(tmp, case_text, strlen(case_text)) < 0) {
        fprintf(stderr, "tracefuzz promote: cannot write %s: %s\n", tmp, strerror(errno));
        goto done;
    }
    struct { const char *target, *faults, *what; } runs[2] = {
        {target, faults, key}, {"builtin", NULL, "builtin"}};
    for (int i = 0; i < 2; i++) {
        int st = run_case(o, runs[i].target, runs[i].faults, tmp, &out);
        if (st != 0) {
            fprintf(stderr, "tracefuzz promote: %s: refused, the expectation for %s does not "
                    "hold (run exited %d):\n%s", finding, runs[i].what, st, out ? out : "");
            rc = st == EXIT_FINDINGS ? EXIT_FINDINGS : EXIT_USAGE;
            unlink(tmp);
            goto done;
        }
        free(out);
        out = NULL;
    }
    /* link() never replaces: a case that appeared meanwhile stays. */
    if (link(tmp, final) < 0) {
        fprintf(stderr, "tracefuzz promote: cannot create %s: %s\n", final, strerror(errno));
        unlink(tmp);
        goto done;
    }
    unlink(tmp);
    printf("%s: promoted to %s (expect[%s]: %s, expect[builtin]: OK; both hold)\n", finding,
           final, key, fi.verdict);
    rc = 0;
done:
    free(out);
    free(tmp);
    free(final);
    free(case_text);
    cmd_finding_info_clear(&fi);
    return rc;
}

int cmd_promote(int argc, char **argv)
{
    PromoteOptions o = {0};
    const char **findings = calloc((size_t)argc + 1, sizeof *findings);
    int nf = 0;
    if (findings == NULL)
        abort();
    int rc = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (cmd_is_help(a)) {
            fputs(usage_promote, stdout);
            free(findings);
            return 0;
        }
        bool takes = strcmp(a, "--to") == 0 || strcmp(a, "--target") == 0
                     || strcmp(a, "--faults") == 0 || strcmp(a, "--name") == 0
                     || strcmp(a, "--python-path") == 0 || strcmp(a, "--unsupported") == 0
                     || strcmp(a, "--timeout") == 0;
        if (takes && i + 1 >= argc) {
            free(findings);
            return cmd_usage_error(usage_promote, "%s needs a value", a);
        }
        if (strcmp(a, "--to") == 0)
            o.dir = argv[++i];
        else if (strcmp(a, "--target") == 0)
            o.target = argv[++i];
        else if (strcmp(a, "--faults") == 0)
            o.faults = argv[++i];
        else if (strcmp(a, "--name") == 0)
            o.name = argv[++i];
        else if (takes) {
            if (o.npass + 2 > (int)(sizeof o.pass / sizeof o.pass[0])) {
                free(findings);
                return cmd_usage_error(usage_promote, "too many %s options", a);
            }
            o.pass[o.npass++] = a;
            o.pass[o.npass++] = argv[++i];
        }
        else if (a[0] == '-') {
            free(findings);
            return cmd_usage_error(usage_promote, "unknown option %s", a);
        }
        else
            findings[nf++] = a;
    }
    if (o.dir == NULL || nf == 0) {
        free(findings);
        return cmd_usage_error(usage_promote, "%s", nf ? "--to DIR is required"
                                                         : "no finding given");
    }
    if (o.name != NULL && (nf > 1 || strchr(o.name, '/') != NULL || o.name[0] == '.')) {
        free(findings);
        return cmd_usage_error(usage_promote, "%s", "--name takes one plain name, for one "
                               "finding");
    }
    if (cmd_mkdir_p(o.dir) < 0) {
        fprintf(stderr, "tracefuzz promote: cannot create %s: %s\n", o.dir, strerror(errno));
        free(findings);
        return EXIT_USAGE;
    }
    for (int i = 0; i < nf; i++) {
        int r = promote_one(&o, findings[i]);
        /* The worst outcome decides: configuration over refusal over success. */
        if (r == EXIT_USAGE || (r == EXIT_FINDINGS && rc == 0))
            rc = r;
    }
    free(findings);
    return rc;
}
