/* hz_decode.c: bytes -> program, and the walk the encoder shares.
 *
 * FuzzedDataProvider's discipline: structural choices are read from the end of the
 * input, one byte each (every range here is <= 256), reduced modulo the range;
 * payload constants are read from the front. Once the input is used up every
 * choice is 0 and every count its minimum, so every byte string, the empty one
 * included, decodes to a valid program, and a decode reads a bounded number of
 * bytes (the caps of hz_ir.h) whatever the input's size.
 *
 * The same walk encodes: in encoding mode choose() records the value the program
 * holds instead of reading one. Remaps of impossible choices (a second
 * __getattr__ in one class, an override with nothing to override, a delete of a
 * name already deleted ...) are idempotent, so a decoded program walks to the
 * bytes that decode back to it. */
#include <stdlib.h>
#include <string.h>

#include "hz_ir.h"

static unsigned
choose(HzWalker *w, unsigned n, unsigned cur)
{
    if (n <= 1)
        return 0;
    if (w->encoding) {
        unsigned v = cur < n ? cur : cur % n;   /* an invalid IR is clamped */
        if (w->nchoices >= HZ_WALK_MAX) {
            fprintf(stderr, "hz_walk: choice budget exceeded\n");
            abort();
        }
        w->choices[w->nchoices++] = (uint8_t)v;
        return v;
    }
    if (w->back <= w->front)
        return 0;
    return w->data[--w->back] % n;
}

static uint8_t
payload(HzWalker *w, uint8_t cur)
{
    if (w->encoding) {
        if (w->npayload >= HZ_WALK_MAX) {
            fprintf(stderr, "hz_walk: payload budget exceeded\n");
            abort();
        }
        w->payload[w->npayload++] = cur;
        return cur;
    }
    if (w->back <= w->front)
        return 0;
    return w->data[w->front++];
}

static int
class_kind_index(uint8_t kind)
{
    for (int j = 0; j < hz_nclass_kinds; j++)
        if (hz_class_kinds[j] == kind)
            return j;
    return 0;
}

/* A second base must be an earlier root class without slots that the first base
 * does not already inherit: then C3 always succeeds ([C] + mro(base1) + [base2])
 * and no two bases carry conflicting instance layouts. */
static bool
base2_ok(const HzProgram *p, const HzLayout *lay, const HzClass *c)
{
    if (c->base2 == 0)
        return true;
    if (c->base1 == 0 || c->base2 == c->base1)
        return false;
    const HzClass *r = &p->classes[c->base2 - 1];
    if (r->base1 != 0 || lay->cls[c->base2 - 1].slot_lineage)
        return false;
    const HzClassInfo *b1 = &lay->cls[c->base1 - 1];
    for (int j = 0; j < b1->nmro; j++)
        if (b1->mro[j] == c->base2 - 1)
            return false;
    return true;
}

static void
walk_member(HzWalker *w, HzMember *mem, uint8_t kind, unsigned nvariants)
{
    mem->kind = kind;
    mem->variant = (uint8_t)choose(w, nvariants, mem->variant);
    mem->value = payload(w, mem->value);
}

static void
walk_class(HzWalker *w, HzProgram *p, HzLayout *lay, int i)
{
    HzClass *c = &p->classes[i];
    c->base1 = (uint8_t)choose(w, (unsigned)i + 1, c->base1);
    c->base2 = c->base1 ? (uint8_t)choose(w, (unsigned)i + 1, c->base2) : 0;
    if (!base2_ok(p, lay, c))
        c->base2 = 0;
    c->meta = (uint8_t)choose(w, p->nmetas + 1u, c->meta);
    c->nmembers = (uint8_t)(1 + choose(w, HZ_MAX_MEMBERS, c->nmembers - 1u));
    HzRef cand[HZ_MAX_VISIBLE];
    int ncand = hz_override_candidates(p, lay, i, cand);
    bool has_getattr = false, has_getattribute = false;
    for (int m = 0; m < c->nmembers; m++) {
        HzMember *mem = &c->members[m];
        uint8_t kind = hz_class_kinds[choose(w, (unsigned)hz_nclass_kinds,
                                             (unsigned)class_kind_index(mem->kind))];
        /* One __getattr__ and one __getattribute__ per class body; an override
         * needs something to override. */
        if ((kind == HZ_DESC_getattr_hook && has_getattr)
            || (kind == HZ_DESC_getattribute_hook && has_getattribute)
            || (kind == HZ_DESC_mro_override && ncand == 0))
            kind = HZ_DESC_class_attr;
        has_getattr |= kind == HZ_DESC_getattr_hook;
        has_getattribute |= kind == HZ_DESC_getattribute_hook;
        unsigned nv = kind == HZ_DESC_mro_override ? (unsigned)ncand
                                                   : (unsigned)hz_variant_count(kind);
        walk_member(w, mem, kind, nv);
    }
    hz_layout_class(p, lay, i);
}

void
hz_walk(HzWalker *w, HzProgram *p)
{
    HzLayout lay;
    HzRef cand[HZ_MAX_VISIBLE];
    hz_layout_init(&lay);

    p->nmetas = (uint8_t)choose(w, HZ_MAX_METAS + 1, p->nmetas);
    for (int i = 0; i < p->nmetas; i++) {
        HzMeta *mt = &p->metas[i];
        mt->nmembers = (uint8_t)(1 + choose(w, HZ_MAX_META_MEMBERS, mt->nmembers - 1u));
        for (int m = 0; m < mt->nmembers; m++) {
            HzMember *mem = &mt->members[m];
            unsigned cur = mem->kind == HZ_DESC_meta_data_desc;
            uint8_t kind = choose(w, 2, cur) ? HZ_DESC_meta_data_desc : HZ_DESC_meta_prop;
            walk_member(w, mem, kind, (unsigned)hz_variant_count(kind));
        }
    }
    hz_layout_metas(p, &lay);

    p->nclasses = (uint8_t)(1 + choose(w, HZ_MAX_CLASSES, p->nclasses - 1u));
    for (int i = 0; i < p->nclasses; i++)
        walk_class(w, p, &lay, i);

    p->nargs = (uint8_t)(1 + choose(w, HZ_MAX_ARGS, p->nargs - 1u));
    for (int a = 0; a < p->nargs; a++)
        p->arg_class[a] = (uint8_t)choose(w, p->nclasses, p->arg_class[a]);

    p->nstmts = (uint8_t)(1 + choose(w, HZ_MAX_STMTS, p->nstmts - 1u));
    for (int s = 0; s < p->nstmts; s++) {
        HzStmt *st = &p->stmts[s];
        st->pattern = (uint8_t)choose(w, HZ_ACCESS__COUNT, st->pattern);
        st->arg = (uint8_t)choose(w, p->nargs, st->arg);
        int n = hz_stmt_candidates(p, &lay, p->arg_class[st->arg],
                                   (HzAccessPattern)st->pattern, cand);
        st->member = (uint8_t)choose(w, (unsigned)n, st->member);
        st->param = (uint8_t)choose(w, 4, st->param);
    }

    HzBetweenState bst;
    memset(&bst, 0, sizeof(bst));
    p->nbetween = (uint8_t)choose(w, HZ_MAX_BETWEEN + 1, p->nbetween);
    for (int b = 0; b < p->nbetween; b++) {
        HzMutation *mu = &p->between[b];
        HzBetweenKind k = (HzBetweenKind)choose(w, HZ_BETWEEN__COUNT, mu->kind);
        mu->arg = (uint8_t)choose(w, p->nargs, mu->arg);
        int cls = p->arg_class[mu->arg];
        int n = hz_between_candidates(p, &lay, &bst, k, cls, cand);
        /* A kind impossible on this argument tries the other arguments first
         * (slot_toggle needs a class with slots, mro_middle_change a base). */
        for (int d = 1; d < p->nargs && n == 0 && hz_between_needs_target(k); d++) {
            int a2 = (mu->arg + d) % p->nargs;
            int n2 = hz_between_candidates(p, &lay, &bst, k, p->arg_class[a2], cand);
            if (n2 > 0) {
                mu->arg = (uint8_t)a2;
                cls = p->arg_class[a2];
                n = n2;
            }
        }
        while (n == 0 && hz_between_needs_target(k)) {
            k = hz_between_fallback(k);
            n = hz_between_candidates(p, &lay, &bst, k, cls, cand);
        }
        mu->kind = (uint8_t)k;
        mu->target = (uint8_t)choose(w, (unsigned)n, mu->target);
        mu->value = payload(w, mu->value);
        if (n > 0)
            hz_between_apply(&bst, p, k, cand[mu->target], cls);
    }

    p->other_kind = (uint8_t)choose(w, HZ_OTHER__COUNT, p->other_kind);
    if (p->other_kind == HZ_OTHER_NONE) {
        p->other_arg = p->other_target = 0;
    } else {
        p->other_arg = (uint8_t)choose(w, p->nargs, p->other_arg);
        int n = hz_other_candidates(p, &lay, p->other_kind, p->arg_class[p->other_arg], cand);
        p->other_target = (uint8_t)choose(w, (unsigned)n, p->other_target);
    }
    /* Last, so that it is the first byte of an input's end a fuzzer would grow. */
    p->collect = (uint8_t)choose(w, HZ_COLLECT__COUNT, p->collect);
}

static HzProgram *
new_program(void)
{
    HzProgram *p = calloc(1, sizeof(*p));
    if (p == NULL) {
        fprintf(stderr, "hz_decode: out of memory\n");
        abort();
    }
    return p;
}

HzProgram *
hz_decode(const uint8_t *data, size_t size)
{
    HzProgram *p = new_program();
    HzWalker *w = calloc(1, sizeof(*w));
    if (w == NULL) {
        fprintf(stderr, "hz_decode: out of memory\n");
        abort();
    }
    w->encoding = false;
    w->data = data;
    w->front = 0;
    w->back = data ? size : 0;
    hz_walk(w, p);
    free(w);
    return p;
}

/* splitmix64: a tiny, well-mixed generator; the stream is part of what a seed
 * means, so it must not change silently. */
static uint64_t
splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Decode of seeded random bytes, long enough that no choice runs out, so every
 * choice is uniform over its range. Half of the seeds are then cut down to a
 * small program (at most 3 classes of 4 members, 8 statements, 2 mutations) and
 * normalised: small programs compile faster and read better as reports, and the
 * full-size half keeps the rare combinations coming. */
HzProgram *
hz_generate(uint64_t seed)
{
    uint8_t buf[1024];
    uint64_t s = seed;
    for (size_t i = 0; i < sizeof(buf); i += 8) {
        uint64_t r = splitmix64(&s);
        memcpy(buf + i, &r, 8);
    }
    HzProgram *p = hz_decode(buf, sizeof(buf));
    uint64_t r = splitmix64(&s);
    if (r & 1) {
        r >>= 1;
        if (p->nclasses > 3)
            p->nclasses = (uint8_t)(1 + (r >> 4) % 3);
        for (int i = 0; i < p->nclasses; i++)
            if (p->classes[i].nmembers > 4)
                p->classes[i].nmembers = (uint8_t)(1 + (r >> (8 + 2 * i)) % 4);
        if (p->nstmts > 8)
            p->nstmts = (uint8_t)(1 + (r >> 20) % 8);
        if (p->nbetween > 2)
            p->nbetween = (uint8_t)(1 + (r >> 24) % 2);
        hz_program_normalize(p);
    }
    return p;
}
