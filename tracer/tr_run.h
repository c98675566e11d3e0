/* tr_run.h: the state of one traced call of jit(fn), shared by the interpreter
 * (tr_eval.c, tr_call.c), the attribute protocol (tr_attr.c) and the provenance
 * cache (tr_cache.c). A TrRun lives for one top-level call; when it ends, every
 * Python reference it holds (cache entries, trace) is released, so the traced
 * world is collectable afterwards. */
#ifndef TR_RUN_H
#define TR_RUN_H

#include "tr_value.h"

typedef struct TrCache TrCache;   /* tr_cache.c: identity-preserving attribute cache */
typedef struct TrTrace TrTrace;   /* tr_trace.c: the recorded operations, printable */

typedef struct TrRun {
    int64_t budget;          /* instructions left; 0 raises tfjit.LimitExceeded */
    int depth;               /* interpreted frames active */
    int max_depth;           /* bound on interpreted call depth (LimitExceeded) */
    TrCache *cache;          /* owned */
    TrTrace *trace;          /* owned */
    unsigned faults;         /* snapshot of tr_faults_active() at the start of the run */
    struct TrRecorder *rec;  /* tr_reuse.h: records the top-level frame's path, or NULL */
} TrRun;

/* Appends one operation to the run's trace: "what" describes it (e.g. "LOAD_ATTR test"),
 * result is borrowed (its provenance chain is printed, the object is not kept).
 * Returns 0, or -1 with MemoryError set. Implemented by tr_trace.c. */
int tr_trace_record(TrRun *run, const char *what, const TrValue *result);

/* Limits; chosen so a generated program never reaches them and a runaway loop does
 * quickly (SQLite's ossfuzz habit: a budget instead of a signal). */
#define TR_DEFAULT_BUDGET   (50 * 1000 * 1000)
#define TR_DEFAULT_MAX_DEPTH 200

/* Exceptions of the tfjit module (borrowed references, set by the module init). */
extern PyObject *tr_ProvenanceError;   /* provenance assertion failed */
extern PyObject *tr_Unsupported;       /* the tracer cannot trace this (documented) */
extern PyObject *tr_LimitExceeded;     /* instruction or depth budget exhausted */

#endif
