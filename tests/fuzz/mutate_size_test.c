/* mutate_size_test.c: program size as a mutation dimension (hz_mutate.h, the focus
 * edit; docs/PROGRAMS.md "Program size").
 *
 *   focus    on every bytes seed and on 3,000 generated programs, with several
 *            random streams: applies exactly to programs that are not small; the
 *            result is small (at most hz_size.edit's statements and
 *            mutations; at most its classes unless
 *            one argument's class needs more bases); it is a canonical program
 *            (encode/decode round trip); its statements are some of the
 *            original's in order, and each one whose argument kept its class (members
 *            dropped, none changed) reads the same member (kind, variant, value)
 *            with the same access pattern; classes keep at most hz_size.edit.members
 *            members besides those something names or that act class-wide;
 *            (under HZ_SIZE_SMALL's limits);
 *   bytes    hz_mutate_bytes over the bytes seeds: under the default (the test checks
 *            it is HZ_SIZE_DEFAULT) most outputs of large inputs are small and
 *            their emitted programs have under 0.6 times the lines of their inputs;
 *            under HZ_SIZE_OFF few are, so the dimension is what does it; fresh
 *            programs (hz_fresh_bytes) are cut to one class with its bases and keep
 *            more statements than a cut edit;
 *   tiny     under HZ_SIZE_TINY: the focus checks above against its limits (one
 *            class and its bases, three statements), every fresh program
 *            (hz_fresh_bytes) is cut to that shape, and mutations of the large seeds
 *            come out smaller than under HZ_SIZE_SMALL.
 * argv: focus | bytes | tiny, then the seed directory. */
#include "hz_input.h"
#include "hz_ir.h"
#include "hz_mutate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond, ...) do { if (!(cond)) { \
    fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
    fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); exit(1); } } while (0)

typedef struct {
    unsigned char *data;
    size_t size;
    const char *name;
    HzInput in;   /* owns data and name */
} Seed;

/* The bytes seeds of dir (source inputs skipped), read as `run` reads inputs. */
static int load_seeds(const char *dir, Seed *out, int max)
{
    char **paths, err[512];
    size_t npaths;
    char *dirs[1] = {(char *)dir};
    CHECK(hz_input_collect(dirs, 1, &paths, &npaths, err, sizeof err) == 0, "%s", err);
    int n = 0;
    for (size_t i = 0; i < npaths && n < max; i++) {
        CHECK(hz_input_load(paths[i], NULL, &out[n].in, err, sizeof err) == 0, "%s", err);
        if (out[n].in.is_source) {
            hz_input_clear(&out[n].in);
            continue;
        }
        out[n].data = out[n].in.data;
        out[n].size = out[n].in.size;
        out[n].name = out[n].in.path;
        n++;
    }
    hz_paths_free(paths, npaths);
    return n;
}

/* Bit i: classes[i] is class c or one of its generated bases. */
static unsigned closure(const HzProgram *p, int c)
{
    unsigned need = 1u << c;
    for (int i = c; i >= 0; i--)
        if (need & (1u << i)) {
            if (p->classes[i].base1)
                need |= 1u << (p->classes[i].base1 - 1);
            if (p->classes[i].base2)
                need |= 1u << (p->classes[i].base2 - 1);
        }
    return need;
}

/* b's members are a subsequence of a's (the focus keeps a class's members in order,
 * dropping some), same metaclass. */
static bool kept_from(const HzClass *a, const HzClass *b)
{
    if (a->meta != b->meta || b->nmembers > a->nmembers)
        return false;
    int j = 0;
    for (int i = 0; i < a->nmembers && j < b->nmembers; i++) {
        const HzMember *x = &a->members[i], *y = &b->members[j];
        /* an override's variant is an index into its bases' names: it may move */
        if (x->kind == y->kind && x->value == y->value
            && (x->variant == y->variant || x->kind == HZ_DESC_mro_override))
            j++;
    }
    return j == b->nmembers;
}

/* The member statement s of p reads: its kind and value, and the kind, variant and
 * value of the member whose name it carries (itself, or what an mro_override
 * overrides: an override's variant is an index, which moves when members are
 * dropped); -1 when none. */
static long stmt_member(const HzProgram *p, const HzLayout *lay, const HzStmt *s)
{
    HzRef c[HZ_MAX_VISIBLE];
    int n = hz_stmt_candidates(p, lay, p->arg_class[s->arg], (HzAccessPattern)s->pattern, c);
    if (n == 0)
        return -1;
    const HzMember *m = hz_ref_member(p, c[s->member % n]);
    const HzMember *k = hz_ref_member(p, hz_ref_key(lay, c[s->member % n]));
    return (long)m->kind << 40 | (long)m->value << 32 | (long)k->kind << 16
           | (long)k->variant << 8 | k->value;
}

/* Whether p's statements from i on match orig's from k on as a subsequence (same
 * pattern and param; the same member read where the argument kept its class);
 * *checked counts the member comparisons of the match found. */
static bool match_from(const HzProgram *orig, const HzLayout *lo, const HzProgram *p,
                       const HzLayout *lp, int i, int k, long *checked)
{
    if (i == p->nstmts)
        return true;
    for (int j = k; j + (p->nstmts - i) <= orig->nstmts; j++) {
        const HzStmt *so = &orig->stmts[j], *sp = &p->stmts[i];
        if (so->pattern != sp->pattern || so->param != sp->param)
            continue;
        int oc = orig->arg_class[so->arg], pc = p->arg_class[sp->arg];
        bool compare = so->arg == sp->arg && kept_from(&orig->classes[oc], &p->classes[pc])
                       && lo->cls[oc].nmro == lp->cls[pc].nmro;
        if (compare && stmt_member(orig, lo, so) != stmt_member(p, lp, sp))
            continue;
        long sub = 0;
        if (match_from(orig, lo, p, lp, i + 1, j + 1, &sub)) {
            *checked += sub + compare;
            return true;
        }
    }
    return false;
}

static long nfocused, nsmall_skipped, nstmts_checked;

/* A cut program: within lim's statements and mutations, and within its classes
 * unless one argument's class needs all of them (its bases). */
static void check_cut_shape(const HzProgram *p, const HzSizeLimits *lim)
{
    CHECK(p->nstmts >= 1 && p->nstmts <= lim->stmts, "%d statements", p->nstmts);
    CHECK(p->nbetween <= lim->between, "%d mutations", p->nbetween);
    if (p->nclasses > lim->classes) {
        bool one_needs_all = false;
        for (int a = 0; a < p->nargs; a++)
            one_needs_all |= closure(p, p->arg_class[a]) == (1u << p->nclasses) - 1;
        CHECK(one_needs_all, "%d classes, more than one argument's class needs", p->nclasses);
    }
}

static void check_focus(const HzProgram *orig, uint64_t seed, const char *what)
{
    HzProgram *p = hz_program_clone(orig);
    HzRng rng = {seed};
    bool applied = hz_mutate_apply(p, HZ_EDIT_focus, &rng);
    CHECK(applied == !hz_program_is_small(orig), "focus %s a %s program",
          applied ? "applied to" : "refused", hz_program_is_small(orig) ? "small" : "large");
    if (!applied) {
        CHECK(hz_program_equal(p, orig), "a refused focus changed the program");
        nsmall_skipped++;
        hz_program_free(p);
        return;
    }
    nfocused++;
    check_cut_shape(p, &hz_size.edit);
    uint8_t *enc = NULL;
    size_t n = 0;
    CHECK(hz_encode(p, &enc, &n) == 0, "encode failed");
    HzProgram *back = hz_decode(enc, n);
    CHECK(hz_program_equal(back, p), "the focused program is not canonical");
    hz_program_free(back);
    free(enc);

    /* The statements are some of the original's, in order (same patterns and
     * params), and each one whose argument kept its class (members dropped, none
     * changed) reads the same member. Patterns repeat: any matching will do. */
    HzLayout lo, lp;
    hz_layout(orig, &lo);
    hz_layout(p, &lp);
    long checked = 0;
    CHECK(match_from(orig, &lo, p, &lp, 0, 0, &checked),
          "%s, rng %llu: the statements are not some of the original's reading the same "
          "members", what, (unsigned long long)seed);
    nstmts_checked += checked;
    hz_program_free(p);
}

/* min_left: how many small programs must have been left alone (fewer are small
 * under tighter limits). */
static int test_focus(Seed *seeds, int n, long min_left)
{
    nfocused = nsmall_skipped = nstmts_checked = 0;
    for (int i = 0; i < n; i++) {
        HzProgram *p = hz_decode(seeds[i].data, seeds[i].size);
        for (uint64_t s = 1; s <= 50; s++)
            check_focus(p, s * 7919 + (uint64_t)i, seeds[i].name);
        hz_program_free(p);
    }
    for (uint64_t g = 0; g < 3000; g++) {
        HzProgram *p = hz_generate(g);
        char what[64];
        snprintf(what, sizeof what, "hz_generate(%llu)", (unsigned long long)g);
        for (uint64_t s = 1; s <= 3; s++)
            check_focus(p, g * 31 + s, what);
        hz_program_free(p);
    }
    printf("focus: %ld cut down, %ld small programs left alone, %ld statements kept "
           "their kind and pattern\n", nfocused, nsmall_skipped, nstmts_checked);
    CHECK(nfocused > 1000 && nsmall_skipped > min_left && nstmts_checked > 1000, "too few cases");
    return 0;
}

static int test_focus_small(Seed *seeds, int n)
{
    HzSizeDimension small = HZ_SIZE_SMALL, dflt = hz_size;
    hz_size = small;
    int rc = test_focus(seeds, n, 1000);
    hz_size = dflt;
    return rc;
}

/* Over 3,000 draws of hz_fresh_bytes under hz_size: how many gave a program, and
 * their statements and classes in all; each checked against lim when given. */
static void fresh_sizes(const Seed *s, const HzSizeLimits *lim, long *fresh, long *stmts,
                        long *classes)
{
    uint8_t out[4096];
    *fresh = *stmts = *classes = 0;
    for (uint64_t k = 0; k < 3000; k++) {
        size_t m = hz_fresh_bytes(s->data, s->size, out, sizeof out, k);
        if (m == 0)
            continue;
        HzProgram *q = hz_decode(out, m);
        if (lim != NULL)
            check_cut_shape(q, lim);
        (*fresh)++;
        *stmts += q->nstmts;
        *classes += q->nclasses;
        hz_program_free(q);
    }
    CHECK(*fresh > 500, "only %ld fresh programs in 3,000 draws", *fresh);
}

static size_t lines_of(const HzProgram *p)
{
    HzEmitOptions eo = {.no_main = true};
    char *src = hz_emit(p, &eo);
    CHECK(src != NULL, "emit failed");
    size_t n = hz_program_text_size(src);
    free(src);
    return n;
}

/* Share of small outputs (per mille) and mean lines in and out, over the mutations
 * of the large bytes seeds. */
static void mutate_seeds(Seed *seeds, int n, long *small_pm, double *lines_in,
                         double *lines_out)
{
    long outs = 0, small = 0;
    double lin = 0, lout = 0;
    uint8_t out[4096];
    for (int i = 0; i < n; i++) {
        HzProgram *p = hz_decode(seeds[i].data, seeds[i].size);
        bool large = !hz_program_is_small(p);
        size_t l0 = lines_of(p);
        hz_program_free(p);
        if (!large)
            continue;
        for (uint64_t s = 1; s <= 100; s++) {
            size_t m = hz_mutate_bytes(seeds[i].data, seeds[i].size, out, sizeof out,
                                       s * 104729 + (uint64_t)i);
            if (m == 0)
                continue;
            HzProgram *q = hz_decode(out, m);
            outs++;
            small += hz_program_is_small(q);
            lin += (double)l0;
            lout += (double)lines_of(q);
            hz_program_free(q);
        }
    }
    /* Crossovers take the same dimension: their outputs are canonical programs. */
    for (int i = 0; i < n; i++)
        for (uint64_t s = 1; s <= 20; s++) {
            const Seed *o = &seeds[(i + 1 + (int)s) % n];
            size_t m = hz_crossover_bytes(seeds[i].data, seeds[i].size, o->data, o->size, out,
                                          sizeof out, s * 15485863 + (uint64_t)i);
            if (m == 0)
                continue;
            HzProgram *q = hz_decode(out, m);
            uint8_t *enc = NULL;
            size_t ne = 0;
            CHECK(hz_encode(q, &enc, &ne) == 0 && ne == m && memcmp(enc, out, m) == 0,
                  "a crossover's output is not the canonical encoding of its program");
            free(enc);
            hz_program_free(q);
        }
    CHECK(outs > 500, "only %ld outputs", outs);
    *small_pm = small * 1000 / outs;
    *lines_in = lin / (double)outs;
    *lines_out = lout / (double)outs;
}

static int test_bytes(Seed *seeds, int n)
{
    long on, off;
    double in_on, out_on, in_off, out_off;
    HzSizeDimension want = HZ_SIZE_DEFAULT, none = HZ_SIZE_OFF, dflt = hz_size;
    CHECK(memcmp(&dflt, &want, sizeof dflt) == 0, "the default is not HZ_SIZE_DEFAULT");
    mutate_seeds(seeds, n, &on, &in_on, &out_on);
    long fresh, fstmts, fclasses, whole, wstmts, wclasses;
    fresh_sizes(&seeds[0], &dflt.fresh, &fresh, &fstmts, &fclasses);
    hz_size = none;
    mutate_seeds(seeds, n, &off, &in_off, &out_off);
    fresh_sizes(&seeds[0], NULL, &whole, &wstmts, &wclasses);
    hz_size = dflt;
    double fs = (double)fstmts / (double)fresh, fc = (double)fclasses / (double)fresh;
    double wc = (double)wclasses / (double)whole;
    printf("mutations of the large seeds: %ld.%ld%% small, %.0f lines -> %.0f (the default, "
           "HZ_SIZE_DEFAULT); %ld.%ld%% small, %.0f lines -> %.0f (HZ_SIZE_OFF); fresh "
           "programs: %.2f classes, %.1f statements on average (%.2f classes, %.1f "
           "statements whole)\n", on / 10, on % 10, in_on, out_on, off / 10, off % 10, in_off,
           out_off, fc, fs, wc, (double)wstmts / (double)whole);
    CHECK(fc < 0.8 * wc, "fresh programs keep %.2f of %.2f classes: not cut", fc, wc);
    CHECK(fs > 2.0 * dflt.edit.stmts, "fresh programs keep %.1f statements: cut like edits", fs);
    /* Not all: a cut keeps the bases of its classes, which can exceed one class. */
    CHECK(on >= 500, "only %ld per mille of the outputs are small", on);
    CHECK(out_on < 0.6 * in_on, "outputs %.0f lines, inputs %.0f", out_on, in_on);
    CHECK(off <= 300, "%ld per mille small without the focus: the test measures nothing", off);
    CHECK(out_off > 0.9 * in_off, "HZ_SIZE_OFF changed the size: %.0f -> %.0f lines", in_off,
          out_off);
    return 0;
}

static int test_tiny(Seed *seeds, int n)
{
    HzSizeDimension small = HZ_SIZE_SMALL, tiny = HZ_SIZE_TINY, dflt = hz_size;
    long on_small, on_tiny;
    double in_small, out_small, in_tiny, out_tiny;
    hz_size = small;
    mutate_seeds(seeds, n, &on_small, &in_small, &out_small);
    hz_size = tiny;
    test_focus(seeds, n, 50);
    mutate_seeds(seeds, n, &on_tiny, &in_tiny, &out_tiny);
    /* Fresh programs: generated at full size, then cut like an edit. */
    long fresh, fresh_stmts, fresh_classes;
    fresh_sizes(&seeds[0], &tiny.fresh, &fresh, &fresh_stmts, &fresh_classes);
    hz_size = dflt;
    printf("HZ_SIZE_TINY: mutations of the large seeds %.0f lines -> %.0f (HZ_SIZE_SMALL: "
           "%.0f); %ld fresh programs, %.2f statements on average, all cut\n", in_tiny,
           out_tiny, out_small, fresh, (double)fresh_stmts / (double)fresh);
    CHECK(out_tiny < 0.7 * out_small, "tiny mutations %.0f lines, small ones %.0f", out_tiny,
          out_small);
    return 0;
}

int main(int argc, char **argv)
{
    CHECK(argc == 3, "usage: mutate_size_test focus|bytes|tiny SEED_DIR");
    static Seed seeds[256];
    int n = load_seeds(argv[2], seeds, 256);
    CHECK(n >= 10, "need bytes seeds in %s", argv[2]);
    int rc = strcmp(argv[1], "focus") == 0 ? test_focus_small(seeds, n)
           : strcmp(argv[1], "bytes") == 0 ? test_bytes(seeds, n)
           : strcmp(argv[1], "tiny") == 0 ? test_tiny(seeds, n) : 2;
    for (int i = 0; i < n; i++)
        hz_input_clear(&seeds[i].in);
    return rc;
}
