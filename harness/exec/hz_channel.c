/* hz_channel.c: framed, checked messages between tracefuzz and its workers (see
 * hz_channel.h). */
#include "hz_channel.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <unistd.h>

#define NULL_FIELD UINT32_MAX
#define HEADER 20   /* u32 length, u64 token, u32 pid, u32 checksum */
/* How often a CPU-limited or watched wait looks at the clock and the worker. */
#define POLL_SLICE_MS 50

static volatile sig_atomic_t interrupted_by;

void hz_channel_on_signal(int sig)
{
    interrupted_by = sig;
}

int hz_channel_interrupted(void)
{
    return interrupted_by;
}

double hz_clock_s(clockid_t c)
{
    struct timespec ts;
    if (clock_gettime(c, &ts) < 0)
        return -1;
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double hz_now_s(void)
{
    return hz_clock_s(CLOCK_MONOTONIC);
}

uint64_t hz_random_token(void)
{
    uint64_t t = 0;
    if (getrandom(&t, sizeof t, 0) != (ssize_t)sizeof t || t == 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);   /* no entropy source: still not guessable by accident */
        t = ((uint64_t)ts.tv_nsec << 32) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 16);
    }
    return t;
}

static uint32_t fnv1a(const uint8_t *p, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 16777619u;
    }
    return h;
}

/* ---- building and sending ---- */

static void reserve(HzMsg *m, size_t more)
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

void hz_msg_begin(HzMsg *m, char type)
{
    m->len = 0;
    reserve(m, HEADER + 1);
    memset(m->buf, 0, HEADER);
    m->buf[HEADER] = (uint8_t)type;
    m->len = HEADER + 1;
}

void hz_msg_add(HzMsg *m, const char *s)
{
    uint32_t n = s ? (uint32_t)strlen(s) : NULL_FIELD;
    reserve(m, 4 + (s ? n : 0));
    memcpy(m->buf + m->len, &n, 4);
    m->len += 4;
    if (s) {
        memcpy(m->buf + m->len, s, n);
        m->len += n;
    }
}

void hz_msg_add_int(HzMsg *m, long v)
{
    char tmp[32];
    snprintf(tmp, sizeof tmp, "%ld", v);
    hz_msg_add(m, tmp);
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

int hz_msg_send(HzMsg *m, int fd, uint64_t token)
{
    uint32_t payload = (uint32_t)(m->len - HEADER);
    uint32_t pid = (uint32_t)getpid();
    uint32_t sum = fnv1a(m->buf + HEADER, payload);
    memcpy(m->buf, &payload, 4);
    memcpy(m->buf + 4, &token, 8);
    memcpy(m->buf + 12, &pid, 4);
    memcpy(m->buf + 16, &sum, 4);
    return write_all(fd, m->buf, m->len);
}

void hz_msg_free(HzMsg *m)
{
    free(m->buf);
    memset(m, 0, sizeof *m);
}

/* ---- receiving ---- */

/* Whether the watched child has exited (left unreaped for the caller). */
static bool exited(pid_t pid)
{
    siginfo_t info;
    memset(&info, 0, sizeof info);
    return waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
           info.si_pid == pid;
}

/* Reads exactly n bytes within lim. Returns HZ_RECV_OK, _EOF, or an error code. */
static int read_full(int fd, uint8_t *p, size_t n, const HzLimit *lim)
{
    while (n > 0) {
        if (interrupted_by != 0)
            return HZ_RECV_INTERRUPTED;
        if (lim != NULL) {
            double left = lim->wall_deadline > 0 ? lim->wall_deadline - hz_now_s() : 1e9;
            if (left <= 0)
                return HZ_RECV_WALL;
            int ms = left * 1000 > 1e8 ? 100000000 : (int)(left * 1000) + 1;
            if ((lim->cpu_limited || lim->watch > 0) && ms > POLL_SLICE_MS)
                ms = POLL_SLICE_MS;
            struct pollfd pfd = {.fd = fd, .events = POLLIN};
            int pr = poll(&pfd, 1, ms);
            if (pr < 0) {
                if (errno == EINTR)
                    continue;
                return HZ_RECV_ERROR;
            }
            if (pr == 0) {
                if (lim->cpu_limited && hz_clock_s(lim->cpu_clock) >= lim->cpu_deadline)
                    return HZ_RECV_CPU;
                if (lim->watch > 0 && exited(lim->watch))
                    return HZ_RECV_DIED;
                continue;
            }
        }
        ssize_t got = read(fd, p, n);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return HZ_RECV_ERROR;
        }
        if (got == 0)
            return HZ_RECV_EOF;
        p += got;
        n -= (size_t)got;
    }
    return HZ_RECV_OK;
}

int hz_msg_recv(HzMsg *m, int fd, uint64_t token, const HzLimit *lim, pid_t *sender,
                const char **why)
{
    uint8_t head[HEADER];
    *why = NULL;
    int rc = read_full(fd, head, HEADER, lim);
    if (rc != HZ_RECV_OK)
        return rc;
    uint32_t n, pid, sum;
    uint64_t tok;
    memcpy(&n, head, 4);
    memcpy(&tok, head + 4, 8);
    memcpy(&pid, head + 12, 4);
    memcpy(&sum, head + 16, 4);
    if (tok != token) {
        *why = "a frame without the worker's token";
        return HZ_RECV_CORRUPT;
    }
    if (n == 0 || n > HZ_MAX_MESSAGE) {
        *why = "a frame of impossible length";
        return HZ_RECV_CORRUPT;
    }
    m->len = 0;
    reserve(m, n);
    rc = read_full(fd, m->buf, n, lim);
    if (rc == HZ_RECV_EOF) {
        *why = "the channel ended inside a frame";
        return HZ_RECV_CORRUPT;
    }
    if (rc != HZ_RECV_OK)
        return rc;
    if (fnv1a(m->buf, n) != sum) {
        *why = "a frame whose checksum does not match";
        return HZ_RECV_CORRUPT;
    }
    m->len = n;
    *sender = (pid_t)pid;
    return HZ_RECV_OK;
}

HzReader hz_reader(const HzMsg *m)
{
    HzReader r = {m->buf + 1, m->buf + m->len, m->len < 1};
    return r;
}

char *hz_rd_str(HzReader *r)
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

long hz_rd_int(HzReader *r)
{
    char *s = hz_rd_str(r);
    long v = s ? strtol(s, NULL, 10) : 0;
    free(s);
    return v;
}
