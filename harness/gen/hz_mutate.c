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

bool hz_program_is_small(const HzProgram *p)
{
    return p->nclasses <= HZ_SMALL_CLASSES && p->nstmts <= HZ_SMALL_STMTS
           && p->nbetween <= HZ_SMALL_BETWEEN;
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
 * classes too while the total stays within HZ_SMALL_CLASSES, else those arguments
 * take the statement's class), a run of 1..HZ_SMALL_STMTS statements holding s, a
 * run of at most HZ_SMALL_BETWEEN between() mutations holding mutation b (any run
 * when b < 0); in each kept class the members something names, the class-wide ones
 * and others up to HZ_SMALL_MEMBERS (trim_members). What the kept statements read
 * keeps its meaning. Kept classes keep their order, so every base index still points
 * at an earlier class. Not normalised after the trim. */
static void focus_at(HzProgram *p, unsigned s, int b, HzRng *r)
{
    unsigned a = p->stmts[s].arg < p->nargs ? p->stmts[s].arg : 0;
    int c = p->arg_class[a] < p->nclasses ? p->arg_class[a] : 0;
    unsigned keep = class_closure(p, c);
    for (unsigned o = 0; o < p->nargs; o++) {
        int oc = p->arg_class[o] < p->nclasses ? p->arg_class[o] : 0;
        unsigned with = keep | class_closure(p, oc);
        if (__builtin_popcount(with) <= HZ_SMALL_CLASSES)
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
    unsigned len = 1 + hz_rng_below(r, HZ_SMALL_STMTS);
    bool pick[HZ_MAX_STMTS] = {false};
    pick[s] = true;
    unsigned npick = 1;
    for (unsigned d = 1; d < p->nstmts && npick < HZ_SMALL_STMTS; d++)
        for (int sign = -1; sign <= 1 && npick < HZ_SMALL_STMTS; sign += 2) {
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

    if (p->nbetween > HZ_SMALL_BETWEEN) {
        unsigned bl = 1 + hz_rng_below(r, HZ_SMALL_BETWEEN);
        unsigned bs = b >= 0 ? (unsigned)b - hz_rng_below(r, (unsigned)b < bl ? (unsigned)b + 1 : bl)
                             : hz_rng_below(r, p->nbetween - bl + 1u);
        if (bs + bl > p->nbetween)
            bs = p->nbetween - bl;
        memmove(p->between, &p->between[bs], bl * sizeof p->between[0]);
        memset(&p->between[bl], 0, (HZ_MAX_BETWEEN - bl) * sizeof p->between[0]);
        p->nbetween = (uint8_t)bl;
    }
    hz_program_normalize(p);
    trim_members(p, r, HZ_SMALL_MEMBERS, 0);
}

/* The focus edit: cut down around a random statement. */
static bool edit_focus(HzProgram *p, HzRng *r)
{
    if (hz_program_is_small(p) || p->nstmts == 0 || p->nclasses == 0)
        return false;
    focus_at(p, hz_rng_below(r, p->nstmts), -1, r);
    return true;
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
 * fuzzing loop can run mostly small programs (compiling is most of an input's cost
 * and grows with its lines) that still hold what made the edit new, while large
 * programs (seeds, the edits kept large) keep the rare combinations coming. Off by
 * default: measured, it takes four faults of the zoo 1.3-1.6x the execs to find
 * (docs/FUZZING.md, "Program size and the fault zoo"). */
HzSizeDimension hz_size = HZ_SIZE_OFF;

static void size_dimension(HzProgram *p, const HzProgram *orig, unsigned keep_large, HzRng *r)
{
    if (keep_large == 0 || hz_program_is_small(p) || p->nstmts == 0
        || p->nclasses == 0 || hz_rng_below(r, keep_large) == 0) {
        if (hz_size.trim_spare >= 0) {
            trim_members(p, r, 0, hz_size.trim_spare);
            hz_program_normalize(p);
        }
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
    focus_at(p, s, b, r);
    hz_program_normalize(p);
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
        size_dimension(p, orig, hz_size.focus_keep_large, &rng);
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
    size_dimension(a, a0, hz_size.splice_keep_large, &rng);
    hz_program_free(a0);
    size_t r = emit_bytes(a, out, max_size);
    hz_program_free(a);
    hz_program_free(b);
    return r;
}
