/* hz_emit.c: program -> Python source following DESIGN.md's program contract.
 *
 * Layout of the module: a docstring header (what the program exercises), LOG,
 * helper descriptors, metaclasses, classes (hz_emit_class.c), the classes that
 * between() and make_other() need, make(), make_other(), between(), program(),
 * and a __main__ block running the protocol eagerly (the harness executes the
 * module under another __name__, so that block only runs as `python3 file.py`).
 *
 * Every member, statement and mutation carries a `# tf: desc=/access=/between=`
 * tag, which hz_source_features reads back. program() is hz_emit_program.c. */
#include <stdlib.h>
#include <string.h>

#include "hz_emit.h"

static const char *const arg_names[HZ_MAX_ARGS] = {"a", "b", "c"};

const char *
hz_emit_name(HzEmitter *e, HzRef r)
{
    char *buf = e->names[e->name_rot++ & 3];
    return hz_ref_name(e->p, &e->lay, r, buf);
}

const char *
hz_emit_owner(HzEmitter *e, HzRef r)
{
    return r.cls >= 0 ? e->cls_name[r.cls] : e->meta_name[-1 - r.cls];
}

/* Base / Child / GrandChild by depth, numbered when a role repeats. */
static void
name_classes(HzEmitter *e)
{
    static const char *const roles[] = {"Base", "Child", "GrandChild"};
    int depth[HZ_MAX_CLASSES], count[3] = {0, 0, 0};
    for (int i = 0; i < e->p->nclasses; i++) {
        int b = e->p->classes[i].base1;
        depth[i] = b ? depth[b - 1] + 1 : 0;
        int role = depth[i] > 2 ? 2 : depth[i];
        int no = ++count[role];
        if (no == 1)
            snprintf(e->cls_name[i], sizeof(e->cls_name[i]), "%s", roles[role]);
        else
            snprintf(e->cls_name[i], sizeof(e->cls_name[i]), "%s%d", roles[role], no);
    }
    for (int i = 0; i < e->p->nmetas; i++)
        snprintf(e->meta_name[i], sizeof(e->meta_name[i]), "%s", i ? "SubMeta" : "Meta");
}

/* Looks every index field up in its candidate list, replaying between()'s state. */
static void
resolve(HzEmitter *e)
{
    const HzProgram *p = e->p;
    HzRef cand[HZ_MAX_VISIBLE];
    for (int s = 0; s < p->nstmts; s++) {
        const HzStmt *st = &p->stmts[s];
        int n = hz_stmt_candidates(p, &e->lay, p->arg_class[st->arg],
                                   (HzAccessPattern)st->pattern, cand);
        e->stmt_ref[s] = cand[st->member < n ? st->member : 0];
    }
    HzBetweenState bst;
    memset(&bst, 0, sizeof(bst));
    for (int b = 0; b < p->nbetween; b++) {
        const HzMutation *mu = &p->between[b];
        int cls = p->arg_class[mu->arg];
        int n = hz_between_candidates(p, &e->lay, &bst, (HzBetweenKind)mu->kind, cls, cand);
        e->mut_has_ref[b] = n > 0;
        if (n > 0) {
            e->mut_ref[b] = cand[mu->target < n ? mu->target : 0];
            hz_between_apply(&bst, p, (HzBetweenKind)mu->kind, e->mut_ref[b], cls);
        }
    }
    e->other_has_ref = false;
    if (p->other_kind != HZ_OTHER_NONE) {
        int n = hz_other_candidates(p, &e->lay, p->other_kind, p->arg_class[p->other_arg], cand);
        e->other_has_ref = n > 0;
        if (n > 0)
            e->other_ref = cand[p->other_target < n ? p->other_target : 0];
    }
}

static void
emit_header(HzEmitter *e)
{
    const HzProgram *p = e->p;
    if (e->opts != NULL && e->opts->no_main)
        goto imports;   /* no reader: the docstring would only vary the first piece */
    HzFeatures f;
    hz_program_features(p, &f);
    EMIT(e, "\"\"\"tracefuzz program (decoder v%d): %d class%s, %d argument%s, %d statement%s",
         HZ_DECODER_VERSION, p->nclasses, p->nclasses == 1 ? "" : "es", p->nargs,
         p->nargs == 1 ? "" : "s", p->nstmts, p->nstmts == 1 ? "" : "s");
    if (p->nbetween)
        EMIT(e, ", between() with %d mutation%s", p->nbetween, p->nbetween == 1 ? "" : "s");
    EMIT(e, ".\n\nDescriptor kinds:");
    for (int k = 0; k < HZ_DESC__COUNT; k++)
        if (f.desc[k])
            EMIT(e, " %s", hz_desc_kind_name((HzDescKind)k));
    EMIT(e, "\nAccess patterns:");
    for (int k = 0; k < HZ_ACCESS__COUNT; k++)
        if (f.access[k])
            EMIT(e, " %s", hz_access_name((HzAccessPattern)k));
    if (p->nbetween) {
        EMIT(e, "\nBetween kinds:");
        for (int k = 0; k < HZ_BETWEEN__COUNT; k++)
            if (f.between[k])
                EMIT(e, " %s", hz_between_name((HzBetweenKind)k));
    }
    EMIT(e, "\n\nThe protocol: args = make(); r1 = program(*args);%s r2 = program(*args);\n"
            "r3 = program(*%s()). Run this file to see r1..r3 and LOG.\n\"\"\"\n",
         p->nbetween ? " between(*args);" : "", p->other_kind ? "make_other" : "make");
imports:
    if (e->has_base)
        EMIT(e, "from %s import %s as _Base\n", e->opts->base_module, e->opts->base_class);
    EMIT(e, "import functools\n\nLOG = []  # what descriptor code did, in order\n"
            "EXPECTED = (AttributeError, ArithmeticError, LookupError, TypeError, ValueError)\n");
}

/* Swap targets for class_swap: a subclass adding no slots, so `__class__`
 * assignment between it and its base is always layout-compatible. */
/* class_swap to a sibling: with an odd payload, and when the argument's class and
 * some other generated class both have no slots anywhere in their MRO (so the
 * same layout: object plus dict and weakref), the instance moves to that class
 * (payload / 2 picks which). Otherwise -1: it moves to a Swapped subclass. */
static int
swap_sibling(HzEmitter *e, int b)
{
    const HzProgram *p = e->p;
    const HzMutation *mu = &p->between[b];
    int cls = p->arg_class[mu->arg];
    int cand[HZ_MAX_CLASSES], n = 0;
    if (!(mu->value & 1) || e->lay.cls[cls].slot_lineage)
        return -1;
    for (int j = 0; j < p->nclasses; j++)
        if (j != cls && !e->lay.cls[j].slot_lineage)
            cand[n++] = j;
    return n ? cand[(mu->value >> 1) % n] : -1;
}

static void
emit_swap_classes(HzEmitter *e)
{
    const HzProgram *p = e->p;
    for (int b = 0; b < p->nbetween; b++) {
        if (p->between[b].kind != HZ_BETWEEN_class_swap || swap_sibling(e, b) >= 0)
            continue;
        int cls = p->arg_class[p->between[b].arg];
        EMIT(e, "\nclass Swapped%d(%s):\n", b + 1, e->cls_name[cls]);
        EMIT(e, "    \"\"\"between() moves an instance here: same layout, no new slots.\"\"\"\n\n");
        EMIT(e, "    __slots__ = ()\n");
        if (e->mut_has_ref[b])
            EMIT(e, "    %s = \"swapped\"\n", hz_emit_name(e, e->mut_ref[b]));
        EMIT(e, "\n");
    }
    if (p->other_kind == HZ_OTHER_SUBCLASS) {
        int cls = p->arg_class[p->other_arg];
        EMIT(e, "\nclass Other%s(%s):\n", e->cls_name[cls], e->cls_name[cls]);
        EMIT(e, "    \"\"\"make_other() builds one of these instead: a subclass instance.\"\"\"\n");
        if (e->other_has_ref)
            EMIT(e, "\n    %s = \"other\"\n", hz_emit_name(e, e->other_ref));
        EMIT(e, "\n");
    }
}

/* Writes the state of argument a (constructed already): instance attributes,
 * slots set in make(), nn.Module-style parameters and submodules. A submodule is
 * another argument when there is one, as in a real module tree, so the world has
 * aliasing for provenance to follow. */
static void
emit_state(HzEmitter *e, int a, bool twist)
{
    const HzProgram *p = e->p;
    int cls = p->arg_class[a];
    const HzClassInfo *ci = &e->lay.cls[cls];
    const char *an = arg_names[a];
    for (int j = 0; j < ci->nvisible; j++) {
        HzRef r = ci->visible[j];
        if (r.cls < 0)
            continue;
        const HzMember *mem = hz_ref_member(p, r);
        const char *n = hz_emit_name(e, r);
        switch ((HzDescKind)mem->kind) {
        case HZ_DESC_inst_attr:
            if (mem->variant == 0)
                EMIT(e, "    %s.%s = %d\n", an, n, mem->value);
            else if (mem->variant == 1)
                EMIT(e, "    %s.%s = [%d]\n", an, n, mem->value);
            else
                EMIT(e, "    %s.%s = \"%s\"\n", an, n, n);
            break;
        case HZ_DESC_slot:
            /* make_other()'s instance has every slot's state flipped: a trace recorded
             * on a set slot must not serve an unset one (or the reverse) */
            if ((mem->variant == 0) != twist)
                EMIT(e, "    %s.%s = %d  # a slot%s\n", an, n, mem->value,
                     twist ? ", set here only" : "");
            else if (twist)
                EMIT(e, "    # %s.%s: a slot left unset here only\n", an, n);
            break;
        case HZ_DESC_module_like:
            if (mem->variant == 1 && p->nargs > 1) {
                int other = (a + 1 + mem->value % (p->nargs - 1)) % p->nargs;
                EMIT(e, "    %s.%s = %s  # a submodule, routed into _modules by __setattr__\n",
                     an, n, arg_names[other]);
            } else {
                EMIT(e, "    %s.%s = [%d, %d]  # routed into %s by __setattr__\n", an, n,
                     mem->value, mem->value + 1, mem->variant ? "_modules" : "_parameters");
            }
            break;
        default:
            break;
        }
    }
    if (twist && p->other_kind == HZ_OTHER_SHADOW && e->other_has_ref)
        EMIT(e, "    %s.__dict__[\"%s\"] = \"shadow\"  # the instance dict shadows the class's\n",
             an, hz_emit_name(e, e->other_ref));
}

static void
emit_args_tuple(HzEmitter *e)
{
    EMIT(e, "    return (");
    for (int a = 0; a < e->p->nargs; a++)
        EMIT(e, "%s%s", arg_names[a], e->p->nargs == 1 ? "," : (a + 1 < e->p->nargs ? ", " : ""));
    EMIT(e, ")\n");
}

/* make() or (other) make_other(): construct every argument, then write state. */
static void
emit_world(HzEmitter *e, bool other)
{
    const HzProgram *p = e->p;
    for (int a = 0; a < p->nargs; a++) {
        const char *cls = e->cls_name[p->arg_class[a]];
        if (other && a == p->other_arg && p->other_kind == HZ_OTHER_SUBCLASS)
            EMIT(e, "    %s = Other%s()\n", arg_names[a], cls);
        else
            EMIT(e, "    %s = %s()\n", arg_names[a], cls);
    }
    for (int a = 0; a < p->nargs; a++)
        emit_state(e, a, other && a == p->other_arg);
    emit_args_tuple(e);
}

static void
emit_make(HzEmitter *e)
{
    EMIT(e, "\ndef make():\n    \"\"\"A fresh world: the arguments of program().\"\"\"\n");
    emit_world(e, false);
    if (e->p->other_kind == HZ_OTHER_NONE)
        return;
    EMIT(e, "\n\ndef make_other():\n    \"\"\"A world of another shape for the third call.\"\"\"\n");
    emit_world(e, true);
}

static void
emit_params(HzEmitter *e)
{
    for (int a = 0; a < e->p->nargs; a++)
        EMIT(e, "%s%s", a ? ", " : "", arg_names[a]);
}

static void
emit_between(HzEmitter *e)
{
    const HzProgram *p = e->p;
    if (p->nbetween == 0)
        return;
    EMIT(e, "\n\ndef between(");
    emit_params(e);
    EMIT(e, "):\n    \"\"\"Mutates the world between two calls: a trace must notice.\"\"\"\n");
    for (int b = 0; b < p->nbetween; b++) {
        const HzMutation *mu = &p->between[b];
        const char *an = arg_names[mu->arg];
        int cls = p->arg_class[mu->arg];
        const char *tag = hz_between_name((HzBetweenKind)mu->kind);
        HzRef r = e->mut_ref[b];
        const char *n = e->mut_has_ref[b] ? hz_emit_name(e, r) : "?";
        const char *owner = e->mut_has_ref[b] ? hz_emit_owner(e, r) : "?";
        switch ((HzBetweenKind)mu->kind) {
        case HZ_BETWEEN_rebind_class_attr:
            EMIT(e, "    %s.%s = (\"rebound\", %d)  # tf: between=%s\n", owner, n, mu->value, tag);
            break;
        case HZ_BETWEEN_delete_class_attr:
            EMIT(e, "    del %s.%s  # tf: between=%s\n", owner, n, tag);
            break;
        case HZ_BETWEEN_shadow_in_dict:
            EMIT(e, "    %s.__dict__[\"%s\"] = (\"shadow\", %d)  # tf: between=%s\n", an, n,
                 mu->value, tag);
            break;
        case HZ_BETWEEN_slot_toggle:
            EMIT(e, "    try:  # tf: between=%s\n        del %s.%s\n", tag, an, n);
            EMIT(e, "    except AttributeError:  # it was unset\n");
            EMIT(e, "        %s.%s = (\"toggled\", %d)\n", an, n, mu->value);
            break;
        case HZ_BETWEEN_class_swap:
            if (swap_sibling(e, b) >= 0)
                EMIT(e, "    %s.__class__ = %s  # tf: between=%s (same layout: no slots)\n", an,
                     e->cls_name[swap_sibling(e, b)], tag);
            else
                EMIT(e, "    %s.__class__ = Swapped%d  # tf: between=%s\n", an, b + 1, tag);
            break;
        case HZ_BETWEEN_add_getattr:
            EMIT(e, "    %s.__getattr__ = late_getattr  # tf: between=%s\n", e->cls_name[cls], tag);
            break;
        case HZ_BETWEEN_prop_to_value:
            EMIT(e, "    %s.%s = (\"plain\", %d)  # tf: between=%s\n", owner, n, mu->value, tag);
            break;
        case HZ_BETWEEN_mro_middle_change:
            EMIT(e, "    %s.%s = (\"middle\", %d)  # tf: between=%s (%s's base)\n",
                 e->cls_name[hz_middle_class(p, cls)], n, mu->value, tag, e->cls_name[cls]);
            break;
        default:
            break;
        }
    }
}

static void
emit_main(HzEmitter *e)
{
    EMIT(e,
         "\n\nif __name__ == \"__main__\":\n"
         "    # The eager run protocol (DESIGN.md). Objects print as <Type #n>, numbered\n"
         "    # by first appearance, so two runs print the same text.\n"
         "    seen = []\n"
         "\n"
         "    def show(x, depth=0):\n"
         "        t = type(x)\n"
         "        if x is None or t in (bool, int, float, str):\n"
         "            return repr(x)\n"
         "        if depth > 8:\n"
         "            return \"...\"\n"
         "        if t is tuple:\n"
         "            inner = \", \".join(show(y, depth + 1) for y in x)\n"
         "            return \"(\" + inner + (\",\" if len(x) == 1 else \"\") + \")\"\n"
         "        if t is list:\n"
         "            return \"[\" + \", \".join(show(y, depth + 1) for y in x) + \"]\"\n"
         "        if t is dict:\n"
         "            return \"{\" + \", \".join(show(k, depth + 1) + \": \" + show(v, depth + 1)\n"
         "                                   for k, v in x.items()) + \"}\"\n"
         "        for n, y in enumerate(seen):\n"
         "            if y is x:\n"
         "                return \"<%%s #%%d>\" %% (t.__name__, n)\n"
         "        seen.append(x)\n"
         "        return \"<%%s #%%d>\" %% (t.__name__, len(seen) - 1)\n"
         "\n"
         "    def call(f, args):\n"
         "        try:\n"
         "            return f(*args)\n"
         "        except Exception as exc:\n"
         "            return (\"raised\", type(exc).__name__, str(exc))\n"
         "\n"
         "    f = program\n"
         "    args = make()\n"
         "    print(\"r1 =\", show(call(f, args)))\n"
         "    print(\"LOG =\", show(LOG))\n");
    if (e->p->nbetween)
        EMIT(e, "    between(*args)\n");
    EMIT(e,
         "    print(\"r2 =\", show(call(f, args)))\n"
         "    print(\"LOG =\", show(LOG))\n"
         "    args2 = %s()\n"
         "    print(\"r3 =\", show(call(f, args2)))\n"
         "    print(\"LOG =\", show(LOG))\n"
         "    print(\"args =\", show(args), \"args2 =\", show(args2))\n",
         e->p->other_kind ? "make_other" : "make");
}

char *
hz_emit(const HzProgram *p, const HzEmitOptions *opts)
{
    HzEmitter *e = calloc(1, sizeof(*e));
    if (e == NULL) {
        fprintf(stderr, "hz_emit: out of memory\n");
        abort();
    }
    /* A mutated IR may be out of range: emit its normalised copy (the identity on
     * valid programs, ~2 us). */
    e->norm = *p;
    hz_program_normalize(&e->norm);
    e->p = &e->norm;
    e->opts = opts;
    e->has_base = opts && opts->base_module && opts->base_class;
    hz_layout(e->p, &e->lay);
    name_classes(e);
    resolve(e);
    emit_header(e);
    hz_emit_helpers(e);
    hz_emit_metas(e);
    hz_emit_classes(e);
    emit_swap_classes(e);
    hz_emit_stmt_classes(e);
    emit_make(e);
    emit_between(e);
    hz_emit_program(e);
    if (opts == NULL || !opts->no_main)
        emit_main(e);
    char *src = hz_sbuf_take(&e->sb);
    free(e);
    return src;
}
