/* hz_mutate.c: structure-aware edits of the program IR (see hz_mutate.h).
 *
 * Every edit writes plain field values and leaves the consistency to
 * hz_program_normalize, which remaps indices that point at nothing (a statement's
 * member after its class lost members, an argument's class after a class was
 * deleted) the way the decoder would. Edits keep counts within the caps and only
 * append or drop the last class, so that base indices of later classes stay
 * meaningful. */
#include "hz_mutate.h"

#include <stdlib.h>
#include <string.h>

static const char *const edit_names[] = {
#define HZ_EDIT_NAME(n) #n,
    HZ_EDITS(HZ_EDIT_NAME)
#undef HZ_EDIT_NAME
};

const char *hz_edit_name(HzEdit e)
{
    return (unsigned)e < HZ_EDIT__COUNT ? edit_names[e] : "?";
}

/* ---- random fields --------------------------------------------------------- */

static void random_member(HzMember *m, HzRng *r)
{
    m->kind = hz_class_kinds[hz_rng_below(r, (unsigned)hz_nclass_kinds)];
    m->variant = (uint8_t)(m->kind == HZ_DESC_mro_override
                           ? hz_rng_below(r, HZ_MAX_VISIBLE)
                           : hz_rng_below(r, (unsigned)hz_variant_count((HzDescKind)m->kind)));
    m->value = (uint8_t)hz_rng_below(r, 256);
}

static void random_meta_member(HzMember *m, HzRng *r)
{
    m->kind = hz_rng_below(r, 2) ? HZ_DESC_meta_prop : HZ_DESC_meta_data_desc;
    m->variant = (uint8_t)hz_rng_below(r, (unsigned)hz_variant_count((HzDescKind)m->kind));
    m->value = (uint8_t)hz_rng_below(r, 256);
}

static void random_stmt(const HzProgram *p, HzStmt *s, HzRng *r)
{
    s->pattern = (uint8_t)hz_rng_below(r, HZ_ACCESS__COUNT);
    s->arg = (uint8_t)hz_rng_below(r, p->nargs ? p->nargs : 1);
    s->member = (uint8_t)hz_rng_below(r, HZ_MAX_VISIBLE);
    s->param = (uint8_t)hz_rng_below(r, 4);
}

static void random_mutation(const HzProgram *p, HzMutation *m, HzRng *r)
{
    m->kind = (uint8_t)hz_rng_below(r, HZ_BETWEEN__COUNT);
    m->arg = (uint8_t)hz_rng_below(r, p->nargs ? p->nargs : 1);
    m->target = (uint8_t)hz_rng_below(r, HZ_MAX_VISIBLE);
    m->value = (uint8_t)hz_rng_below(r, 256);
}

/* Inserts a zeroed slot at pos into an array of n elements of size sz. */
static void insert_at(void *base, size_t n, size_t pos, size_t sz)
{
    char *b = base;
    memmove(b + (pos + 1) * sz, b + pos * sz, (n - pos) * sz);
    memset(b + pos * sz, 0, sz);
}

static void delete_at(void *base, size_t n, size_t pos, size_t sz)
{
    char *b = base;
    memmove(b + pos * sz, b + (pos + 1) * sz, (n - pos - 1) * sz);
    memset(b + (n - 1) * sz, 0, sz);
}

/* A random class holding members (a member of some class, or -1 if none). */
static int some_class(const HzProgram *p, HzRng *r)
{
    return p->nclasses ? (int)hz_rng_below(r, p->nclasses) : -1;
}

/* ---- the edits --------------------------------------------------------------- */

static bool edit_member(HzProgram *p, HzEdit e, HzRng *r)
{
    int c = some_class(p, r);
    if (c < 0)
        return false;
    HzClass *k = &p->classes[c];
    unsigned i = hz_rng_below(r, k->nmembers ? k->nmembers : 1);
    HzMember *m = &k->members[i];
    switch (e) {
    case HZ_EDIT_member_insert:
        if (k->nmembers >= HZ_MAX_MEMBERS)
            return false;
        i = hz_rng_below(r, k->nmembers + 1u);
        insert_at(k->members, k->nmembers, i, sizeof *m);
        random_member(&k->members[i], r);
        k->nmembers++;
        return true;
    case HZ_EDIT_member_delete:
        if (k->nmembers <= 1)
            return false;
        delete_at(k->members, k->nmembers, i, sizeof *m);
        k->nmembers--;
        return true;
    case HZ_EDIT_member_kind: {
        uint8_t old = m->kind;
        random_member(m, r);
        return m->kind != old;
    }
    case HZ_EDIT_member_variant: {
        int nv = m->kind == HZ_DESC_mro_override ? HZ_MAX_VISIBLE
                                                  : hz_variant_count((HzDescKind)m->kind);
        if (nv <= 1)
            return false;
        m->variant = (uint8_t)((m->variant + 1 + hz_rng_below(r, (unsigned)nv - 1)) % (unsigned)nv);
        return true;
    }
    case HZ_EDIT_member_value:
        m->value = (uint8_t)(m->value ^ (1u + hz_rng_below(r, 255)));
        return true;
    default:
        return false;
    }
}

static bool edit_meta(HzProgram *p, HzRng *r)
{
    if (p->nmetas == 0 || (p->nmetas < HZ_MAX_METAS && hz_rng_below(r, 4) == 0)) {
        if (p->nmetas >= HZ_MAX_METAS)
            return false;
        HzMeta *mt = &p->metas[p->nmetas++];
        memset(mt, 0, sizeof *mt);
        mt->nmembers = 1;
        random_meta_member(&mt->members[0], r);
        /* A metaclass nobody uses changes nothing: give it a class. */
        int c = some_class(p, r);
        if (c >= 0)
            p->classes[c].meta = p->nmetas;
        return true;
    }
    HzMeta *mt = &p->metas[hz_rng_below(r, p->nmetas)];
    switch (hz_rng_below(r, 4)) {
    case 0:
        if (mt->nmembers >= HZ_MAX_META_MEMBERS)
            return false;
        random_meta_member(&mt->members[mt->nmembers++], r);
        return true;
    case 1:
        if (mt->nmembers <= 1)
            return false;
        mt->nmembers--;
        return true;
    case 2:
        if (mt->nmembers == 0)
            return false;
        random_meta_member(&mt->members[hz_rng_below(r, mt->nmembers)], r);
        return true;
    default: {
        int c = some_class(p, r);
        if (c < 0)
            return false;
        p->classes[c].meta = (uint8_t)hz_rng_below(r, p->nmetas + 1u);
        return true;
    }
    }
}

static bool edit_class(HzProgram *p, HzEdit e, HzRng *r)
{
    switch (e) {
    case HZ_EDIT_class_insert: {
        if (p->nclasses >= HZ_MAX_CLASSES)
            return false;
        HzClass *k = &p->classes[p->nclasses];
        memset(k, 0, sizeof *k);
        k->base1 = (uint8_t)hz_rng_below(r, p->nclasses + 1u);
        k->meta = (uint8_t)hz_rng_below(r, p->nmetas + 1u);
        k->nmembers = (uint8_t)(1 + hz_rng_below(r, 3));
        for (int i = 0; i < k->nmembers; i++)
            random_member(&k->members[i], r);
        p->nclasses++;
        /* A class no argument instantiates is only reachable as a base: use it. */
        p->arg_class[hz_rng_below(r, p->nargs ? p->nargs : 1)] = (uint8_t)(p->nclasses - 1);
        return true;
    }
    case HZ_EDIT_class_delete:
        if (p->nclasses <= 1)
            return false;
        p->nclasses--;
        return true;
    case HZ_EDIT_class_rebase: {
        int c = some_class(p, r);
        if (c <= 0)
            return false;
        HzClass *k = &p->classes[c];
        k->base1 = (uint8_t)hz_rng_below(r, (unsigned)c + 1);
        k->base2 = hz_rng_below(r, 3) == 0 ? (uint8_t)hz_rng_below(r, (unsigned)c + 1) : 0;
        return true;
    }
    default:
        return false;
    }
}

static bool edit_stmt(HzProgram *p, HzEdit e, HzRng *r)
{
    unsigned i = hz_rng_below(r, p->nstmts ? p->nstmts : 1);
    switch (e) {
    case HZ_EDIT_stmt_insert:
        if (p->nstmts >= HZ_MAX_STMTS)
            return false;
        i = hz_rng_below(r, p->nstmts + 1u);
        insert_at(p->stmts, p->nstmts, i, sizeof p->stmts[0]);
        random_stmt(p, &p->stmts[i], r);
        p->nstmts++;
        return true;
    case HZ_EDIT_stmt_delete:
        if (p->nstmts <= 1)
            return false;
        delete_at(p->stmts, p->nstmts, i, sizeof p->stmts[0]);
        p->nstmts--;
        return true;
    case HZ_EDIT_stmt_replace:
        random_stmt(p, &p->stmts[i], r);
        return true;
    case HZ_EDIT_stmt_tweak: {
        HzStmt *s = &p->stmts[i];
        switch (hz_rng_below(r, 4)) {
        case 0: s->pattern = (uint8_t)hz_rng_below(r, HZ_ACCESS__COUNT); break;
        case 1: s->arg = (uint8_t)hz_rng_below(r, p->nargs ? p->nargs : 1); break;
        case 2: s->member = (uint8_t)(s->member + 1 + hz_rng_below(r, 4)); break;
        default: s->param = (uint8_t)hz_rng_below(r, 4); break;
        }
        return true;
    }
    default:
        return false;
    }
}

static bool edit_between(HzProgram *p, HzEdit e, HzRng *r)
{
    unsigned i = hz_rng_below(r, p->nbetween ? p->nbetween : 1);
    switch (e) {
    case HZ_EDIT_between_insert:
        if (p->nbetween >= HZ_MAX_BETWEEN)
            return false;
        i = hz_rng_below(r, p->nbetween + 1u);
        insert_at(p->between, p->nbetween, i, sizeof p->between[0]);
        random_mutation(p, &p->between[i], r);
        p->nbetween++;
        return true;
    case HZ_EDIT_between_delete:
        if (p->nbetween == 0)
            return false;
        delete_at(p->between, p->nbetween, i, sizeof p->between[0]);
        p->nbetween--;
        return true;
    case HZ_EDIT_between_replace:
        if (p->nbetween == 0)
            return false;
        random_mutation(p, &p->between[i], r);
        return true;
    default:
        return false;
    }
}

static bool edit_args(HzProgram *p, HzRng *r)
{
    if (hz_rng_below(r, 3) == 0) {
        p->nargs = (uint8_t)(1 + hz_rng_below(r, HZ_MAX_ARGS));
        return true;
    }
    p->arg_class[hz_rng_below(r, p->nargs ? p->nargs : 1)] =
        (uint8_t)hz_rng_below(r, p->nclasses ? p->nclasses : 1);
    return true;
}

static bool edit_other(HzProgram *p, HzRng *r)
{
    p->other_kind = (uint8_t)hz_rng_below(r, HZ_OTHER__COUNT);
    p->other_arg = (uint8_t)hz_rng_below(r, p->nargs ? p->nargs : 1);
    p->other_target = (uint8_t)hz_rng_below(r, HZ_MAX_VISIBLE);
    /* Also the collect mode: whether statements end in an escaping call. */
    p->collect = (uint8_t)hz_rng_below(r, HZ_COLLECT__COUNT);
    return true;
}

/* Halves one part of the program: smaller programs compile and run faster, and a
 * small program that still finds a bug is the report a developer wants. */
static bool edit_shrink(HzProgram *p, HzRng *r)
{
    switch (hz_rng_below(r, 3)) {
    case 0:
        if (p->nstmts <= 1)
            return false;
        p->nstmts = (uint8_t)((p->nstmts + 1) / 2);
        return true;
    case 1: {
        int c = some_class(p, r);
        if (c < 0 || p->classes[c].nmembers <= 1)
            return false;
        p->classes[c].nmembers = (uint8_t)((p->classes[c].nmembers + 1) / 2);
        return true;
    }
    default:
        if (p->nbetween == 0 && p->nclasses <= 1)
            return false;
        p->nbetween /= 2;
        if (p->nclasses > 1)
            p->nclasses--;
        return true;
    }
}

/* The focus edit: cut down around a random statement. */
static bool edit_focus(HzProgram *p, HzRng *r)
{
    if (hz_program_is_small(p) || p->nstmts == 0 || p->nclasses == 0)
        return false;
    hz_focus_at(p, hz_rng_below(r, p->nstmts), -1, r);
    return true;
}

bool hz_mutate_apply(HzProgram *p, HzEdit e, HzRng *rng)
{
    HzProgram before;
    memcpy(&before, p, sizeof before);
    bool ok;
    switch (e) {
    case HZ_EDIT_stmt_insert: case HZ_EDIT_stmt_delete:
    case HZ_EDIT_stmt_replace: case HZ_EDIT_stmt_tweak:
        ok = edit_stmt(p, e, rng);
        break;
    case HZ_EDIT_member_insert: case HZ_EDIT_member_delete: case HZ_EDIT_member_kind:
    case HZ_EDIT_member_variant: case HZ_EDIT_member_value:
        ok = edit_member(p, e, rng);
        break;
    case HZ_EDIT_meta_edit:
        ok = edit_meta(p, rng);
        break;
    case HZ_EDIT_class_insert: case HZ_EDIT_class_delete: case HZ_EDIT_class_rebase:
        ok = edit_class(p, e, rng);
        break;
    case HZ_EDIT_between_insert: case HZ_EDIT_between_delete: case HZ_EDIT_between_replace:
        ok = edit_between(p, e, rng);
        break;
    case HZ_EDIT_args_edit:
        ok = edit_args(p, rng);
        break;
    case HZ_EDIT_other_edit:
        ok = edit_other(p, rng);
        break;
    case HZ_EDIT_shrink:
        ok = edit_shrink(p, rng);
        break;
    case HZ_EDIT_focus:
        ok = edit_focus(p, rng);
        break;
    default:
        ok = false;
        break;
    }
    if (!ok) {
        memcpy(p, &before, sizeof before);
        return false;
    }
    hz_program_normalize(p);
    return true;
}

int hz_mutate_program(HzProgram *p, HzRng *rng)
{
    /* Mostly one edit (small steps keep what made the input interesting), sometimes a
     * burst (larger jumps out of a plateau). */
    static const unsigned burst[] = {1, 1, 1, 1, 2, 2, 3, 4};
    unsigned want = burst[hz_rng_below(rng, 8)];
    int done = 0;
    /* Not the focus edit: size is its own dimension (hz_size). */
    for (int tries = 0; done < (int)want && tries < 32; tries++)
        if (hz_mutate_apply(p, (HzEdit)hz_rng_below(rng, HZ_EDIT_focus), rng))
            done++;
    return done;
}

void hz_splice_programs(HzProgram *dst, const HzProgram *src, HzRng *r)
{
    unsigned what = hz_rng_below(r, 3);
    if (what == 0 && src->nclasses > 0) {
        /* A class of src, members and all, replacing one of dst's or appended. */
        const HzClass *from = &src->classes[hz_rng_below(r, src->nclasses)];
        unsigned j = dst->nclasses < HZ_MAX_CLASSES && hz_rng_below(r, 2)
                     ? dst->nclasses : hz_rng_below(r, dst->nclasses ? dst->nclasses : 1);
        HzClass *to = &dst->classes[j];
        memcpy(to, from, sizeof *to);
        if (to->base1 > j)
            to->base1 = 0;
        if (to->base2 > j)
            to->base2 = 0;
        if (to->meta > dst->nmetas)
            to->meta = 0;
        if (j == dst->nclasses) {
            dst->nclasses++;
            dst->arg_class[hz_rng_below(r, dst->nargs ? dst->nargs : 1)] = (uint8_t)j;
        }
    }
    else if (what == 1 && src->nstmts > 0) {
        /* A run of src's statements over dst's, at the same or a random place. */
        unsigned from = hz_rng_below(r, src->nstmts);
        unsigned n = 1 + hz_rng_below(r, src->nstmts - from);
        unsigned at = hz_rng_below(r, dst->nstmts + 1u);
        if (at + n > HZ_MAX_STMTS)
            n = HZ_MAX_STMTS - at;
        memcpy(&dst->stmts[at], &src->stmts[from], n * sizeof dst->stmts[0]);
        if (at + n > dst->nstmts)
            dst->nstmts = (uint8_t)(at + n);
    }
    else if (src->nbetween > 0) {
        unsigned n = src->nbetween;
        memcpy(dst->between, src->between, n * sizeof dst->between[0]);
        if (dst->nbetween < n)
            dst->nbetween = (uint8_t)n;
        dst->other_kind = src->other_kind;
        dst->other_arg = src->other_arg;
        dst->other_target = src->other_target;
    }
    else {
        dst->nbetween = 0;
    }
    hz_program_normalize(dst);
}

/* ---- bytes in, bytes out ----------------------------------------------------- */

/* hz_input_is_source's test, without the path (and without linking hz_input.c, which
 * needs the emitter, into the AFL++ mutator library). */
static bool is_source(const uint8_t *data, size_t size)
{
    size_t m = strlen(HZ_PY_MARKER);
    if (size < m || memcmp(data, HZ_PY_MARKER, m) != 0)
        return false;
    return size == m || data[m] == '\n' || data[m] == '\r';
}

/* Encodes p into out if it fits; returns the size or 0. */
static size_t emit_bytes(const HzProgram *p, uint8_t *out, size_t max_size)
{
    uint8_t *enc = NULL;
    size_t n = 0;
    if (hz_encode(p, &enc, &n) < 0)
        return 0;
    size_t r = 0;
    if (n > 0 && n <= max_size) {
        memcpy(out, enc, n);
        r = n;
    }
    free(enc);
    return r;
}

unsigned hz_fresh_one_in = HZ_FRESH_ONE_IN;

/* Its own random stream (seed mixed), so the edits drawn from the same seed are
 * those they would be without fresh programs. */
size_t hz_fresh_bytes(const uint8_t *data, size_t size, uint8_t *out, size_t max_size,
                      uint64_t seed)
{
    if (is_source(data, size))
        return 0;
    HzRng r = {seed ^ 0x6a09e667f3bcc909ull};
    if (hz_fresh_one_in == 0 || hz_rng_below(&r, hz_fresh_one_in) != 0)
        return 0;
    HzProgram *g = hz_generate(hz_rng_next(&r));
    hz_size_apply_fresh(g, &r);
    size_t n = emit_bytes(g, out, max_size);
    hz_program_free(g);
    return n;
}

size_t hz_mutate_bytes(const uint8_t *data, size_t size, uint8_t *out, size_t max_size,
                       uint64_t seed)
{
    if (is_source(data, size))
        return 0;
    HzRng rng = {seed};
    HzProgram *orig = hz_decode(data, size);
    HzProgram *p = hz_program_clone(orig);
    size_t r = 0;
    for (int attempt = 0; attempt < 4 && r == 0; attempt++) {
        if (attempt > 0)
            memcpy(p, orig, sizeof *p);
        hz_mutate_program(p, &rng);
        hz_size_apply(p, orig, hz_size.focus_keep_large, &rng);
        if (attempt > 1)   /* too big for max_size: make room */
            hz_mutate_apply(p, HZ_EDIT_shrink, &rng);
        if (hz_program_equal(p, orig))
            continue;
        r = emit_bytes(p, out, max_size);
    }
    hz_program_free(p);
    hz_program_free(orig);
    return r;
}

size_t hz_crossover_bytes(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2,
                          uint8_t *out, size_t max_size, uint64_t seed)
{
    if (is_source(d1, s1) || is_source(d2, s2))
        return 0;
    HzRng rng = {seed};
    HzProgram *a = hz_decode(d1, s1);
    HzProgram *b = hz_decode(d2, s2);
    HzProgram *a0 = hz_program_clone(a);
    hz_splice_programs(a, b, &rng);
    hz_size_apply(a, a0, hz_size.splice_keep_large, &rng);
    hz_program_free(a0);
    size_t r = emit_bytes(a, out, max_size);
    hz_program_free(a);
    hz_program_free(b);
    return r;
}
