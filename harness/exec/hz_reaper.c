/* hz_reaper.c: killing what an input leaves running, and bounding how many processes
 * it may have (see hz_reaper.h). */
#define _GNU_SOURCE
#include "hz_reaper.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#define OWN_MAX 64
#define REAP_ROUNDS 2000   /* x 1 ms: a killed process that does not die is left */

static pid_t own[OWN_MAX];
static int n_own;

typedef struct {
    pid_t pid, ppid, pgid;
} ProcInfo;

/* Reads /proc/PID/stat's ppid and pgid. false when the process is gone. */
static bool read_stat(pid_t pid, ProcInfo *pi)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = 0;
    char *p = strrchr(buf, ')');   /* the command name may hold spaces and ')' */
    char state;
    long ppid, pgid;
    if (p == NULL || sscanf(p + 1, " %c %ld %ld", &state, &ppid, &pgid) != 3)
        return false;
    pi->pid = pid;
    pi->ppid = (pid_t)ppid;
    pi->pgid = (pid_t)pgid;
    return true;
}

/* Calls fn for every process in /proc. */
static void each_process(void (*fn)(const ProcInfo *, void *), void *ctx)
{
    DIR *d = opendir("/proc");
    if (d == NULL)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        ProcInfo pi;
        if (read_stat((pid_t)atol(e->d_name), &pi))
            fn(&pi, ctx);
    }
    closedir(d);
}

static bool is_own(pid_t pid)
{
    for (int i = 0; i < n_own; i++)
        if (own[i] == pid)
            return true;
    return false;
}

static void note_own(const ProcInfo *pi, void *ctx)
{
    (void)ctx;
    if (pi->ppid == getpid() && n_own < OWN_MAX)
        own[n_own++] = pi->pid;
}

int hz_reaper_init(void)
{
    n_own = 0;
    each_process(note_own, NULL);
#ifdef PR_SET_CHILD_SUBREAPER
    if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
        return 0;
#endif
    return -1;
}

typedef struct {
    pid_t keep, group;
    pid_t found[256];
    int n;
    int count;
} Scan;

/* A child of ours that no one wants: an orphan an input left. */
static void find_orphan(const ProcInfo *pi, void *ctx)
{
    Scan *s = ctx;
    if (pi->ppid != getpid() || pi->pid == s->keep || is_own(pi->pid))
        return;
    if (s->n < (int)(sizeof s->found / sizeof s->found[0]))
        s->found[s->n++] = pi->pid;
}

int hz_reap_orphans(pid_t keep)
{
    int killed = 0;
    if (n_own == 0 && keep <= 0) {
        /* The fast path (every input): no child at all, nothing to look for. */
        int st;
        pid_t r;
        while ((r = waitpid(-1, &st, WNOHANG)) > 0)
            ;
        if (r < 0 && errno == ECHILD)
            return 0;
    }
    for (int round = 0; round < REAP_ROUNDS; round++) {
        Scan s = {.keep = keep};
        each_process(find_orphan, &s);
        if (s.n == 0)
            break;
        for (int i = 0; i < s.n; i++) {
            /* Its group too: a setsid()'d daemon leads one with its own children. */
            kill(-s.found[i], SIGKILL);
            if (kill(s.found[i], SIGKILL) == 0)
                killed++;
        }
        for (int i = 0; i < s.n; i++)
            waitpid(s.found[i], NULL, WNOHANG);
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
        for (int i = 0; i < s.n; i++)
            waitpid(s.found[i], NULL, WNOHANG);
    }
    return killed;
}

/* Counts the processes of the input: its group, and orphans it left with us. */
static void count_input(const ProcInfo *pi, void *ctx)
{
    Scan *s = ctx;
    if (pi->pgid == s->group ||
        (pi->ppid == getpid() && pi->pid != s->group && !is_own(pi->pid)))
        s->count++;
}

int hz_wait_limited(pid_t pid, int limit, int slice_ms, bool *over)
{
    int status = 0;
    *over = false;
#if defined(__linux__) && defined(SYS_pidfd_open)
    int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (pfd >= 0) {
        for (;;) {
            struct pollfd p = {pfd, POLLIN, 0};
            int r = poll(&p, 1, slice_ms);
            if (r > 0 || (r < 0 && errno != EINTR))
                break;
            if (r < 0)
                continue;
            Scan s = {.group = pid};
            each_process(count_input, &s);
            if (s.count > limit) {
                *over = true;
                kill(-pid, SIGKILL);
                kill(pid, SIGKILL);
                hz_reap_orphans(pid);
                break;
            }
        }
        close(pfd);
    }
#else
    (void)limit;
    (void)slice_ms;
#endif
    pid_t r;
    while ((r = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
        ;
    if (*over && (r < 0 || !WIFSIGNALED(status)))
        status = SIGKILL;   /* as waitpid says of a process SIGKILL ended */
    return status;
}
