/* hz_pycov.h: coverage feedback that C edge coverage cannot give.
 *
 * Two sources feed one array of extra counters (libFuzzer's
 * `__libfuzzer_extra_counters` section; in a build by afl-clang-fast, the AFL++
 * shared-memory map as well):
 *   - semantic features of the input, reported by the fuzz target with hz_cov_hit
 *     (descriptor kind x access pattern, between kinds, the verdict);
 *   - for a target written in Python (Thunder's interpreter is one), that target's
 *     own line and branch coverage: a C trace function (PyEval_SetTrace) hashes each
 *     (code object, previous line, line) edge into a counter, the way AFL hashes
 *     (previous block, block). Code objects are named by (co_filename, co_firstlineno),
 *     stable across processes (hash() of str is seeded with 0, hz_embed.h), never by
 *     address. Frames of the program itself (its filename) are skipped: programs are
 *     the input, their coverage is the decoder's business.
 * Outside a fuzzing build the counters are plain memory nobody reads. */
#ifndef HZ_PYCOV_H
#define HZ_PYCOV_H

#include <stddef.h>
#include <stdint.h>

/* Power of two. libFuzzer scans the whole section after each input (~1 us per 4 KiB). */
#define HZ_COV_COUNTERS 8192

/* Bumps the counter of key (any 32-bit hash; saturating). */
void hz_cov_hit(uint32_t key);

/* Mixes two values into a key (stable: no addresses). */
uint32_t hz_cov_key(uint32_t a, uint32_t b);

/* Number of counters currently non-zero (they are cleared by the engine before each
 * input under libFuzzer; outside it, by hz_cov_clear). */
size_t hz_cov_nonzero(void);
void hz_cov_clear(void);

/* Installs the trace function; frames whose co_filename equals skip_filename are not
 * counted. CPython must be initialised. Returns 0, or -1 with an exception set. */
int hz_pycov_start(const char *skip_filename);
/* Removes it. */
void hz_pycov_stop(void);

/* Distinct Python edges hashed since the process started (a rough coverage figure for
 * the summary; collisions make it a lower bound). */
size_t hz_pycov_edges(void);

#endif
