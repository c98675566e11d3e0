/* hz_jitstats.h: trace-reuse statistics of the built-in tracer over a run
 * (`tracefuzz run --stats`, docs/REUSE.md).
 *
 * The worker takes tfjit.stats() after each input (and resets them, so each input
 * sends its own counts) and the retraces that happened during call 2 (the call after
 * between()); the parent sums the counts key-wise and, per between kind found in the
 * program's `# tf: between=KIND` tags, counts the programs and those whose call 2
 * retraced. */
#ifndef HZ_JITSTATS_H
#define HZ_JITSTATS_H

#include <stdio.h>

/* ---- worker side (CPython initialised) ---- */
/* This input's counts as "name=count" lines (nonzero only), malloc'd, and resets
 * them; NULL when the tfjit module is not there. Leaves no exception set. */
char *hz_jitstats_take(void);
/* The retraces counted so far (not reset), -1 when unknown. */
long hz_jitstats_retraces(void);

/* ---- parent side ---- */
typedef struct HzJitStats HzJitStats;
HzJitStats *hz_jitstats_new(void);          /* never NULL (aborts) */
void hz_jitstats_free(HzJitStats *s);
/* Adds one input's counts (text from hz_jitstats_take, may be NULL) and, when
 * call2_retraces >= 0, its between kinds found in source. */
void hz_jitstats_add(HzJitStats *s, const char *text, const char *source, long call2_retraces);
void hz_jitstats_print(const HzJitStats *s, FILE *out);

#endif
