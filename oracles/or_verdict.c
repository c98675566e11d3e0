/* or_verdict.c: the verdict of one input by DESIGN.md's precedence ("Verdicts, in
 * order of precedence") and its grouping signature.
 *
 * Like SQLite's fuzzinvariants.c, every known reason not to call a difference a
 * finding is ruled out first, one documented step at a time (invalid input, a
 * nondeterministic program, the target's own declarations), and only then does
 * the first difference in protocol order decide. Runs no Python.
 *
 * Signature: "VERDICT STEP WHAT WHERE", four space-free fields grouping findings
 * by root cause (docs/OBSERVATION.md, "Signatures", has the grammar): a crash of
 * the target's own is its crash state and normalised message, which the harness
 * read from the exception object (OrVerdictInput.crash_state), with no step; a
 * MISMATCH_EXCEPTION the two exception types; a mismatch its shape (or_shape.h:
 * reused, stale, log-missing:TAG, ...), then the access family the hint names (the
 * descriptor kind too for the catch-all shape "value"); the other verdicts the
 * divergent path reduced to a shape (object numbers dropped, LOG indices "*") or
 * the exception type, then the hint's kind. The hint (the harness's hook) also
 * gives the report its "involved:" line. */
#include "or_verdict.h"
#include "or_internal.h"
#include "or_shape.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const verdict_names[OR_VERDICT__COUNT] = {
#define OR_NAME_VERDICT(n) #n,
    OR_VERDICTS(OR_NAME_VERDICT)
#undef OR_NAME_VERDICT
};

const char *
or_verdict_name(OrVerdictKind k)
{
    if ((int)k < 0 || k >= OR_VERDICT__COUNT) {
        return "?";
    }
    return verdict_names[k];
}

int
or_verdict_parse(const char *name, OrVerdictKind *out)
{
    for (int i = 0; i < OR_VERDICT__COUNT; i++) {
        if (name != NULL && strcmp(name, verdict_names[i]) == 0) {
            *out = (OrVerdictKind)i;
            return 0;
        }
    }
    return -1;
}

void
or_verdict_clear(OrVerdict *v)
{
    free(v->signature);
    free(v->report);
    v->signature = v->report = NULL;
}

/* ---- the first divergence ---- */

static int
is_r_section(OrSection s)
{
    return s == OR_SEC_R1 || s == OR_SEC_R2 || s == OR_SEC_R3;
}

/* Whether an r-section's result is a raised exception: "rN = raise ...". */
static int
section_raises(const char *text)
{
    return text != NULL && text[0] == 'r' && text[1] != '\0'
           && strncmp(text + 2, " = raise ", 9) == 0;
}

static int
line_eq(const OrLine *x, const OrLine *y)
{
    return x->len == y->len && memcmp(x->start, y->start, x->len) == 0;
}

/* Whether a line lies under "rN.args" (the exception's arguments). */
static int
line_is_args(const OrLine *l)
{
    return l->len >= 7 && memcmp(l->start + 2, ".args", 5) == 0;
}

/* Both sides raise the same type and every difference is inside the args. */
static int
only_message_differs(const OrLine *la, size_t na, const OrLine *lb, size_t nb)
{
    if (na == 0 || nb == 0) {
        return 0;
    }
    /* The first lines, "rN = raise #k Type", may differ in k only. */
    const char *ta, *tb;
    size_t skip = strlen("r1 = raise #");
    if (la[0].len <= skip || lb[0].len <= skip) {
        return 0;
    }
    ta = memchr(la[0].start + skip, ' ', la[0].len - skip);
    tb = memchr(lb[0].start + skip, ' ', lb[0].len - skip);
    if (ta == NULL || tb == NULL) {
        return 0;
    }
    size_t ra = la[0].len - (size_t)(ta - la[0].start);
    size_t rb = lb[0].len - (size_t)(tb - lb[0].start);
    if (ra != rb || memcmp(ta, tb, ra) != 0) {
        return 0;
    }
    /* The lines outside the args must be equal, in order. */
    size_t i = 1, j = 1;
    for (;;) {
        while (i < na && line_is_args(&la[i])) {
            i++;
        }
        while (j < nb && line_is_args(&lb[j])) {
            j++;
        }
        if (i == na || j == nb) {
            return i == na && j == nb;
        }
        if (!line_eq(&la[i], &lb[j])) {
            return 0;
        }
        i++;
        j++;
    }
}

/* Whether b has extra lines at i: a's line i (i < its count) reappears a little
 * later in b. */
static int
lines_extra(const OrLine *la, const OrLine *lb, size_t nb, size_t i)
{
    for (size_t j = i + 1; j < nb && j <= i + 8; j++) {
        if (line_eq(&la[i], &lb[j])) {
            return 1;
        }
    }
    return 0;
}

int
or_divergence(const OrObservation *a, const OrObservation *b, OrDivergence *d)
{
    memset(d, 0, sizeof *d);
    d->section = or_observation_diff(a, b);
    if (d->section == OR_SEC__COUNT) {
        return 0;
    }
    const char *ta = a->section[d->section], *tb = b->section[d->section];
    OrLine *la = NULL, *lb = NULL;
    size_t na = 0, nb = 0;
    if (or_lines_split(ta, &la, &na) < 0 || or_lines_split(tb, &lb, &nb) < 0) {
        free(la);
        return -1;
    }
    size_t i = 0;
    while (i < na && i < nb && line_eq(&la[i], &lb[i])) {
        i++;
    }
    d->line = i;
    const OrLine *l = i < na ? &la[i] : i < nb ? &lb[i] : NULL;
    if (i < na && i < nb && lines_extra(la, lb, nb, i) && !lines_extra(lb, la, na, i)) {
        l = &lb[i];   /* b has lines a lacks: the divergence is b's extra line */
    }
    if (l != NULL) {
        size_t n = or_line_path_len(l);
        if (n >= OR_PATH_MAX) {
            n = OR_PATH_MAX - 1;
        }
        memcpy(d->path, l->start, n);
        d->path[n] = '\0';
    }
    else {
        snprintf(d->path, sizeof d->path, "%s", or_section_name(d->section));
    }
    if (is_r_section(d->section)) {
        d->exc_a = section_raises(ta);
        d->exc_b = section_raises(tb);
        d->only_message = d->exc_a && d->exc_b && only_message_differs(la, na, lb, nb);
    }
    free(la);
    free(lb);
    return 0;
}

/* ---- signature ---- */

/* A path reduced to its shape: "#12" -> "#", the index right after a LOG root
 * ("log2[7]", "LOG[7]") -> "[*]" (where in the log an event differs depends on the
 * program's length, not on the bug), spaces -> "_", at most 120 characters. */
static void
path_shape(const char *path, char *out, size_t cap)
{
    size_t o = 0;
    int is_log = strncmp(path, "log", 3) == 0 || strncmp(path, "LOG", 3) == 0;
    int first_index = 1;
    for (size_t i = 0; path[i] != '\0' && o + 4 < cap && o < 120; i++) {
        char c = path[i];
        if (c == '#' && path[i + 1] >= '0' && path[i + 1] <= '9') {
            out[o++] = '#';
            while (path[i + 1] >= '0' && path[i + 1] <= '9') {
                i++;
            }
            continue;
        }
        if (c == '[' && is_log && first_index) {
            first_index = 0;
            size_t j = i + 1;
            while (path[j] >= '0' && path[j] <= '9') {
                j++;
            }
            if (j > i + 1 && path[j] == ']') {
                memcpy(out + o, "[*]", 3);
                o += 3;
                i = j;
                continue;
            }
        }
        out[o++] = (c == ' ' || c == '\t') ? '_' : c;
    }
    out[o] = '\0';
}

/* The exception type named by a message or traceback: the last line starting in
 * column 0 that reads "Name: ..." or "Name" with Name a dotted identifier (which
 * skips "Traceback (most recent call last):", chaining sentences and most lines
 * of a multi-line message), last dotted component only ("tfjit.ProvenanceError"
 * -> "ProvenanceError"). */
static void
exception_name(const char *msg, const char *fallback, char *out, size_t cap)
{
    snprintf(out, cap, "%s", fallback);
    for (const char *p = msg ? msg : ""; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        const char *start = p;
        size_t n = 0;
        int ok = len > 0 && p[0] != ' ' && p[0] != '\t';
        while (ok && n < len && p[n] != ':') {
            char c = p[n];
            if (c == '.') {
                start = p + n + 1;
            }
            else if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
                       || (c >= '0' && c <= '9'))) {
                ok = 0;
            }
            n++;
        }
        size_t name_len = (size_t)(p + n - start);
        if (ok && name_len > 0 && name_len < cap && name_len <= 64) {
            memcpy(out, start, name_len);
            out[name_len] = '\0';
        }
        p += len + (nl ? 1 : 0);
    }
}

static void
signal_name(int sig, char *out, size_t cap)
{
    static const struct { int sig; const char *name; } names[] = {
        {SIGSEGV, "SIGSEGV"}, {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"},
        {SIGFPE, "SIGFPE"}, {SIGILL, "SIGILL"}, {SIGKILL, "SIGKILL"},
        {SIGTERM, "SIGTERM"}, {SIGTRAP, "SIGTRAP"}, {SIGSYS, "SIGSYS"},
        /* what resource limits and a target's own timers and pipes end a process with */
        {SIGXFSZ, "SIGXFSZ"}, {SIGXCPU, "SIGXCPU"}, {SIGALRM, "SIGALRM"},
        {SIGPIPE, "SIGPIPE"}, {SIGINT, "SIGINT"}, {SIGHUP, "SIGHUP"},
        {SIGUSR1, "SIGUSR1"}, {SIGUSR2, "SIGUSR2"}, {SIGVTALRM, "SIGVTALRM"},
        {SIGPROF, "SIGPROF"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (names[i].sig == sig) {
            snprintf(out, cap, "%s", names[i].name);
            return;
        }
    }
    snprintf(out, cap, "SIG%d", sig);
}

/* Whether two values are the same container with another length: "tuple[9]" and
 * "tuple[7]", "#3 list[2]" and "#3 list[1]". */
static int
only_length_differs(const OrLine *x, const OrLine *y)
{
    size_t nx, ny;
    const char *vx = or_line_value(x, &nx), *vy = or_line_value(y, &ny);
    const char *bx = memchr(vx, '[', nx), *by = memchr(vy, '[', ny);
    if (bx == NULL || by == NULL || bx - vx != by - vy || memcmp(vx, vy, (size_t)(bx - vx)) != 0
        || vx[nx - 1] != ']' || vy[ny - 1] != ']') {
        return 0;
    }
    return memchr(vx, ' ', (size_t)(bx - vx)) == NULL || vx[0] == '#';
}

/* The divergent path the hint and a named signature use: the report's, except that a
 * list or tuple that differs only in its length is refined to its first differing
 * item below it (a memoised read drops or adds items; which one differs first says
 * more than the container's length). Writes into out (OR_PATH_MAX). */
static int
refined_path(const char *ta, const char *tb, const OrDivergence *d, char *out)
{
    snprintf(out, OR_PATH_MAX, "%s", d->path);
    OrLine *la = NULL, *lb = NULL;
    size_t na = 0, nb = 0;
    if (ta == NULL || tb == NULL) {
        return 0;
    }
    if (or_lines_split(ta, &la, &na) < 0 || or_lines_split(tb, &lb, &nb) < 0) {
        free(la);
        return -1;
    }
    size_t i = d->line;
    if (i < na && i < nb && only_length_differs(&la[i], &lb[i])) {
        size_t plen = or_line_path_len(&la[i]);
        size_t j = i + 1;
        while (j < na && j < nb && line_eq(&la[j], &lb[j])) {
            j++;
        }
        /* The item below the container: side a's line if it is one, else b's. */
        const OrLine *pick = NULL;
        const OrLine *cand[2] = {j < na ? &la[j] : NULL, j < nb ? &lb[j] : NULL};
        for (int k = 0; k < 2 && pick == NULL; k++) {
            const OrLine *c = cand[k];
            if (c != NULL && c->len > plen && memcmp(c->start, la[i].start, plen) == 0
                && c->start[plen] == '[') {
                pick = c;
            }
        }
        if (pick != NULL) {
            size_t n = or_line_path_len(pick);
            if (n >= OR_PATH_MAX) {
                n = OR_PATH_MAX - 1;
            }
            memcpy(out, pick->start, n);
            out[n] = '\0';
        }
    }
    free(la);
    free(lb);
    return 0;
}

static const char *
section_step(OrSection s)
{
    static const char *const steps[OR_SEC__COUNT] = {"1", "1", "2", "2", "3", "3", "end"};
    return (int)s >= 0 && s < OR_SEC__COUNT ? steps[s] : "-";
}

/* A space-free copy of the kind hint ("-" when none). */
static void
kind_field(const char *hint, char *out, size_t cap)
{
    if (hint == NULL || *hint == '\0') {
        hint = "-";
    }
    snprintf(out, cap, "%s", hint);
    for (char *p = out; *p; p++) {
        if (*p == ' ' || *p == '\t' || *p == '\n') {
            *p = '_';
        }
    }
}

/* The type named by an r-section's first line "rN = raise #k TYPE" into out
 * ("none" when the step returned). */
static void
raised_type(const char *text, char *out, size_t cap)
{
    snprintf(out, cap, "none");
    if (!section_raises(text)) {
        return;
    }
    const char *t = strchr(text + strlen("r1 = raise #"), ' ');
    if (t == NULL) {
        return;
    }
    size_t n = strcspn(t + 1, " \n");
    snprintf(out, cap, "%.*s", (int)(n < 64 ? n : 64), t + 1);
}

/* A MISMATCH_EXCEPTION's last two fields: "EAGER!=TARGET", eager's exception type
 * against the target's crash state (its type from the text when the harness gave
 * none; "none" for a side that returned), and the target's normalised message. */
static void
exception_pair(const OrVerdictInput *in, const OrDivergence *d, char *path, size_t pcap,
               char *kind, size_t kcap)
{
    char ea[80], tb[80];
    int s = d->section == OR_SEC_R1 ? 0 : d->section == OR_SEC_R2 ? 1 : 2;
    raised_type(in->eager1->section[d->section], ea, sizeof ea);
    raised_type(in->target->section[d->section], tb, sizeof tb);
    const char *ts = d->exc_b && in->step_exc_state[s] != NULL ? in->step_exc_state[s] : tb;
    snprintf(path, pcap, "%s!=%s", ea, ts);
    if (d->exc_b && in->step_exc_message[s] != NULL) {
        kind_field(in->step_exc_message[s], kind, kcap);
    }
    else if (d->exc_b) {   /* no harness: the message is the text's first str arg */
        const char *t = in->target->section[d->section];
        const char *a = strstr(t, ".args[0] = '");
        const char *nl = a ? strchr(a, '\n') : NULL;
        char text[256];
        snprintf(text, sizeof text, "%.*s", a ? (int)((nl ? nl : a + strlen(a)) - a - 13) : 0,
                 a ? a + 12 : "");
        or_message_norm(text, NULL, NULL, kind, kcap < 56 ? kcap : 56);
    }
    else {
        kind_field(NULL, kind, kcap);
    }
}

/* ---- the decision ---- */

/* Verdicts that are failures of the target, for which the hint is worth asking. */
static int
asks_hint(OrVerdictKind k)
{
    return k == OR_PROVENANCE || k == OR_TIMEOUT || k == OR_TARGET_CRASH
           || k == OR_MISMATCH_EXCEPTION || k == OR_MISMATCH_RESULT
           || k == OR_MISMATCH_EVENTS || k == OR_MISMATCH_STATE;
}

int
or_verdict_decide(const OrVerdictInput *in, OrVerdict *out)
{
    out->kind = OR_OK;
    out->signature = out->report = NULL;
    OrDivergence div;
    memset(&div, 0, sizeof div);
    div.section = OR_SEC__COUNT;
    OrReportCtx ctx = {NULL, NULL, "eager", "target", NULL, NULL};
    char step[16], path[160], kind[128], what[256], sig_path[OR_PATH_MAX];
    sig_path[0] = '\0';
    const char *detail = NULL;   /* the hint's words for the report */
    int fixed_kind = 0;          /* KIND is the crash message: the hint only informs */
    snprintf(step, sizeof step, "-");
    snprintf(path, sizeof path, "-");
    what[0] = '\0';
    kind_field(in->hint_desc_kind, kind, sizeof kind);
    if (in->step >= 1 && in->step <= OR_STEPS) {
        snprintf(step, sizeof step, "%d", in->step);
    }

    /* 0. Not a program: an error of the corpus, never a finding. */
    if (in->invalid || in->eager1 == NULL) {
        out->kind = OR_INVALID;
        snprintf(step, sizeof step, "-");
        snprintf(what, sizeof what, "the input is not a program: %s",
                 in->invalid ? (in->invalid_why ? in->invalid_why : "(no reason given)")
                             : "no eager observation (harness error)");
        goto decided;
    }
    /* 1. Eager disagrees with itself: the generator's bug. */
    if (in->eager2 != NULL) {
        if (or_divergence(in->eager1, in->eager2, &div) < 0) {
            return -1;
        }
        if (div.section != OR_SEC__COUNT) {
            out->kind = OR_NONDETERMINISTIC;
            ctx = (OrReportCtx){in->eager1, in->eager2, "eager 1", "eager 2", &div, NULL};
            snprintf(step, sizeof step, "%s", section_step(div.section));
            path_shape(div.path, path, sizeof path);
            snprintf(what, sizeof what, "two eager runs of the program differ");
            goto decided;
        }
    }
    /* 2-5. How the target ended, as the harness classified it. */
    switch (in->target_end) {
    case OR_TARGET_PROVENANCE:
        out->kind = OR_PROVENANCE;
        exception_name(in->target_message, "ProvenanceError", path, sizeof path);
        snprintf(what, sizeof what, "the target reported a provenance failure");
        goto decided;
    case OR_TARGET_UNSUPPORTED:
        out->kind = OR_UNSUPPORTED;
        exception_name(in->target_message, "unsupported", path, sizeof path);
        snprintf(what, sizeof what, "the target declared the program unsupported");
        goto decided;
    case OR_TARGET_TIMEOUT:
        out->kind = OR_TIMEOUT;
        snprintf(path, sizeof path, "timeout");
        snprintf(what, sizeof what, "the target exceeded its time or instruction limit");
        goto decided;
    case OR_TARGET_OOM:
        /* One signature for every input that ran out of memory: the cause is the
         * limit (--memory-limit) against the target's appetite, not a place. */
        out->kind = OR_OOM;
        snprintf(step, sizeof step, "-");
        snprintf(kind, sizeof kind, "-");
        fixed_kind = 1;
        snprintf(what, sizeof what, "the target ran out of memory (the limit of an "
                 "input's process is --memory-limit)");
        goto decided;
    case OR_TARGET_DIED:
        out->kind = OR_TARGET_CRASH;
        if (in->signal != 0) {
            signal_name(in->signal, path, sizeof path);
            snprintf(what, sizeof what, "the target process died with signal %d (%s)",
                     in->signal, path);
        }
        else if (in->exit_status >= 0) {   /* os._exit(N), sys.exit in a thread ... */
            snprintf(path, sizeof path, "exit:%d", in->exit_status);
            snprintf(what, sizeof what, "the target process exited with status %d before "
                     "the protocol ended", in->exit_status);
        }
        else {
            snprintf(path, sizeof path, "corrupt-report");
            snprintf(what, sizeof what, "the worker's report was corrupted");
        }
        goto decided;
    case OR_TARGET_OWN_EXCEPTION:
        out->kind = OR_TARGET_CRASH;
        exception_name(in->target_message, "exception", path, sizeof path);
        snprintf(what, sizeof what,
                 "the target raised %s from its own frames, which eager did not", path);
        if (in->crash_state != NULL) {   /* the harness read the exception object */
            /* Like a crash state, with no step: where in the protocol a cause
             * first shows depends on the program, not on the cause. */
            snprintf(step, sizeof step, "-");
            snprintf(path, sizeof path, "%s", in->crash_state);
            kind_field(in->crash_message, kind, sizeof kind);
            fixed_kind = 1;
        }
        goto decided;
    case OR_TARGET_SETUP_FAILED: {
        char exc[80];
        exception_name(in->target_message, "exception", exc, sizeof exc);
        out->kind = OR_TARGET_CRASH;
        snprintf(path, sizeof path, "setup:%s", in->crash_state ? in->crash_state : exc);
        snprintf(what, sizeof what, "target(program) itself raised %s", exc);
        if (in->crash_state != NULL) {
            snprintf(step, sizeof step, "-");
            kind_field(in->crash_message, kind, sizeof kind);
            fixed_kind = 1;
        }
        goto decided;
    }
    case OR_TARGET_FINISHED:
        break;
    }
    if (in->target == NULL) {
        out->kind = OR_INVALID;
        snprintf(step, sizeof step, "-");
        snprintf(what, sizeof what,
                 "the input is not a program: no target observation (harness error)");
        goto decided;
    }
    /* 6. The first difference in protocol order decides. */
    if (or_divergence(in->eager1, in->target, &div) < 0) {
        return -1;
    }
    ctx = (OrReportCtx){in->eager1, in->target, "eager", "target", &div, NULL};
    if (div.section == OR_SEC__COUNT) {
        out->kind = OR_OK;
        snprintf(step, sizeof step, "-");
        snprintf(what, sizeof what, "eager and target agree everywhere");
        goto decided;
    }
    snprintf(step, sizeof step, "%s", section_step(div.section));
    path_shape(div.path, path, sizeof path);
    switch (div.section) {
    case OR_SEC_R1: case OR_SEC_R2: case OR_SEC_R3:
        out->kind = div.exc_a || div.exc_b ? OR_MISMATCH_EXCEPTION : OR_MISMATCH_RESULT;
        if (out->kind == OR_MISMATCH_EXCEPTION) {
            exception_pair(in, &div, path, sizeof path, kind, sizeof kind);
            fixed_kind = 1;
        }
        snprintf(what, sizeof what, "%s of step %s differs%s",
                 div.exc_a || div.exc_b ? "the exception" : "the result", step,
                 div.only_message ? " (only the exception message)" : "");
        break;
    case OR_SEC_LOG1: case OR_SEC_LOG2: case OR_SEC_LOG3:
        out->kind = OR_MISMATCH_EVENTS;
        snprintf(what, sizeof what, "the LOG after step %s differs", step);
        break;
    default:
        out->kind = OR_MISMATCH_STATE;
        snprintf(what, sizeof what, "the final state of the world differs");
        break;
    }

decided:
    ctx.what = what;
    int decided_by_obs = ctx.div != NULL && div.section != OR_SEC__COUNT
                         && out->kind != OR_NONDETERMINISTIC;
    int shaped = decided_by_obs && (out->kind == OR_MISMATCH_RESULT
                                    || out->kind == OR_MISMATCH_EVENTS
                                    || out->kind == OR_MISMATCH_STATE);
    const char *group = NULL;   /* the hint's last field for a shaped signature */
    unsigned shape_flags = 0;
    if (decided_by_obs
        && refined_path(in->eager1->section[div.section], in->target->section[div.section],
                        &div, sig_path) < 0) {
        return -1;
    }
    if (in->hint != NULL && asks_hint(out->kind)) {
        /* Only now, for a failure: the harness may parse the program to answer. */
        OrHintQuery q = {
            .kind = out->kind,
            .section = decided_by_obs ? div.section : OR_SEC__COUNT,
            .path = decided_by_obs ? sig_path : NULL,
            .eager_text = decided_by_obs ? in->eager1->section[div.section] : NULL,
            .target_text = decided_by_obs ? in->target->section[div.section] : NULL,
            .target_message = in->target_message,
            .step = decided_by_obs ? atoi(section_step(div.section))
                                   : (in->step >= 1 && in->step <= OR_STEPS ? in->step : 0),
        };
        OrHintAnswer ans = {NULL, NULL, NULL, false, NULL};
        in->hint(in->hint_ctx, &q, &ans);
        if (ans.hint != NULL && *ans.hint != '\0') {
            if (!fixed_kind) {
                kind_field(ans.hint, kind, sizeof kind);
            }
            detail = ans.detail != NULL ? ans.detail : ans.hint;
        }
        group = ans.group;
        shape_flags |= ans.identity ? OR_SHAPE_IDENTITY : 0;
        ctx.statement = ans.statement;   /* valid until the next question: the report */
    }
    if (shaped) {
        /* A mismatch is signed by its shape, then the hint's group (the access
         * family; the descriptor kind stays in the report), else the kind. */
        if (group != NULL && strncmp(group, "write", 5) == 0
            && (group[5] == '\0' || group[5] == '+')) {
            shape_flags |= OR_SHAPE_WRITE;
        }
        or_shape(div.section, in->eager1->section[div.section],
                 in->target->section[div.section], sig_path, shape_flags,
                 in->eager1->section[OR_SEC_R1], in->target->section[OR_SEC_R1], path,
                 sizeof path);
        /* A named shape says what went wrong: the family is enough. "value" says
         * nothing, so it keeps the kind too ("prop_fresh/reread"): otherwise
         * unrelated causes would share it. */
        if (group != NULL && strcmp(path, "value") != 0) {
            kind_field(group, kind, sizeof kind);
        }
    }
    {
        OrBuf sig;
        or_buf_init(&sig);
        or_buf_printf(&sig, "%s %s %s %s", or_verdict_name(out->kind), step, path, kind);
        out->signature = or_buf_finish(&sig);
    }
    {
        /* The report names what the hint found, in the hint's own words. */
        OrVerdictInput rin = *in;
        if (detail != NULL) {
            rin.hint_desc_kind = detail;
        }
        out->report = out->kind == OR_OK && in->ok_report_empty
                          ? strdup("")
                          : or_report_build(&rin, out->kind, out->signature, &ctx);
    }
    if (out->signature == NULL || out->report == NULL) {
        or_verdict_clear(out);
        return -1;
    }
    return 0;
}
