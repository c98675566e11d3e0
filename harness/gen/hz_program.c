/* hz_program.c: the IR's housekeeping (free, clone, equality, names) and its
 * layout: MROs, effective metaclasses, which names an instance can reach, and the
 * candidate lists that statement and mutation indices point into.
 *
 * The layout mirrors what CPython computes at class creation (type_new's MRO and
 * metaclass calculation) for the restricted shapes the IR allows: single
 * inheritance plus an optional second base that is a root class, so the C3
 * linearisation is always [C] + mro(base1) + [base2]. */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "hz_ir.h"

static const char *const desc_names[] = {
#define HZ_NAME(n) #n,
    HZ_DESC_KINDS(HZ_NAME)
};
static const char *const access_names[] = {HZ_ACCESS_PATTERNS(HZ_NAME)};
static const char *const between_names[] = {HZ_BETWEEN_KINDS(HZ_NAME)};
static const char *const collect_names[] = {HZ_COLLECT_MODES(HZ_NAME)};
#undef HZ_NAME

const char *
hz_desc_kind_name(HzDescKind k)
{
    return (unsigned)k < HZ_DESC__COUNT ? desc_names[k] : "?";
}

const char *
hz_access_name(HzAccessPattern a)
{
    return (unsigned)a < HZ_ACCESS__COUNT ? access_names[a] : "?";
}

const char *
hz_between_name(HzBetweenKind b)
{
    return (unsigned)b < HZ_BETWEEN__COUNT ? between_names[b] : "?";
}

const char *
hz_collect_name(HzCollectMode c)
{
    return (unsigned)c < HZ_COLLECT__COUNT ? collect_names[c] : "?";
}

/* Every kind but the two that live on metaclasses. `slot` is listed twice: only
 * slots give slot_toggle a target and __class__ layouts something to differ in,
 * so it earns a double share (the encoder writes the first index). */
const uint8_t hz_class_kinds[] = {
    HZ_DESC_inst_attr, HZ_DESC_class_attr, HZ_DESC_class_attr_mut, HZ_DESC_prop_fresh,
    HZ_DESC_prop_stable, HZ_DESC_prop_counter, HZ_DESC_prop_attrerror, HZ_DESC_prop_raises,
    HZ_DESC_prop_setdel, HZ_DESC_cached_prop, HZ_DESC_method, HZ_DESC_classmethod,
    HZ_DESC_staticmethod, HZ_DESC_data_desc, HZ_DESC_nondata_desc, HZ_DESC_set_name,
    HZ_DESC_slot, HZ_DESC_getattr_hook, HZ_DESC_getattribute_hook, HZ_DESC_mro_override,
    HZ_DESC_callable_attr, HZ_DESC_partialmethod, HZ_DESC_module_like, HZ_DESC_slot,
};
const int hz_nclass_kinds = (int)(sizeof(hz_class_kinds) / sizeof(hz_class_kinds[0]));

/* Behaviour variants per kind; hz_emit.c documents each. mro_override's variant is
 * an index into hz_override_candidates instead. */
int
hz_variant_count(HzDescKind k)
{
    switch (k) {
    case HZ_DESC_inst_attr: return 3;        /* int, list, str */
    case HZ_DESC_class_attr: return 3;       /* int, str, tuple */
    case HZ_DESC_class_attr_mut: return 2;   /* list, dict */
    case HZ_DESC_prop_fresh: return 3;       /* object(), list, dict */
    case HZ_DESC_prop_stable: return 2;      /* module constant, class-held list */
    case HZ_DESC_prop_counter: return 4;     /* module counter, counter in the instance,
                                                class-level counter, class-level log list */
    case HZ_DESC_prop_attrerror: return 2;   /* plain, with a __getattr__ fallback */
    case HZ_DESC_prop_raises: return 3;      /* ValueError, KeyError, ZeroDivisionError */
    case HZ_DESC_data_desc: return 3;        /* get+set, get+set+delete, set only */
    case HZ_DESC_nondata_desc: return 2;     /* value, fresh list */
    case HZ_DESC_set_name: return 2;         /* non-data, data */
    case HZ_DESC_slot: return 2;             /* set in make(), left unset */
    case HZ_DESC_getattr_hook: return 3;     /* fresh, stable, raising */
    case HZ_DESC_getattribute_hook: return 2; /* selective, total */
    case HZ_DESC_meta_prop: return 2;        /* value, fresh */
    case HZ_DESC_callable_attr: return 2;    /* functools.partial, object with __call__ */
    case HZ_DESC_module_like: return 2;      /* a parameter, a submodule */
    default: return 1;
    }
}

bool
hz_kind_overridable(HzDescKind k)
{
    switch (k) {
    case HZ_DESC_class_attr: case HZ_DESC_class_attr_mut: case HZ_DESC_prop_fresh:
    case HZ_DESC_prop_stable: case HZ_DESC_prop_counter: case HZ_DESC_prop_attrerror:
    case HZ_DESC_prop_raises: case HZ_DESC_prop_setdel: case HZ_DESC_cached_prop:
    case HZ_DESC_method: case HZ_DESC_classmethod: case HZ_DESC_staticmethod:
    case HZ_DESC_data_desc: case HZ_DESC_nondata_desc: case HZ_DESC_set_name:
    case HZ_DESC_callable_attr: case HZ_DESC_partialmethod:
        return true;
    default:
        return false;
    }
}

bool
hz_kind_in_class_dict(HzDescKind k)
{
    return hz_kind_overridable(k) || k == HZ_DESC_slot || k == HZ_DESC_mro_override;
}

bool
hz_kind_callable(HzDescKind k)
{
    return k == HZ_DESC_method || k == HZ_DESC_classmethod || k == HZ_DESC_staticmethod
           || k == HZ_DESC_callable_attr || k == HZ_DESC_partialmethod;
}

bool
hz_kind_propertyish(HzDescKind k)
{
    switch (k) {
    case HZ_DESC_prop_fresh: case HZ_DESC_prop_stable: case HZ_DESC_prop_counter:
    case HZ_DESC_prop_attrerror: case HZ_DESC_prop_raises: case HZ_DESC_prop_setdel:
    case HZ_DESC_cached_prop: case HZ_DESC_data_desc: case HZ_DESC_nondata_desc:
    case HZ_DESC_set_name:
        return true;
    default:
        return false;
    }
}

/* ---- housekeeping ---- */

void
hz_program_free(HzProgram *p)
{
    free(p);
}

HzProgram *
hz_program_clone(const HzProgram *p)
{
    HzProgram *q = malloc(sizeof(*q));
    if (q == NULL) {
        fprintf(stderr, "hz_program_clone: out of memory\n");
        abort();
    }
    memcpy(q, p, sizeof(*q));
    return q;
}

static bool
member_equal(const HzMember *a, const HzMember *b)
{
    return a->kind == b->kind && a->variant == b->variant && a->value == b->value;
}

#define CAP(n, max) ((n) < (max) ? (n) : (max))

/* Field by field over the used entries only: unused array tails are not part of
 * the program. Counts are capped so that an unnormalised IR is read in bounds. */
bool
hz_program_equal(const HzProgram *a, const HzProgram *b)
{
    if (a->nmetas != b->nmetas || a->nclasses != b->nclasses || a->nargs != b->nargs
        || a->nstmts != b->nstmts || a->nbetween != b->nbetween
        || a->other_kind != b->other_kind || a->other_arg != b->other_arg
        || a->other_target != b->other_target || a->collect != b->collect)
        return false;
    for (int i = 0; i < CAP(a->nmetas, HZ_MAX_METAS); i++) {
        if (a->metas[i].nmembers != b->metas[i].nmembers)
            return false;
        for (int m = 0; m < CAP(a->metas[i].nmembers, HZ_MAX_META_MEMBERS); m++)
            if (!member_equal(&a->metas[i].members[m], &b->metas[i].members[m]))
                return false;
    }
    for (int i = 0; i < CAP(a->nclasses, HZ_MAX_CLASSES); i++) {
        const HzClass *x = &a->classes[i], *y = &b->classes[i];
        if (x->base1 != y->base1 || x->base2 != y->base2 || x->meta != y->meta
            || x->nmembers != y->nmembers)
            return false;
        for (int m = 0; m < CAP(x->nmembers, HZ_MAX_MEMBERS); m++)
            if (!member_equal(&x->members[m], &y->members[m]))
                return false;
    }
    for (int i = 0; i < CAP(a->nargs, HZ_MAX_ARGS); i++)
        if (a->arg_class[i] != b->arg_class[i])
            return false;
    for (int i = 0; i < CAP(a->nstmts, HZ_MAX_STMTS); i++) {
        const HzStmt *x = &a->stmts[i], *y = &b->stmts[i];
        if (x->pattern != y->pattern || x->arg != y->arg || x->member != y->member
            || x->param != y->param)
            return false;
    }
    for (int i = 0; i < CAP(a->nbetween, HZ_MAX_BETWEEN); i++) {
        const HzMutation *x = &a->between[i], *y = &b->between[i];
        if (x->kind != y->kind || x->arg != y->arg || x->target != y->target
            || x->value != y->value)
            return false;
    }
    return true;
}

/* ---- layout ---- */

void
hz_layout_init(HzLayout *lay)
{
    memset(lay, 0, sizeof(*lay));
}

/* Base names by kind; module_like's submodule variant has its own (index COUNT). */
static const char *
base_name(HzDescKind k, int variant, int *slot)
{
    static const char *const names[HZ_DESC__COUNT] = {
        [HZ_DESC_inst_attr] = "inst_val", [HZ_DESC_class_attr] = "class_val",
        [HZ_DESC_class_attr_mut] = "class_list", [HZ_DESC_prop_fresh] = "fresh_prop",
        [HZ_DESC_prop_stable] = "stable_prop", [HZ_DESC_prop_counter] = "counter_prop",
        [HZ_DESC_prop_attrerror] = "attrerror_prop", [HZ_DESC_prop_raises] = "raising_prop",
        [HZ_DESC_prop_setdel] = "setdel_prop", [HZ_DESC_cached_prop] = "cached",
        [HZ_DESC_method] = "meth", [HZ_DESC_classmethod] = "cmeth",
        [HZ_DESC_staticmethod] = "smeth", [HZ_DESC_data_desc] = "data_attr",
        [HZ_DESC_nondata_desc] = "nondata_attr", [HZ_DESC_set_name] = "named_attr",
        [HZ_DESC_slot] = "slot_val", [HZ_DESC_getattr_hook] = "dynamic",
        [HZ_DESC_getattribute_hook] = "hooked", [HZ_DESC_mro_override] = "override",
        [HZ_DESC_meta_prop] = "meta_prop", [HZ_DESC_meta_data_desc] = "meta_desc",
        [HZ_DESC_callable_attr] = "callable_attr", [HZ_DESC_partialmethod] = "pmeth",
        [HZ_DESC_module_like] = "param_w",
    };
    if (k == HZ_DESC_module_like && variant == 1) {
        *slot = HZ_DESC__COUNT;
        return "sub_m";
    }
    *slot = (int)k;
    return names[k];
}

void
hz_layout_metas(const HzProgram *p, HzLayout *lay)
{
    for (int i = 0; i < p->nmetas; i++)
        for (int m = 0; m < p->metas[i].nmembers; m++) {
            const HzMember *mem = &p->metas[i].members[m];
            int slot;
            base_name((HzDescKind)mem->kind, mem->variant, &slot);
            lay->meta_name_no[i][m] = ++lay->counters[slot];
        }
}

static bool
key_seen(const HzLayout *lay, const HzRef *list, int n, HzRef key)
{
    for (int j = 0; j < n; j++) {
        HzRef k = hz_ref_key(lay, list[j]);
        if (k.cls == key.cls && k.idx == key.idx)
            return true;
    }
    return false;
}

HzRef
hz_ref_key(const HzLayout *lay, HzRef r)
{
    return r.cls >= 0 ? lay->key[r.cls][r.idx] : r;
}

int
hz_override_candidates(const HzProgram *p, const HzLayout *lay, int cls, HzRef *out)
{
    int n = 0;
    const HzClass *c = &p->classes[cls];
    int bases[2] = {c->base1 - 1, c->base2 - 1};
    for (int b = 0; b < 2; b++) {
        if (bases[b] < 0)
            continue;
        const HzClassInfo *bi = &lay->cls[bases[b]];
        for (int j = 0; j < bi->nvisible; j++) {
            HzRef r = bi->visible[j];
            if (r.cls < 0)
                continue;
            HzRef k = hz_ref_key(lay, r);
            if (!hz_kind_overridable((HzDescKind)hz_ref_member(p, k)->kind))
                continue;
            if (key_seen(lay, out, n, k))
                continue;
            out[n++] = r;
        }
    }
    return n;
}

void
hz_layout_class(const HzProgram *p, HzLayout *lay, int i)
{
    const HzClass *c = &p->classes[i];
    HzClassInfo *ci = &lay->cls[i];
    memset(ci, 0, sizeof(*ci));
    ci->mro[ci->nmro++] = (uint8_t)i;
    ci->eff_meta = c->meta;
    if (c->base1) {
        const HzClassInfo *b = &lay->cls[c->base1 - 1];
        for (int j = 0; j < b->nmro; j++)
            ci->mro[ci->nmro++] = b->mro[j];
        if (b->eff_meta > ci->eff_meta)
            ci->eff_meta = b->eff_meta;
        ci->slot_lineage |= b->slot_lineage;
    }
    if (c->base2) {
        const HzClassInfo *b = &lay->cls[c->base2 - 1];
        ci->mro[ci->nmro++] = (uint8_t)(c->base2 - 1);
        if (b->eff_meta > ci->eff_meta)
            ci->eff_meta = b->eff_meta;
        ci->slot_lineage |= b->slot_lineage;
    }
    /* Keys: overrides resolve through the bases' candidates (laid out already). */
    HzRef cand[HZ_MAX_VISIBLE];
    int ncand = -1;
    for (int m = 0; m < c->nmembers; m++) {
        const HzMember *mem = &c->members[m];
        HzRef self = {(int8_t)i, (uint8_t)m};
        lay->key[i][m] = self;
        if (mem->kind == HZ_DESC_slot)
            ci->own_slots = true;
        if (mem->kind == HZ_DESC_mro_override) {
            if (ncand < 0)
                ncand = hz_override_candidates(p, lay, i, cand);
            if (mem->variant < ncand)
                lay->key[i][m] = hz_ref_key(lay, cand[mem->variant]);
            lay->name_no[i][m] = 0;
            continue;
        }
        int slot;
        base_name((HzDescKind)mem->kind, mem->variant, &slot);
        lay->name_no[i][m] = ++lay->counters[slot];
    }
    ci->slot_lineage |= ci->own_slots;
    /* Visible names: MRO order, first occurrence of each key wins (an override
     * hides what it overrides), then the metaclass chain's members. */
    for (int j = 0; j < ci->nmro; j++) {
        int k = ci->mro[j];
        for (int m = 0; m < p->classes[k].nmembers; m++) {
            HzRef r = {(int8_t)k, (uint8_t)m};
            if (!key_seen(lay, ci->visible, ci->nvisible, hz_ref_key(lay, r)))
                ci->visible[ci->nvisible++] = r;
        }
    }
    for (int k = ci->eff_meta; k >= 1; k--)
        for (int m = 0; m < p->metas[k - 1].nmembers; m++) {
            HzRef r = {(int8_t)(-k), (uint8_t)m};
            ci->visible[ci->nvisible++] = r;
        }
    if (lay->nclasses <= i)
        lay->nclasses = (uint8_t)(i + 1);
}

void
hz_layout(const HzProgram *p, HzLayout *lay)
{
    hz_layout_init(lay);
    hz_layout_metas(p, lay);
    for (int i = 0; i < p->nclasses; i++)
        hz_layout_class(p, lay, i);
}

const char *
hz_ref_name(const HzProgram *p, const HzLayout *lay, HzRef r, char *buf)
{
    HzRef k = hz_ref_key(lay, r);
    const HzMember *mem = hz_ref_member(p, k);
    int slot;
    const char *base = base_name((HzDescKind)mem->kind, mem->variant, &slot);
    int no = k.cls >= 0 ? lay->name_no[k.cls][k.idx] : lay->meta_name_no[-1 - k.cls][k.idx];
    /* "%s" or "%s_%d" into 32 bytes, spelled out: snprintf was most of this call,
     * made for every member the emitter names */
    size_t n = strlen(base);
    if (n > 31)
        n = 31;
    memcpy(buf, base, n);
    if (no > 1 && n < 31) {
        char tmp[12], *e = tmp + sizeof tmp, *d = e;
        for (unsigned u = (unsigned)no; u != 0; u /= 10)
            *--d = (char)('0' + u % 10);
        *--d = '_';
        size_t m = (size_t)(e - d) < 31 - n ? (size_t)(e - d) : 31 - n;
        memcpy(buf + n, d, m);
        n += m;
    }
    buf[n] = '\0';
    return buf;
}

/* ---- candidate lists ---- */

static bool
stmt_fits(const HzProgram *p, const HzLayout *lay, int cls, HzAccessPattern pat, HzRef r)
{
    HzDescKind key_kind = (HzDescKind)hz_ref_member(p, hz_ref_key(lay, r))->kind;
    switch (pat) {
    case HZ_ACCESS_method_call:
        return hz_kind_callable(key_kind);
    case HZ_ACCESS_super_read:
        return r.cls >= 0 && r.cls != cls;
    case HZ_ACCESS_try_attrerror:
        return key_kind == HZ_DESC_prop_attrerror || key_kind == HZ_DESC_slot
               || key_kind == HZ_DESC_getattr_hook;
    /* The write-then-re-read patterns write on the instance or its class, so they
     * take class members only, of kinds whose class entry may be replaced without
     * breaking make() or the class's hooks (the same as class_swap's targets). */
    case HZ_ACCESS_dict_write_read:
        return r.cls >= 0;
    case HZ_ACCESS_shadow_read:   /* names a dict entry shadows: non-data ones */
        switch (key_kind) {
        case HZ_DESC_class_attr: case HZ_DESC_class_attr_mut: case HZ_DESC_method:
        case HZ_DESC_classmethod: case HZ_DESC_staticmethod: case HZ_DESC_nondata_desc:
        case HZ_DESC_cached_prop: case HZ_DESC_callable_attr: case HZ_DESC_partialmethod:
            return r.cls >= 0;
        default:
            return false;
        }
    case HZ_ACCESS_class_write_read:
        return r.cls >= 0 && (hz_kind_overridable(key_kind) || key_kind == HZ_DESC_inst_attr);
    case HZ_ACCESS_class_del_read:   /* `del type(a).x` needs x in the class's own dict */
        return r.cls == cls && hz_kind_overridable(key_kind);
    case HZ_ACCESS_class_swap_read:
        return r.cls >= 0 && hz_kind_overridable(key_kind);
    case HZ_ACCESS_side_effect_read: {   /* accessors that change another attribute */
        HzDescKind own = r.cls >= 0 ? (HzDescKind)hz_ref_member(p, r)->kind : HZ_DESC__COUNT;
        return own == HZ_DESC_prop_counter || own == HZ_DESC_prop_setdel;
    }
    default:
        return true;   /* a metaclass name is read on the class: type(a).x */
    }
}

int
hz_stmt_candidates(const HzProgram *p, const HzLayout *lay, int cls, HzAccessPattern pat,
                   HzRef *out)
{
    const HzClassInfo *ci = &lay->cls[cls];
    int n = 0;
    for (int j = 0; j < ci->nvisible; j++)
        if (stmt_fits(p, lay, cls, pat, ci->visible[j]))
            out[n++] = ci->visible[j];
    if (n == 0) {
        memcpy(out, ci->visible, ci->nvisible * sizeof(HzRef));
        n = ci->nvisible;
    }
    return n;
}

int
hz_middle_class(const HzProgram *p, int cls)
{
    return p->classes[cls].base1 - 1;
}

bool
hz_between_needs_target(HzBetweenKind k)
{
    return k != HZ_BETWEEN_class_swap && k != HZ_BETWEEN_add_getattr;
}

HzBetweenKind
hz_between_fallback(HzBetweenKind k)
{
    switch (k) {
    case HZ_BETWEEN_delete_class_attr: case HZ_BETWEEN_prop_to_value:
    case HZ_BETWEEN_mro_middle_change:
        return HZ_BETWEEN_rebind_class_attr;
    default:
        return HZ_BETWEEN_shadow_in_dict;   /* always has a target */
    }
}

int
hz_between_candidates(const HzProgram *p, const HzLayout *lay, const HzBetweenState *st,
                      HzBetweenKind k, int cls, HzRef *out)
{
    const HzClassInfo *ci = &lay->cls[cls];
    int n = 0;
    if (k == HZ_BETWEEN_mro_middle_change && hz_middle_class(p, cls) < 0)
        return 0;
    if (k == HZ_BETWEEN_add_getattr)
        return 0;
    for (int j = 0; j < ci->nvisible; j++) {
        HzRef r = ci->visible[j];
        if (r.cls < 0)
            continue;
        HzDescKind own = (HzDescKind)hz_ref_member(p, r)->kind;
        HzDescKind key = (HzDescKind)hz_ref_member(p, hz_ref_key(lay, r))->kind;
        bool ok;
        switch (k) {
        case HZ_BETWEEN_rebind_class_attr: ok = hz_kind_in_class_dict(own); break;
        case HZ_BETWEEN_delete_class_attr:
            ok = hz_kind_in_class_dict(own) && !(st->deleted[r.cls] >> r.idx & 1);
            break;
        case HZ_BETWEEN_slot_toggle: ok = key == HZ_DESC_slot; break;
        case HZ_BETWEEN_class_swap: ok = hz_kind_overridable(key); break;
        case HZ_BETWEEN_prop_to_value: ok = hz_kind_propertyish(key); break;
        default: ok = true; break;   /* shadow_in_dict, mro_middle_change */
        }
        if (ok)
            out[n++] = r;
    }
    return n;
}

void
hz_between_apply(HzBetweenState *st, const HzProgram *p, HzBetweenKind k, HzRef target,
                 int cls)
{
    switch (k) {
    case HZ_BETWEEN_delete_class_attr:
        st->deleted[target.cls] |= (uint16_t)(1u << target.idx);
        break;
    case HZ_BETWEEN_rebind_class_attr: case HZ_BETWEEN_prop_to_value:
        st->deleted[target.cls] &= (uint16_t)~(1u << target.idx);
        break;
    case HZ_BETWEEN_mro_middle_change:
        if (target.cls == hz_middle_class(p, cls))
            st->deleted[target.cls] &= (uint16_t)~(1u << target.idx);
        break;
    default:
        break;
    }
}

int
hz_other_candidates(const HzProgram *p, const HzLayout *lay, int kind, int cls, HzRef *out)
{
    const HzClassInfo *ci = &lay->cls[cls];
    int n = 0;
    if (kind == HZ_OTHER_NONE)
        return 0;
    for (int j = 0; j < ci->nvisible; j++) {
        HzRef r = ci->visible[j];
        if (r.cls < 0)
            continue;
        const HzMember *key = hz_ref_member(p, hz_ref_key(lay, r));
        if (!hz_kind_overridable((HzDescKind)key->kind))
            continue;
        /* A dict entry only changes what a read sees if nothing data-like wins
         * over it: shadow non-data descriptors and plain class attributes. */
        if (kind == HZ_OTHER_SHADOW && hz_kind_propertyish((HzDescKind)key->kind)
            && !(key->kind == HZ_DESC_nondata_desc || key->kind == HZ_DESC_cached_prop
                 || (key->kind == HZ_DESC_set_name && key->variant == 0)))
            continue;
        out[n++] = r;
    }
    if (n == 0 && kind == HZ_OTHER_SHADOW)
        for (int j = 0; j < ci->nvisible; j++)
            if (ci->visible[j].cls >= 0)
                out[n++] = ci->visible[j];
    return n;
}
