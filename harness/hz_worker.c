/* hz_worker.c: the forked worker and its parent (see hz_worker.h).
 *
 * Framing: u32 payload length (host order: both ends are the same binary), then the
 * payload: one type byte and fields, each u32 length + bytes (length UINT32_MAX
 * encodes NULL). */
#include "hz_worker.h"
#include "hz_hint.h"
#include "hz_embed.h"
#include "hz_target.h"
#include "hz_jitstats.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NULL_FIELD UINT32_MAX
/* Loading a target can import a large framework (torch takes seconds). */
#define START_TIMEOUT_S 300.0
#define MAX_MESSAGE (256u << 20)

/* ---- messages ------------------------------------------------------------- */

typedef struct {
    uint8_t *buf;
    size_t len, cap;
} Msg;

static void msg_reserve(Msg *m, size_t more)
{
    if (m->len + more <= m->cap)
        return;
    size_t cap = m->cap ? m->cap : 256;
    while (cap < m->len + more)
        cap *= 2;
    uint8_t *nb = realloc(m->buf, cap);
    if (nb == NULL)
        abort();
    m->buf = nb;
    m->cap = cap;
}

static void msg_begin(Msg *m, char type)
{
    m->len = 0;
    msg_reserve(m, 5);
    memset(m->buf, 0, 4);
    m->buf[4] = (uint8_t)type;
    m->len = 5;
}

static void msg_add(Msg *m, const char *s)
{
    uint32_t n = s ? (uint32_t)strlen(s) : NULL_FIELD;
    msg_reserve(m, 4 + (s ? n : 0));
    memcpy(m->buf + m->len, &n, 4);
    m->len += 4;
    if (s) {
        memcpy(m->buf + m->len, s, n);
        m->len += n;
    }
}

static void msg_add_int(Msg *m, long v)
{
    char tmp[32];
    snprintf(tmp, sizeof tmp, "%ld", v);
    msg_add(m, tmp);
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int msg_send(Msg *m, int fd)
{
    uint32_t payload = (uint32_t)(m->len - 4);
    memcpy(m->buf, &payload, 4);
    return write_all(fd, m->buf, m->len);
}

/* Reading fields back out of a received payload. */
typedef struct {
    const uint8_t *p, *end;
    bool bad;
} Reader;

/* A malloc'd copy of the next field (NULL for a NULL field or a malformed message). */
static char *rd_str(Reader *r)
{
    uint32_t n;
    if (r->end - r->p < 4) {
        r->bad = true;
        return NULL;
    }
    memcpy(&n, r->p, 4);
    r->p += 4;
    if (n == NULL_FIELD)
        return NULL;
    if ((size_t)(r->end - r->p) < n) {
        r->bad = true;
        return NULL;
    }
    char *s = malloc((size_t)n + 1);
    if (s == NULL)
        abort();
    memcpy(s, r->p, n);
    s[n] = 0;
    r->p += n;
    return s;
}

static long rd_int(Reader *r)
{
    char *s = rd_str(r);
    long v = s ? strtol(s, NULL, 10) : 0;
    free(s);
    return v;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* When a wait for the worker is over: a wall-clock deadline and a budget of the
 * worker's CPU time. The CPU budget is what decides a TIMEOUT (a loaded machine
 * stretches wall time, not CPU time); the wall deadline is a far backstop for a
 * target that sleeps or blocks. */
typedef struct {
    double wall_deadline;     /* CLOCK_MONOTONIC seconds; <= 0: none */
    bool cpu_limited;
    clockid_t cpu_clock;      /* the worker's process CPU clock */
    double cpu_deadline;      /* its reading at which the input is over */
} Limit;

/* How often a CPU-limited wait looks at the worker's CPU clock. */
#define CPU_POLL_MS 50

static double clock_s(clockid_t c)
{
    struct timespec ts;
    if (clock_gettime(c, &ts) < 0)
        return -1;
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static Limit limit_wall(double deadline)
{
    Limit l = {deadline, false, 0, 0};
    return l;
}

/* Reads exactly n bytes within lim (NULL: no limit). 1 done, 0 end of file, -2 wall
 * deadline passed, -3 CPU budget spent, -1 error. */
static int read_full(int fd, uint8_t *p, size_t n, const Limit *lim)
{
    while (n > 0) {
        if (lim != NULL && (lim->wall_deadline > 0 || lim->cpu_limited)) {
            double left = lim->wall_deadline > 0 ? lim->wall_deadline - now_s() : 1e9;
            if (left <= 0)
                return -2;
            int ms = left * 1000 > 1e8 ? 100000000 : (int)(left * 1000) + 1;
            if (lim->cpu_limited && ms > CPU_POLL_MS)
                ms = CPU_POLL_MS;
            struct pollfd pfd = {.fd = fd, .events = POLLIN};
            int pr = poll(&pfd, 1, ms);
            if (pr < 0) {
                if (errno == EINTR)
                    continue;
                return -1;
            }
            if (pr == 0) {
                if (lim->cpu_limited && clock_s(lim->cpu_clock) >= lim->cpu_deadline)
                    return -3;
                continue;   /* re-checks the deadline */
            }
        }
        ssize_t got = read(fd, p, n);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (got == 0)
            return 0;
        p += got;
        n -= (size_t)got;
    }
    return 1;
}

/* Receives one message into m (payload at m->buf, length m->len). Same returns as
 * read_full. */
static int msg_recv(Msg *m, int fd, const Limit *lim)
{
    uint32_t n;
    int rc = read_full(fd, (uint8_t *)&n, 4, lim);
    if (rc != 1)
        return rc;
    if (n == 0 || n > MAX_MESSAGE)
        return -1;
    m->len = 0;
    msg_reserve(m, n);
    rc = read_full(fd, m->buf, n, lim);
    if (rc == 1)
        m->len = n;
    return rc == 0 ? -1 : rc;   /* end of file inside a message: the worker died */
}

/* ---- the worker's side ---------------------------------------------------- */

typedef struct {
    int out;
    Msg msg;
    long retraces_at_call2;     /* hz_jitstats: retraces counted when call 2 began */
    long call2_retraces;        /* retraces during call 2, -1 unknown */
} ServeCtx;

static void send_or_die(ServeCtx *c)
{
    if (msg_send(&c->msg, c->out) < 0)
        _exit(3);   /* the parent is gone */
}

static void add_obs(Msg *m, const OrObservation *o)
{
    msg_add_int(m, o != NULL);
    for (int s = 0; s < OR_SEC__COUNT; s++)
        msg_add(m, o ? o->section[s] : NULL);
}

static void hook_eager(void *ctx, bool invalid, const char *why,
                       const OrObservation *e1, const OrObservation *e2)
{
    ServeCtx *c = ctx;
    msg_begin(&c->msg, 'E');
    msg_add_int(&c->msg, invalid);
    msg_add(&c->msg, why);
    add_obs(&c->msg, e1);
    add_obs(&c->msg, e2);
    send_or_die(c);
}

static void hook_step(void *ctx, int step)
{
    ServeCtx *c = ctx;
    if (step == 2)
        c->retraces_at_call2 = hz_jitstats_retraces();
    else if (step == 3 && c->retraces_at_call2 >= 0)
        c->call2_retraces = hz_jitstats_retraces() - c->retraces_at_call2;
    msg_begin(&c->msg, 'S');
    msg_add_int(&c->msg, step);
    send_or_die(c);
}

int hz_worker_serve(const HzWorkerConfig *cfg, int in, int out)
{
    ServeCtx c = {.out = out};
    char err[4096];
    char *dir = hz_target_file_dir(cfg->target);
    HzEmbedConfig ec = {cfg->python_path, cfg->n_python_path, dir};
    HzTarget target;
    const char *note = NULL;
    int rc = hz_embed_init(&ec, err, sizeof err);
    free(dir);
    if (rc == 0)
        rc = hz_target_load(cfg->target, cfg->unsupported, &target, err, sizeof err);
    if (rc == 0 && cfg->faults != NULL && *cfg->faults) {
        if (hz_target_set_faults(cfg->faults, err, sizeof err) < 0)
            rc = -1;
    }
    if (rc < 0) {
        msg_begin(&c.msg, 'F');
        msg_add(&c.msg, err);
        msg_send(&c.msg, out);
        free(c.msg.buf);
        return 2;
    }
    msg_begin(&c.msg, 'R');
    msg_add(&c.msg, target.name);
    msg_add(&c.msg, note);
    send_or_die(&c);

    HzProtocol *proto = hz_protocol_new(&target);
    HzProtocolHooks hooks = {hook_eager, hook_step, &c};
    Msg req = {0};
    for (;;) {
        int r = msg_recv(&req, in, NULL);
        if (r != 1)
            break;   /* the parent closed the pipe: done */
        Reader rd = {req.buf + 1, req.buf + req.len, false};
        if (req.buf[0] != 'I') {
            fprintf(stderr, "tracefuzz worker: unexpected message '%c'\n", req.buf[0]);
            abort();
        }
        char *filename = rd_str(&rd);
        char *source = rd_str(&rd);
        if (rd.bad || filename == NULL || source == NULL) {
            fprintf(stderr, "tracefuzz worker: malformed input message\n");
            abort();
        }
        HzOutcome o;
        c.retraces_at_call2 = -1;
        c.call2_retraces = -1;
        if (hz_protocol_run(proto, source, filename, &hooks, &o) < 0) {
            fprintf(stderr, "tracefuzz worker: out of memory deciding a verdict\n");
            abort();
        }
        msg_begin(&c.msg, 'O');
        msg_add_int(&c.msg, (long)o.kind);
        msg_add(&c.msg, o.signature);
        msg_add(&c.msg, o.report);
        for (int i = 0; i < 3; i++)
            msg_add(&c.msg, o.obs_text[i]);
        char *jst = hz_jitstats_take();    /* trailing fields: reuse statistics */
        msg_add(&c.msg, jst);
        msg_add_int(&c.msg, c.call2_retraces);
        free(jst);
        send_or_die(&c);
        hz_outcome_clear(&o);
        free(filename);
        free(source);
    }
    hz_protocol_free(proto);
    hz_target_clear(&target);
    free(req.buf);
    free(c.msg.buf);
    return 0;
}

/* ---- the parent's side ---------------------------------------------------- */

struct HzWorker {
    const HzWorkerConfig *cfg;
    HzTarget target;           /* in_process only */
    HzProtocol *proto;         /* in_process only; non-NULL once started */
    pid_t pid;
    int to_worker, from_worker;
    char *target_name;
    char *note;
    unsigned restarts;
    Msg msg;
    char *jitstats;            /* the last input's reuse statistics (malloc'd) or NULL */
    long call2_retraces;
};

HzWorker *hz_worker_new(const HzWorkerConfig *cfg)
{
    HzWorker *w = calloc(1, sizeof *w);
    if (w == NULL)
        abort();
    w->cfg = cfg;
    w->pid = -1;
    w->to_worker = w->from_worker = -1;
    signal(SIGPIPE, SIG_IGN);   /* a dead worker shows as EPIPE, not as our death */
    return w;
}

const char *hz_worker_target_name(const HzWorker *w)
{
    return w->target_name;
}

const char *hz_worker_note(const HzWorker *w)
{
    return w->note;
}

unsigned hz_worker_restarts(const HzWorker *w)
{
    return w->restarts;
}

/* Reaps the worker (killing it first when kill_it). Returns the wait status. */
static int reap(HzWorker *w, bool kill_it)
{
    int status = 0;
    if (w->to_worker >= 0)
        close(w->to_worker);
    if (w->from_worker >= 0)
        close(w->from_worker);
    w->to_worker = w->from_worker = -1;
    if (w->pid > 0) {
        if (kill_it)
            kill(w->pid, SIGKILL);
        while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR)
            ;
    }
    w->pid = -1;
    return status;
}

/* --no-fork: CPython and the target in this process, exactly as a worker sets
 * them up (hz_worker_serve). */
static int start_in_process(HzWorker *w, char *err, size_t errlen)
{
    char *dir = hz_target_file_dir(w->cfg->target);
    HzEmbedConfig ec = {w->cfg->python_path, w->cfg->n_python_path, dir};
    int rc = hz_embed_init(&ec, err, errlen);
    free(dir);
    if (rc < 0 || hz_target_load(w->cfg->target, w->cfg->unsupported, &w->target,
                                 err, errlen) < 0)
        return -1;
    if (w->cfg->faults != NULL && *w->cfg->faults) {
        if (hz_target_set_faults(w->cfg->faults, err, errlen) < 0) {
            hz_target_clear(&w->target);
            return -1;
        }
    }
    w->target_name = strdup(w->target.name);
    w->proto = hz_protocol_new(&w->target);
    return 0;
}

int hz_worker_start(HzWorker *w, char *err, size_t errlen)
{
    if (w->pid > 0 || w->proto != NULL)
        return 0;
    if (w->cfg->in_process)
        return start_in_process(w, err, errlen);
    int down[2], up[2];
    if (pipe(down) < 0 || pipe(up) < 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    fflush(stdout);
    fflush(stderr);   /* or the child would flush our buffers a second time */
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        close(down[0]);
        close(down[1]);
        close(up[0]);
        close(up[1]);
        return -1;
    }
    if (pid == 0) {
        close(down[1]);
        close(up[0]);
        /* Verdict lines own stdout: whatever programs or targets print goes to
         * stderr. */
        dup2(2, 1);
        int devnull = open("/dev/null", O_RDONLY);   /* input() must not wait */
        if (devnull >= 0) {
            dup2(devnull, 0);
            close(devnull);
        }
        int rc = hz_worker_serve(w->cfg, down[0], up[1]);
        _exit(rc);   /* no atexit handlers, no Py_Finalize: the process is done */
    }
    close(down[0]);
    close(up[1]);
    w->pid = pid;
    w->to_worker = down[1];
    w->from_worker = up[0];

    Limit start_limit = limit_wall(now_s() + START_TIMEOUT_S);
    int rc = msg_recv(&w->msg, w->from_worker, &start_limit);
    if (rc == 1 && w->msg.buf[0] == 'R') {
        Reader rd = {w->msg.buf + 1, w->msg.buf + w->msg.len, false};
        free(w->target_name);
        free(w->note);
        w->target_name = rd_str(&rd);
        w->note = rd_str(&rd);
        if (w->target_name == NULL)
            w->target_name = strdup("?");
        return 0;
    }
    if (rc == 1 && w->msg.buf[0] == 'F') {
        Reader rd = {w->msg.buf + 1, w->msg.buf + w->msg.len, false};
        char *m = rd_str(&rd);
        snprintf(err, errlen, "%s", m ? m : "the worker could not start");
        free(m);
        reap(w, true);
        return -1;
    }
    int status = reap(w, true);
    if (rc == -2)
        snprintf(err, errlen, "the worker did not start within %.0f s", START_TIMEOUT_S);
    else if (WIFSIGNALED(status))
        snprintf(err, errlen, "the worker died while starting (signal %d, %s)",
                 WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
        snprintf(err, errlen, "the worker exited while starting (status %d)",
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return -1;
}

/* What the parent learnt about an input before the worker stopped answering. */
typedef struct {
    bool have_eager, invalid;
    char *why;
    bool have[2];
    OrObservation obs[2];
    int step;   /* -1: the target run had not begun */
} Partial;

static void partial_clear(Partial *pt)
{
    free(pt->why);
    for (int i = 0; i < 2; i++)
        for (int s = 0; s < OR_SEC__COUNT; s++)
            free(pt->obs[i].section[s]);
    memset(pt, 0, sizeof *pt);
}

static void read_obs(Reader *rd, bool *have, OrObservation *o)
{
    *have = rd_int(rd) != 0;
    for (int s = 0; s < OR_SEC__COUNT; s++)
        o->section[s] = rd_str(rd);
}

/* How an attempt at an input ended when the worker stopped answering. */
typedef enum { LOST_DIED, LOST_CPU, LOST_WALL } LostHow;

/* The verdict of an input whose worker died (signal/status) or timed out (how, at
 * scale times the configured limits, on its second try). */
static void decide_lost(HzWorker *w, const Partial *pt, const char *source, LostHow how,
                        double scale, int status, HzOutcome *out)
{
    char msg[512];
    bool timed_out = how != LOST_DIED;
    OrVerdictInput in;
    memset(&in, 0, sizeof in);
    in.program_source = source;
    hz_hint_bind(&in, source);   /* a crash message naming an attribute names its kind */
    if (how == LOST_CPU)
        snprintf(msg, sizeof msg, "exceeded the CPU time limit of %g s, and of %g s when "
                 "run again in a fresh worker (the worker was killed)",
                 w->cfg->timeout, w->cfg->timeout * scale);
    else if (how == LOST_WALL)
        snprintf(msg, sizeof msg, "did not finish within %g s of wall-clock time, nor "
                 "within %g s when run again (the worker was killed; it was blocked or "
                 "sleeping, not computing: its CPU limit is %g s)",
                 w->cfg->timeout * HZ_WALL_FACTOR, w->cfg->timeout * HZ_WALL_FACTOR * scale,
                 w->cfg->timeout * scale);
    else if (WIFSIGNALED(status))
        snprintf(msg, sizeof msg, "the worker process died with signal %d (%s)",
                 WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
        snprintf(msg, sizeof msg, "the worker process exited with status %d",
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    char why[700];
    if (!pt->have_eager || pt->invalid) {
        /* The eager runs themselves hung or crashed: not a program we can test. */
        snprintf(why, sizeof why, "%s%s%s during the eager runs",
                 pt->why ? pt->why : "", pt->why ? "; then " : "", msg);
        in.invalid = true;
        in.invalid_why = why;
        in.eager1 = pt->have[0] ? &pt->obs[0] : NULL;
    }
    else {
        in.eager1 = pt->have[0] ? &pt->obs[0] : NULL;
        in.eager2 = pt->have[1] ? &pt->obs[1] : NULL;
        in.target_end = timed_out ? OR_TARGET_TIMEOUT : OR_TARGET_DIED;
        in.step = pt->step < 0 ? 0 : pt->step;
        in.signal = (!timed_out && WIFSIGNALED(status)) ? WTERMSIG(status) : 0;
        in.target_message = msg;
    }
    OrVerdict v;
    memset(&v, 0, sizeof v);
    if (or_verdict_decide(&in, &v) < 0) {
        fprintf(stderr, "tracefuzz: out of memory deciding a verdict\n");
        abort();
    }
    memset(out, 0, sizeof *out);
    out->kind = v.kind;
    out->signature = v.signature;
    out->report = v.report;
}

/* The worker's process CPU clock and its reading now; false when the kernel does
 * not give it (then only the wall-clock backstop limits the input). */
static bool worker_cpu(pid_t pid, clockid_t *clock, double *now)
{
    if (clock_getcpuclockid(pid, clock) != 0)
        return false;
    *now = clock_s(*clock);
    return *now >= 0;
}

/* One attempt at an input in the worker, limits scaled by scale. Returns 1 with out
 * filled (the worker answered), 0 when the worker was lost (*how, *status, pt keeps
 * what it said first), -1 with err when no worker starts. */
static int attempt(HzWorker *w, const char *filename, const char *source, double scale,
                   HzOutcome *out, Partial *pt, LostHow *how, int *status,
                   char *err, size_t errlen)
{
    for (int tries = 0; ; tries++) {
        if (hz_worker_start(w, err, errlen) < 0)
            return -1;
        Msg *m = &w->msg;
        msg_begin(m, 'I');
        msg_add(m, filename);
        msg_add(m, source);
        if (msg_send(m, w->to_worker) == 0)
            break;
        /* Died between inputs (nothing of this input ran): start afresh, once. */
        reap(w, true);
        w->restarts++;
        if (tries > 0) {
            snprintf(err, errlen, "the worker keeps dying before taking an input");
            return -1;
        }
    }

    memset(pt, 0, sizeof *pt);
    pt->step = -1;
    Limit lim = limit_wall(0);
    if (w->cfg->timeout > 0) {
        double cpu_now;
        lim.wall_deadline = now_s() + w->cfg->timeout * HZ_WALL_FACTOR * scale;
        lim.cpu_limited = worker_cpu(w->pid, &lim.cpu_clock, &cpu_now);
        lim.cpu_deadline = cpu_now + w->cfg->timeout * scale;
    }
    for (;;) {
        int rc = msg_recv(&w->msg, w->from_worker, &lim);
        if (rc != 1) {
            *how = rc == -3 ? LOST_CPU : rc == -2 ? LOST_WALL : LOST_DIED;
            *status = reap(w, true);
            w->restarts++;
            return 0;
        }
        Reader rd = {w->msg.buf + 1, w->msg.buf + w->msg.len, false};
        switch (w->msg.buf[0]) {
        case 'E':
            partial_clear(pt);
            pt->step = -1;
            pt->have_eager = true;
            pt->invalid = rd_int(&rd) != 0;
            pt->why = rd_str(&rd);
            read_obs(&rd, &pt->have[0], &pt->obs[0]);
            read_obs(&rd, &pt->have[1], &pt->obs[1]);
            break;
        case 'S':
            pt->step = (int)rd_int(&rd);
            break;
        case 'O':
            out->kind = (OrVerdictKind)rd_int(&rd);
            out->signature = rd_str(&rd);
            out->report = rd_str(&rd);
            for (int i = 0; i < 3; i++)
                out->obs_text[i] = rd_str(&rd);
            w->jitstats = rd_str(&rd);
            w->call2_retraces = rd_int(&rd);
            if (rd.bad || out->kind < 0 || out->kind >= OR_VERDICT__COUNT) {
                fprintf(stderr, "tracefuzz: malformed outcome from the worker\n");
                abort();
            }
            return 1;
        default:
            fprintf(stderr, "tracefuzz: unexpected message '%c' from the worker\n",
                    w->msg.buf[0]);
            abort();
        }
        if (rd.bad) {
            fprintf(stderr, "tracefuzz: malformed message from the worker\n");
            abort();
        }
    }
}

int hz_worker_run(HzWorker *w, const char *filename, const char *source,
                  HzOutcome *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    free(w->jitstats);
    w->jitstats = NULL;
    w->call2_retraces = -1;
    if (w->cfg->in_process) {
        if (hz_worker_start(w, err, errlen) < 0)
            return -1;
        if (hz_protocol_run(w->proto, source, filename, NULL, out) < 0) {
            snprintf(err, errlen, "out of memory deciding a verdict");
            return -1;
        }
        w->jitstats = hz_jitstats_take();
        return 0;
    }
    Partial pt;
    LostHow how = LOST_DIED;
    int status = 0;
    int rc = attempt(w, filename, source, 1.0, out, &pt, &how, &status, err, errlen);
    if (rc == 0 && how != LOST_DIED) {
        /* A timeout may be the machine's load or a slow first import: the input
         * gets a second try in a fresh worker with HZ_RETRY_FACTOR times the limits
         * before it is called a TIMEOUT. */
        partial_clear(&pt);
        rc = attempt(w, filename, source, HZ_RETRY_FACTOR, out, &pt, &how, &status,
                     err, errlen);
    }
    if (rc == 0)
        decide_lost(w, &pt, source, how, HZ_RETRY_FACTOR, status, out);
    if (rc >= 0)
        partial_clear(&pt);
    return rc < 0 ? -1 : 0;
}

const char *hz_worker_jitstats(const HzWorker *w, long *call2_retraces)
{
    *call2_retraces = w->call2_retraces;
    return w->jitstats;
}

void hz_worker_free(HzWorker *w)
{
    if (w == NULL)
        return;
    free(w->jitstats);
    if (w->proto != NULL) {
        hz_protocol_free(w->proto);
        hz_target_clear(&w->target);
    }
    if (w->pid > 0) {
        /* Closing its input ends the worker's loop; it exits on its own. */
        close(w->to_worker);
        w->to_worker = -1;
        reap(w, false);
    }
    free(w->target_name);
    free(w->note);
    free(w->msg.buf);
    free(w);
}
