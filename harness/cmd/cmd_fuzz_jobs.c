/* cmd_fuzz_jobs.c: fuzz's libFuzzer jobs (cmd_fuzz.h). --jobs N runs N persistent
 * libFuzzer processes, each one tf_fuzz with CPython and the target initialised once,
 * on one shared corpus directory: each writes its new inputs there and rereads it
 * every second (-reload=1), so a job's discovery reaches the others without a merge.
 * libFuzzer's -fork=N, used before, started a fresh tf_fuzz per job and per restart,
 * each re-initialising CPython and re-reading the corpus: 0.41-0.49x of one job
 * (issue 14).
 *
 * libFuzzer stops at a crash, so a job that ends on a finding is restarted on the
 * grown corpus for the time left, with the next seed. A job whose process fails before
 * it finished reading the corpus (no INITED line: an input of the corpus or the seeds
 * fails) would fail again on every restart: that job goes on in fork mode (-fork=1,
 * crashes ignored) for the rest of the run.
 *
 * Each job's process is the leader of its own process group, with its own TMPDIR
 * (fork mode's and the target's temporary files): SIGINT/SIGTERM to tracefuzz, the
 * deadline and --first end a job by signalling its group (SIGTERM, SIGKILL 5 s
 * later), and its group is killed again after the leader ended (whatever the target
 * left behind); the TMPDIRs are removed at the end. */
#define _GNU_SOURCE   /* pipe2 */
#include "cmd.h"
#include "cmd_fuzz.h"
#include "hz_channel.h"
#include "hz_worker.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Past --time a process is signalled: libFuzzer checks -max_total_time between
 * inputs, and an input may take -timeout=30 s. */
#define GRACE_S 60.0
#define KILL_AFTER_S 5.0   /* SIGTERM, then SIGKILL */
/* Between two reads of the jobs' pipes. libFuzzer writes a status line for every input
 * it keeps (a quarter of the inputs early on) as a dozen write()s, each flushed; with
 * this process asleep in poll() on the pipe, every one of them woke it (on a virtual
 * machine an interprocessor interrupt): 6-7% of a job's CPU time went to waking its
 * reader. Asleep elsewhere, it is not on the pipe's wait queue and the writes wake
 * nobody; 64 KiB of pipe hold ~2 s of the busiest output. */
#define READ_PAUSE_NS 100000000L

typedef struct {
    unsigned id;
    pid_t pid;                 /* the running process, leader of its group; 0 when none */
    int fd;                    /* its stdout and stderr; -1 when closed */
    FILE *log;                 /* OUT/fuzz-J.log; NULL for one job (fuzz.log is its log) */
    char tmpdir[4096];         /* its processes' TMPDIR; "" until the first start */
    unsigned starts;           /* processes started */
    bool fork_mode;            /* a corpus input fails: -fork=1 for the rest of the run */
    bool inited;               /* the running process read the corpus (INITED) */
    bool done;
    double term_at;            /* when its group was sent SIGTERM; 0 when not */
    bool killed;               /* SIGKILL sent */
    FuzzStats st;              /* over all its processes */
    unsigned long crash_base;  /* crashes of earlier processes (fork mode counts anew) */
    char line[8192];
    size_t len;
} FuzzJob;

/* The engine's argument list of a job's next process: the one place it is built. */
typedef struct {
    char *argv[24];
    char time[64], seed[64], rss[64], dict[4200], art[4200];
} EngineArgs;

static void engine_args(const CmdFuzzJobs *c, const FuzzJob *j, double left, EngineArgs *a)
{
    int n = 0;
    /* Distinct per job and per restart (a restarted job does not replay its
     * predecessor's mutations); 0 would mean "libFuzzer picks". */
    uint32_t seed = c->seed + j->id + c->jobs * j->starts;
    snprintf(a->time, sizeof a->time, "-max_total_time=%.0f", left);
    snprintf(a->seed, sizeof a->seed, "-seed=%u", seed ? seed : 1u);
    snprintf(a->rss, sizeof a->rss, "-rss_limit_mb=%ld", c->rss_limit_mb);
    snprintf(a->art, sizeof a->art, "-artifact_prefix=%s", c->artifacts);
    a->argv[n++] = (char *)c->fuzzer;
    a->argv[n++] = a->time;
    a->argv[n++] = a->seed;
    if (j->fork_mode) {
        a->argv[n++] = "-fork=1";
        a->argv[n++] = "-ignore_crashes=1";
        a->argv[n++] = "-ignore_timeouts=1";
        a->argv[n++] = "-ignore_ooms=1";
    }
    else {
        /* libFuzzer's default, which the jobs rely on; one job has nobody to hear
         * from, and a reload stats every corpus file (1.4% of a loop's instructions
         * at 1,000 inputs, growing with the corpus). */
        a->argv[n++] = c->jobs > 1 ? "-reload=1" : "-reload=0";
    }
    a->argv[n++] = "-timeout=30";
    a->argv[n++] = a->rss;
    a->argv[n++] = "-detect_leaks=0";
    a->argv[n++] = "-print_final_stats=1";
    a->argv[n++] = a->art;
    if (c->dict != NULL) {
        snprintf(a->dict, sizeof a->dict, "-dict=%s", c->dict);
        a->argv[n++] = a->dict;
    }
    a->argv[n++] = (char *)c->corpus;   /* the first directory: written and reloaded */
    a->argv[n++] = (char *)c->seeds;
    a->argv[n] = NULL;
}

/* One line of a job's output into its numbers. libFuzzer's status lines:
 *   #4096  NEW  cov: 21 ft: 1240 corp: 429/59Kb ... exec/s: 217 rss: 38Mb ...
 *   #4096: cov: 21 ft: 1240 corp: 429 exec/s 217 oom/timeout/crash: 0/0/3 time: ...
 * (the second is fork mode's); stat::number_of_executed_units at the end (also after
 * a crash or SIGTERM); "Test unit written to" for each input saved as a finding. */
static void parse_line(const char *line, FuzzJob *j)
{
    static const char nondet[] = "tracefuzz fuzz target: NONDETERMINISTIC input";
    static const char units[] = "stat::number_of_executed_units:";
    FuzzStats *st = &j->st;
    if (strncmp(line, nondet, sizeof nondet - 1) == 0)
        st->nondet++;
    /* (fork mode's parent counts only what it ran itself: its status lines count all) */
    if (!j->fork_mode && strncmp(line, units, sizeof units - 1) == 0)
        st->execs = st->base + strtoull(line + sizeof units - 1, NULL, 10);
    /* fork mode reports its children's crashes in oom/timeout/crash only */
    if (!j->fork_mode && strstr(line, "Test unit written to ") != NULL)
        st->crashes++;
    if (line[0] != '#' || !isdigit((unsigned char)line[1]))
        return;
    st->execs = st->base + strtoull(line + 1, NULL, 10);
    const char *p;
    if (strstr(line, "\tINITED ") != NULL)
        j->inited = true;
    if ((p = strstr(line, "cov: ")) != NULL)
        st->cov = strtol(p + 5, NULL, 10);
    if ((p = strstr(line, "ft: ")) != NULL)
        st->ft = strtol(p + 4, NULL, 10);
    if ((p = strstr(line, "corp: ")) != NULL)
        st->corpus = strtol(p + 6, NULL, 10);
    if ((p = strstr(line, "exec/s")) != NULL) {
        p += 6;
        while (*p == ':' || *p == ' ')
            p++;
        st->execs_per_s = strtod(p, NULL);
    }
    if ((p = strstr(line, "oom/timeout/crash: ")) != NULL) {
        unsigned long o = 0, t = 0, c = 0;
        if (sscanf(p + 19, "%lu/%lu/%lu", &o, &t, &c) == 3)
            st->crashes = j->crash_base + o + t + c;
    }
}

/* A complete line (or a cut piece of a long one): the job's log, the run's log, the
 * numbers. */
static void job_line(FuzzJob *j, FILE *log, bool many)
{
    j->line[j->len] = 0;
    if (j->log != NULL)
        fprintf(j->log, "%s\n", j->line);
    if (many)
        fprintf(log, "[%u] %s\n", j->id, j->line);
    else
        fprintf(log, "%s\n", j->line);
    parse_line(j->line, j);
    j->len = 0;
}

/* Reads what the job's process wrote so far; the logs are flushed (they are read
 * while the run goes on). Returns false at EOF. */
static bool job_read(FuzzJob *j, FILE *log, bool many)
{
    char buf[4096];
    ssize_t n;
    bool any = false;
    while ((n = read(j->fd, buf, sizeof buf)) > 0) {
        any = true;
        for (ssize_t i = 0; i < n; i++) {
            if (buf[i] == '\n')
                job_line(j, log, many);
            else {
                j->line[j->len++] = buf[i];
                if (j->len + 1 >= sizeof j->line)
                    job_line(j, log, many);
            }
        }
    }
    if (any) {
        if (j->log != NULL)
            fflush(j->log);
        fflush(log);
    }
    return !(n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR));
}

static void job_close_output(FuzzJob *j, FILE *log, bool many)
{
    if (j->fd < 0)
        return;
    job_read(j, log, many);
    if (j->len > 0)
        job_line(j, log, many);
    close(j->fd);
    j->fd = -1;
}

/* Starts the job's next process for left seconds. Returns 0, or -1 (message printed). */
static int job_start(const CmdFuzzJobs *c, FuzzJob *j, double left)
{
    if (j->tmpdir[0] == 0) {
        const char *t = getenv("TMPDIR");
        snprintf(j->tmpdir, sizeof j->tmpdir, "%s/tracefuzz-job%u-XXXXXX",
                 t != NULL && *t ? t : "/tmp", j->id);
        if (mkdtemp(j->tmpdir) == NULL) {
            fprintf(stderr, "tracefuzz fuzz: cannot create %s: %s\n", j->tmpdir,
                    strerror(errno));
            j->tmpdir[0] = 0;
            return -1;
        }
    }
    EngineArgs a;
    engine_args(c, j, left, &a);
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) < 0)
        return -1;
    fflush(stdout);
    fflush(stderr);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0);
        /* tracefuzz killed outright (SIGKILL): the job does not run on alone */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            _exit(127);
        setenv("TMPDIR", j->tmpdir, 1);
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        execv(a.argv[0], a.argv);
        fprintf(stderr, "tracefuzz fuzz: cannot run %s: %s\n", a.argv[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid);   /* as the child does: no window where a kill misses it */
    close(fds[1]);
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    j->pid = pid;
    j->fd = fds[0];
    j->starts++;
    j->inited = false;
    j->term_at = 0;
    j->killed = false;
    return 0;
}

static void job_terminate(FuzzJob *j, double now)
{
    if (j->pid > 0 && j->term_at == 0) {
        kill(-j->pid, SIGTERM);
        j->term_at = now;
    }
}

static void sum_jobs(const FuzzJob *jobs, unsigned n, FuzzStats *t)
{
    memset(t, 0, sizeof *t);
    for (unsigned k = 0; k < n; k++) {
        const FuzzStats *s = &jobs[k].st;
        t->execs += s->execs;
        t->execs_per_s += jobs[k].pid > 0 ? s->execs_per_s : 0;
        t->crashes += s->crashes;
        t->nondet += s->nondet;
        /* one shared corpus: the best job's view of it, not a sum */
        if (s->cov > t->cov)
            t->cov = s->cov;
        if (s->ft > t->ft)
            t->ft = s->ft;
        if (s->corpus > t->corpus)
            t->corpus = s->corpus;
    }
    t->base = t->execs;
}

static int exit_code(int status)
{
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int cmd_fuzz_libfuzzer(const CmdFuzzJobs *c, FILE *log, double start, CmdFuzzJobsResult *r)
{
    memset(r, 0, sizeof *r);
    unsigned n = c->jobs < 1 ? 1 : c->jobs > CMD_FUZZ_JOBS_MAX ? CMD_FUZZ_JOBS_MAX : c->jobs;
    bool many = n > 1;
    FuzzJob *jobs = calloc(n, sizeof *jobs);
    if (jobs == NULL)
        abort();
    int rc = 0;
    unsigned started = 0;
    for (unsigned k = 0; k < n; k++) {
        FuzzJob *j = &jobs[k];
        j->id = k;
        j->fd = -1;
        if (many) {
            char path[4096];
            snprintf(path, sizeof path, "%s/fuzz-%u.log", c->out, k);
            if ((j->log = fopen(path, "we")) == NULL)
                fprintf(stderr, "tracefuzz fuzz: cannot write %s: %s\n", path,
                        strerror(errno));
        }
    }
    if (many)
        fprintf(stderr, "tracefuzz fuzz: %u persistent libFuzzer jobs on %s, seeds %u..%u, "
                "logs %s/fuzz-J.log\n", n, c->corpus, c->seed, c->seed + n - 1, c->out);
    for (unsigned k = 0; k < n; k++) {
        if (job_start(c, &jobs[k], c->time_s) == 0)
            started++;
        else
            jobs[k].done = true;
    }
    if (started == 0) {
        r->last_status = -1;
        rc = -1;
    }
    bool stopping = false;     /* interrupted, --first or past the deadline: no restarts */
    double last = cmd_now();
    struct pollfd pfds[CMD_FUZZ_JOBS_MAX];
    for (;;) {
        unsigned np = 0, running = 0;
        for (unsigned k = 0; k < n; k++) {
            if (jobs[k].fd >= 0)
                pfds[np++] = (struct pollfd){jobs[k].fd, POLLIN, 0};
            if (jobs[k].pid > 0)
                running++;
        }
        if (running == 0)
            break;
        /* the pipes, or a timeout when a leader exited while something it left
         * holds its pipe open (found by waitpid below); a signal ends the pause */
        nanosleep(&(struct timespec){0, READ_PAUSE_NS}, NULL);
        poll(pfds, np, 250);
        double now = cmd_now();
        int sig = hz_channel_interrupted();
        if (sig != 0 && r->interrupted == 0) {
            r->interrupted = sig;
            stopping = true;
            for (unsigned k = 0; k < n; k++)
                job_terminate(&jobs[k], now);
        }
        if (now - start > c->time_s + GRACE_S && !stopping) {
            stopping = true;
            for (unsigned k = 0; k < n; k++)
                job_terminate(&jobs[k], now);
        }
        for (unsigned k = 0; k < n; k++) {
            FuzzJob *j = &jobs[k];
            if (j->fd >= 0 && !job_read(j, log, many)) {
                job_close_output(j, log, many);
            }
            if (j->pid <= 0)
                continue;
            if (j->term_at > 0 && !j->killed && now - j->term_at > KILL_AFTER_S) {
                kill(-j->pid, SIGKILL);
                j->killed = true;
            }
            int status;
            pid_t w = waitpid(j->pid, &status, WNOHANG);
            if (w == 0 || (w < 0 && errno == EINTR))
                continue;
            /* the process ended: what it left in its group goes too */
            kill(-j->pid, SIGKILL);
            job_close_output(j, log, many);
            if (j->log != NULL)
                fflush(j->log);
            j->pid = 0;
            int code = w < 0 ? 0 : exit_code(status);
            bool ended_by_us = j->term_at > 0;
            j->st.base = j->st.execs;
            j->crash_base = j->st.crashes;
            j->st.execs_per_s = 0;
            r->last_status = code;
            if (ended_by_us || stopping || code == 0 || j->fork_mode) {
                j->done = true;   /* its time is up, or the run is over */
                continue;
            }
            if (c->first) {   /* --first: one finding is what was asked for (a seed's too) */
                stopping = true;
                j->done = true;
                for (unsigned m = 0; m < n; m++)
                    job_terminate(&jobs[m], now);
                continue;
            }
            if (!j->inited) {
                if (many)
                    fprintf(stderr, "tracefuzz fuzz: job %u: an input of the corpus fails: "
                            "going on in fork mode\n", j->id);
                else
                    fprintf(stderr, "tracefuzz fuzz: an input of the corpus fails: going on "
                            "in fork mode\n");
                j->fork_mode = true;
                r->fork_fallbacks++;
            }
            else {
                r->restarts++;
            }
            double left = c->time_s - (now - start);
            if (left < 1 || job_start(c, j, left) < 0)
                j->done = true;
        }
        if (now - last >= PROGRESS_EVERY_S) {
            last = now;
            FuzzStats t;
            sum_jobs(jobs, n, &t);
            cmd_fuzz_progress(&t, now - start, false);
        }
    }
    sum_jobs(jobs, n, &r->total);
    fflush(log);
    for (unsigned k = 0; k < n; k++) {
        if (jobs[k].log != NULL)
            fclose(jobs[k].log);
        if (jobs[k].tmpdir[0] != 0)
            hz_remove_tree(jobs[k].tmpdir);
    }
    free(jobs);
    return rc;
}
