/* tracefuzz run: verdicts of inputs, one line each. This comment is its manual (docs/CLI.md has the same with
 * examples).
 *
 *   Runs every input (files, or directories walked recursively in sorted order,
 *   hidden entries skipped) eagerly twice and once through the target, and prints
 *   one line per input:   PATH: VERDICT  SIGNATURE
 *   then a table of counts per verdict and, last, exactly `N passed, N failed`.
 *   The report of each failure goes to stderr, or with --findings DIR into
 *   DIR/NAME.py (the repro script: the program, then the harness of `tracefuzz
 *   repro`), DIR/NAME.report (the report and the observations) and, for a bytes
 *   input, DIR/NAME.tf (the input bytes).
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
 *     --sandbox          the worker in network and mount namespaces of its own:
 *                        no network, everything read-only but its temporary
 *                        directory (docs/SECURITY.md); where the kernel refuses,
 *                        a warning on stderr and no sandbox
 *     --memory-limit MB  address space of an input's process (default 4096; not
 *                        under ASan): a target that needs more is OOM
 *     --findings DIR     write reports there instead of stderr
 *     --json FILE        the results as JSON: schema "tracefuzz-results" version 1
 *                        (docs/CLI.md "Machine-readable results")
 *     --junit FILE       the results as JUnit XML, a testcase per input, failures
 *                        carrying the report (capped), known ones skipped
 *     --sarif FILE       the results as SARIF 2.1.0: a rule per verdict, a result
 *                        per signature located at the finding's reproducer
 *     --baseline FILE    signatures the project knows (one a line, lines starting
 *                        with # are comments): a failure with one of them is
 *                        printed "(known)", passes and writes no finding; known
 *                        signatures no input met are listed on stderr
 *     --update-baseline  append the new failing signatures to the baseline file
 *                        (created if missing); the exit status is the run's
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
 * */

#include "cmd.h"
#include "hz_channel.h"
#include "hz_jitstats.h"
#include "hz_preflight.h"
#include "or_verdict.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_run[] =
    "usage: tracefuzz run [--target T] [--unsupported MOD:EXC] [--python-path DIR]...\n"
    "                     [--faults F1,F2] [--strict] [--timeout S] [--isolation M]\n"
    "                     [--memory-limit MB] [--sandbox]\n"
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
    "  --sandbox          no network, and a read-only file system but for the\n"
    "                     worker's temporary directory (Linux namespaces; where\n"
    "                     the kernel refuses, a warning and no sandbox)\n"
    "  --memory-limit MB  address space of an input's process (default 4096);\n"
    "                     a target that runs out of it is OOM\n"
    "  --findings DIR     write NAME.py, NAME.report (and the input) per failure\n"
    "  --json FILE        results as JSON (schema tracefuzz-results, docs/CLI.md)\n"
    "  --junit FILE       results as JUnit XML (a testcase per input)\n"
    "  --sarif FILE       results as SARIF 2.1.0 (a result per signature)\n"
    "  --baseline FILE    known signatures (one a line, # comments): their failures\n"
    "                     pass as known, with no finding\n"
    "  --update-baseline  append the run's new failing signatures to the baseline\n"
    "  --quiet            print only failures and the summary\n"
    "  --stats            print the tracer's trace-reuse statistics summed over the run\n"
    "  --no-fork          run in this process (debugging: no time limit, no isolation)\n"
    "\n"
    "Source inputs may carry `# expect[TARGET]: VERDICT`, `# expect[TARGET\n"
    "faults=F1,F2]: VERDICT` and `# expect-report[TARGET]: TEXT` headers.\n";

typedef struct {
    HzWorkerConfig wc;
    const char *findings;
    bool strict, quiet, stats;
    const char *faults;
    const char *target_name;   /* as the worker resolved it, for the report */
    const char *json, *junit, *sarif;   /* result files for CI (cmd_results.c) */
    const char *baseline;      /* known signatures (cmd_baseline.c) */
    bool update_baseline;
} RunOptions;

/* Findings whose files could not be written (an error of the run, exit 2). */
static unsigned long finding_write_errors;

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

/* A failing input's finding (files under --findings) or, without it, its report on
 * stderr. */
static void report_failure(const RunOptions *o, const HzInput *in, const HzOutcome *oc,
                           const char *line)
{
    if (o->findings != NULL) {
        CmdFindings f = {o->findings, o->target_name, o->faults, "run", o->wc.unsupported,
                         (const char *const *)o->wc.python_path, o->wc.n_python_path};
        if (cmd_finding_write(&f, in, oc, oc->signature, line) < 0)
            finding_write_errors++;
    }
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

int cmd_run(int argc, char **argv)
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
    CmdBaseline *base = NULL;
    CmdResults *results = NULL;

    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char **slot = NULL;
        if (cmd_is_help(a)) {
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
        else if (strcmp(a, "--json") == 0)
            slot = &o.json;
        else if (strcmp(a, "--junit") == 0)
            slot = &o.junit;
        else if (strcmp(a, "--sarif") == 0)
            slot = &o.sarif;
        else if (strcmp(a, "--baseline") == 0)
            slot = &o.baseline;
        else if (strcmp(a, "--update-baseline") == 0) {
            o.update_baseline = true;
            continue;
        }
        else if (strcmp(a, "--python-path") == 0 || strcmp(a, "--timeout") == 0) {
            if (i + 1 >= argc) {
                rc = cmd_usage_error(usage_run, "%s needs a value", a);
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
                    rc = cmd_usage_error(usage_run, "--timeout %s: want seconds > 0", v);
                    goto done;
                }
            }
            continue;
        }
        else if (strcmp(a, "--strict") == 0) {
            o.strict = true;
            continue;
        }
        else if (strcmp(a, "--memory-limit") == 0) {
            const char *v = i + 1 < argc ? argv[++i] : "";
            if (cmd_parse_memory_limit(v, &o.wc.memory_mb) < 0) {
                rc = cmd_usage_error(usage_run, "--memory-limit %s: want MiB, 64 or more", v);
                goto done;
            }
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
        else if (strcmp(a, "--sandbox") == 0) {
            o.wc.sandbox = true;
            continue;
        }
        else if (strcmp(a, "--no-fork") == 0) {
            o.wc.in_process = true;
            continue;
        }
        else if (strcmp(a, "--isolation") == 0) {
            const char *v = i + 1 < argc ? argv[++i] : "";
            if (strcmp(v, "fork") != 0 && strcmp(v, "shared") != 0) {
                rc = cmd_usage_error(usage_run, "--isolation %s: want fork or shared", v);
                goto done;
            }
            o.wc.shared = strcmp(v, "shared") == 0;
            continue;
        }
        else if (a[0] == '-' && a[1] != 0) {
            rc = cmd_usage_error(usage_run, "unknown option %s", a);
            goto done;
        }
        else {
            paths[npaths++] = argv[i];
            continue;
        }
        if (i + 1 >= argc) {
            rc = cmd_usage_error(usage_run, "%s needs a value", a);
            goto done;
        }
        *slot = argv[++i];
    }
    if (npaths == 0) {
        rc = cmd_usage_error(usage_run, "%s", "run needs at least one PATH");
        goto done;
    }
    o.wc.python_path = pypath;
    o.faults = faults_opt ? faults_opt : getenv("TRACEFUZZ_FAULTS");
    if (o.faults != NULL && *o.faults == 0)
        o.faults = NULL;
    o.wc.faults = o.faults;

    if (o.update_baseline && o.baseline == NULL) {
        rc = cmd_usage_error(usage_run, "%s needs --baseline FILE", "--update-baseline");
        goto done;
    }
    char err[4096];
    if (o.baseline != NULL &&
        (base = cmd_baseline_load(o.baseline, o.update_baseline, err, sizeof err)) == NULL) {
        fprintf(stderr, "tracefuzz run: %s\n", err);
        rc = EXIT_USAGE;
        goto done;
    }
    if (o.json || o.junit || o.sarif)
        results = cmd_results_new("run", NULL, o.faults);
    if (hz_input_collect(paths, npaths, &files, &nfiles, err, sizeof err) < 0) {
        fprintf(stderr, "tracefuzz run: %s\n", err);
        rc = EXIT_USAGE;
        goto done;
    }
    if (o.findings != NULL && cmd_mkdir_p(o.findings) < 0) {
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
    cmd_results_set_target(results, target);
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
    cmd_on_signals_interrupt();
    bool target_problem = false;
    unsigned long counts[OR_VERDICT__COUNT] = {0};
    unsigned long passed = 0, failed = 0, errors = 0, nknown = 0;
    double start = cmd_now(), last_progress = start;
    for (size_t i = 0; i < nfiles; i++) {
        HzInput in;
        char shown[4096];   /* the file's name as lines print it (escaped) */
        cmd_escape(files[i], shown, sizeof shown);
        if (hz_input_load(files[i], NULL, &in, err, sizeof err) < 0) {
            char why[4096];   /* the message names the file too */
            printf("%s: ERROR  %s\n", shown, cmd_escape(err, why, sizeof why));
            failed++;
            errors++;
            CmdResult res = {.path = files[i], .verdict = "ERROR", .signature = err};
            cmd_results_add(results, &res);
            continue;
        }
        char *want = NULL, *want_report = NULL;
        int has_expect = 0;
        if (in.is_source) {
            has_expect = hz_input_expectation(in.source, target, o.faults, &want,
                                              &want_report, err, sizeof err);
            if (has_expect < 0) {
                printf("%s: ERROR  %s\n", shown, err);
                failed++;
                errors++;
                CmdResult res = {.path = in.path, .verdict = "ERROR", .signature = err};
                cmd_results_add(results, &res);
                hz_input_clear(&in);
                continue;
            }
        }
        HzOutcome oc;
        const char *filename = in.is_source ? in.path : "<tfprog>";
        double t_in = cmd_now();
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
        /* A failure the baseline lists is known: it passes, with no finding. */
        bool known = !ok && !has_expect && cmd_baseline_known(base, oc.signature);
        if (known) {
            ok = true;
            nknown++;
            snprintf(note, sizeof note, "  (known)");
        }
        else if (!ok && !has_expect) {
            cmd_baseline_note_new(base, oc.signature);
        }
        counts[oc.kind]++;
        if (ok)
            passed++;
        else
            failed++;
        char line[4096];
        snprintf(line, sizeof line, "%s: %s  %s%s", shown, vname,
                 oc.signature ? oc.signature : "", note);
        if (!ok || !o.quiet) {
            printf("%s\n", line);
            fflush(stdout);
        }
        fed++;
        if (results != NULL) {
            char *stem = !ok && o.findings ? cmd_finding_stem(&in, &oc) : NULL;
            char finding[4096];
            if (stem != NULL)
                snprintf(finding, sizeof finding, "%s/%s", o.findings, stem);
            CmdResult res = {.path = in.path, .verdict = vname, .signature = oc.signature,
                             .expected = has_expect ? want : NULL,
                             .finding = stem ? finding : NULL,
                             .report = oc.report, .passed = ok && !known, .known = known,
                             .seconds = cmd_now() - t_in};
            cmd_results_add(results, &res);
            free(stem);
        }
        HzSameFailStep st = hz_samefail_add(&same, !ok || known, oc.kind, oc.signature);
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
            if (!ok && !known)
                report_failure(&o, &in, &oc, line);
            hz_outcome_clear(&oc);
            hz_input_clear(&in);
        }
        if (hz_samefail_decided(&same, fed, false)) {
            target_problem = true;
            break;
        }
        double t = cmd_now();
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
    if (nknown > 0)
        printf("%lu failure%s known by the baseline %s (passed)\n", nknown,
               nknown == 1 ? "" : "s", o.baseline);
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
    if (o.update_baseline && !interrupted && !target_problem) {
        long added = cmd_baseline_update(base, o.baseline);
        if (added < 0)
            errors++;
        else
            fprintf(stderr, "tracefuzz run: %ld new signature%s added to the baseline %s\n",
                    added, added == 1 ? "" : "s", o.baseline);
    }
    else if (!interrupted && !target_problem) {
        cmd_baseline_print_unmet(base, stderr, "run");
    }
    rc = interrupted ? 128 + interrupted
         : target_problem || errors > 0 ? EXIT_USAGE : failed > 0 ? 1 : 0;
    if (results != NULL) {
        cmd_results_number(results, "inputs", (double)nfiles);
        cmd_results_number(results, "seconds", cmd_now() - start);
        if ((o.json && cmd_results_write_json(results, o.json, rc) < 0) ||
            (o.junit && cmd_results_write_junit(results, o.junit) < 0) ||
            (o.sarif && cmd_results_write_sarif(results, o.sarif) < 0))
            rc = interrupted ? rc : EXIT_USAGE;   /* CI must not miss it */
    }
done:
    cmd_results_free(results);
    cmd_baseline_free(base);
    held_release(&o, held, &nheld, false);
    hz_samefail_clear(&same);
    hz_jitstats_free(jst);
    hz_worker_free(w);
    hz_paths_free(files, nfiles);
    free(pypath);
    free(paths);
    return rc;
}
