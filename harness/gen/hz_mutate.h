/* hz_mutate.h: structure-aware mutation on the program IR (hz_ir.h).
 *
 * Byte-level mutation of a decoded input mostly shifts every later choice (the
 * decoder reads choices from the end), so one flipped byte rewrites the whole
 * program. These edits change one thing a JIT developer would change by hand:
 * insert / delete / replace a statement of program(), a member of a class or a
 * metaclass, a mutation of between(); change a member's descriptor kind or
 * behaviour variant; rebase a class; change make()'s or make_other()'s choices; and
 * splice classes, statements and mutations from a second input. The edited IR is
 * normalised (hz_program_normalize: indices remapped into what exists) and encoded,
 * so the engine gets bytes that decode to exactly the edited program.
 *
 * Used by the libFuzzer target (LLVMFuzzerCustomMutator / CustomCrossOver in
 * hz_fuzz.c) and the AFL++ custom mutator (hz_afl_mutator.c). Runs no Python. */
#ifndef HZ_MUTATE_H
#define HZ_MUTATE_H

#include "hz_ir.h"

#include <stddef.h>
#include <stdint.h>

/* A small deterministic generator (splitmix64): a mutation is a function of the
 * engine's seed, so libFuzzer's -seed reproduces a run. */
typedef struct {
    uint64_t s;
} HzRng;

static inline uint64_t
hz_rng_next(HzRng *r)
{
    uint64_t x = (r->s += 0x9E3779B97F4A7C15ull);
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* Uniform in [0, n); n >= 1. */
static inline unsigned
hz_rng_below(HzRng *r, unsigned n)
{
    return n <= 1 ? 0 : (unsigned)(hz_rng_next(r) % n);
}

/* Which edit hz_mutate_program applied (for tests and statistics). */
typedef enum {
#define HZ_EDITS(X) \
    X(stmt_insert) X(stmt_delete) X(stmt_replace) X(stmt_tweak) \
    X(member_insert) X(member_delete) X(member_kind) X(member_variant) X(member_value) \
    X(meta_edit) X(class_insert) X(class_delete) X(class_rebase) \
    X(between_insert) X(between_delete) X(between_replace) \
    X(args_edit) X(other_edit) X(shrink) \
    X(focus)   /* last: hz_mutate_program never draws it (hz_size decides) */
#define HZ_ENUM_EDIT(n) HZ_EDIT_##n,
    HZ_EDITS(HZ_ENUM_EDIT)
#undef HZ_ENUM_EDIT
    HZ_EDIT__COUNT
} HzEdit;

const char *hz_edit_name(HzEdit e);

/* What a cut leaves (docs/PROGRAMS.md, "Program size"): at most `classes` classes
 * (more when the kept classes' bases need them), `stmts` statements, `between`
 * between() mutations, and per class `members` members besides those something
 * names or that act class-wide. */
typedef struct {
    int classes, stmts, between, members;
} HzSizeLimits;
#define HZ_LIMITS_SMALL {3, 8, 2, 3}
#define HZ_LIMITS_TINY {1, 3, 1, 1}
#define HZ_LIMITS_ONE_CLASS {1, HZ_MAX_STMTS, HZ_MAX_BETWEEN, 3}   /* every statement */
/* A small program: within hz_size.edit's classes, statements and mutations. The
 * focus edit cuts a larger program down to one. */
bool hz_program_is_small(const HzProgram *p);
/* Program size as a mutation dimension, for hz_mutate_bytes, hz_crossover_bytes and
 * hz_fresh_bytes (docs/PROGRAMS.md, "Program size"): an edited program that is not
 * small is cut down to hz_size.edit around what the edit changed (the focus edit),
 * except one time in focus_keep_large (splice_keep_large for crossovers; 0: never
 * cut); other edited programs keep, per class, the members something names (a
 * statement, between(), make_other(), an override), those that act class-wide
 * (hooks, slots) and trim_spare others at random (-1: no trim). A fresh program is
 * cut to hz_size.fresh around a random statement except one time in
 * fresh_keep_large (0: never).
 *
 * The presets, measured in the fuzzing loop (execs per CPU second, one binary, the
 * settings alternated) and the fault zoo (14 faults x 48 libFuzzer seeds, both
 * settings at once; docs/PERFORMANCE.md "Session 13"):
 *   HZ_SIZE_OFF      nothing cut.
 *   HZ_SIZE_SMALL    three edits in four cut to 3 classes, 8 statements, 2
 *                    mutations; fresh programs whole (sessions 9-12's default:
 *                    1.14x OFF's rate).
 *   HZ_SIZE_DEFAULT  every edit and crossover cut to one class (with its bases), 3
 *                    statements, 1 mutation; fresh programs cut to one class (with
 *                    its bases) keeping their statements and mutations. Cut edits
 *                    alone: 1.35x SMALL's rate, the zoo held twice (seeds 1-48 and
 *                    49-96); fresh programs cut too: another 1.22x, the zoo held
 *                    twice. Fresh programs find most of what the loop finds
 *                    (docs/FUZZING.md, "Fresh programs"): they keep what the faults
 *                    need, statements reading many kinds.
 *   HZ_SIZE_TINY     fresh programs cut to 3 statements as well: 1.6x SMALL's
 *                    rate, but no_getattr_after_getter_error found in 1.28x the CPU
 *                    seconds (fewer statements read a getter raising AttributeError
 *                    under __getattr__), so not the default.
 * The fuzz target sets it from TRACEFUZZ_SMALL (0, small, 1 = the default, tiny),
 * TRACEFUZZ_FOCUS, TRACEFUZZ_FOCUS_SPLICE and TRACEFUZZ_TRIM. */
typedef struct {
    unsigned focus_keep_large;
    unsigned splice_keep_large;
    int trim_spare;
    unsigned fresh_keep_large;
    HzSizeLimits edit;
    HzSizeLimits fresh;
} HzSizeDimension;
#define HZ_CUT_ALWAYS (1u << 30)   /* a keep_large: one time in 2^30 */
#define HZ_SIZE_OFF {0, 0, -1, 0, HZ_LIMITS_SMALL, HZ_LIMITS_SMALL}
#define HZ_SIZE_SMALL {4, 4, 1, 0, HZ_LIMITS_SMALL, HZ_LIMITS_SMALL}
#define HZ_SIZE_DEFAULT {HZ_CUT_ALWAYS, HZ_CUT_ALWAYS, 1, HZ_CUT_ALWAYS, HZ_LIMITS_TINY, \
                         HZ_LIMITS_ONE_CLASS}
#define HZ_SIZE_TINY {HZ_CUT_ALWAYS, HZ_CUT_ALWAYS, 1, HZ_CUT_ALWAYS, HZ_LIMITS_TINY, \
                      HZ_LIMITS_TINY}
extern HzSizeDimension hz_size;
/* hz_size.c, for hz_mutate.c: cut a normalised p down around statement s (and
 * between() mutation b, or any run when b < 0), members trimmed (not normalised
 * after the trim); and the dimension itself after p was edited from orig: cut it
 * down around what the edit changed unless small or one time in keep_large (0:
 * never), else trim unnamed members per hz_size.trim_spare. Normalised. */
void hz_focus_at(HzProgram *p, unsigned s, int b, HzRng *rng);
void hz_size_apply(HzProgram *p, const HzProgram *orig, unsigned keep_large, HzRng *rng);
/* A fresh program cut to hz_size.fresh around a random statement, except one time in
 * hz_size.fresh_keep_large (0: never). Normalised when cut. */
void hz_size_apply_fresh(HzProgram *p, HzRng *rng);

/* Fresh programs among the mutations: one time in hz_fresh_one_in (0: never)
 * hz_fresh_bytes writes a new random program (hz_generate, the generator of
 * `tracefuzz gen`) into out when one fits max_size, and the engine uses it instead
 * of an edit of its input; otherwise, and for source inputs, it returns 0. The
 * size dimension cuts it (hz_size_apply_fresh: by default to one class, keeping its
 * statements). The engines call it with their own size limit, not the edit budget:
 * generated programs keep the generator's statements, and the larger ones find more
 * (under unset_slot_is_none 30% of generated programs over 128 bytes fail, 9.6% of
 * the others). Why: the loop samples the neighbourhood of its corpus, and a generated
 * program fails under a fault far more often than a one-edit mutation of a seed
 * (unset_slot_is_none: 13.7% against 1.7%) (docs/FUZZING.md, "Fresh programs").
 * The fuzz target sets it from TRACEFUZZ_FRESH. */
#define HZ_FRESH_ONE_IN 3
extern unsigned hz_fresh_one_in;
size_t hz_fresh_bytes(const uint8_t *data, size_t size, uint8_t *out, size_t max_size,
                      uint64_t seed);

/* Applies one edit of kind e to p (normalised afterwards). Returns false when the
 * edit does not apply (e.g. deleting the only statement); p is then unchanged. */
bool hz_mutate_apply(HzProgram *p, HzEdit e, HzRng *rng);

/* Applies 1..4 random edits (normalised; never the focus edit). Returns the number
 * applied (>= 1 unless no edit applies at all, which cannot happen for a valid
 * program). */
int hz_mutate_program(HzProgram *p, HzRng *rng);

/* Splices parts of src into dst: a class (with the members it holds) replacing or
 * appended to dst's, a run of statements, mutations of between(). Normalised. */
void hz_splice_programs(HzProgram *dst, const HzProgram *src, HzRng *rng);

/* The byte-level faces, for the engines. data is a bytes input (a source input,
 * `#tracefuzz-py`, is not handled: both return 0 and the caller falls back to a
 * byte mutation). The result is written into out (at most max_size bytes); returns
 * its size, or 0 when nothing fitting could be produced. */
size_t hz_mutate_bytes(const uint8_t *data, size_t size, uint8_t *out, size_t max_size,
                       uint64_t seed);
size_t hz_crossover_bytes(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2,
                          uint8_t *out, size_t max_size, uint64_t seed);

#endif
