/* hz_worker.c: the parent's side of the worker (see hz_worker.h); the worker's own
 * side, which forks a child per input, is hz_zygote.c. Messages are framed and
 * checked by hz_channel.c: a frame user code forged or garbled makes that input a
 * TARGET_CRASH, never an abort of the run. */
#include "hz_worker.h"
#include "hz_channel.h"
#include "hz_hint.h"
#include "hz_embed.h"
#include "hz_target.h"
#include "hz_jitstats.h"
#include "hz_reaper.h"
#include "hz_sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Loading a target can import a large framework (torch takes seconds). */
#define START_TIMEOUT_S 300.0
/* After the input's child was killed, how long the worker may take to say so. */
#define REAP_TIMEOUT_S 10.0
/* How long a worker told to stop (its pipe closed) may take to kill what its input
 * left running (hz_reap_orphans) before it is killed itself. */
#define STOP_TIMEOUT_S 2.0
/* The channel's ends in the worker: far from 0/1/2 and from what programs open. */
#define CHANNEL_FD_MIN 100

struct HzWorker {
    const HzWorkerConfig *cfg;
    HzTarget target;           /* in_process only */
    HzProtocol *proto;         /* in_process only; non-NULL once started */
    pid_t pid;                 /* the worker (its own process group) */
    pid_t child;               /* the running input's child (its own group), or -1 */
    int to_worker, from_worker;
    uint64_t token;
    char *workdir;             /* the worker's temporary directory (malloc'd) */
    char *target_name;
    unsigned restarts;
    HzMsg msg;
    char *jitstats;            /* the last input's reuse statistics (malloc'd) or NULL */
    long call2_retraces;
};

HzWorker *hz_worker_new(const HzWorkerConfig *cfg)
{
    HzWorker *w = calloc(1, sizeof *w);
    if (w == NULL)
        abort();
    w->cfg = cfg;
    w->pid = w->child = -1;
    w->to_worker = w->from_worker = -1;
    signal(SIGPIPE, SIG_IGN);   /* a dead worker shows as EPIPE, not as our death */
    return w;
}

const char *hz_worker_target_name(const HzWorker *w)
{
    return w->target_name;
}

unsigned hz_worker_restarts(const HzWorker *w)
{
    return w->restarts;
}

/* Kills the running input's child and everything in its process group (with
 * --isolation shared, the worker's). */
static void kill_child(HzWorker *w)
{
    if (w->child > 0)
        kill(-w->child, SIGKILL);
    w->child = -1;
}

/* Waits up to seconds for the worker to end. true with *status when it did. */
static bool wait_worker(pid_t pid, double seconds, int *status)
{
    double until = hz_now_s() + seconds;
    for (;;) {
        pid_t r = waitpid(pid, status, WNOHANG);
        if (r == pid || (r < 0 && errno != EINTR))
            return true;
        if (hz_now_s() >= until)
            return false;
        struct timespec ms = {0, 2000000};
        nanosleep(&ms, NULL);
    }
}

/* Ends the worker (killing the input's process group first when kill_it), removes
 * its directory. Returns the worker's wait status. The worker is killed only after
 * STOP_TIMEOUT_S: once its input's process is dead and its pipe closed, it kills
 * what that input left running outside its group (setsid daemons: only the worker,
 * their subreaper, can find them) and exits. */
static int reap(HzWorker *w, bool kill_it)
{
    int status = 0;
    if (kill_it)
        kill_child(w);
    if (w->to_worker >= 0)
        close(w->to_worker);
    if (w->from_worker >= 0)
        close(w->from_worker);
    w->to_worker = w->from_worker = -1;
    if (w->pid > 0) {
        if (!wait_worker(w->pid, kill_it ? STOP_TIMEOUT_S : START_TIMEOUT_S, &status)) {
            kill(-w->pid, SIGKILL);
            while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR)
                ;
        }
        kill(-w->pid, SIGKILL);   /* anything of its group that outlived it */
    }
    w->pid = -1;
    if (w->workdir != NULL) {
        hz_remove_tree(w->workdir);
        free(w->workdir);
        w->workdir = NULL;
    }
    return status;
}

/* Moves fd to CHANNEL_FD_MIN or above, close-on-exec. Returns the new fd or -1. */
static int park_fd(int fd)
{
    int moved = fcntl(fd, F_DUPFD_CLOEXEC, CHANNEL_FD_MIN);
    if (moved >= 0)
        close(fd);
    return moved;
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
    char tmpl[] = "/tmp/tracefuzz-worker-XXXXXX";
    if (mkdtemp(tmpl) == NULL) {
        snprintf(err, errlen, "cannot make the worker's directory: %s", strerror(errno));
        return -1;
    }
    w->workdir = strdup(tmpl);
    if (w->workdir == NULL)
        abort();
    w->token = hz_random_token();
    int down[2], up[2];
    if (pipe2(down, O_CLOEXEC) < 0 || pipe2(up, O_CLOEXEC) < 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        reap(w, false);
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
        reap(w, false);
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0);   /* killed as a group; not in the terminal's job (Ctrl-C) */
        close(down[1]);
        close(up[0]);
        int in = park_fd(down[0]), out = park_fd(up[1]);
        /* Verdict lines own stdout: whatever programs or targets print goes to
         * stderr. */
        dup2(2, 1);
        int devnull = open("/dev/null", O_RDONLY);   /* input() must not wait */
        if (devnull >= 0) {
            dup2(devnull, 0);
            close(devnull);
        }
        if (in < 0 || out < 0)
            _exit(2);
        /* Descriptors inherited from the parent (the channels of its other workers,
         * a reducer's helper) would keep those open as long as this worker lives:
         * a sibling closing its pipe would never reach its worker. */
        int lo = in < out ? in : out, hi = in < out ? out : in;
        close_range(3, (unsigned)lo - 1, 0);
        close_range((unsigned)lo + 1, (unsigned)hi - 1, 0);
        close_range((unsigned)hi + 1, ~0U, 0);
        char why[512];
        if (w->cfg->sandbox && hz_sandbox_enter(w->workdir, why, sizeof why) < 0 &&
            w->restarts == 0)
            fprintf(stderr, "tracefuzz: warning: --sandbox: %s\n", why);
        int rc = hz_worker_serve(w->cfg, in, out, w->token, w->workdir);
        _exit(rc);   /* no atexit handlers, no Py_Finalize: the process is done */
    }
    setpgid(pid, pid);
    close(down[0]);
    close(up[1]);
    w->pid = pid;
    w->to_worker = down[1];
    w->from_worker = up[0];

    HzLimit lim = {hz_now_s() + START_TIMEOUT_S, false, 0, 0, pid};
    pid_t sender = -1;
    const char *why = NULL;
    int rc = hz_msg_recv(&w->msg, w->from_worker, w->token, &lim, &sender, &why);
    if (rc == HZ_RECV_OK && sender == pid && w->msg.buf[0] == 'R') {
        HzReader rd = hz_reader(&w->msg);
        free(w->target_name);
        w->target_name = hz_rd_str(&rd);
        if (w->target_name == NULL)
            w->target_name = strdup("?");
        return 0;
    }
    if (rc == HZ_RECV_OK && sender == pid && w->msg.buf[0] == 'F') {
        HzReader rd = hz_reader(&w->msg);
        char *m = hz_rd_str(&rd);
        snprintf(err, errlen, "%s", m ? m : "the worker could not start");
        free(m);
        reap(w, true);
        return -1;
    }
    int status = reap(w, true);
    if (rc == HZ_RECV_WALL)
        snprintf(err, errlen, "the worker did not start within %.0f s", START_TIMEOUT_S);
    else if (rc == HZ_RECV_INTERRUPTED)
        snprintf(err, errlen, "interrupted by signal %d", hz_channel_interrupted());
    else if (rc == HZ_RECV_CORRUPT || rc == HZ_RECV_OK)
        snprintf(err, errlen, "the worker's first message was corrupted (%s)",
                 why ? why : "not a ready message");
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

static void read_obs(HzReader *rd, bool *have, OrObservation *o)
{
    *have = hz_rd_int(rd) != 0;
    for (int s = 0; s < OR_SEC__COUNT; s++)
        o->section[s] = hz_rd_str(rd);
}

/* How an attempt at an input ended when it gave no outcome. */
typedef enum {
    LOST_DIED,       /* the input's process died or exited before reporting */
    LOST_AFTER,      /* ... or died after reporting (a thread it left running) */
    LOST_CPU,        /* over the CPU-time limit */
    LOST_WALL,       /* over the wall-clock backstop */
    LOST_CORRUPT,    /* its channel carried a forged or garbled frame */
    LOST_WORKER,     /* the worker itself died */
    LOST_OOM,        /* out of memory outside Python (its 'M' message) */
    LOST_PROCS,      /* killed by the worker: too many processes (HZ_PROCS_LIMIT) */
} LostHow;

typedef struct {
    LostHow how;
    int status;          /* wait status (LOST_DIED, LOST_AFTER, LOST_WORKER) */
    const char *why;     /* LOST_CORRUPT: what was wrong (static text) */
    char detail[96];     /* LOST_CORRUPT: more about it */
} Lost;

/* The verdict of an input that gave no outcome, its limits scaled by scale on its
 * second try. */
static void decide_lost(HzWorker *w, const Partial *pt, const char *source, const Lost *l,
                        double scale, HzOutcome *out)
{
    char msg[512];
    bool timed_out = l->how == LOST_CPU || l->how == LOST_WALL;
    int sig = (l->how == LOST_DIED || l->how == LOST_AFTER || l->how == LOST_WORKER ||
               l->how == LOST_PROCS) &&
              WIFSIGNALED(l->status) ? WTERMSIG(l->status) : 0;
    const char *who = l->how == LOST_WORKER ? "the worker process" : "the input's process";
    const char *when = l->how == LOST_AFTER ? " after it had reported its outcome (a thread "
                                              "or handler it left running)" : "";
    OrVerdictInput in;
    memset(&in, 0, sizeof in);
    in.program_source = source;
    hz_hint_bind(&in, source);   /* a crash message naming an attribute names its kind */
    if (l->how == LOST_CPU)
        snprintf(msg, sizeof msg, "exceeded the CPU time limit of %g s, and of %g s when "
                 "run again in a fresh process (it was killed)",
                 w->cfg->timeout, w->cfg->timeout * scale);
    else if (l->how == LOST_WALL)
        snprintf(msg, sizeof msg, "did not finish within %g s of wall-clock time, nor "
                 "within %g s when run again (it was killed; it was blocked or sleeping, "
                 "not computing: its CPU limit is %g s)",
                 w->cfg->timeout * HZ_WALL_FACTOR, w->cfg->timeout * HZ_WALL_FACTOR * scale,
                 w->cfg->timeout * scale);
    else if (l->how == LOST_CORRUPT)
        snprintf(msg, sizeof msg, "the worker's report was corrupted (%s%s): user code "
                 "wrote to tracefuzz's channel, or a process it forked kept running",
                 l->why ? l->why : "?", l->detail);
    else if (l->how == LOST_OOM)
        snprintf(msg, sizeof msg, "the input's process ran out of memory (the limit is "
                 "%ld MiB of address space, --memory-limit)", w->cfg->memory_mb > 0 ?
                 w->cfg->memory_mb : HZ_MEMORY_DEFAULT_MB);
    else if (l->how == LOST_PROCS)
        snprintf(msg, sizeof msg, "the input had more than %d processes alive at once (a "
                 "fork bomb?): they were killed", HZ_PROCS_LIMIT);
    else if (sig != 0)
        snprintf(msg, sizeof msg, "%s died with signal %d (%s)%s", who, sig,
                 strsignal(sig), when);
    else
        snprintf(msg, sizeof msg, "%s exited with status %d without reporting an "
                 "outcome%s", who, WIFEXITED(l->status) ? WEXITSTATUS(l->status) : -1, when);
    char why[700];
    static const OrObservation unobserved;   /* eager runs that never ended */
    if (!pt->have_eager && timed_out) {
        /* A program may be valid and only slow (a 5 MB one): it is not a corpus
         * error but over the limit, and the message names the limit. */
        snprintf(why, sizeof why, "the eager runs of the program (before the target "
                 "ran) %s; raise --timeout for slow programs", msg);
        in.eager1 = &unobserved;
        in.target_end = OR_TARGET_TIMEOUT;
        in.target_message = why;
    }
    else if (!pt->have_eager || pt->invalid) {
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
        in.target_end = timed_out ? OR_TARGET_TIMEOUT
                        : l->how == LOST_OOM ? OR_TARGET_OOM : OR_TARGET_DIED;
        in.step = pt->step < 0 ? 0 : pt->step;
        in.signal = sig;
        in.exit_status = l->how == LOST_CORRUPT ? -1
                         : WIFEXITED(l->status) ? WEXITSTATUS(l->status) : 0;
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

/* The input's child's process CPU clock and its reading now; false when the kernel
 * does not give it (then only the wall-clock backstop limits the input). */
static bool child_cpu(pid_t pid, clockid_t *clock, double *now)
{
    if (clock_getcpuclockid(pid, clock) != 0)
        return false;
    *now = hz_clock_s(*clock);
    return *now >= 0;
}

/* After the input's child was killed: waits for the worker's 'X'. True when it came
 * (the worker is alive and warm), false when the worker had to be reaped. */
static bool await_reaped(HzWorker *w)
{
    HzLimit lim = {hz_now_s() + REAP_TIMEOUT_S, false, 0, 0, w->pid};
    for (;;) {
        pid_t sender;
        const char *why;
        int rc = hz_msg_recv(&w->msg, w->from_worker, w->token, &lim, &sender, &why);
        if (rc != HZ_RECV_OK)
            break;
        if (sender == w->pid && w->msg.buf[0] == 'X') {
            w->child = -1;
            return true;
        }
        /* the killed child's last frames: skip them */
    }
    reap(w, true);
    w->restarts++;
    return false;
}

/* One attempt at an input, limits scaled by scale. Returns 1 with out filled, 0
 * when the input gave no outcome (*lost says how; pt keeps what it said first), -1
 * with err when no worker starts, -2 when interrupted by a signal. */
static int attempt(HzWorker *w, const char *filename, const char *source, double scale,
                   HzOutcome *out, Partial *pt, Lost *lost, char *err, size_t errlen)
{
    memset(pt, 0, sizeof *pt);
    pt->step = -1;
    memset(lost, 0, sizeof *lost);
    for (int tries = 0; ; tries++) {
        if (hz_worker_start(w, err, errlen) < 0)
            return hz_channel_interrupted() ? -2 : -1;
        hz_msg_begin(&w->msg, 'I');
        hz_msg_add(&w->msg, filename);
        hz_msg_add(&w->msg, source);
        if (hz_msg_send(&w->msg, w->to_worker, w->token) == 0)
            break;
        /* Died between inputs (nothing of this input ran): start afresh, once. */
        reap(w, true);
        w->restarts++;
        if (tries > 0) {
            snprintf(err, errlen, "the worker keeps dying before taking an input");
            return -1;
        }
    }
    bool got_outcome = false, oom = false;
    HzLimit lim = {0, false, 0, 0, w->pid};
    if (w->cfg->timeout > 0)
        lim.wall_deadline = hz_now_s() + w->cfg->timeout * HZ_WALL_FACTOR * scale;
    for (;;) {
        pid_t sender = -1;
        const char *why = NULL;
        int rc = hz_msg_recv(&w->msg, w->from_worker, w->token, &lim, &sender, &why);
        if (rc == HZ_RECV_CPU || rc == HZ_RECV_WALL) {
            lost->how = rc == HZ_RECV_CPU ? LOST_CPU : LOST_WALL;
            kill_child(w);
            await_reaped(w);
            return 0;
        }
        if (rc == HZ_RECV_INTERRUPTED) {
            reap(w, true);
            return -2;
        }
        if (rc != HZ_RECV_OK) {
            /* The worker ended, or the channel is garbled: nothing more can be read. */
            lost->how = rc == HZ_RECV_CORRUPT ? LOST_CORRUPT : LOST_WORKER;
            lost->why = why;
            lost->status = reap(w, true);
            w->restarts++;
            return 0;
        }
        HzReader rd = hz_reader(&w->msg);
        char type = (char)w->msg.buf[0];
        bool from_worker = sender == w->pid, from_child = w->child > 0 && sender == w->child;
        if (from_worker && type == 'C' && w->child < 0) {
            w->child = (pid_t)hz_rd_int(&rd);
            double cpu_now;
            if (w->cfg->timeout > 0 && child_cpu(w->child, &lim.cpu_clock, &cpu_now)) {
                lim.cpu_limited = true;
                lim.cpu_deadline = cpu_now + w->cfg->timeout * scale;
            }
        }
        else if (from_worker && type == 'X') {
            int status = (int)hz_rd_int(&rd);
            int reason = (int)hz_rd_int(&rd);
            w->child = -1;
            if (status == -1) {
                snprintf(err, errlen, "the worker cannot start a process for the input");
                if (got_outcome)
                    hz_outcome_clear(out);
                return -1;
            }
            bool crashed = WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status)) ||
                           reason != HZ_END_NONE;
            if (got_outcome && !crashed)
                return 1;
            if (got_outcome)
                hz_outcome_clear(out);
            lost->how = reason == HZ_END_PROCS ? LOST_PROCS
                        : oom ? LOST_OOM : got_outcome ? LOST_AFTER : LOST_DIED;
            lost->status = status;
            return 0;
        }
        else if (from_child && type == 'M' && !got_outcome) {
            oom = true;
        }
        else if (from_child && type == 'E' && !got_outcome) {
            partial_clear(pt);
            pt->step = -1;
            pt->have_eager = true;
            pt->invalid = hz_rd_int(&rd) != 0;
            pt->why = hz_rd_str(&rd);
            read_obs(&rd, &pt->have[0], &pt->obs[0]);
            read_obs(&rd, &pt->have[1], &pt->obs[1]);
        }
        else if (from_child && type == 'S' && !got_outcome) {
            pt->step = (int)hz_rd_int(&rd);
        }
        else if (from_child && type == 'O' && !got_outcome) {
            memset(out, 0, sizeof *out);
            out->kind = (OrVerdictKind)hz_rd_int(&rd);
            out->signature = hz_rd_str(&rd);
            out->report = hz_rd_str(&rd);
            for (int i = 0; i < 3; i++)
                out->obs_text[i] = hz_rd_str(&rd);
            free(w->jitstats);
            w->jitstats = hz_rd_str(&rd);
            w->call2_retraces = hz_rd_int(&rd);
            got_outcome = true;
            if (rd.bad || out->kind < 0 || out->kind >= OR_VERDICT__COUNT)
                rd.bad = true;
        }
        else {
            rd.bad = true;
            why = from_worker || from_child ? "a message out of order"
                                            : "a frame from another process";
            snprintf(lost->detail, sizeof lost->detail, ": '%c' from pid %ld",
                     type >= 32 && type < 127 ? type : '?', (long)sender);
        }
        if (rd.bad) {
            if (got_outcome)
                hz_outcome_clear(out);
            lost->how = LOST_CORRUPT;
            lost->why = why ? why : "a malformed message";
            kill_child(w);
            lost->status = reap(w, true);
            w->restarts++;
            return 0;
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
    Lost lost;
    int rc = attempt(w, filename, source, 1.0, out, &pt, &lost, err, errlen);
    if (rc == 0 && (lost.how == LOST_CPU || lost.how == LOST_WALL)) {
        /* A timeout may be the machine's load or a slow first import: the input
         * gets a second try in a fresh process with HZ_RETRY_FACTOR times the
         * limits before it is called a TIMEOUT. */
        partial_clear(&pt);
        rc = attempt(w, filename, source, HZ_RETRY_FACTOR, out, &pt, &lost, err, errlen);
    }
    if (rc == 0)
        decide_lost(w, &pt, source, &lost, HZ_RETRY_FACTOR, out);
    partial_clear(&pt);   /* attempt always initialises it, whatever it returns */
    if (rc == -2)
        snprintf(err, errlen, "interrupted by signal %d", hz_channel_interrupted());
    return rc < 0 ? rc : 0;
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
    /* Closing its input ends the worker's loop; after an interruption it is killed. */
    reap(w, hz_channel_interrupted() != 0 || w->child > 0);
    free(w->target_name);
    hz_msg_free(&w->msg);
    free(w);
}
