/* tracefuzz reduce: a failing input made small, its signature kept. This comment is
 * its manual (docs/CLI.md has the same with examples).
 *
 *   tracefuzz reduce INPUT -o OUT [--target T] [--faults F] [--unsupported M:E]
 *                    [--python-path D]... [--timeout S] [--jobs N] [--time-limit S]
 *                    [--isolation auto|fork] [--quiet]
 *
 *   Runs INPUT as `run` does (fork isolation) and keeps its signature: a candidate
 *   is kept only when it fails with exactly that signature (one that passes, is
 *   INVALID or fails another way is rejected). A bytes input is reduced on the
 *   program IR first (hierarchical delta debugging: classes, metaclasses,
 *   arguments / between() / make_other(), members, statements, then kinds, variants
 *   and values, to a fixpoint) and written as OUT.tf; then its program, like a .py
 *   input, is reduced as text by its AST (statements depth by depth, a try/if/for
 *   replaced by its body, decorators, `x = EXPR` to `EXPR`, constants and
 *   displays) and by lines and blocks, and written as OUT.py. Comments stay with
 *   their lines, so the `# tf:` tags that name members do. OUT may end in .py.
 *   Prints sizes (program lines: not blank, not comments; and bytes) and time
 *   before and after, and the candidates tried.
 *     --target, --faults, --unsupported, --python-path, --timeout: as for `run`;
 *     every candidate runs in the same worker, with the same limits.
 *     --jobs N           N workers test candidates at once (default 1)
 *     --time-limit S     stop after S seconds with the smallest input so far
 *                        (default 300)
 *     --isolation M      auto (default): candidates one after the other in a warm
 *                        worker (shared isolation, ~20x faster), the result
 *                        confirmed under fork isolation and the reduction redone
 *                        fork-isolated if it loses the signature there; fork:
 *                        every candidate in a process of its own
 *     --quiet            no progress lines on stderr
 *   Exit status: 0 when reduced (or already minimal); 2 on usage errors, an input
 *   that cannot be read or does not fail (OK, UNSUPPORTED, INVALID,
 *   NONDETERMINISTIC), a target that does not load, an OUT that cannot be
 *   written; 3 on an internal error; 128+N when signal N ended it (the smallest
 *   input so far is written first).
 * */
#include "cmd.h"
#include "hz_channel.h"
#include "hz_reduce.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_reduce[] =
    "usage: tracefuzz reduce INPUT -o OUT [--target T] [--faults F1,F2]\n"
    "                        [--unsupported MOD:EXC] [--python-path DIR]...\n"
    "                        [--timeout S] [--jobs N] [--time-limit S]\n"
    "                        [--isolation auto|fork] [--quiet]\n"
    "\n"
    "Makes a failing input small while its signature stays the same: bytes inputs on\n"
    "the program IR (written as OUT.tf), then the program's text by its AST and by\n"
    "lines (written as OUT.py). Prints sizes and time before and after.\n"
    "\n"
    "  -o OUT             where the result goes: OUT.py, and OUT.tf for bytes inputs\n"
    "  --target T         builtin | identity | path/file.py:attr | package.module:attr\n"
    "  --faults F1,F2     tracer faults to inject (default: $TRACEFUZZ_FAULTS)\n"
    "  --unsupported M:E  the target's \"cannot trace this\" exception\n"
    "  --python-path DIR  extra directory to find the target in (repeatable)\n"
    "  --timeout S        CPU-time limit per candidate (default 10, as for run)\n"
    "  --jobs N           workers testing candidates at once (default 1)\n"
    "  --time-limit S     give up after S seconds, keeping the best so far (default 300)\n"
    "  --isolation M      auto (default: candidates in a shared warm worker, the\n"
    "                     result confirmed fork-isolated) or fork (every candidate\n"
    "                     in a process of its own; slower)\n"
    "  --quiet            no progress on stderr\n"
    "\n"
    "Exit 0 when reduced (or already minimal), 2 when the input does not fail.\n";

/* OUT without a trailing ".py" / ".tf" + ext, malloc'd. */
static char *out_path(const char *out, const char *ext)
{
    size_t n = strlen(out);
    if (n > 3 && (strcmp(out + n - 3, ".py") == 0 || strcmp(out + n - 3, ".tf") == 0))
        n -= 3;
    char *p = malloc(n + strlen(ext) + 1);
    if (p == NULL)
        abort();
    memcpy(p, out, n);
    strcpy(p + n, ext);
    return p;
}

static int parse_seconds(const char *v, double *out)
{
    char *end;
    *out = strtod(v, &end);
    return *v != 0 && *end == 0 && *out > 0 ? 0 : -1;
}

int cmd_reduce(int argc, char **argv)
{
    HzWorkerConfig wc;
    memset(&wc, 0, sizeof wc);
    wc.timeout = 10.0;
    const char **pypath = calloc((size_t)argc + 1, sizeof *pypath);
    if (pypath == NULL)
        abort();
    const char *input = NULL, *out = NULL, *faults = NULL;
    HzReduceConfig rc_cfg = {&wc, 1, 300.0, false, stderr};
    int rc = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (cmd_is_help(a)) {
            fputs(usage_reduce, stdout);
            goto done;
        }
        if (strcmp(a, "--quiet") == 0) {
            rc_cfg.log = NULL;
            continue;
        }
        if (a[0] != '-' || a[1] == 0) {
            if (input != NULL) {
                rc = cmd_usage_error(usage_reduce, "one INPUT only (got %s too)", a);
                goto done;
            }
            input = a;
            continue;
        }
        if (i + 1 >= argc) {
            rc = cmd_usage_error(usage_reduce, "%s needs a value", a);
            goto done;
        }
        const char *v = argv[++i];
        uint64_t n;
        if (strcmp(a, "-o") == 0 || strcmp(a, "--out") == 0)
            out = v;
        else if (strcmp(a, "--target") == 0)
            wc.target = v;
        else if (strcmp(a, "--faults") == 0)
            faults = v;
        else if (strcmp(a, "--unsupported") == 0)
            wc.unsupported = v;
        else if (strcmp(a, "--python-path") == 0)
            pypath[wc.n_python_path++] = v;
        else if (strcmp(a, "--timeout") == 0) {
            if (parse_seconds(v, &wc.timeout) < 0) {
                rc = cmd_usage_error(usage_reduce, "--timeout %s: want seconds > 0", v);
                goto done;
            }
        }
        else if (strcmp(a, "--time-limit") == 0) {
            if (parse_seconds(v, &rc_cfg.time_limit) < 0) {
                rc = cmd_usage_error(usage_reduce, "--time-limit %s: want seconds > 0", v);
                goto done;
            }
        }
        else if (strcmp(a, "--jobs") == 0) {
            if (cmd_parse_u64(v, &n) < 0 || n < 1 || n > 64) {
                rc = cmd_usage_error(usage_reduce, "--jobs %s: want 1..64", v);
                goto done;
            }
            rc_cfg.jobs = (unsigned)n;
        }
        else if (strcmp(a, "--isolation") == 0) {
            if (strcmp(v, "auto") != 0 && strcmp(v, "fork") != 0) {
                rc = cmd_usage_error(usage_reduce, "--isolation %s: want auto or fork", v);
                goto done;
            }
            rc_cfg.fork_only = strcmp(v, "fork") == 0;
        }
        else {
            rc = cmd_usage_error(usage_reduce, "unknown option %s", a);
            goto done;
        }
    }
    if (input == NULL || out == NULL) {
        rc = cmd_usage_error(usage_reduce, "%s", "reduce needs INPUT and -o OUT");
        goto done;
    }
    wc.python_path = pypath;
    wc.faults = faults ? faults : getenv("TRACEFUZZ_FAULTS");
    if (wc.faults != NULL && *wc.faults == 0)
        wc.faults = NULL;

    char err[4096];
    HzInput in;
    if (hz_input_load(input, NULL, &in, err, sizeof err) < 0) {
        fprintf(stderr, "tracefuzz reduce: %s\n", err);
        rc = EXIT_USAGE;
        goto done;
    }
    cmd_on_signals_interrupt();
    HzReduceResult res;
    int r = hz_reduce_input(&rc_cfg, &in, &res, err, sizeof err);
    if (r == 1 || r == -1) {
        fprintf(stderr, "tracefuzz reduce: %s: %s\n", input, err);
        rc = EXIT_USAGE;
    }
    else if (res.py == NULL) {   /* interrupted before anything was reduced */
        rc = r == -2 ? 128 + hz_channel_interrupted() : EXIT_INTERNAL;
    }
    else {
        char *py = out_path(out, ".py"), *tf = res.tf ? out_path(out, ".tf") : NULL;
        char *dir = strdup(py), *slash = strrchr(dir, '/');
        if (slash != NULL && slash != dir) {   /* OUT's directory, made if missing */
            *slash = 0;
            cmd_mkdir_p(dir);
        }
        free(dir);
        if (cmd_write_file(py, res.py, strlen(res.py)) < 0 ||
            (tf != NULL && cmd_write_file(tf, res.tf, res.tf_size) < 0)) {
            fprintf(stderr, "tracefuzz reduce: cannot write %s: %s\n", tf ? tf : py,
                    strerror(errno));
            rc = EXIT_USAGE;
        }
        else {
            printf("signature   %s\n", res.signature);
            printf("before      %zu program lines, %zu bytes\n", res.lines_before,
                   res.bytes_before);
            printf("after       %zu program lines, %zu bytes\n", res.lines_after,
                   res.bytes_after);
            printf("time        %.2f s, %lu candidates run (%lu answered from memory), "
                   "%s isolation%s%s\n", res.seconds, res.tried, res.cached,
                   res.shared ? "shared (confirmed under fork)" : "fork",
                   res.fell_back ? ", redone fork-isolated" : "",
                   res.expired ? ", stopped by --time-limit" : "");
            if (res.unconfirmed)
                printf("warning     the reduced input lost the signature when run again: "
                       "written unreduced\n");
            printf("wrote       %s%s%s\n", py, tf ? " " : "", tf ? tf : "");
            if (r == -2) {
                int sig = hz_channel_interrupted();
                fprintf(stderr, "tracefuzz reduce: interrupted by %s; the smallest input "
                        "so far is written\n", strsignal(sig));
                rc = 128 + sig;
            }
        }
        free(py);
        free(tf);
    }
    hz_reduce_result_clear(&res);
    hz_input_clear(&in);
done:
    free(pypath);
    return rc;
}
