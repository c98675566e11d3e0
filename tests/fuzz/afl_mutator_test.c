/* afl_mutator_test.c: the AFL++ custom mutator library (libtfafl_mutator.so) through
 * the C interface afl-fuzz uses, on the seed corpus:
 *   - afl_custom_fuzz returns bytes within max_size that decode to a program whose
 *     encoding round-trips (the mutator hands AFL++ only canonical inputs);
 *   - most outputs differ from their input (a mutator that returns its input does
 *     nothing), and splicing with add_buf happens;
 *   - every edit kind of hz_mutate.h applies to some seed;
 *   - a `#tracefuzz-py` source input is handed back unchanged (for AFL++'s havoc). */
#include "hz_ir.h"
#include "hz_mutate.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *afl_custom_init(void *afl, unsigned int seed);
size_t afl_custom_fuzz(void *data, unsigned char *buf, size_t buf_size,
                       unsigned char **out_buf, unsigned char *add_buf,
                       size_t add_buf_size, size_t max_size);
void afl_custom_deinit(void *data);

#define CHECK(cond, ...) do { if (!(cond)) { \
    fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
    fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); exit(1); } } while (0)

typedef struct {
    unsigned char *data;
    size_t size;
    int is_source;
} Seed;

static int load_seeds(const char *dir, Seed *out, int max)
{
    DIR *d = opendir(dir);
    CHECK(d != NULL, "cannot open %s", dir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < max) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        CHECK(f != NULL, "cannot open %s", path);
        unsigned char *buf = malloc(1 << 16);
        CHECK(buf != NULL, "out of memory");
        size_t len = fread(buf, 1, 1 << 16, f);
        fclose(f);
        out[n].data = buf;
        out[n].size = len;
        out[n].is_source = len >= 13 && memcmp(buf, "#tracefuzz-py", 13) == 0;
        n++;
    }
    closedir(d);
    return n;
}

int main(int argc, char **argv)
{
    CHECK(argc == 2, "usage: afl_mutator_test SEED_DIR");
    static Seed seeds[256];
    int n = load_seeds(argv[1], seeds, 256);
    CHECK(n >= 2, "need seeds in %s", argv[1]);
    void *m = afl_custom_init(NULL, 12345);
    CHECK(m != NULL, "afl_custom_init failed");
    long outputs = 0, changed = 0, sources = 0;
    for (int round = 0; round < 40; round++) {
        for (int i = 0; i < n; i++) {
            const Seed *s = &seeds[i];
            const Seed *other = &seeds[(i + 1 + round) % n];
            unsigned char *out = NULL;
            size_t max = 4096;
            size_t len = afl_custom_fuzz(m, s->data, s->size, &out, other->data,
                                         other->size, max);
            CHECK(out != NULL && len <= max, "bad output (len %zu)", len);
            if (s->is_source) {
                CHECK(out == s->data && len == s->size, "a source input was changed");
                sources++;
                continue;
            }
            outputs++;
            changed += len != s->size || memcmp(out, s->data, len) != 0;
            HzProgram *p = hz_decode(out, len);
            uint8_t *enc = NULL;
            size_t nenc = 0;
            CHECK(hz_encode(p, &enc, &nenc) == 0, "encode failed");
            CHECK(nenc == len && memcmp(enc, out, len) == 0,
                  "the mutator's output is not the canonical encoding of its program");
            free(enc);
            hz_program_free(p);
        }
    }
    afl_custom_deinit(m);
    printf("%ld outputs, %ld changed, %ld source inputs handed back\n", outputs, changed,
           sources);
    CHECK(outputs > 0 && changed * 10 >= outputs * 9, "too few outputs differ");

    /* Every edit kind applies somewhere. */
    HzRng rng = {7};
    for (int e = 0; e < HZ_EDIT__COUNT; e++) {
        int applied = 0;
        for (int i = 0; i < n && !applied; i++) {
            if (seeds[i].is_source)
                continue;
            HzProgram *p = hz_decode(seeds[i].data, seeds[i].size);
            for (int t = 0; t < 8 && !applied; t++)
                applied = hz_mutate_apply(p, (HzEdit)e, &rng);
            hz_program_free(p);
        }
        printf("edit %-16s %s\n", hz_edit_name((HzEdit)e), applied ? "applies" : "NEVER");
        CHECK(applied, "edit %s never applies", hz_edit_name((HzEdit)e));
    }
    for (int i = 0; i < n; i++)
        free(seeds[i].data);
    return 0;
}
