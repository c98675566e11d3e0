/* hz_reduce_run.c: one input reduced end to end (hz_reduce_input, hz_reduce.h):
 * the original's signature under fork isolation, the choice of isolation for the
 * candidates, the IR pass (bytes inputs), the text pass, the confirmation. */
#include "hz_reduce.h"
#include "hz_channel.h"
#include "hz_ir.h"
#include "or_verdict.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static void logf_(const HzReduceConfig *cfg, const char *fmt, ...)
{
    if (cfg->log == NULL)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("tracefuzz reduce: ", cfg->log);
    vfprintf(cfg->log, fmt, ap);
    fputc('\n', cfg->log);
    va_end(ap);
    fflush(cfg->log);
}

void hz_reduce_result_clear(HzReduceResult *res)
{
    free(res->signature);
    free(res->py);
    free(res->tf);
    memset(res, 0, sizeof *res);
}

/* The signature of source under o (malloc'd), or NULL with err / -2 in *rc. */
static char *signature_of(HzOracle *o, const char *source, OrVerdictKind *kind, int *rc,
                          char *err, size_t errlen)
{
    HzOutcome oc;
    memset(&oc, 0, sizeof oc);
    *rc = hz_oracle_run(o, source, &oc, err, errlen);
    if (*rc < 0)
        return NULL;
    char *sig = strdup(oc.signature ? oc.signature : "?");
    if (sig == NULL)
        abort();
    if (kind != NULL)
        *kind = oc.kind;
    hz_outcome_clear(&oc);
    return sig;
}

/* One reduction with candidates under o: fills res->py (and res->tf). */
static int reduce_with(const HzReduceConfig *cfg, const HzInput *in, HzOracle *o,
                       HzAstHelper *h, HzReduceResult *res)
{
    free(res->py);
    free(res->tf);
    res->py = NULL;
    res->tf = NULL;
    char *text;
    if (!in->is_source) {
        HzProgram *p = hz_decode(in->data, in->size);
        if (hz_reduce_ir(p, o) < 0) {
            hz_program_free(p);
            return -1;
        }
        if (hz_encode(p, &res->tf, &res->tf_size) < 0)
            abort();
        text = hz_emit(p, NULL);
        hz_program_free(p);
        if (text == NULL)
            abort();
        logf_(cfg, "IR pass: %zu -> %zu program lines, %lu candidates so far",
              res->lines_before, hz_program_text_size(text), hz_oracle_stats(o)->tried);
    }
    else {
        text = strdup(in->source);
        if (text == NULL)
            abort();
    }
    int rc = hz_reduce_text(&text, o, h);
    res->py = text;
    logf_(cfg, "text pass: %zu program lines, %lu candidates so far",
          hz_program_text_size(text), hz_oracle_stats(o)->tried);
    return rc;
}

/* Whether the result keeps the signature under fork isolation. */
static int confirm(HzOracle *fork_o, const HzReduceResult *res, bool *holds, char *err,
                   size_t errlen)
{
    int rc;
    *holds = true;
    if (res->tf != NULL) {
        HzProgram *p = hz_decode(res->tf, res->tf_size);
        char *src = hz_emit(p, NULL);
        hz_program_free(p);
        char *sig = signature_of(fork_o, src, NULL, &rc, err, errlen);
        free(src);
        if (sig == NULL)
            return rc;
        *holds = strcmp(sig, res->signature) == 0;
        free(sig);
    }
    char *sig = signature_of(fork_o, res->py, NULL, &rc, err, errlen);
    if (sig == NULL)
        return rc;
    *holds = *holds && strcmp(sig, res->signature) == 0;
    free(sig);
    return 0;
}

int hz_reduce_input(const HzReduceConfig *cfg, const HzInput *in, HzReduceResult *res,
                    char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    double start = hz_reduce_now();
    const char *filename = in->is_source ? in->path : "<tfprog>";
    res->lines_before = hz_program_text_size(in->source);
    res->bytes_before = strlen(in->source);
    /* The helper first: it must not inherit a worker's channel. */
    HzAstHelper *h = hz_ast_helper_new(err, errlen);
    if (h == NULL)
        return -1;
    HzWorkerConfig wfork = *cfg->wc, wshared = *cfg->wc;
    wfork.shared = false;
    wfork.in_process = wshared.in_process = false;
    wshared.shared = true;
    HzOracle *fo = hz_oracle_new(&wfork, 1, filename), *so = NULL, *co = NULL;
    int rc = hz_oracle_start(fo, err, errlen);
    OrVerdictKind kind = OR_OK;
    if (rc == 0)
        res->signature = signature_of(fo, in->source, &kind, &rc, err, errlen);
    if (rc < 0)
        goto done;
    if (kind == OR_OK || kind == OR_UNSUPPORTED || kind == OR_INVALID ||
        kind == OR_NONDETERMINISTIC) {
        snprintf(err, errlen, "the input does not fail: %s", or_verdict_name(kind));
        rc = 1;
        goto done;
    }
    logf_(cfg, "signature %s; %zu program lines, %zu bytes", res->signature,
          res->lines_before, res->bytes_before);

    /* Candidates under shared isolation when the original fails there alike. */
    if (!cfg->fork_only) {
        so = hz_oracle_new(&wshared, cfg->jobs, filename);
        char *sig = NULL;
        if (hz_oracle_start(so, err, errlen) == 0)
            sig = signature_of(so, in->source, NULL, &rc, err, errlen);
        if (rc == -2)
            goto done;
        res->shared = sig != NULL && strcmp(sig, res->signature) == 0;
        if (!res->shared)
            logf_(cfg, "under shared isolation the input gives %s: candidates run "
                  "fork-isolated", sig ? sig : err);
        free(sig);
        rc = 0;
    }
    co = res->shared ? so : hz_oracle_new(&wfork, cfg->jobs, filename);
    if (!res->shared && (rc = hz_oracle_start(co, err, errlen)) < 0)
        goto done;
    hz_oracle_set_signature(co, res->signature);
    if (cfg->time_limit > 0)
        hz_oracle_set_deadline(co, start + cfg->time_limit);
    rc = reduce_with(cfg, in, co, h, res);
    if (rc < 0 || hz_oracle_stats(co)->interrupted)
        goto done;
    bool holds = true;
    if (res->shared) {
        if ((rc = confirm(fo, res, &holds, err, errlen)) < 0)
            goto done;
        if (!holds) {
            logf_(cfg, "the result does not keep the signature under fork isolation: "
                  "reducing again with fork-isolated candidates");
            res->fell_back = true;
            res->tried += hz_oracle_stats(co)->tried;
            res->cached += hz_oracle_stats(co)->cached;
            co = hz_oracle_new(&wfork, cfg->jobs, filename);
            if ((rc = hz_oracle_start(co, err, errlen)) < 0)
                goto done;
            hz_oracle_set_signature(co, res->signature);
            if (cfg->time_limit > 0)   /* within the same time box */
                hz_oracle_set_deadline(co, start + cfg->time_limit);
            if ((rc = reduce_with(cfg, in, co, h, res)) < 0 || hz_oracle_stats(co)->interrupted)
                goto done;
        }
    }
    /* Every accepted candidate had the signature; one more run of the result under
     * fork isolation, as `run` will run it, says whether it still has (a flaky
     * input may not). If not, the result is the input itself. */
    if (!res->shared || res->fell_back) {
        if ((rc = confirm(fo, res, &holds, err, errlen)) < 0)
            goto done;
        if (!holds) {
            logf_(cfg, "the reduced input does not keep the signature when run again: "
                  "the input itself is the result (is it flaky?)");
            res->unconfirmed = true;
            free(res->py);
            free(res->tf);
            res->tf = NULL;
            res->py = strdup(in->source);
            if (!in->is_source) {
                res->tf = malloc(in->size + 1);
                if (res->tf == NULL)
                    abort();
                memcpy(res->tf, in->data, in->size);
                res->tf_size = in->size;
            }
        }
    }
done:
    if (co != NULL) {
        res->tried += hz_oracle_stats(co)->tried;
        res->cached += hz_oracle_stats(co)->cached;
        res->expired = hz_oracle_stats(co)->expired;
        if (hz_oracle_stats(co)->interrupted)
            rc = -2;
        else if (hz_oracle_stats(co)->broken && rc == 0) {
            snprintf(err, errlen, "no worker could be started for a candidate");
            rc = -1;
        }
    }
    if (rc == -1 && hz_channel_interrupted())
        rc = -2;
    if (res->py != NULL) {
        res->lines_after = hz_program_text_size(res->py);
        res->bytes_after = strlen(res->py);
    }
    res->seconds = hz_reduce_now() - start;
    if (co != so)
        hz_oracle_free(co);
    hz_oracle_free(so);
    hz_oracle_free(fo);
    hz_ast_helper_free(h);
    return rc;
}
