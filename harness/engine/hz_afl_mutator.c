/* hz_afl_mutator.c: the structure-aware mutator (hz_mutate.h) as an AFL++ custom
 * mutator library, loaded by afl-fuzz with
 *   AFL_CUSTOM_MUTATOR_LIBRARY=/abs/path/libtfafl_mutator.so
 *
 * Debian's afl++ 4.04c ships no afl-fuzz.h, so the interface is declared here, as
 * AFL++'s docs/custom_mutators.md gives it: afl_custom_init (returns the mutator's
 * state), afl_custom_fuzz (one mutated input in a buffer the mutator owns; add_buf
 * is another corpus entry, for splicing), afl_custom_deinit. Only these three are
 * implemented; AFL++ treats the other hooks as absent. Source inputs
 * (`#tracefuzz-py`) are handed back unchanged, so AFL++'s own havoc stage, which runs
 * as well unless AFL_CUSTOM_MUTATOR_ONLY is set, mutates them. Runs no Python. */
#include "hz_mutate.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    HzRng rng;
    uint8_t *buf;      /* the output buffer handed to AFL++, reused */
    size_t cap;
} HzAflMutator;

void *afl_custom_init(void *afl, unsigned int seed);
size_t afl_custom_fuzz(void *data, unsigned char *buf, size_t buf_size,
                       unsigned char **out_buf, unsigned char *add_buf,
                       size_t add_buf_size, size_t max_size);
void afl_custom_deinit(void *data);

void *afl_custom_init(void *afl, unsigned int seed)
{
    HzAflMutator *m = calloc(1, sizeof *m);
    if (m == NULL)
        return NULL;
    m->rng.s = seed;
    m->cap = 1 << 16;
    m->buf = malloc(m->cap);
    if (m->buf == NULL) {
        free(m);
        return NULL;
    }
    return m;
}

size_t afl_custom_fuzz(void *data, unsigned char *buf, size_t buf_size,
                       unsigned char **out_buf, unsigned char *add_buf,
                       size_t add_buf_size, size_t max_size)
{
    HzAflMutator *m = data;
    size_t limit = max_size < m->cap ? max_size : m->cap;
    size_t n = 0;
    /* One in four with a second input: splice (AFL++ passes one in add_buf). */
    if (add_buf != NULL && add_buf_size > 0 && hz_rng_below(&m->rng, 4) == 0)
        n = hz_crossover_bytes(buf, buf_size, add_buf, add_buf_size, m->buf, limit,
                               hz_rng_next(&m->rng));
    if (n == 0) {
        uint64_t stream = hz_rng_next(&m->rng);
        n = hz_fresh_bytes(buf, buf_size, m->buf, limit, stream);
        if (n == 0)
            n = hz_mutate_bytes(buf, buf_size, m->buf, limit, stream);
    }
    if (n == 0) {
        /* A source input (or nothing fitting): hand it back for havoc. */
        *out_buf = buf;
        return buf_size;
    }
    *out_buf = m->buf;
    return n;
}

void afl_custom_deinit(void *data)
{
    HzAflMutator *m = data;
    if (m != NULL)
        free(m->buf);
    free(m);
}
