/* hz_worker.h: running inputs in worker processes, isolated and time-limited.
 *
 * The parent (the `tracefuzz run` process) never initialises CPython. It forks a
 * worker that initialises CPython and loads the target once, and the worker forks
 * one child per input from that warm state (hz_zygote.c): no state crosses inputs
 * (builtins, sys, modules, the target's caches die with the child), and no input
 * pays for CPython's start-up. Worker and child each lead their own process group
 * (killed as a group: nothing an input forks survives it; Ctrl-C reaches only
 * tracefuzz, which ends them), run in a temporary directory removed afterwards, and
 * the child runs under limits (memory, file size, no core files).
 *
 * They talk over a pair of pipes with framed, checked messages (hz_channel.h):
 *
 *   parent -> worker   'I' filename source            one input
 *   worker -> parent   'R' target-name                ready (after init + target load)
 *                      'F' message                    cannot start (then exits 2)
 *                      'C' pid                        the input's child started
 *                      'X' wait-status reason         the input's child ended (reason:
 *                                                     HZ_END_*, the worker killed it)
 *   child  -> parent   'E' invalid why e1[7] e2[7]    eager runs done (observations)
 *                      'S' step                       target step 0..3 begins
 *                      'O' kind sig report obs[3]     the outcome of the input
 *                      'M'                            out of memory outside Python
 *
 * A child that dies, exits without an outcome, or dies after it (a thread it left
 * running) makes that input TARGET_CRASH (with the signal or exit status); a forged
 * or garbled frame on the channel makes it TARGET_CRASH too ("the worker's report
 * was corrupted"), and the worker is replaced. The time limit is on the child's CPU
 * time, so a loaded machine does not turn a slow target into TIMEOUTs; wall time
 * only backs it up (HZ_WALL_FACTOR times the limit, for a target that sleeps or
 * blocks). A child over either limit is killed and the input runs once more with
 * HZ_RETRY_FACTOR times the limits; only when that times out too is it TIMEOUT. The
 * eager observations already received still decide NONDETERMINISTIC / INVALID
 * first, by the same precedence (or_verdict_decide runs no Python, so the parent
 * calls it).
 *
 * A later kind of worker (a whole interpreter with its own JIT, e.g. PyPy, in
 * another process) speaks the same messages: only the worker's side changes. */
#ifndef HZ_WORKER_H
#define HZ_WORKER_H

#include "hz_protocol.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HZ_WALL_FACTOR 10.0
#define HZ_RETRY_FACTOR 3.0
#define HZ_MEMORY_DEFAULT_MB 4096L   /* address space of an input's process */
#define HZ_FILE_LIMIT_MB 256L        /* largest file an input may write */
#define HZ_FILES_LIMIT 4096          /* descriptors an input's process may hold */
#define HZ_THREAD_GRACE_MS 100       /* after the outcome, for threads the input left */

/* Why the worker ended an input's process early ('X' message). */
enum { HZ_END_NONE = 0, HZ_END_PROCS = 1 };

typedef struct {
    const char *target;                /* --target, NULL for the default */
    const char *unsupported;           /* --unsupported, or NULL */
    const char *const *python_path;    /* --python-path DIRs */
    size_t n_python_path;
    const char *faults;                /* comma list or NULL */
    double timeout;                    /* CPU seconds per input (the worker's process
                                        * CPU time; HZ_WALL_FACTOR times as much wall
                                        * time as a backstop) */
    bool in_process;                   /* --no-fork: run in this process (debugging;
                                        * no time limit, a crash ends the run) */
    bool shared;                       /* --isolation shared: inputs run one after
                                        * the other in the worker itself, no child
                                        * per input (faster; state may cross) */
    bool sandbox;                      /* --sandbox: no network, a read-only file
                                        * system but for the worker's directory
                                        * (hz_sandbox.h) */
    long memory_mb;                    /* address-space limit of an input's process,
                                        * MiB; 0: HZ_MEMORY_DEFAULT_MB (not applied
                                        * under ASan) */
} HzWorkerConfig;

typedef struct HzWorker HzWorker;

/* cfg is borrowed and must outlive the worker. Never returns NULL. */
HzWorker *hz_worker_new(const HzWorkerConfig *cfg);

/* Starts the worker if it is not running and waits until it is ready. Returns 0, or
 * -1 with a message in err (the target cannot be loaded, CPython cannot start). */
int hz_worker_start(HzWorker *w, char *err, size_t errlen);

/* The target's name as resolved by the worker (the default made explicit). Valid
 * after a successful start. */
const char *hz_worker_target_name(const HzWorker *w);

/* Runs one input (starting a worker if needed). Returns 0 with out filled, -1 with
 * err when no worker can be started, -2 when a signal interrupted it
 * (hz_channel_on_signal; the worker and the input's processes are killed). */
int hz_worker_run(HzWorker *w, const char *filename, const char *source,
                  HzOutcome *out, char *err, size_t errlen);

/* The trace-reuse statistics of the last input run (hz_jitstats.h text, NULL when
 * none) and in *call2_retraces the retraces of its call 2 (-1 unknown). */
const char *hz_worker_jitstats(const HzWorker *w, long *call2_retraces);

/* How many workers died or were killed so far. */
unsigned hz_worker_restarts(const HzWorker *w);

/* Stops the worker (closing its pipe ends it) and frees w. */
void hz_worker_free(HzWorker *w);

/* The worker's side (hz_zygote.c): serves inputs on fds in/out until EOF, in
 * workdir (NULL: the current directory), framing with token. */
int hz_worker_serve(const HzWorkerConfig *cfg, int in, int out, uint64_t token,
                    const char *workdir);

/* Removes a directory tree (hz_zygote.c). */
void hz_remove_tree(const char *path);

#endif
