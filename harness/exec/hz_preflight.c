/* hz_preflight.c: is the target usable at all? (see hz_preflight.h)
 *
 * A target that cannot jit and run the most trivial function (jit(fn) raises,
 * returns something that is not callable, crashes, hangs, answers wrongly) would
 * fail every input the same way; reporting that as N findings blames the first
 * descriptor kind of each program for a broken set-up. So before any input runs,
 * the target gets one program with nothing in it but a call and arithmetic. */
#include "hz_preflight.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* No class, no attribute, no global read by program(): a target that fails this
 * fails everything. */
static const char preflight_source[] =
    "# tracefuzz's preflight: a target that cannot run this cannot run anything.\n"
    "LOG = []\n"
    "\n"
    "\n"
    "def make():\n"
    "    return (6, 7)\n"
    "\n"
    "\n"
    "def program(a, b):\n"
    "    return a * b + 1\n";

const char *hz_preflight_source(void)
{
    return preflight_source;
}

/* Appends the report's "target message:" block (or its "why:" line) to buf,
 * indented, at most max_lines lines. */
static void report_excerpt(const char *report, char *buf, size_t cap, int max_lines)
{
    const char *start = strstr(report, "\ntarget message:\n");
    if (start != NULL) {
        start += strlen("\ntarget message:\n");
    }
    else {
        start = strstr(report, "why: ");
        if (start == NULL)
            start = report;
    }
    size_t o = strlen(buf);
    for (int n = 0; n < max_lines && *start != '\0' && o + 8 < cap; n++) {
        const char *nl = strchr(start, '\n');
        size_t len = nl ? (size_t)(nl - start) : strlen(start);
        if (len == 0)
            break;   /* the block ends at a blank line */
        int w = snprintf(buf + o, cap - o, "\n  %.*s", (int)len, start);
        if (w < 0 || (size_t)w >= cap - o)
            break;
        o += (size_t)w;
        start += len + (nl ? 1 : 0);
    }
}

int hz_preflight(HzWorker *w, char *err, size_t errlen)
{
    HzOutcome oc;
    if (hz_worker_run(w, HZ_PREFLIGHT_FILENAME, preflight_source, &oc, err, errlen) < 0)
        return -1;
    if (oc.kind == OR_OK) {
        hz_outcome_clear(&oc);
        return 0;
    }
    snprintf(err, errlen,
             "the target fails a trivial program (make() = (6, 7); program(a, b) = "
             "a * b + 1), so it would fail every input the same way: %s",
             oc.signature ? oc.signature : or_verdict_name(oc.kind));
    if (oc.report != NULL)
        report_excerpt(oc.report, err, errlen, 14);
    hz_outcome_clear(&oc);
    return -1;
}

/* ---- every input failing the same way ---- */

/* Crash-like verdicts are the ones a broken set-up produces on every input; a
 * mismatch on every input is a finding about the programs. */
static bool crash_like(OrVerdictKind k)
{
    return k == OR_TARGET_CRASH || k == OR_TIMEOUT || k == OR_OOM;
}

HzSameFailStep hz_samefail_add(HzSameFail *s, bool failed, OrVerdictKind kind,
                               const char *signature)
{
    if (s->broken)
        return HZ_SAMEFAIL_PASS;
    const char *sig = signature ? signature : "";
    bool same = failed && crash_like(kind) &&
                (s->held == 0 || (kind == s->kind && strcmp(sig, s->signature) == 0));
    if (same && s->held < HZ_SAMEFAIL_WINDOW) {
        if (s->held == 0) {
            s->kind = kind;
            s->signature = strdup(sig);
            if (s->signature == NULL)
                abort();
        }
        s->held++;
        return HZ_SAMEFAIL_HOLD;
    }
    s->broken = true;
    return s->held > 0 ? HZ_SAMEFAIL_FLUSH : HZ_SAMEFAIL_PASS;
}

bool hz_samefail_decided(const HzSameFail *s, unsigned long inputs_done, bool run_ended)
{
    if (s->broken || s->held != inputs_done)
        return false;
    return s->held >= HZ_SAMEFAIL_WINDOW || (run_ended && s->held >= HZ_SAMEFAIL_MIN);
}

void hz_samefail_clear(HzSameFail *s)
{
    free(s->signature);
    memset(s, 0, sizeof *s);
}
