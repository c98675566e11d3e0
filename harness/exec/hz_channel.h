/* hz_channel.h: the framed messages between tracefuzz and its worker processes.
 *
 * The channel is a pipe that user code can reach: a target or a program runs in a
 * process that holds its write end (it is never fd 0/1/2 and is close-on-exec, but a
 * fork()ed child or ctypes can still write to it). So every frame carries what user
 * code cannot guess or keep consistent by accident:
 *
 *   u32 payload length | u64 token | u32 sender pid | u32 checksum | payload
 *
 * The token is random per worker (made by the parent before it forks the worker),
 * the checksum is FNV-1a over the payload, the sender's pid lets the parent tell the
 * input's process from a second writer (a fork of it). A frame that fails any check
 * is HZ_RECV_CORRUPT: the stream cannot be trusted after it, the caller kills the
 * worker, and the input is a TARGET_CRASH ("the worker's report was corrupted"),
 * never an abort of tracefuzz. Host byte order: both ends are the same binary.
 *
 * Payload: one type byte, then fields, each u32 length + bytes (UINT32_MAX: NULL). */
#ifndef HZ_CHANNEL_H
#define HZ_CHANNEL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#define HZ_MAX_MESSAGE (256u << 20)

typedef struct {
    uint8_t *buf;      /* header then payload while building; payload after receiving */
    size_t len, cap;   /* after receiving: len is the payload's length */
} HzMsg;

void hz_msg_begin(HzMsg *m, char type);
void hz_msg_add(HzMsg *m, const char *s);   /* NULL is a NULL field */
void hz_msg_add_int(HzMsg *m, long v);
/* Frames and writes the message. 0, or -1 (the reader is gone). */
int hz_msg_send(HzMsg *m, int fd, uint64_t token);
void hz_msg_free(HzMsg *m);

/* When a wait for a message is over: a wall-clock deadline, and a budget of one
 * process's CPU time (the input's process), and a process whose death ends the wait
 * (the worker: its end is no EOF while the input's process holds the pipe). */
typedef struct {
    double wall_deadline;     /* CLOCK_MONOTONIC seconds; <= 0: none */
    bool cpu_limited;
    clockid_t cpu_clock;      /* the input process's CPU clock */
    double cpu_deadline;      /* its reading at which the input is over */
    pid_t watch;              /* > 0: stop when this child has exited (not reaped) */
} HzLimit;

enum {
    HZ_RECV_OK = 1,
    HZ_RECV_EOF = 0,
    HZ_RECV_ERROR = -1,        /* read error */
    HZ_RECV_WALL = -2,         /* wall deadline passed */
    HZ_RECV_CPU = -3,          /* CPU budget spent */
    HZ_RECV_CORRUPT = -4,      /* a frame failed its checks (m->buf says why) */
    HZ_RECV_DIED = -5,         /* the watched process exited */
    HZ_RECV_INTERRUPTED = -6,  /* SIGINT/SIGTERM arrived (hz_channel_interrupted) */
};

/* Receives one frame into m (payload at m->buf, m->len) and its sender's pid. lim may
 * be NULL (wait forever). Returns one of HZ_RECV_*; for HZ_RECV_CORRUPT, why says
 * what was wrong (static text). */
int hz_msg_recv(HzMsg *m, int fd, uint64_t token, const HzLimit *lim, pid_t *sender,
                const char **why);

/* Reading fields back out of a received payload. */
typedef struct {
    const uint8_t *p, *end;
    bool bad;
} HzReader;

HzReader hz_reader(const HzMsg *m);           /* after the type byte */
char *hz_rd_str(HzReader *r);                 /* malloc'd copy, or NULL */
long hz_rd_int(HzReader *r);

double hz_now_s(void);                        /* CLOCK_MONOTONIC seconds */
double hz_clock_s(clockid_t c);               /* any clock, seconds; -1 on error */
uint64_t hz_random_token(void);

/* SIGINT/SIGTERM: tracefuzz's handler records the signal here (async-signal-safe),
 * and every wait for a worker returns HZ_RECV_INTERRUPTED from then on. */
void hz_channel_on_signal(int sig);
int hz_channel_interrupted(void);             /* the signal, or 0 */

#endif
