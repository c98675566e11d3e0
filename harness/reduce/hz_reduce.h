/* hz_reduce.h: signature-preserving reduction of a failing input (`tracefuzz
 * reduce`, and fuzz's reduction of each new signature's first finding).
 *
 *   HzOracle      runs candidates through workers (the same HzWorker as `run`,
 *                 N of them for --jobs N) and calls a candidate interesting when
 *                 its signature equals the original's: an OK, INVALID or other
 *                 failing candidate is rejected. Sources already tried are
 *                 remembered by hash.                            hz_reduce_oracle.c
 *   hz_reduce_ir  bytes inputs: hierarchical delta debugging on the IR (classes,
 *                 metaclasses, arguments, between(), make_other(), members,
 *                 statements, then kinds, variants, values), to a fixpoint.
 *                                                                 hz_reduce_ir.c
 *   hz_reduce_text  source programs: statements, class members, decorators and
 *                 expressions by their AST (a helper process with the embedded
 *                 interpreter, hz_reduce_ast.py), then single lines and blocks;
 *                 edits are made on the text, so comments and `# tf:` tags stay.
 *                                                  hz_reduce_text.c, hz_reduce_helper.c
 * Every accepted candidate is strictly smaller than the one before by (size,
 * bytes), size being hz_program_text_size: the reduction ends. */
#ifndef HZ_REDUCE_H
#define HZ_REDUCE_H

#include "hz_input.h"
#include "hz_program.h"
#include "hz_worker.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- one input, end to end (hz_reduce_run.c: `reduce` and `fuzz` call this) ----
 *
 * Runs the input under fork isolation, exactly as `run` does: its signature is the
 * one to keep. Candidates run under shared isolation (one warm worker process, no
 * fork per candidate: measured 25 ms against 470 ms a candidate, docs/CLI.md)
 * unless fork_only or unless the original's signature differs there; the results
 * (the reduced IR's program and the reduced text) are then run under fork
 * isolation, and if either lost the signature the reduction is done again with
 * fork-isolated candidates, within the same time limit. A result that still loses
 * it when run once more (a flaky input) is replaced by the input itself. */
typedef struct {
    const HzWorkerConfig *wc;  /* target, faults, limits (isolation is decided here) */
    unsigned jobs;             /* workers testing candidates at once (>= 1) */
    double time_limit;         /* seconds for the whole reduction; 0: none */
    bool fork_only;            /* candidates under fork isolation too */
    FILE *log;                 /* one line per phase, or NULL */
} HzReduceConfig;

typedef struct {
    char *signature;           /* the original's (malloc'd) */
    char *py;                  /* the reduced program (malloc'd) */
    uint8_t *tf;               /* bytes inputs: hz_encode of the reduced IR (malloc'd) */
    size_t tf_size;
    size_t lines_before, bytes_before, lines_after, bytes_after;
    double seconds;
    unsigned long tried, cached;
    bool shared;               /* candidates ran under shared isolation */
    bool fell_back;            /* ... and the result did not hold under fork: redone */
    bool expired;              /* the time limit ended it */
    bool unconfirmed;          /* the result lost the signature when run again under
                                * fork isolation: the result is the input itself */
} HzReduceResult;

/* 0 reduced (or already minimal), 1 the input does not fail (OK, UNSUPPORTED,
 * INVALID, NONDETERMINISTIC: err says which), -1 no worker or helper (err), -2
 * interrupted by a signal (res holds the best so far). */
int hz_reduce_input(const HzReduceConfig *cfg, const HzInput *in, HzReduceResult *res,
                    char *err, size_t errlen);
void hz_reduce_result_clear(HzReduceResult *res);

/* ---- the oracle ---- */

typedef struct HzOracle HzOracle;

/* jobs workers of configuration wc (borrowed: must outlive the oracle); candidates
 * run under `filename` (as `run` names a .py input by its path, a bytes input
 * "<tfprog>"). The wanted signature is set by hz_oracle_set_signature. Never
 * returns NULL. */
HzOracle *hz_oracle_new(const HzWorkerConfig *wc, unsigned jobs, const char *filename);
void hz_oracle_free(HzOracle *o);

/* Starts the workers. 0, or -1 with err. */
int hz_oracle_start(HzOracle *o, char *err, size_t errlen);

/* Runs one source on worker 0: 0 with out filled (hz_outcome_clear it), -1 with err
 * (no worker), -2 interrupted by a signal. Counts as a candidate tried. */
int hz_oracle_run(HzOracle *o, const char *source, HzOutcome *out, char *err, size_t errlen);

void hz_oracle_set_signature(HzOracle *o, const char *signature);   /* copied */
/* After this monotonic time (cmd_now's clock, hz_reduce_now) every candidate is
 * rejected unrun: the reduction stops where it is. 0: no limit. */
void hz_oracle_set_deadline(HzOracle *o, double deadline);

/* The index of the first of srcs[0..n) (in order) whose signature is the wanted
 * one, or -1 when none is. With N workers, N candidates run at once. */
long hz_oracle_first(HzOracle *o, char *const *srcs, size_t n);

typedef struct {
    unsigned long tried;     /* candidates run */
    unsigned long cached;    /* candidates answered from the memory of sources */
    unsigned long accepted;  /* candidates that kept the signature */
    bool expired;            /* the deadline stopped the reduction */
    bool interrupted;        /* a signal did (the signal number: hz_channel_interrupted) */
    bool broken;             /* no worker could be started */
} HzOracleStats;
const HzOracleStats *hz_oracle_stats(const HzOracle *o);

double hz_reduce_now(void);   /* monotonic seconds */

/* True when a is strictly smaller than b: fewer program lines, or as many and
 * fewer bytes. */
bool hz_reduce_smaller(const char *a, const char *b);

/* ---- the two reducers ---- */

/* Reduces *p in place (p's source under NULL emit options is what candidates run).
 * Returns 0, or -1 when the oracle broke (no worker). */
int hz_reduce_ir(HzProgram *p, HzOracle *o);

/* The AST helper: a process with the embedded interpreter, forked before any worker
 * (it must not hold a worker's channel). NULL with err when it cannot start. */
typedef struct HzAstHelper HzAstHelper;
HzAstHelper *hz_ast_helper_new(char *err, size_t errlen);
void hz_ast_helper_free(HzAstHelper *h);

/* One statement that owns its lines (hz_reduce_ast.py's "D" unit). */
typedef struct {
    int depth, body, first, last;   /* lines 1-based, inclusive */
} HzAstUnit;

/* Asks for the units and whole-text rewrites of src. 0 (arrays malloc'd: free
 * them, the rewrites with hz_reduce_strings_free), 1 when src does not parse, -1
 * when the helper died. */
int hz_ast_analyse(HzAstHelper *h, const char *src, HzAstUnit **units, size_t *nunits,
                   char ***rewrites, size_t *nrewrites);
/* ok[i]: whether srcs[i] compiles. 0, or -1 when the helper died. */
int hz_ast_compiles(HzAstHelper *h, char *const *srcs, size_t n, bool *ok);
void hz_reduce_strings_free(char **v, size_t n);

/* Reduces *src (malloc'd; replaced by the reduced text) keeping the signature.
 * Returns 0, or -1 when the oracle or the helper broke (then *src is the smallest
 * interesting text found so far). */
int hz_reduce_text(char **src, HzOracle *o, HzAstHelper *h);

#endif
