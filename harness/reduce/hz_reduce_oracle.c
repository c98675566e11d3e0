/* hz_reduce_oracle.c: is a candidate interesting? Its signature, from a worker that
 * runs it exactly as `run` would, equals the original's.
 *
 * With N workers a batch runs N candidates at once, one thread per worker, taking
 * candidates in order; the answer is the first interesting one in order, so the
 * result does not depend on which thread was faster (candidates past an
 * interesting one are not started, those already running are waited for). Each
 * worker is an HzWorker of its own; HzWorker keeps no state shared between
 * instances. */
#include "hz_reduce.h"
#include "hz_channel.h"
#include "or_verdict.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MEMO_BITS 14   /* sources remembered: 16384 (a reduction tries far fewer) */

struct HzOracle {
    const HzWorkerConfig *wc;
    unsigned jobs;
    HzWorker **w;
    char *filename;
    char *signature;
    double deadline;
    HzOracleStats st;
    /* the memory of tried sources: FNV-1a hash -> interesting (open addressing) */
    uint64_t memo_key[1u << MEMO_BITS];
    uint8_t memo_val[1u << MEMO_BITS];   /* 0 empty, 1 rejected, 2 interesting */
    size_t memo_n;
    /* a batch */
    pthread_mutex_t mu;
    char *const *srcs;
    size_t n, next;
    long best;           /* lowest interesting index found, or -1 */
    int *verdict;        /* per candidate: -1 not run, 0 rejected, 1 interesting */
};

double hz_reduce_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

bool hz_reduce_smaller(const char *a, const char *b)
{
    size_t la = hz_program_text_size(a), lb = hz_program_text_size(b);
    return la < lb || (la == lb && strlen(a) < strlen(b));
}

static uint64_t fnv(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ULL;
    return h ? h : 1;   /* 0 marks an empty slot */
}

/* The slot of key (its own, or the empty one it would take). */
static size_t memo_slot(const HzOracle *o, uint64_t key)
{
    size_t mask = (1u << MEMO_BITS) - 1, i = key & mask;
    while (o->memo_val[i] != 0 && o->memo_key[i] != key)
        i = (i + 1) & mask;
    return i;
}

HzOracle *hz_oracle_new(const HzWorkerConfig *wc, unsigned jobs, const char *filename)
{
    HzOracle *o = calloc(1, sizeof *o);
    if (o == NULL)
        abort();
    o->wc = wc;
    o->jobs = jobs ? jobs : 1;
    o->w = calloc(o->jobs, sizeof *o->w);
    o->filename = strdup(filename);
    if (o->w == NULL || o->filename == NULL)
        abort();
    for (unsigned i = 0; i < o->jobs; i++)
        o->w[i] = hz_worker_new(wc);
    pthread_mutex_init(&o->mu, NULL);
    return o;
}

void hz_oracle_free(HzOracle *o)
{
    if (o == NULL)
        return;
    for (unsigned i = o->jobs; i-- > 0;)
        hz_worker_free(o->w[i]);
    free(o->w);
    free(o->filename);
    free(o->signature);
    pthread_mutex_destroy(&o->mu);
    free(o);
}

int hz_oracle_start(HzOracle *o, char *err, size_t errlen)
{
    for (unsigned i = 0; i < o->jobs; i++)
        if (hz_worker_start(o->w[i], err, errlen) < 0)
            return -1;
    return 0;
}

int hz_oracle_run(HzOracle *o, const char *source, HzOutcome *out, char *err, size_t errlen)
{
    o->st.tried++;
    return hz_worker_run(o->w[0], o->filename, source, out, err, errlen);
}

void hz_oracle_set_signature(HzOracle *o, const char *signature)
{
    free(o->signature);
    o->signature = strdup(signature);
    if (o->signature == NULL)
        abort();
    memset(o->memo_val, 0, sizeof o->memo_val);   /* answers were for another one */
    o->memo_n = 0;
}

void hz_oracle_set_deadline(HzOracle *o, double deadline)
{
    o->deadline = deadline;
}

const HzOracleStats *hz_oracle_stats(const HzOracle *o)
{
    return &o->st;
}

/* Whether the reduction must stop (deadline, signal, broken worker). Locked. */
static bool stopped(HzOracle *o)
{
    if (o->deadline > 0 && hz_reduce_now() > o->deadline)
        o->st.expired = true;
    return o->st.expired || o->st.interrupted || o->st.broken;
}

/* Runs candidate i on worker w: 1 interesting, 0 rejected, -1 could not run. */
static int test_one(HzOracle *o, HzWorker *w, size_t i)
{
    HzOutcome oc;
    char err[1024];
    memset(&oc, 0, sizeof oc);
    int rc = hz_worker_run(w, o->filename, o->srcs[i], &oc, err, sizeof err);
    if (rc < 0) {
        pthread_mutex_lock(&o->mu);
        if (rc == -2)
            o->st.interrupted = true;
        else
            o->st.broken = true;
        pthread_mutex_unlock(&o->mu);
        return -1;
    }
    int good = oc.signature != NULL && strcmp(oc.signature, o->signature) == 0;
    hz_outcome_clear(&oc);
    return good;
}

typedef struct {
    HzOracle *o;
    HzWorker *w;
} Job;

static void *job_main(void *arg)
{
    Job *j = arg;
    HzOracle *o = j->o;
    for (;;) {
        pthread_mutex_lock(&o->mu);
        size_t i = o->next;
        bool done = i >= o->n || (o->best >= 0 && (long)i > o->best) || stopped(o);
        if (!done)
            o->next++;
        if (!done)
            o->st.tried++;
        pthread_mutex_unlock(&o->mu);
        if (done)
            return NULL;
        int v = test_one(o, j->w, i);
        pthread_mutex_lock(&o->mu);
        o->verdict[i] = v < 0 ? 0 : v;
        if (v == 1 && (o->best < 0 || (long)i < o->best))
            o->best = (long)i;
        pthread_mutex_unlock(&o->mu);
    }
}

long hz_oracle_first(HzOracle *o, char *const *srcs, size_t n)
{
    if (n == 0 || stopped(o))
        return -1;
    /* Answers known from earlier batches decide without running anything, up to the
     * first source not known. */
    size_t start = 0;
    for (; start < n; start++) {
        size_t s = memo_slot(o, fnv(srcs[start]));
        if (o->memo_val[s] == 0)
            break;
        o->st.cached++;
        if (o->memo_val[s] == 2)
            return (long)start;
    }
    if (start == n)
        return -1;
    o->srcs = srcs;
    o->n = n;
    o->next = start;
    o->best = -1;
    o->verdict = malloc(n * sizeof *o->verdict);
    if (o->verdict == NULL)
        abort();
    for (size_t i = 0; i < n; i++)
        o->verdict[i] = -1;
    Job jobs[64];
    pthread_t th[64];
    unsigned nj = o->jobs < 64 ? o->jobs : 64;
    for (unsigned k = 0; k < nj; k++)
        jobs[k] = (Job){o, o->w[k]};
    if (nj == 1) {
        job_main(&jobs[0]);
    }
    else {
        unsigned started = 0;
        for (unsigned k = 1; k < nj; k++)
            if (pthread_create(&th[k], NULL, job_main, &jobs[k]) == 0)
                started = k;
            else
                break;
        job_main(&jobs[0]);
        for (unsigned k = 1; k <= started; k++)
            pthread_join(th[k], NULL);
    }
    /* Remember what ran to completion (a memo that fills up is cleared: it only
     * saves time). */
    for (size_t i = start; i < n; i++) {
        if (o->verdict[i] < 0 || o->st.interrupted || o->st.broken)
            continue;
        if (o->memo_n >= (1u << MEMO_BITS) / 2) {
            memset(o->memo_val, 0, sizeof o->memo_val);
            o->memo_n = 0;
        }
        uint64_t key = fnv(srcs[i]);
        size_t s = memo_slot(o, key);
        if (o->memo_val[s] == 0)
            o->memo_n++;
        o->memo_key[s] = key;
        o->memo_val[s] = (uint8_t)(1 + o->verdict[i]);
    }
    free(o->verdict);
    o->verdict = NULL;
    if (o->best >= 0)
        o->st.accepted++;
    return o->best;
}
