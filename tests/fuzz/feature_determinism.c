/* feature_determinism.c: does the fuzz target's coverage depend on the input alone?
 *
 *   tf_fuzz_determinism [-v] FILE...
 *
 * Links the instrumented fuzz target (hz_fuzz.c and the coverage-built harness,
 * oracles and tracer) with this main instead of libFuzzer, and plays libFuzzer's part
 * for coverage: it keeps the inline 8-bit counters and the extra counters
 * (hz_pycov.h), clears them before each input and turns them into features after it
 * the way libFuzzer does (counter index x hit-count bucket). After a warm-up pass
 * (what a process does once happens there), the inputs run twice more in the same
 * process, in the order given and then reversed, so each input runs after different
 * predecessors. An input whose features differ between its two runs makes
 * coverage depend on history: `corpus prune` and `corpus merge` then keep or drop
 * inputs by accident, and a -runs=0 pass over the same corpus gives other counts in
 * another order. Prints one line per such input (-v: also each differing counter, as
 * `edge +OFFSET` of this executable, for addr2line, or `extra K`), then
 *   inputs N, features F, history-dependent D
 * Exit 0 when D is 0, 1 otherwise, 2 on a usage error. */
#define _GNU_SOURCE   /* dl_iterate_phdr */
#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hz_input.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
void __sanitizer_cov_8bit_counters_init(uint8_t *start, uint8_t *stop);
void __sanitizer_cov_pcs_init(const uintptr_t *beg, const uintptr_t *end);

/* libFuzzer's extra counters (hz_pycov.c puts its array there). */
extern uint8_t __start___libfuzzer_extra_counters[] __attribute__((weak));
extern uint8_t __stop___libfuzzer_extra_counters[] __attribute__((weak));

static uint8_t *cnt_start, *cnt_stop;
static const uintptr_t *pcs;

void __sanitizer_cov_8bit_counters_init(uint8_t *start, uint8_t *stop)
{
    /* Every object's constructor passes the bounds of the one merged section. */
    if (cnt_start == NULL || start < cnt_start)
        cnt_start = start;
    if (stop > cnt_stop)
        cnt_stop = stop;
}

void __sanitizer_cov_pcs_init(const uintptr_t *beg, const uintptr_t *end)
{
    if (pcs == NULL || beg < pcs)
        pcs = beg;
    (void)end;
}

/* libFuzzer's hit-count buckets: 1, 2, 3, 4-7, 8-15, 16-31, 32-127, 128+. */
static unsigned bucket(uint8_t c)
{
    return c >= 128 ? 7 : c >= 32 ? 6 : c >= 16 ? 5 : c >= 8 ? 4 : c >= 4 ? 3 : c - 1u;
}

typedef struct {
    uint32_t *f;    /* malloc'd, index * 8 + bucket; extra counters after the edges */
    size_t n;
} Features;

static void clear_counters(void)
{
    memset(cnt_start, 0, (size_t)(cnt_stop - cnt_start));
    if (__start___libfuzzer_extra_counters != NULL)
        memset(__start___libfuzzer_extra_counters, 0,
               (size_t)(__stop___libfuzzer_extra_counters - __start___libfuzzer_extra_counters));
}

static void collect(Features *out)
{
    size_t nedge = (size_t)(cnt_stop - cnt_start), nextra = 0;
    if (__start___libfuzzer_extra_counters != NULL)
        nextra = (size_t)(__stop___libfuzzer_extra_counters - __start___libfuzzer_extra_counters);
    out->f = malloc((nedge + nextra + 1) * sizeof *out->f);
    out->n = 0;
    if (out->f == NULL) {
        fprintf(stderr, "tf_fuzz_determinism: out of memory\n");
        exit(2);
    }
    for (size_t i = 0; i < nedge; i++)
        if (cnt_start[i])
            out->f[out->n++] = (uint32_t)(i * 8 + bucket(cnt_start[i]));
    for (size_t i = 0; i < nextra; i++)
        if (__start___libfuzzer_extra_counters[i])
            out->f[out->n++] =
                (uint32_t)((nedge + i) * 8 + bucket(__start___libfuzzer_extra_counters[i]));
}

/* Runs one input as libFuzzer would (read as `run` reads it: hz_input_load) and
 * keeps its features. */
static void run_input(const char *path, Features *out)
{
    HzInput in;
    char err[512];
    if (hz_input_load(path, NULL, &in, err, sizeof err) < 0) {
        fprintf(stderr, "tf_fuzz_determinism: %s\n", err);
        exit(2);
    }
    clear_counters();
    LLVMFuzzerTestOneInput(in.data, in.size);
    collect(out);
    hz_input_clear(&in);
}

static uintptr_t exe_base;

static int find_base(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    exe_base = info->dlpi_addr;   /* the first object is the executable */
    return 1;
}

/* Prints the features in one run and not the other, as counters. */
static void print_diff(const Features *a, const Features *b)
{
    size_t nedge = (size_t)(cnt_stop - cnt_start);
    size_t i = 0, j = 0;
    while (i < a->n || j < b->n) {
        uint32_t f;
        const char *side;
        if (j >= b->n || (i < a->n && a->f[i] < b->f[j])) {
            f = a->f[i++];
            side = "first only ";
        }
        else if (i >= a->n || b->f[j] < a->f[i]) {
            f = b->f[j++];
            side = "second only";
        }
        else {
            i++;
            j++;
            continue;
        }
        size_t idx = f / 8;
        if (idx < nedge && pcs != NULL)
            printf("    %s edge +0x%lx bucket %u\n", side,
                   (unsigned long)(pcs[2 * idx] - exe_base), f % 8);
        else
            printf("    %s extra %zu bucket %u\n", side, idx - nedge, f % 8);
    }
}

int main(int argc, char **argv)
{
    bool verbose = argc > 1 && strcmp(argv[1], "-v") == 0;
    int first = verbose ? 2 : 1;
    int n = argc - first;
    if (n < 1 || (argc > 1 && strcmp(argv[1], "--help") == 0)) {
        fprintf(stderr, "usage: tf_fuzz_determinism [-v] FILE...\n"
                        "runs the inputs in order and reversed; exit 1 when an input's\n"
                        "coverage features differ between its two runs\n");
        return 2;
    }
    if (cnt_start == NULL) {
        fprintf(stderr, "tf_fuzz_determinism: not built with coverage counters\n");
        return 2;
    }
    dl_iterate_phdr(find_base, NULL);
    LLVMFuzzerInitialize(&argc, &argv);
    Features *fa = calloc((size_t)n, sizeof *fa), *fb = calloc((size_t)n, sizeof *fb);
    if (fa == NULL || fb == NULL)
        return 2;
    /* A warm-up pass: what a process does once (imports, lazily built tables) is
     * done before anything is compared, as libFuzzer's first inputs do it. */
    for (int k = 0; k < n; k++) {
        run_input(argv[first + k], &fa[k]);
        free(fa[k].f);
    }
    for (int k = 0; k < n; k++)
        run_input(argv[first + k], &fa[k]);
    for (int k = n; k-- > 0;)
        run_input(argv[first + k], &fb[k]);
    size_t total = 0, differ = 0;
    for (int k = 0; k < n; k++) {
        total += fa[k].n;
        bool same = fa[k].n == fb[k].n &&
                    memcmp(fa[k].f, fb[k].f, fa[k].n * sizeof *fa[k].f) == 0;
        if (!same) {
            differ++;
            printf("%s: %zu features in order, %zu reversed\n", argv[first + k], fa[k].n,
                   fb[k].n);
            if (verbose)
                print_diff(&fa[k], &fb[k]);
        }
        free(fa[k].f);
        free(fb[k].f);
    }
    free(fa);
    free(fb);
    printf("inputs %d, features %zu, history-dependent %zu\n", n, total, differ);
    return differ == 0 ? 0 : 1;
}
