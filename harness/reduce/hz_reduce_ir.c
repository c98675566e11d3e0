/* hz_reduce_ir.c: hierarchical delta debugging on the program IR (bytes inputs).
 *
 * Levels, coarse to fine: classes; metaclasses; arguments, between() mutations and
 * make_other(); members of classes and metaclasses; statements. At each level a
 * ddmin pass removes chunks of half the remaining units, then quarters, down to
 * single units, keeping each removal that keeps the signature. Then one field at a
 * time is simplified (a member's kind toward class_attr / inst_attr / method /
 * prop_fresh, variants and values to 0, a statement's access pattern toward
 * repeat_read / identity, a second base or a metaclass dropped, the other collect
 * mode). Names follow: they are numbered by occurrence, so fewer members give
 * shorter names. The whole repeats until nothing changes.
 *
 * Statements, mutations and make_other() name members by index into lists computed
 * from the layout (hz_ir.h); a removal shifts those lists, so the members they
 * named are resolved first and looked up again afterwards: a statement keeps
 * reading the attribute it read. What no longer exists is left to
 * hz_program_normalize. */
#include "hz_reduce.h"
#include "hz_ir.h"

#include <stdlib.h>
#include <string.h>

/* The members a program's index fields denote, as references (valid: ok[]). */
typedef struct {
    HzRef stmt[HZ_MAX_STMTS];
    bool stmt_ok[HZ_MAX_STMTS];
    HzRef mut[HZ_MAX_BETWEEN];
    bool mut_ok[HZ_MAX_BETWEEN];
    HzRef other;
    bool other_ok;
} Refs;

static void refs_get(const HzProgram *p, Refs *r)
{
    HzLayout lay;
    HzRef cand[HZ_MAX_VISIBLE];
    memset(r, 0, sizeof *r);
    hz_layout(p, &lay);
    for (int s = 0; s < p->nstmts; s++) {
        const HzStmt *st = &p->stmts[s];
        int n = hz_stmt_candidates(p, &lay, p->arg_class[st->arg], st->pattern, cand);
        if (n > 0 && st->member < n) {
            r->stmt[s] = cand[st->member];
            r->stmt_ok[s] = true;
        }
    }
    HzBetweenState bst;
    memset(&bst, 0, sizeof bst);
    for (int b = 0; b < p->nbetween; b++) {
        const HzMutation *mu = &p->between[b];
        int cls = p->arg_class[mu->arg];
        int n = hz_between_candidates(p, &lay, &bst, mu->kind, cls, cand);
        if (n > 0 && mu->target < n) {
            r->mut[b] = cand[mu->target];
            r->mut_ok[b] = true;
            hz_between_apply(&bst, p, mu->kind, cand[mu->target], cls);
        }
    }
    if (p->other_kind != HZ_OTHER_NONE) {
        int n = hz_other_candidates(p, &lay, p->other_kind, p->arg_class[p->other_arg], cand);
        if (n > 0 && p->other_target < n) {
            r->other = cand[p->other_target];
            r->other_ok = true;
        }
    }
}

static int find_ref(const HzRef *cand, int n, HzRef want)
{
    for (int i = 0; i < n; i++)
        if (cand[i].cls == want.cls && cand[i].idx == want.idx)
            return i;
    return -1;
}

/* Points the index fields at the references again, then normalises. */
static void refs_put(HzProgram *p, const Refs *r)
{
    HzLayout lay;
    HzRef cand[HZ_MAX_VISIBLE];
    hz_program_normalize(p);   /* counts and classes valid before the layout */
    hz_layout(p, &lay);
    for (int s = 0; s < p->nstmts; s++) {
        HzStmt *st = &p->stmts[s];
        int n = hz_stmt_candidates(p, &lay, p->arg_class[st->arg], st->pattern, cand);
        int k = r->stmt_ok[s] ? find_ref(cand, n, r->stmt[s]) : -1;
        if (k >= 0)
            st->member = (uint8_t)k;
    }
    HzBetweenState bst;
    memset(&bst, 0, sizeof bst);
    for (int b = 0; b < p->nbetween; b++) {
        HzMutation *mu = &p->between[b];
        int cls = p->arg_class[mu->arg];
        int n = hz_between_candidates(p, &lay, &bst, mu->kind, cls, cand);
        int k = r->mut_ok[b] ? find_ref(cand, n, r->mut[b]) : -1;
        if (k >= 0)
            mu->target = (uint8_t)k;
        if (n > 0)
            hz_between_apply(&bst, p, mu->kind, cand[mu->target < n ? mu->target : 0], cls);
    }
    if (p->other_kind != HZ_OTHER_NONE && r->other_ok) {
        int n = hz_other_candidates(p, &lay, p->other_kind, p->arg_class[p->other_arg], cand);
        int k = find_ref(cand, n, r->other);
        if (k >= 0)
            p->other_target = (uint8_t)k;
    }
    hz_program_normalize(p);
}

/* ---- removals: each shifts the arrays and maps the references ---- */

typedef enum { U_CLASS, U_META, U_ARG, U_BETWEEN, U_OTHER, U_MEMBER, U_METAMEMBER, U_STMT } UnitType;

typedef struct {
    UnitType type;
    int a, b;   /* index; for members (class or meta, member) */
} Unit;

/* Maps every reference through f (false: it is gone). */
static void refs_map(Refs *r, bool (*f)(HzRef *, int, int), int a, int b)
{
    for (int s = 0; s < HZ_MAX_STMTS; s++)
        if (r->stmt_ok[s])
            r->stmt_ok[s] = f(&r->stmt[s], a, b);
    for (int m = 0; m < HZ_MAX_BETWEEN; m++)
        if (r->mut_ok[m])
            r->mut_ok[m] = f(&r->mut[m], a, b);
    if (r->other_ok)
        r->other_ok = f(&r->other, a, b);
}

static bool map_class(HzRef *x, int c, int unused)
{
    (void)unused;
    if (x->cls == c)
        return false;
    if (x->cls > c)
        x->cls--;
    return true;
}

static bool map_meta(HzRef *x, int k, int unused)
{
    (void)unused;
    if (x->cls >= 0)
        return true;
    int j = -1 - x->cls;
    if (j == k)
        return false;
    if (j > k)
        x->cls = (int8_t)(-1 - (j - 1));
    return true;
}

static bool map_member(HzRef *x, int cls, int m)
{
    if (x->cls != cls)
        return true;
    if (x->idx == m)
        return false;
    if (x->idx > m)
        x->idx--;
    return true;
}

/* Removes u from p (refs follow). false when p has nothing to remove there. */
static bool remove_unit(HzProgram *p, Refs *r, const Unit *u)
{
    switch (u->type) {
    case U_CLASS: {
        int c = u->a;
        if (p->nclasses <= 1 || c >= p->nclasses)
            return false;
        memmove(&p->classes[c], &p->classes[c + 1],
                (size_t)(p->nclasses - c - 1) * sizeof p->classes[0]);
        p->nclasses--;
        for (int j = 0; j < p->nclasses; j++) {
            HzClass *k = &p->classes[j];
            k->base1 = k->base1 == c + 1 ? 0 : k->base1 > c + 1 ? k->base1 - 1 : k->base1;
            k->base2 = k->base2 == c + 1 ? 0 : k->base2 > c + 1 ? k->base2 - 1 : k->base2;
        }
        for (int a = 0; a < HZ_MAX_ARGS; a++)
            p->arg_class[a] = p->arg_class[a] == c ? 0
                              : p->arg_class[a] > c ? p->arg_class[a] - 1 : p->arg_class[a];
        refs_map(r, map_class, c, 0);
        return true;
    }
    case U_META: {
        int k = u->a;
        if (k >= p->nmetas)
            return false;
        /* metas[k+1] derived from metas[k]; it now derives from metas[k-1] */
        memmove(&p->metas[k], &p->metas[k + 1], (size_t)(p->nmetas - k - 1) * sizeof p->metas[0]);
        p->nmetas--;
        for (int j = 0; j < p->nclasses; j++) {
            uint8_t *m = &p->classes[j].meta;
            *m = *m == k + 1 ? 0 : *m > k + 1 ? *m - 1 : *m;
        }
        refs_map(r, map_meta, k, 0);
        return true;
    }
    case U_ARG: {
        int a = u->a;
        if (p->nargs <= 1 || a >= p->nargs)
            return false;
        memmove(&p->arg_class[a], &p->arg_class[a + 1], (size_t)(p->nargs - a - 1));
        p->nargs--;
        for (int s = 0; s < p->nstmts; s++)
            if (p->stmts[s].arg >= a && p->stmts[s].arg > 0)
                p->stmts[s].arg--;
        for (int b = 0; b < p->nbetween; b++)
            if (p->between[b].arg >= a && p->between[b].arg > 0)
                p->between[b].arg--;
        if (p->other_arg >= a && p->other_arg > 0)
            p->other_arg--;
        return true;
    }
    case U_BETWEEN: {
        int b = u->a;
        if (b >= p->nbetween)
            return false;
        memmove(&p->between[b], &p->between[b + 1],
                (size_t)(p->nbetween - b - 1) * sizeof p->between[0]);
        memmove(&r->mut[b], &r->mut[b + 1], (size_t)(p->nbetween - b - 1) * sizeof r->mut[0]);
        memmove(&r->mut_ok[b], &r->mut_ok[b + 1], (size_t)(p->nbetween - b - 1));
        p->nbetween--;
        return true;
    }
    case U_OTHER:
        if (p->other_kind == HZ_OTHER_NONE)
            return false;
        p->other_kind = HZ_OTHER_NONE;
        r->other_ok = false;
        return true;
    case U_MEMBER: {
        HzClass *k = &p->classes[u->a];
        if (u->a >= p->nclasses || k->nmembers <= 1 || u->b >= k->nmembers)
            return false;
        memmove(&k->members[u->b], &k->members[u->b + 1],
                (size_t)(k->nmembers - u->b - 1) * sizeof k->members[0]);
        k->nmembers--;
        refs_map(r, map_member, u->a, u->b);
        return true;
    }
    case U_METAMEMBER: {
        HzMeta *k = &p->metas[u->a];
        if (u->a >= p->nmetas || k->nmembers <= 1 || u->b >= k->nmembers)
            return false;
        memmove(&k->members[u->b], &k->members[u->b + 1],
                (size_t)(k->nmembers - u->b - 1) * sizeof k->members[0]);
        k->nmembers--;
        refs_map(r, map_member, -1 - u->a, u->b);
        return true;
    }
    case U_STMT: {
        int s = u->a;
        if (p->nstmts <= 1 || s >= p->nstmts)
            return false;
        memmove(&p->stmts[s], &p->stmts[s + 1], (size_t)(p->nstmts - s - 1) * sizeof p->stmts[0]);
        memmove(&r->stmt[s], &r->stmt[s + 1], (size_t)(p->nstmts - s - 1) * sizeof r->stmt[0]);
        memmove(&r->stmt_ok[s], &r->stmt_ok[s + 1], (size_t)(p->nstmts - s - 1));
        p->nstmts--;
        return true;
    }
    }
    return false;
}

/* The units of the given types in p, in order. */
static size_t units_of(const HzProgram *p, const UnitType *types, size_t ntypes, Unit *out)
{
    size_t n = 0;
    for (size_t t = 0; t < ntypes; t++) {
        switch (types[t]) {
        case U_CLASS: for (int i = 0; i < p->nclasses; i++) out[n++] = (Unit){U_CLASS, i, 0}; break;
        case U_META: for (int i = 0; i < p->nmetas; i++) out[n++] = (Unit){U_META, i, 0}; break;
        case U_ARG: for (int i = 0; i < p->nargs; i++) out[n++] = (Unit){U_ARG, i, 0}; break;
        case U_BETWEEN:
            for (int i = 0; i < p->nbetween; i++) out[n++] = (Unit){U_BETWEEN, i, 0};
            break;
        case U_OTHER:
            if (p->other_kind != HZ_OTHER_NONE) out[n++] = (Unit){U_OTHER, 0, 0};
            break;
        case U_MEMBER:
            for (int i = 0; i < p->nclasses; i++)
                for (int m = 0; m < p->classes[i].nmembers; m++)
                    out[n++] = (Unit){U_MEMBER, i, m};
            break;
        case U_METAMEMBER:
            for (int i = 0; i < p->nmetas; i++)
                for (int m = 0; m < p->metas[i].nmembers; m++)
                    out[n++] = (Unit){U_METAMEMBER, i, m};
            break;
        case U_STMT: for (int i = 0; i < p->nstmts; i++) out[n++] = (Unit){U_STMT, i, 0}; break;
        }
    }
    return n;
}

#define MAX_UNITS (HZ_MAX_CLASSES * HZ_MAX_MEMBERS + HZ_MAX_METAS * HZ_MAX_META_MEMBERS + \
                   HZ_MAX_STMTS + HZ_MAX_CLASSES + 16)

/* base minus the units marked in del (removed last to first, so that earlier
 * indices stay valid), or NULL when a removal was impossible. */
static HzProgram *without(const HzProgram *base, const Unit *u, size_t n, const bool *del)
{
    HzProgram *c = hz_program_clone(base);
    Refs r;
    refs_get(c, &r);
    for (size_t i = n; i-- > 0;)
        if (del[i] && !remove_unit(c, &r, &u[i])) {
            hz_program_free(c);
            return NULL;
        }
    refs_put(c, &r);
    return c;
}

/* A batch of candidate programs and their sources. */
typedef struct {
    HzProgram *prog[MAX_UNITS + 64];
    char *src[MAX_UNITS + 64];
    size_t n;
} Batch;

static void batch_clear(Batch *b)
{
    for (size_t i = 0; i < b->n; i++) {
        hz_program_free(b->prog[i]);
        free(b->src[i]);
    }
    b->n = 0;
}

/* Adds c (taken) when its source is smaller than cur; frees it otherwise. */
static void batch_add(Batch *b, HzProgram *c, const char *cur)
{
    if (c == NULL)
        return;
    char *s = hz_emit(c, NULL);
    if (s == NULL || !hz_reduce_smaller(s, cur) || b->n >= sizeof b->src / sizeof b->src[0]) {
        free(s);
        hz_program_free(c);
        return;
    }
    b->prog[b->n] = c;
    b->src[b->n++] = s;
}

/* Takes the interesting candidate k of b as the current program. */
static void take(HzProgram *p, char **cur, Batch *b, long k)
{
    *p = *b->prog[k];
    free(*cur);
    *cur = b->src[k];
    b->src[k] = NULL;
}

/* ddmin over the units of the given types. Returns whether p changed. */
static bool ddmin(HzProgram *p, char **cur, HzOracle *o, const UnitType *types, size_t ntypes)
{
    Unit u[MAX_UNITS];
    size_t n = units_of(p, types, ntypes, u);
    if (n == 0)
        return false;
    HzProgram *base = hz_program_clone(p);
    bool del[MAX_UNITS] = {false}, changed = false;
    size_t chunk = (n + 1) / 2;
    Batch b;
    b.n = 0;
    for (;;) {
        /* chunks of `chunk` units among those not removed yet */
        size_t idx[MAX_UNITS], nleft = 0;
        for (size_t i = 0; i < n; i++)
            if (!del[i])
                idx[nleft++] = i;
        size_t from[MAX_UNITS];
        size_t nb = 0;
        for (size_t s = 0; s < nleft; s += chunk) {
            bool d2[MAX_UNITS];
            memcpy(d2, del, sizeof d2);
            for (size_t j = s; j < s + chunk && j < nleft; j++)
                d2[idx[j]] = true;
            size_t before = b.n;
            batch_add(&b, without(base, u, n, d2), *cur);
            if (b.n > before)
                from[nb++] = s;
        }
        long k = hz_oracle_first(o, b.src, b.n);
        if (k >= 0) {
            for (size_t j = from[k]; j < from[k] + chunk && j < nleft; j++)
                del[idx[j]] = true;
            take(p, cur, &b, k);
            changed = true;
        }
        batch_clear(&b);
        if (k >= 0) {   /* the same chunk size again, over what is left */
            size_t left = 0;
            for (size_t i = 0; i < n; i++)
                left += !del[i];
            if (left == 0)
                break;
            if (chunk > left)
                chunk = (left + 1) / 2;
            continue;
        }
        if (chunk == 1)
            break;
        chunk = (chunk + 1) / 2;
    }
    hz_program_free(base);
    return changed;
}

/* One field simplified: candidates from p. */
static void simplifications(const HzProgram *p, const char *cur, Batch *b)
{
    static const uint8_t simple_kinds[] = {HZ_DESC_class_attr, HZ_DESC_inst_attr, HZ_DESC_method,
                                           HZ_DESC_prop_fresh};
    Refs r;
    refs_get(p, &r);
    HzProgram *c;
#define CAND(edit)                                                                        \
    do {                                                                                  \
        c = hz_program_clone(p);                                                          \
        edit;                                                                             \
        refs_put(c, &r);                                                                  \
        if (hz_program_equal(c, p))                                                       \
            hz_program_free(c);                                                           \
        else                                                                              \
            batch_add(b, c, cur);                                                         \
    } while (0)
    for (int i = 0; i < p->nclasses; i++) {
        const HzClass *k = &p->classes[i];
        if (k->base2)
            CAND(c->classes[i].base2 = 0);
        if (k->meta)
            CAND(c->classes[i].meta = 0);
        if (k->base1)
            CAND(c->classes[i].base1 = 0);
        for (int m = 0; m < k->nmembers; m++) {
            for (size_t s = 0; s < sizeof simple_kinds; s++)
                if (k->members[m].kind != simple_kinds[s])
                    CAND(c->classes[i].members[m].kind = simple_kinds[s];
                         c->classes[i].members[m].variant = 0);
            if (k->members[m].variant)
                CAND(c->classes[i].members[m].variant = 0);
            if (k->members[m].value)
                CAND(c->classes[i].members[m].value = 0);
        }
    }
    for (int i = 0; i < p->nmetas; i++)
        for (int m = 0; m < p->metas[i].nmembers; m++) {
            if (p->metas[i].members[m].variant)
                CAND(c->metas[i].members[m].variant = 0);
            if (p->metas[i].members[m].value)
                CAND(c->metas[i].members[m].value = 0);
        }
    for (int s = 0; s < p->nstmts; s++) {
        const HzStmt *st = &p->stmts[s];
        if (st->pattern != HZ_ACCESS_repeat_read)
            CAND(c->stmts[s].pattern = HZ_ACCESS_repeat_read);
        if (st->pattern != HZ_ACCESS_identity)
            CAND(c->stmts[s].pattern = HZ_ACCESS_identity);
        if (st->param)
            CAND(c->stmts[s].param = 0);
    }
    for (int i = 0; i < p->nbetween; i++)
        if (p->between[i].value)
            CAND(c->between[i].value = 0);
    CAND(c->collect = (uint8_t)(1 - c->collect));
#undef CAND
}

int hz_reduce_ir(HzProgram *p, HzOracle *o)
{
    static const UnitType l_class[] = {U_CLASS}, l_meta[] = {U_META},
                          l_world[] = {U_ARG, U_BETWEEN, U_OTHER},
                          l_member[] = {U_MEMBER, U_METAMEMBER}, l_stmt[] = {U_STMT};
    char *cur = hz_emit(p, NULL);
    if (cur == NULL)
        return -1;
    Batch *b = calloc(1, sizeof *b);
    if (b == NULL)
        abort();
    bool changed = true;
    while (changed && !hz_oracle_stats(o)->expired && !hz_oracle_stats(o)->interrupted &&
           !hz_oracle_stats(o)->broken) {
        changed = false;
        changed |= ddmin(p, &cur, o, l_class, 1);
        changed |= ddmin(p, &cur, o, l_meta, 1);
        changed |= ddmin(p, &cur, o, l_world, 3);
        changed |= ddmin(p, &cur, o, l_member, 2);
        changed |= ddmin(p, &cur, o, l_stmt, 1);
        for (;;) {
            simplifications(p, cur, b);
            long k = hz_oracle_first(o, b->src, b->n);
            if (k >= 0)
                take(p, &cur, b, k);
            batch_clear(b);
            if (k < 0)
                break;
            changed = true;
        }
    }
    free(b);
    free(cur);
    return hz_oracle_stats(o)->broken ? -1 : 0;
}
