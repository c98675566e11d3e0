/* hz_zygote.c: the worker's side (hz_worker.h): a warm process that forks one
 * child per input.
 *
 * The worker initialises CPython and loads the target once, then never runs an
 * input itself: each input runs in a child forked from it (copy-on-write, as an
 * Android zygote), so builtins, sys, modules and the target's own state changed by
 * one input die with that child and never reach the next. The child is its own
 * process group, in a fresh directory, under resource limits; after it ends, the
 * worker kills what is left of its group (daemons, forks that kept running) and
 * removes its directory, then reports how it ended ('X').
 *
 *   worker -> parent   'R' target-name            ready
 *                      'F' message                cannot start (then exits 2)
 *                      'C' pid                    the input's child started
 *                      'X' wait-status reason     the input's child ended (reason:
 *                                                 HZ_END_*, why the worker ended it)
 *   child  -> parent   'E' 'S' 'O'                as hz_worker.h says
 *   parent -> worker   'I' filename source        one input */
#include "hz_worker.h"
#include "hz_channel.h"
#include "hz_embed.h"
#include "hz_jitstats.h"
#include "hz_program.h"
#include "hz_reaper.h"
#include "hz_target.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define HZ_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HZ_ASAN 1
#endif
#endif

#define INPUT_DIR "input"

typedef struct {
    int out;
    uint64_t token;
    HzMsg msg;
    long retraces_at_call2;     /* hz_jitstats: retraces counted when call 2 began */
    long call2_retraces;        /* retraces during call 2, -1 unknown */
} ServeCtx;

static void send_or_die(ServeCtx *c)
{
    if (hz_msg_send(&c->msg, c->out, c->token) < 0)
        _exit(3);   /* the parent is gone */
}

static void add_obs(HzMsg *m, const OrObservation *o)
{
    hz_msg_add_int(m, o != NULL);
    for (int s = 0; s < OR_SEC__COUNT; s++)
        hz_msg_add(m, o ? o->section[s] : NULL);
}

static void hook_eager(void *ctx, bool invalid, const char *why,
                       const OrObservation *e1, const OrObservation *e2)
{
    ServeCtx *c = ctx;
    hz_msg_begin(&c->msg, 'E');
    hz_msg_add_int(&c->msg, invalid);
    hz_msg_add(&c->msg, why);
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
    hz_msg_begin(&c->msg, 'S');
    hz_msg_add_int(&c->msg, step);
    send_or_die(c);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

/* Removes a directory tree (what an input left in its directory). */
void hz_remove_tree(const char *path)
{
    chmod(path, 0700);   /* an input may have made it unreadable */
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Lowers a limit to at most v (never raises one the caller set lower). */
static void lower_limit(int which, rlim_t v)
{
    struct rlimit r;
    if (getrlimit(which, &r) < 0)
        return;
    if (r.rlim_max != RLIM_INFINITY && r.rlim_max < v)
        v = r.rlim_max;
    r.rlim_cur = r.rlim_max = v;
    setrlimit(which, &r);
}

/* Limits of an input's child: no core files, bounded files, descriptors and memory
 * (processes are counted by the worker: hz_reaper.h). */
static void apply_limits(const HzWorkerConfig *cfg)
{
    lower_limit(RLIMIT_CORE, 0);
    lower_limit(RLIMIT_FSIZE, (rlim_t)HZ_FILE_LIMIT_MB << 20);
    lower_limit(RLIMIT_NOFILE, HZ_FILES_LIMIT);
#ifndef HZ_ASAN   /* ASan reserves terabytes of address space */
    long mb = cfg->memory_mb > 0 ? cfg->memory_mb : HZ_MEMORY_DEFAULT_MB;
    lower_limit(RLIMIT_AS, (rlim_t)mb << 20);
#else
    (void)cfg;
#endif
}

/* Runs the protocol and sends the outcome. Returns 0, or -1 on out-of-memory. */
static int run_protocol(HzProtocol *proto, ServeCtx *c, const char *filename,
                        const char *source)
{
    HzProtocolHooks hooks = {hook_eager, hook_step, c};
    HzOutcome o;
    c->retraces_at_call2 = -1;
    c->call2_retraces = -1;
    if (hz_protocol_run(proto, source, filename, &hooks, &o) < 0)
        return -1;
    hz_msg_begin(&c->msg, 'O');
    hz_msg_add_int(&c->msg, (long)o.kind);
    hz_msg_add(&c->msg, o.signature);
    hz_msg_add(&c->msg, o.report);
    for (int i = 0; i < 3; i++)
        hz_msg_add(&c->msg, o.obs_text[i]);
    char *jst = hz_jitstats_take();    /* trailing fields: reuse statistics */
    hz_msg_add(&c->msg, jst);
    hz_msg_add_int(&c->msg, c->call2_retraces);
    free(jst);
    hz_outcome_clear(&o);
    send_or_die(c);
    return 0;
}

/* Threads of this process, from /proc (1 when it cannot tell). */
static long thread_count(void)
{
    FILE *f = fopen("/proc/self/stat", "re");
    if (f == NULL)
        return 1;
    char buf[1024];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    long threads = 1;
    /* after the name: state ppid pgrp session tty tpgid flags minflt cminflt majflt
     * cmajflt utime stime cutime cstime priority nice num_threads */
    if (p == NULL || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u "
                            "%*d %*d %*d %*d %ld", &threads) != 1)
        return 1;
    return threads;
}

/* After the outcome: threads the input left running get HZ_THREAD_GRACE_MS to end,
 * so that one which crashes a moment after the call returned (a background thread)
 * crashes this input's process, not a later one's, and is reported for this input.
 * Costs nothing when the input left no thread. Never returns the GIL. */
static void thread_grace(void)
{
    if (thread_count() <= 1)
        return;
    PyEval_SaveThread();   /* let them run; the process ends without taking it back */
    for (int ms = 0; ms < HZ_THREAD_GRACE_MS && thread_count() > 1; ms += 2) {
        struct timespec t = {0, 2000000};
        nanosleep(&t, NULL);
    }
}

/* The input's child: runs the protocol and reports, then ends without running
 * atexit handlers or finalising anything the input may have left half-done. */
static void run_child(const HzWorkerConfig *cfg, HzProtocol *proto, ServeCtx *c,
                      const char *filename, const char *source)
{
    if (chdir(INPUT_DIR) < 0)
        _exit(4);
    apply_limits(cfg);
    /* Memory kept back so that running out of it can still be reported. */
    void *reserve = malloc(1 << 20);
    int rc = run_protocol(proto, c, filename, source);
    if (rc < 0) {
        free(reserve);
        hz_msg_begin(&c->msg, 'M');   /* out of memory outside Python (MemoryError) */
        send_or_die(c);
    }
    fflush(stdout);
    fflush(stderr);
    thread_grace();
    _exit(rc < 0 ? 5 : 0);
}

/* --isolation shared: the input runs in the worker itself, after the inputs before
 * it (faster where forking is dear; what an input changes in the interpreter stays
 * for the next). The parent sees the worker's pid as the input's process. */
static int run_here(HzProtocol *proto, ServeCtx *c, const char *filename,
                    const char *source)
{
    hz_msg_begin(&c->msg, 'C');
    hz_msg_add_int(&c->msg, (long)getpid());
    send_or_die(c);
    if (run_protocol(proto, c, filename, source) < 0) {
        fprintf(stderr, "tracefuzz worker: out of memory deciding a verdict\n");
        abort();
    }
    return 0;
}

/* Forks the input's child, waits for it, cleans up after it. Returns the child's
 * wait status, or -1 when no child could be started; *reason says why the worker
 * ended it early (HZ_END_*). */
static int run_input(const HzWorkerConfig *cfg, HzProtocol *proto, ServeCtx *c, int in,
                     const char *filename, const char *source, int *reason)
{
    int go[2];
    hz_protocol_precompile(proto, source, filename);
    if (mkdir(INPUT_DIR, 0700) < 0 && errno != EEXIST)
        return -1;
    if (pipe2(go, O_CLOEXEC) < 0)
        return -1;
    fflush(stdout);
    fflush(stderr);
    PyOS_BeforeFork();
    pid_t pid = fork();
    if (pid == 0) {
        PyOS_AfterFork_Child();
        close(in);          /* inputs are the worker's to read */
        close(go[1]);
        setpgid(0, 0);
        char b;
        /* Starts only once the parent knows its pid (the 'C' message). */
        while (read(go[0], &b, 1) < 0 && errno == EINTR)
            ;
        close(go[0]);
        run_child(cfg, proto, c, filename, source);
    }
    PyOS_AfterFork_Parent();
    close(go[0]);
    if (pid < 0) {
        close(go[1]);
        return -1;
    }
    setpgid(pid, pid);   /* both sides set it: no race with a kill of the group */
    hz_msg_begin(&c->msg, 'C');
    hz_msg_add_int(&c->msg, (long)pid);
    send_or_die(c);
    ssize_t wr;
    do
        wr = write(go[1], "g", 1);
    while (wr < 0 && errno == EINTR);
    close(go[1]);
    bool over = false;
    int status = hz_wait_limited(pid, HZ_PROCS_LIMIT, 50, &over);
    if (over)
        *reason = HZ_END_PROCS;
    kill(-pid, SIGKILL);   /* whatever it forked and left running */
    hz_reap_orphans(0);    /* and what left the group (setsid), now ours */
    hz_remove_tree(INPUT_DIR);
    return status;
}

/* Runs one program of tracefuzz's own (the decoding of the empty input, which has
 * the generator's usual shapes) in the worker itself, through the identity (the
 * target may hang or crash: that is for an input's child to find), so that what
 * every input needs once (imports made on first use, the code cache's first
 * entries) is done before the first fork rather than again in every child. */
static void warm_up(HzProtocol *proto)
{
    HzProgram *prog = hz_decode((const uint8_t *)"", 0);
    char *source = prog ? hz_emit(prog, NULL) : NULL;
    HzTarget identity;
    char err[256];
    if (source != NULL && hz_target_load("identity", NULL, &identity, err, sizeof err) == 0) {
        HzProtocol *warm = hz_protocol_new(&identity);
        HzOutcome o;
        if (hz_protocol_run(warm, source, "<tracefuzz-warm-up>", NULL, &o) == 0)
            hz_outcome_clear(&o);
        hz_protocol_free(warm);
        hz_target_clear(&identity);
    }
    hz_protocol_precompile(proto, source ? source : "", "<tfprog>");
    free(source);
    hz_program_free(prog);
    free(hz_jitstats_take());   /* the warm-up is no input: its statistics go */
}

int hz_worker_serve(const HzWorkerConfig *cfg, int in, int out, uint64_t token,
                    const char *workdir)
{
    ServeCtx c = {.out = out, .token = token};
    char err[4096];
    char *dir = hz_target_file_dir(cfg->target);
    HzEmbedConfig ec = {cfg->python_path, cfg->n_python_path, dir};
    HzTarget target;
    int rc = hz_embed_init(&ec, err, sizeof err);
    free(dir);
    if (rc == 0)
        rc = hz_target_load(cfg->target, cfg->unsupported, &target, err, sizeof err);
    if (rc == 0 && cfg->faults != NULL && *cfg->faults) {
        if (hz_target_set_faults(cfg->faults, err, sizeof err) < 0)
            rc = -1;
    }
    /* The target is loaded (relative paths resolved): inputs run elsewhere. */
    if (rc == 0 && workdir != NULL && chdir(workdir) < 0) {
        snprintf(err, sizeof err, "cannot enter the worker's directory %s: %s", workdir,
                 strerror(errno));
        rc = -1;
    }
    if (rc < 0) {
        hz_msg_begin(&c.msg, 'F');
        hz_msg_add(&c.msg, err);
        hz_msg_send(&c.msg, out, token);
        hz_msg_free(&c.msg);
        return 2;
    }
    hz_msg_begin(&c.msg, 'R');
    hz_msg_add(&c.msg, target.name);
    send_or_die(&c);

    HzProtocol *proto = hz_protocol_new(&target);
    warm_up(proto);
    hz_reaper_init();   /* after the target's start: its helpers are its own */
    HzMsg req = {0};
    pid_t parent = getppid();
    for (;;) {
        pid_t sender;
        const char *why;
        int r = hz_msg_recv(&req, in, token, NULL, &sender, &why);
        if (r != HZ_RECV_OK)
            break;   /* the parent closed the pipe (or it is not the parent): done */
        HzReader rd = hz_reader(&req);
        if (sender != parent || req.buf[0] != 'I')
            break;
        char *filename = hz_rd_str(&rd);
        char *source = hz_rd_str(&rd);
        int status = -1, reason = HZ_END_NONE;
        if (!rd.bad && filename != NULL && source != NULL && cfg->shared)
            status = run_here(proto, &c, filename, source);
        else if (!rd.bad && filename != NULL && source != NULL)
            status = run_input(cfg, proto, &c, in, filename, source, &reason);
        free(filename);
        free(source);
        hz_msg_begin(&c.msg, 'X');
        hz_msg_add_int(&c.msg, status);
        hz_msg_add_int(&c.msg, reason);
        send_or_die(&c);
    }
    hz_protocol_free(proto);
    hz_target_clear(&target);
    hz_msg_free(&req);
    hz_msg_free(&c.msg);
    return 0;
}
