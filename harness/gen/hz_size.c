/* hz_size.c: program size as a mutation dimension (hz_mutate.h, HzSizeDimension;
 * docs/PROGRAMS.md "Program size"): what makes a program small, the focus edit's cut
 * (hz_focus_at), the trim of members nothing names, and hz_size_apply, which the
 * byte-level faces of the mutator call after their edits or splice. On by default.
 *
 * Every cut keeps what the kept statements, between() mutations, make_other() and
 * overrides name: references are resolved to members before the cut and pointed back
 * at the same members after it. */
#include "hz_mutate.h"

#include <string.h>

/* The generated classes class c needs: itself and its bases, transitively (bit i:
 * classes[i]). Bases are earlier classes, so one pass from c down suffices. */
static unsigned class_closure(const HzProgram *p, int c)
{
    unsigned need = 1u << c;
    for (int i = c; i >= 0; i--) {
        if (!(need & (1u << i)))
            continue;
        const HzClass *k = &p->classes[i];
        if (k->base1 > 0 && k->base1 <= i)
            need |= 1u << (k->base1 - 1);
        if (k->base2 > 0 && k->base2 <= i)
            need |= 1u << (k->base2 - 1);
    }
    return need;
}

static bool is_small_within(const HzProgram *p, const HzSizeLimits *lim)
{
    return p->nclasses <= lim->classes && p->nstmts <= lim->stmts
           && p->nbetween <= lim->between;
}

bool hz_program_is_small(const HzProgram *p)
{
    return is_small_within(p, &hz_size.edit);
}

/* What the statements, between() mutations, make_other() and overrides of a
 * normalised program name, as member references (the walk's candidate lists
 * resolved), so that they can be found again after members are dropped. */
typedef struct {
    HzRef stmt[HZ_MAX_STMTS];
    HzRef between[HZ_MAX_BETWEEN];
    bool between_has[HZ_MAX_BETWEEN];
    HzRef other;
    HzRef over[HZ_MAX_CLASSES][HZ_MAX_MEMBERS];
    bool over_has[HZ_MAX_CLASSES][HZ_MAX_MEMBERS];
} HzRefs;

static void refs_read(const HzProgram *p, const HzLayout *lay, HzRefs *o)
{
    HzRef cand[HZ_MAX_VISIBLE];
    memset(o, 0, sizeof *o);
    for (int i = 0; i < p->nstmts; i++) {
        const HzStmt *st = &p->stmts[i];
        int n = hz_stmt_candidates(p, lay, p->arg_class[st->arg], (HzAccessPattern)st->pattern,
                                   cand);
        o->stmt[i] = cand[n > 0 ? st->member % n : 0];
    }
    HzBetweenState bst;
    memset(&bst, 0, sizeof bst);
    for (int b = 0; b < p->nbetween; b++) {
        const HzMutation *mu = &p->between[b];
        int cls = p->arg_class[mu->arg];
        int n = hz_between_candidates(p, lay, &bst, (HzBetweenKind)mu->kind, cls, cand);
        if (n > 0) {
            o->between[b] = cand[mu->target % n];
            o->between_has[b] = true;
            hz_between_apply(&bst, p, (HzBetweenKind)mu->kind, o->between[b], cls);
        }
    }
    if (p->other_kind != HZ_OTHER_NONE) {
        int n = hz_other_candidates(p, lay, p->other_kind, p->arg_class[p->other_arg], cand);
        if (n > 0)
            o->other = cand[p->other_target % n];
    }
    for (int c = 0; c < p->nclasses; c++) {
        int n = -1;
        for (int m = 0; m < p->classes[c].nmembers; m++) {
            if (p->classes[c].members[m].kind != HZ_DESC_mro_override)
                continue;
            if (n < 0)
                n = hz_override_candidates(p, lay, c, cand);
            if (p->classes[c].members[m].variant < n) {
                o->over[c][m] = cand[p->classes[c].members[m].variant];
                o->over_has[c][m] = true;
            }
        }
    }
}

/* The index of r among cand[0..n); when it is not there, *lost is set. */
static uint8_t index_of(const HzRef *cand, int n, HzRef r, bool *lost)
{
    for (int i = 0; i < n; i++)
        if (cand[i].cls == r.cls && cand[i].idx == r.idx)
            return (uint8_t)i;
    *lost = true;
    return 0;
}

static HzRef ref_moved(HzRef r, const int8_t (*to)[HZ_MAX_MEMBERS])
{
    if (r.cls >= 0 && to[r.cls][r.idx] >= 0)
        r.idx = (uint8_t)to[r.cls][r.idx];
    return r;
}

/* Kinds that change how every attribute of their class resolves (a __getattr__ or
 * __getattribute__, __slots__): kept whether or not something names them. */
static bool kind_class_wide(uint8_t k)
{
    return k == HZ_DESC_getattr_hook || k == HZ_DESC_getattribute_hook
           || k == HZ_DESC_module_like || k == HZ_DESC_slot;
}

/* Drops the members of a normalised program that nothing names (statements,
 * between(), make_other(), overrides): named and class-wide members stay, and per
 * class members nothing names, chosen at random, up to fill_to members in all and
 * at least spare of them (when there are). Then every reference is pointed at the
 * member it named before: a class body is most of a program's lines, and a member
 * nothing reads takes part in no access. When a reference cannot be kept (a member
 * dropped unhides another one, which changes a candidate list), the program is
 * left as it was. */
static void trim_members(HzProgram *p, HzRng *r, int fill_to, int spare)
{
    HzProgram before;
    memcpy(&before, p, sizeof before);
    bool lost = false;
    HzLayout lay;
    hz_layout(p, &lay);
    HzRefs refs;
    refs_read(p, &lay, &refs);
    uint8_t need[HZ_MAX_CLASSES] = {0};
    for (int i = 0; i < p->nstmts; i++)
        if (refs.stmt[i].cls >= 0)
            need[refs.stmt[i].cls] |= (uint8_t)(1u << refs.stmt[i].idx);
    for (int b = 0; b < p->nbetween; b++)
        if (refs.between_has[b] && refs.between[b].cls >= 0)
            need[refs.between[b].cls] |= (uint8_t)(1u << refs.between[b].idx);
    if (p->other_kind != HZ_OTHER_NONE && refs.other.cls >= 0)
        need[refs.other.cls] |= (uint8_t)(1u << refs.other.idx);
    /* Subclasses first: an override kept keeps what it overrides (in a base). */
    for (int c = p->nclasses - 1; c >= 0; c--) {
        HzClass *k = &p->classes[c];
        for (int m = 0; m < k->nmembers; m++)
            if (kind_class_wide(k->members[m].kind))
                need[c] |= (uint8_t)(1u << m);
        /* members nothing names, chosen at random */
        int nneed = __builtin_popcount(need[c]), added = 0;
        for (int tries = 0; (nneed < fill_to || added < spare) && nneed < k->nmembers
                            && tries < 32; tries++) {
            unsigned m = hz_rng_below(r, k->nmembers);
            if (!(need[c] >> m & 1)) {
                need[c] |= (uint8_t)(1u << m);
                nneed++;
                added++;
            }
        }
        for (int m = 0; m < k->nmembers; m++)
            if ((need[c] >> m & 1) && refs.over_has[c][m] && refs.over[c][m].cls >= 0)
                need[refs.over[c][m].cls] |= (uint8_t)(1u << refs.over[c][m].idx);
    }
    int8_t to[HZ_MAX_CLASSES][HZ_MAX_MEMBERS];
    memset(to, -1, sizeof to);
    bool dropped = false;
    for (int c = 0; c < p->nclasses; c++) {
        HzClass *k = &p->classes[c];
        int n = 0;
        for (int m = 0; m < k->nmembers; m++)
            if (need[c] >> m & 1) {
                to[c][m] = (int8_t)n;
                k->members[n++] = k->members[m];
            }
        dropped |= n < k->nmembers;
        memset(&k->members[n], 0, (size_t)(HZ_MAX_MEMBERS - n) * sizeof k->members[0]);
        k->nmembers = (uint8_t)n;
    }
    if (!dropped)
        return;
    /* Overrides first: they decide names, hence the candidate lists below. */
    hz_layout(p, &lay);
    HzRef cand[HZ_MAX_VISIBLE];
    for (int c = 0; c < p->nclasses; c++) {
        int n = -1;
        for (int m = 0; m < HZ_MAX_MEMBERS; m++) {
            int om = -1;   /* the member's index before */
            for (int j = 0; j < HZ_MAX_MEMBERS && om < 0; j++)
                if (to[c][j] == m)
                    om = j;
            if (om < 0 || !refs.over_has[c][om])
                continue;
            if (n < 0)
                n = hz_override_candidates(p, &lay, c, cand);
            HzMember *mem = &p->classes[c].members[m];
            mem->variant = index_of(cand, n, ref_moved(refs.over[c][om], to), &lost);
        }
        hz_layout_class(p, &lay, c);
    }
    for (int i = 0; i < p->nstmts; i++) {
        HzStmt *st = &p->stmts[i];
        int n = hz_stmt_candidates(p, &lay, p->arg_class[st->arg], (HzAccessPattern)st->pattern,
                                   cand);
        st->member = index_of(cand, n, ref_moved(refs.stmt[i], to), &lost);
    }
    HzBetweenState bst;
    memset(&bst, 0, sizeof bst);
    for (int b = 0; b < p->nbetween; b++) {
        HzMutation *mu = &p->between[b];
        int cls = p->arg_class[mu->arg];
        int n = hz_between_candidates(p, &lay, &bst, (HzBetweenKind)mu->kind, cls, cand);
        if (!refs.between_has[b] || n == 0) {
            lost |= refs.between_has[b];
            continue;
        }
        mu->target = index_of(cand, n, ref_moved(refs.between[b], to), &lost);
        hz_between_apply(&bst, p, (HzBetweenKind)mu->kind, cand[mu->target % n], cls);
    }
    if (p->other_kind != HZ_OTHER_NONE) {
        int n = hz_other_candidates(p, &lay, p->other_kind, p->arg_class[p->other_arg], cand);
        p->other_target = index_of(cand, n, ref_moved(refs.other, to), &lost);
    }
    if (lost)
        memcpy(p, &before, sizeof before);
}

/* Cuts a large program down to a small one around statement s (program size as a
 * mutation dimension, docs/PROGRAMS.md "Program size"): the classes the
 * statement's argument needs (its class and its generated bases; other arguments'
 * classes too while the total stays within lim->classes, else those arguments
 * take the statement's class), a run of 1..lim->stmts statements holding s, a
 * run of at most lim->between between() mutations holding mutation b (any run
 * when b < 0); in each kept class the members something names, the class-wide ones
 * and others up to lim->members (trim_members). What the kept statements read
 * keeps its meaning. Kept classes keep their order, so every base index still points
 * at an earlier class. Not normalised after the trim. */
static void focus_within(HzProgram *p, unsigned s, int b, HzRng *r, const HzSizeLimits *lim)
{
    unsigned a = p->stmts[s].arg < p->nargs ? p->stmts[s].arg : 0;
    int c = p->arg_class[a] < p->nclasses ? p->arg_class[a] : 0;
    unsigned keep = class_closure(p, c);
    for (unsigned o = 0; o < p->nargs; o++) {
        int oc = p->arg_class[o] < p->nclasses ? p->arg_class[o] : 0;
        unsigned with = keep | class_closure(p, oc);
        if (__builtin_popcount(with) <= lim->classes)
            keep = with;
    }
    /* Which statements and which between() mutation name what s names (before the
     * cut: the layout changes with it). */
    HzLayout lay;
    hz_layout(p, &lay);
    HzRefs refs;
    refs_read(p, &lay, &refs);
    HzRef key = hz_ref_key(&lay, refs.stmt[s]);
    bool same_name[HZ_MAX_STMTS];
    int arg_cls[HZ_MAX_ARGS];
    for (unsigned o = 0; o < HZ_MAX_ARGS; o++)
        arg_cls[o] = o < p->nargs && p->arg_class[o] < p->nclasses ? p->arg_class[o] : 0;
    for (int j = 0; j < p->nstmts; j++) {
        HzRef k = hz_ref_key(&lay, refs.stmt[j]);
        same_name[j] = k.cls == key.cls && k.idx == key.idx;
    }
    int between_same_name = -1;
    for (int j = 0; j < p->nbetween && between_same_name < 0; j++) {
        HzRef k = hz_ref_key(&lay, refs.between[j]);
        if (refs.between_has[j] && k.cls == key.cls && k.idx == key.idx)
            between_same_name = j;
    }
    unsigned keep_before = keep;
    uint8_t map[HZ_MAX_CLASSES];
    HzClass kept[HZ_MAX_CLASSES];
    int n = 0;
    for (int i = 0; i < p->nclasses; i++) {
        if (!(keep & (1u << i)))
            continue;
        map[i] = (uint8_t)n;
        kept[n] = p->classes[i];
        /* bases are in keep (the closure): remapped to their new positions */
        if (kept[n].base1 > 0)
            kept[n].base1 = (uint8_t)(map[kept[n].base1 - 1] + 1);
        if (kept[n].base2 > 0)
            kept[n].base2 = (keep & (1u << (kept[n].base2 - 1)))
                            ? (uint8_t)(map[kept[n].base2 - 1] + 1) : 0;
        n++;
    }
    memcpy(p->classes, kept, (size_t)n * sizeof kept[0]);
    memset(&p->classes[n], 0, (size_t)(HZ_MAX_CLASSES - n) * sizeof kept[0]);
    p->nclasses = (uint8_t)n;
    for (unsigned o = 0; o < p->nargs; o++) {
        int oc = p->arg_class[o] < HZ_MAX_CLASSES ? p->arg_class[o] : 0;
        p->arg_class[o] = (keep & (1u << oc)) ? map[oc] : map[c];
    }

    /* The statements: s, then those reading the same name on a kept class (a write
     * and a later re-read are what stale caches need), nearest first, then s's
     * neighbours, up to len; in their order. */
    unsigned cap = (unsigned)lim->stmts;
    unsigned len = 1 + hz_rng_below(r, cap);
    bool pick[HZ_MAX_STMTS] = {false};
    pick[s] = true;
    unsigned npick = 1;
    for (unsigned d = 1; d < p->nstmts && npick < cap; d++)
        for (int sign = -1; sign <= 1 && npick < cap; sign += 2) {
            int j = (int)s + sign * (int)d;
            if (j < 0 || j >= p->nstmts)
                continue;
            unsigned aj = p->stmts[j].arg < p->nargs ? p->stmts[j].arg : 0;
            if (same_name[j] && (aj == a || (keep_before & (1u << arg_cls[aj])))) {
                pick[j] = true;
                npick++;
            }
        }
    unsigned start = s >= len - 1 ? s - hz_rng_below(r, len) : 0;
    for (unsigned j = start; j < p->nstmts && npick < len; j++)
        if (!pick[j]) {
            pick[j] = true;
            npick++;
        }
    unsigned m = 0;
    for (unsigned j = 0; j < p->nstmts; j++)
        if (pick[j])
            p->stmts[m++] = p->stmts[j];
    memset(&p->stmts[m], 0, (HZ_MAX_STMTS - m) * sizeof p->stmts[0]);
    p->nstmts = (uint8_t)m;
    if (b < 0)
        b = between_same_name;

    if (p->nbetween > lim->between) {
        unsigned bl = 1 + hz_rng_below(r, lim->between);
        unsigned bs = b >= 0 ? (unsigned)b - hz_rng_below(r, (unsigned)b < bl ? (unsigned)b + 1 : bl)
                             : hz_rng_below(r, p->nbetween - bl + 1u);
        if (bs + bl > p->nbetween)
            bs = p->nbetween - bl;
        memmove(p->between, &p->between[bs], bl * sizeof p->between[0]);
        memset(&p->between[bl], 0, (HZ_MAX_BETWEEN - bl) * sizeof p->between[0]);
        p->nbetween = (uint8_t)bl;
    }
    hz_program_normalize(p);
    trim_members(p, r, lim->members, 0);
}

void hz_focus_at(HzProgram *p, unsigned s, int b, HzRng *r)
{
    focus_within(p, s, b, r, &hz_size.edit);
}

/* What statement s of p means, hashed: its pattern and parameter, the member it
 * reads (kind, variant, value) and its argument's class (the members of every class
 * of its MRO, its metaclass). Two statements with the same meaning run the same
 * code on equal objects, whatever the indices that got them there. */
static uint64_t mix(uint64_t h, unsigned v)
{
    return (h ^ v) * 0x100000001b3ull;
}

static uint64_t stmt_meaning(const HzProgram *p, const HzLayout *lay, const HzStmt *s)
{
    uint64_t h = mix(mix(0xcbf29ce484222325ull, s->pattern), s->param);
    int cls = p->arg_class[s->arg < p->nargs ? s->arg : 0];
    HzRef cand[HZ_MAX_VISIBLE];
    int n = hz_stmt_candidates(p, lay, cls, (HzAccessPattern)s->pattern, cand);
    if (n > 0) {
        const HzMember *m = hz_ref_member(p, cand[s->member % n]);
        h = mix(mix(mix(h, m->kind), m->variant), m->value);
    }
    const HzClassInfo *ci = &lay->cls[cls];
    h = mix(h, ci->eff_meta);
    for (int j = 0; j < ci->nmro; j++) {
        const HzClass *k = &p->classes[ci->mro[j]];
        h = mix(h, 0x100u + k->nmembers);
        for (int i = 0; i < k->nmembers; i++)
            h = mix(mix(mix(h, k->members[i].kind), k->members[i].variant), k->members[i].value);
    }
    return h;
}

/* Program size as a mutation dimension (hz_size): an edited program that is not
 * small is cut down to a small one (except one time in keep_large) around what the
 * edit changed: a statement whose meaning (stmt_meaning) no statement of the
 * original had, else a random one; and the first between() mutation that differs.
 * Other edited programs may drop the members nothing names (trim_spare). So the
 * fuzzing loop can run mostly small programs (an exec's cost grows with its classes
 * and lines) that still hold what made the edit new, while large programs (seeds,
 * fresh programs, cut to one class but keeping their statements) keep the rare
 * combinations coming. The default is HZ_SIZE_DEFAULT (hz_mutate.h, the presets). */
HzSizeDimension hz_size = HZ_SIZE_DEFAULT;

/* orig NULL: p has no original (a fresh program), so no statement or mutation is new
 * and the cut centres on a random statement. */
static void size_apply_within(HzProgram *p, const HzProgram *orig, unsigned keep_large,
                              HzRng *r, const HzSizeLimits *lim)
{
    if (keep_large == 0 || is_small_within(p, lim) || p->nstmts == 0
        || p->nclasses == 0 || hz_rng_below(r, keep_large) == 0) {
        if (hz_size.trim_spare >= 0) {
            trim_members(p, r, 0, hz_size.trim_spare);
            hz_program_normalize(p);
        }
        return;
    }
    if (orig == NULL) {
        focus_within(p, hz_rng_below(r, p->nstmts), -1, r, lim);
        hz_program_normalize(p);
        return;
    }
    HzLayout lo, lp;
    hz_layout(orig, &lo);
    hz_layout(p, &lp);
    uint64_t old[HZ_MAX_STMTS];
    for (int i = 0; i < orig->nstmts; i++)
        old[i] = stmt_meaning(orig, &lo, &orig->stmts[i]);
    uint8_t changed[HZ_MAX_STMTS];
    unsigned nchanged = 0;
    for (int i = 0; i < p->nstmts; i++) {
        uint64_t h = stmt_meaning(p, &lp, &p->stmts[i]);
        bool seen = false;
        for (int j = 0; j < orig->nstmts && !seen; j++)
            seen = old[j] == h;
        if (!seen)
            changed[nchanged++] = (uint8_t)i;
    }
    unsigned s = nchanged ? changed[hz_rng_below(r, nchanged)] : hz_rng_below(r, p->nstmts);
    int b = -1;
    for (int i = 0; i < p->nbetween && b < 0; i++)
        if (i >= orig->nbetween || memcmp(&p->between[i], &orig->between[i], sizeof p->between[i]))
            b = i;
    focus_within(p, s, b, r, lim);
    hz_program_normalize(p);
}

void hz_size_apply(HzProgram *p, const HzProgram *orig, unsigned keep_large, HzRng *r)
{
    size_apply_within(p, orig, keep_large, r, &hz_size.edit);
}

void hz_size_apply_fresh(HzProgram *p, HzRng *r)
{
    if (hz_size.fresh_keep_large == 0)
        return;
    size_apply_within(p, NULL, hz_size.fresh_keep_large, r, &hz_size.fresh);
}

