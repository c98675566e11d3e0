/* tracefuzz repro: a standalone Python script that reproduces a finding. This
 * comment is its manual (docs/CLI.md has the same with examples).
 *
 *   tracefuzz repro INPUT [--target T] [--faults F] [--unsupported M:E]
 *                   [--python-path D]... [-o OUT.py]
 *
 *   Writes the repro script of INPUT to OUT.py (or stdout): the program's source
 *   verbatim (a bytes input is decoded and emitted, a .py input's program is the
 *   text above a repro marker line), the marker line, then the harness
 *   (harness/repro/hz_repro_footer.py). `python3.11 OUT.py` runs the program
 *   eagerly and through the target, prints the first divergence side by side and
 *   exits 1 when they diverge or the target crashes, 0 when they agree, 2 when the
 *   target cannot be loaded or the program is not a valid reproducer. Its target
 *   is `OUT.py TARGET`, else $TRACEFUZZ_TARGET, else the one recorded; the
 *   built-in tracer's faults $TRACEFUZZ_FAULTS ("" for none), else the recorded.
 *
 *   What is recorded: --target, --faults, --unsupported, --python-path when given;
 *   otherwise, when INPUT is a finding (STEM.py, STEM.tf, STEM.min.py beside a
 *   STEM.report), the target, faults, unsupported exception and python-path of
 *   that report; otherwise builtin and $TRACEFUZZ_FAULTS. Paths of file.py targets and --python-path are made
 *   absolute, so the script runs from any directory; where this build's tfjit is
 *   is recorded too, for a python3.11 -I that does not find it on sys.path.
 *
 *   Exit status: 0 written, 2 usage error or unreadable INPUT, 1 OUT not written.
 *   No Python runs: the command only writes the script.
 */
#include "cmd.h"
#include "hz_repro.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_repro[] =
    "usage: tracefuzz repro INPUT [--target T] [--faults F] [--unsupported MOD:EXC]\n"
    "                       [--python-path DIR]... [-o OUT.py]\n"
    "\n"
    "Writes a standalone Python script reproducing INPUT (a finding, a .py or bytes\n"
    "input): the program, then a harness that runs it eagerly and through the\n"
    "target, prints the first divergence and exits 1 (diverge or crash) or 0 (agree).\n"
    "\n"
    "  --target T         the target the script loads by default (default: the\n"
    "                     finding's report beside INPUT, else builtin)\n"
    "  --faults F1,F2     the built-in tracer's faults by default (default: the\n"
    "                     report's, else $TRACEFUZZ_FAULTS)\n"
    "  --unsupported M:E  the target's \"cannot trace this\" exception\n"
    "  --python-path DIR  a directory the script puts on sys.path (repeatable)\n"
    "  -o OUT.py          where to write it (default: stdout)\n"
    "\n"
    "Run it: python3.11 OUT.py [TARGET]   (TRACEFUZZ_TARGET, TRACEFUZZ_FAULTS override)\n";

#define MAX_PYPATH 64

/* The value of the nth `key: value` line in a report's header (the lines between
 * the verdict line and the next blank line), malloc'd, or NULL. */
static char *report_value_n(const char *text, const char *key, int nth)
{
    size_t k = strlen(key);
    const char *p = strchr(text, '\n');   /* past the verdict line */
    if (p != NULL && p[1] == '\n')
        p++;   /* the header's keys follow one blank line */
    while (p != NULL && p[1] != 0 && p[1] != '\n') {
        p++;
        const char *end = strchr(p, '\n');
        if (strncmp(p, key, k) == 0 && p[k] == ':' && p[k + 1] == ' ' && nth-- == 0) {
            size_t n = (end ? (size_t)(end - p) : strlen(p)) - k - 2;
            return strndup(p + k + 2, n);
        }
        p = end;
    }
    return NULL;
}

static char *report_value(const char *text, const char *key)
{
    return report_value_n(text, key, 0);
}

/* The report beside a finding's file (STEM.py, STEM.tf, STEM.min.py, STEM.min.tf),
 * read whole, or NULL. */
static char *neighbour_report(const char *input)
{
    static const char *const exts[] = {".min.py", ".min.tf", ".py", ".tf"};
    size_t n = strlen(input);
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
        size_t m = strlen(exts[i]);
        if (n < m || strcmp(input + n - m, exts[i]) != 0)
            continue;
        char *path = malloc(n - m + 8);
        if (path == NULL)
            abort();
        snprintf(path, n - m + 8, "%.*s.report", (int)(n - m), input);
        FILE *f = fopen(path, "r");
        free(path);
        if (f == NULL)
            continue;
        char *text = calloc(1, 65537);   /* the header is at the start */
        if (text == NULL)
            abort();
        size_t got = fread(text, 1, 65536, f);
        text[got] = 0;
        fclose(f);
        return text;
    }
    return NULL;
}

int cmd_repro(int argc, char **argv)
{
    const char *input = NULL, *out = NULL, *target = NULL, *faults = NULL;
    const char *unsupported = NULL;
    const char *pypath[MAX_PYPATH];
    size_t npypath = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (cmd_is_help(a)) {
            fputs(usage_repro, stdout);
            return 0;
        }
        const char **slot = NULL;
        if (strcmp(a, "--target") == 0)
            slot = &target;
        else if (strcmp(a, "--faults") == 0)
            slot = &faults;
        else if (strcmp(a, "--unsupported") == 0)
            slot = &unsupported;
        else if (strcmp(a, "-o") == 0 || strcmp(a, "--out") == 0)
            slot = &out;
        else if (strcmp(a, "--python-path") == 0) {
            if (npypath == MAX_PYPATH)
                return cmd_usage_error(usage_repro, "too many %s", a);
            slot = &pypath[npypath++];
        }
        else if (a[0] == '-' && a[1] != 0)
            return cmd_usage_error(usage_repro, "unknown option %s", a);
        else if (input != NULL)
            return cmd_usage_error(usage_repro, "repro takes one INPUT (got also %s)", a);
        else
            input = a;
        if (slot != NULL) {
            if (i + 1 >= argc)
                return cmd_usage_error(usage_repro, "%s needs a value", a);
            *slot = argv[++i];
        }
    }
    if (input == NULL)
        return cmd_usage_error(usage_repro, "%s", "repro needs an INPUT");

    HzInput in;
    char err[1024];
    if (hz_input_load(input, NULL, &in, err, sizeof err) < 0) {
        fprintf(stderr, "tracefuzz repro: %s\n", err);
        return EXIT_USAGE;
    }
    /* Defaults: what the finding's report recorded, else builtin and the
     * environment's faults. */
    char *report = neighbour_report(input);
    char *rep_target = report ? report_value(report, "target") : NULL;
    char *rep_faults = report ? report_value(report, "faults") : NULL;
    if (target == NULL && rep_target != NULL && strcmp(rep_target, "?") != 0)
        target = rep_target;
    if (faults == NULL && rep_faults != NULL)
        faults = strcmp(rep_faults, "none") == 0 ? "" : rep_faults;
    if (faults == NULL)
        faults = getenv("TRACEFUZZ_FAULTS");
    /* the report's --unsupported and --python-path go with its target */
    char *rep_unsupported = NULL, *rep_pypath[MAX_PYPATH];
    size_t nrep = 0;
    if (report != NULL && target == rep_target) {
        rep_unsupported = report_value(report, "unsupported");
        if (unsupported == NULL)
            unsupported = rep_unsupported;
        while (nrep < MAX_PYPATH - npypath &&
               (rep_pypath[nrep] = report_value_n(report, "python-path", (int)nrep)) != NULL)
            pypath[npypath++] = rep_pypath[nrep++];
    }

    HzReproSetup setup = {target, faults, unsupported, pypath, npypath};
    char *script = hz_repro_script(in.source, &setup);
    int rc = 0;
    if (out == NULL) {
        fputs(script, stdout);
    }
    else if (cmd_write_file(out, script, strlen(script)) < 0) {
        fprintf(stderr, "tracefuzz repro: cannot write %s: %s\n", out, strerror(errno));
        rc = EXIT_FINDINGS;
    }
    else {
        fprintf(stderr, "tracefuzz repro: wrote %s (target %s%s%s); run: python3.11 %s\n", out,
                target ? target : "builtin", faults && *faults ? ", faults " : "",
                faults && *faults ? faults : "", out);
    }
    free(script);
    free(report);
    free(rep_target);
    free(rep_faults);
    free(rep_unsupported);
    for (size_t i = 0; i < nrep; i++)
        free(rep_pypath[i]);
    hz_input_clear(&in);
    return rc;
}
