/* mutate_fresh_test.c: fresh programs among the mutations (hz_mutate.h,
 * hz_fresh_bytes and hz_fresh_one_in; docs/FUZZING.md "Fresh programs").
 *
 *   - one_in = 1: hz_fresh_bytes always writes a program, which does not depend on
 *     the input (two different seeds, the same random stream: the same bytes), is
 *     canonical (decodes and encodes back to itself) and is what hz_generate makes
 *     (some outputs are larger than the edit budget of 128 bytes; the size
 *     dimension, which cuts them by default, off for this part);
 *   - one_in = HZ_FRESH_ONE_IN (the default, which the test checks): it writes one
 *     about one time in HZ_FRESH_ONE_IN, and 0 otherwise;
 *   - one_in = 0: never;
 *   - a source input (`#tracefuzz-py`) is never replaced: 0.
 * argv: the seed directory. */
#include "hz_input.h"
#include "hz_ir.h"
#include "hz_mutate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond, ...) do { if (!(cond)) { \
    fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
    fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); exit(1); } } while (0)

#define MAX_SEEDS 64
#define STREAMS 400
#define OUT_CAP 4096

int main(int argc, char **argv)
{
    CHECK(argc == 2, "usage: mutate_fresh_test SEED_DIR");
    CHECK(hz_fresh_one_in == HZ_FRESH_ONE_IN, "default %u, expected %u", hz_fresh_one_in,
          (unsigned)HZ_FRESH_ONE_IN);
    char **paths, err[512];
    size_t npaths;
    CHECK(hz_input_collect(&argv[1], 1, &paths, &npaths, err, sizeof err) == 0, "%s", err);
    static HzInput in[MAX_SEEDS];
    int nbytes = 0, nsource = 0;
    HzInput *source = NULL;
    for (size_t i = 0; i < npaths && nbytes + nsource < MAX_SEEDS; i++) {
        HzInput *x = &in[nbytes + nsource];
        CHECK(hz_input_load(paths[i], NULL, x, err, sizeof err) == 0, "%s", err);
        if (x->is_source) {
            nsource++;
            if (source == NULL)
                source = x;
        }
        else
            nbytes++;
    }
    CHECK(nbytes >= 2 && source != NULL, "need two bytes seeds and a source seed");

    static uint8_t a[OUT_CAP], b[OUT_CAP];
    /* Always fresh: independent of the input, canonical, sizes of the generator (the
     * size dimension off: it cuts fresh programs to one class by default, which
     * fuzz.mutate_size.bytes checks; this checks the edit budget does not apply). */
    HzSizeDimension off = HZ_SIZE_OFF, dflt = hz_size;
    hz_size = off;
    hz_fresh_one_in = 1;
    const HzInput *two[2] = {NULL, NULL};
    for (int i = 0, k = 0; i < nbytes + nsource && k < 2; i++)
        if (!in[i].is_source)
            two[k++] = &in[i];
    const HzInput *s0 = two[0], *s1 = two[1];
    int over_budget = 0;
    for (uint64_t st = 1; st <= STREAMS; st++) {
        size_t na = hz_fresh_bytes(s0->data, s0->size, a, OUT_CAP, st);
        size_t nb = hz_fresh_bytes(s1->data, s1->size, b, OUT_CAP, st);
        CHECK(na > 0 && na == nb && memcmp(a, b, na) == 0,
              "stream %llu: outputs depend on the input", (unsigned long long)st);
        over_budget += na > 128;
        HzProgram *p = hz_decode(a, na);
        uint8_t *enc = NULL;
        size_t ne = 0;
        CHECK(hz_encode(p, &enc, &ne) == 0, "out of memory");
        CHECK(ne == na && memcmp(enc, a, na) == 0, "stream %llu: not canonical",
              (unsigned long long)st);
        free(enc);
        hz_program_free(p);
        CHECK(hz_fresh_bytes(source->data, source->size, a, OUT_CAP, st) == 0,
              "a source input was replaced");
    }
    CHECK(over_budget > STREAMS / 10, "only %d of %d fresh programs over 128 bytes",
          over_budget, STREAMS);
    hz_size = dflt;

    /* The default rate, and never when off. */
    unsigned long total = 0, fresh = 0;
    for (int i = 0; i < nbytes + nsource; i++) {
        if (in[i].is_source)
            continue;
        for (uint64_t st = 1; st <= STREAMS; st++) {
            hz_fresh_one_in = 0;
            CHECK(hz_fresh_bytes(in[i].data, in[i].size, a, OUT_CAP, st) == 0,
                  "a fresh program with hz_fresh_one_in = 0");
            hz_fresh_one_in = HZ_FRESH_ONE_IN;
            total++;
            fresh += hz_fresh_bytes(in[i].data, in[i].size, b, OUT_CAP, st) > 0;
        }
    }
    double share = (double)fresh / (double)total, want = 1.0 / HZ_FRESH_ONE_IN;
    printf("fresh programs: %lu of %lu calls (%.3f, expected about %.3f); %d of %d over "
           "128 bytes\n", fresh, total, share, want, over_budget, STREAMS);
    CHECK(share > 0.8 * want && share < 1.2 * want, "share %.3f", share);
    for (int i = 0; i < nbytes + nsource; i++)
        hz_input_clear(&in[i]);
    hz_paths_free(paths, npaths);
    return 0;
}
