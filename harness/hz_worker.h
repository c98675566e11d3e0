/* hz_worker.h: running inputs in a forked worker process with a time limit.
 *
 * The parent (the `tracefuzz run` process) never initialises CPython: it forks a
 * worker that initialises CPython and loads the target once, then runs input after
 * input (no per-input re-initialisation). The two talk over a pair of pipes with
 * length-prefixed messages:
 *
 *   parent -> worker   'I' filename source            one input
 *   worker -> parent   'R' target-name note           ready (after init + target load)
 *                      'F' message                    cannot start (then exits 2)
 *                      'E' invalid why e1[7] e2[7]    eager runs done (observations)
 *                      'S' step                       target step 0..3 begins
 *                      'O' kind sig report obs[3]     the outcome of the input
 *
 * A worker that dies makes that input TARGET_CRASH (with the signal). The time limit
 * is on the worker's CPU time, so a loaded machine does not turn a slow target into
 * TIMEOUTs; wall time only backs it up (HZ_WALL_FACTOR times the limit, for a target
 * that sleeps or blocks). A worker over either limit is killed and the input runs
 * once more in a fresh worker with HZ_RETRY_FACTOR times the limits; only when that
 * times out too is the input TIMEOUT. The eager observations already
 * received still decide NONDETERMINISTIC / INVALID first, by the same precedence
 * (or_verdict_decide runs no Python, so the parent calls it). The next input starts
 * a fresh worker. */
#ifndef HZ_WORKER_H
#define HZ_WORKER_H

#include "hz_protocol.h"

#include <stdbool.h>
#include <stddef.h>

#define HZ_WALL_FACTOR 10.0
#define HZ_RETRY_FACTOR 3.0

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
} HzWorkerConfig;

typedef struct HzWorker HzWorker;

/* cfg is borrowed and must outlive the worker. Never returns NULL. */
HzWorker *hz_worker_new(const HzWorkerConfig *cfg);

/* Starts the worker if it is not running and waits until it is ready. Returns 0, or
 * -1 with a message in err (the target cannot be loaded, CPython cannot start). */
int hz_worker_start(HzWorker *w, char *err, size_t errlen);

/* The target's name as resolved by the worker (the default made explicit), and a
 * note to print once (e.g. faults the tracer cannot set yet) or NULL. Valid after a
 * successful start. */
const char *hz_worker_target_name(const HzWorker *w);
const char *hz_worker_note(const HzWorker *w);

/* Runs one input (starting a worker if needed). Returns 0 with out filled, or -1
 * with err when no worker can be started. */
int hz_worker_run(HzWorker *w, const char *filename, const char *source,
                  HzOutcome *out, char *err, size_t errlen);

/* The trace-reuse statistics of the last input run (hz_jitstats.h text, NULL when
 * none) and in *call2_retraces the retraces of its call 2 (-1 unknown). */
const char *hz_worker_jitstats(const HzWorker *w, long *call2_retraces);

/* How many workers died or were killed so far. */
unsigned hz_worker_restarts(const HzWorker *w);

/* Stops the worker (closing its pipe ends it) and frees w. */
void hz_worker_free(HzWorker *w);

/* The worker's side, exposed for tests: serves inputs on fds in/out until EOF. */
int hz_worker_serve(const HzWorkerConfig *cfg, int in, int out);

#endif
