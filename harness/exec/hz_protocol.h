/* hz_protocol.h: the run protocol of one input (DESIGN.md "The run protocol").
 *
 * The source is compiled once (by top-level piece, cached: hz_codecache.h); the code
 * runs three times, each in a fresh namespace: eager 1, eager 2, then through the
 * target (in fast mode, hz_protocol_set_fast, eager 2 only when needed). In each run
 *   f = program | target(program); args = make(); r1 = f(*args);
 * (target(program) and every f(*args) called from Python functions of the
 * program's module, HZ_DRIVER_FILENAME, so that the target sees a normal caller);
 *   between(*args) if defined; r2 = f(*args);
 *   args2 = make_other() if defined else make(); r3 = f(*args2)
 * make, between and make_other always run eagerly. The raw material of each run goes
 * to or_observe, the three observations and the way the target run ended to
 * or_verdict_decide. Exceptions raised by the target are classified here, the only
 * place that sees their types and tracebacks:
 *   tfjit.ProvenanceError or any class named ProvenanceError  -> PROVENANCE
 *   the declared unsupported exception                         -> UNSUPPORTED
 *   tfjit.LimitExceeded                                        -> TIMEOUT
 *   raised where eager's same step did not, with the innermost
 *   traceback frame outside the program's file                 -> TARGET_CRASH
 *   target(program) itself raising                             -> TARGET_CRASH */
#ifndef HZ_PROTOCOL_H
#define HZ_PROTOCOL_H

#include "hz_codecache.h"
#include "hz_target.h"
#include "or_verdict.h"

#include <stdbool.h>

/* What one input comes to: the worker sends exactly this back to its parent. */
typedef struct {
    OrVerdictKind kind;
    char *signature;        /* malloc'd */
    char *report;           /* malloc'd, may be "" for OK */
    char *obs_text[3];      /* eager 1, eager 2, target; malloc'd or NULL */
} HzOutcome;

void hz_outcome_clear(HzOutcome *o);

/* Progress notifications (the worker forwards them to its parent, so that a crash
 * or a timeout in the target run still has the eager observations). Optional. */
typedef struct {
    /* After both eager runs: whether the input is invalid (why) and the
     * observations (NULL where a run did not get that far). */
    void (*eager_done)(void *ctx, bool invalid, const char *why,
                       const OrObservation *e1, const OrObservation *e2);
    /* Before target(program) (step 0) and before each call of f (steps 1..3). */
    void (*target_step)(void *ctx, int step);
    void *ctx;
} HzProtocolHooks;

typedef struct HzProtocol HzProtocol;

/* A protocol runner for one target (borrowed: must outlive the runner). CPython must
 * be initialised. Never returns NULL (aborts on out-of-memory). */
HzProtocol *hz_protocol_new(const HzTarget *target);
void hz_protocol_free(HzProtocol *p);

/* Runs one input. filename names the code (a .py path, or "<tfprog>"). hooks may be
 * NULL. Returns 0 (out filled; clear with hz_outcome_clear), or -1 on out-of-memory.
 * Leaves no Python exception set: one left over is a harness bug and aborts. */
int hz_protocol_run(HzProtocol *p, const char *source, const char *filename,
                    const HzProtocolHooks *hooks, HzOutcome *out);

/* Compiles source into the code cache without running any of it (a worker does
 * this before forking an input's process, so compiled pieces outlive the process
 * and serve later inputs). Leaves no exception set. */
void hz_protocol_precompile(HzProtocol *p, const char *source, const char *filename);

/* The compiled-code cache's counters (hz_codecache.h: sources and pieces reused). */
HzCodeCacheStats hz_protocol_code_stats(const HzProtocol *p);

/* Fast mode, for the in-process fuzz targets: an input whose eager run 1 and target
 * run agree (or that is INVALID) is decided without eager run 2, and its outcome
 * has no observation texts (and, when OK, an empty report); every other input runs the full protocol again, so its
 * verdict, report and texts are those of the full protocol. Applies to calls
 * without hooks only. Off by default. */
void hz_protocol_set_fast(HzProtocol *p, bool fast);

/* Every `every` inputs (default 100) a full collection, then gc.freeze() of what
 * survives it; every `thaw_every` inputs (default 10,000; a multiple of every) the
 * frozen objects are thawed first (hz_protocol.c, periodic_collect). For tests. */
void hz_protocol_set_gc(HzProtocol *p, unsigned long every, unsigned long thaw_every);

/* The fixed module name programs run under (classes get it as __module__). */
#define HZ_PROGRAM_MODULE "tfprog"

/* The file name of the caller functions through which the target is created and
 * called (`__tracefuzz_jit__`, `__tracefuzz_step__`, `__tracefuzz_call__`, put into
 * each run's namespace after the module body ran): their frames are tracefuzz's,
 * neither the program's nor the target's. */
#define HZ_DRIVER_FILENAME "<tracefuzz-driver>"

#endif
