/* hz_emit_program.c: program(), the function handed to the target, and the classes
 * its statements swap an instance to.
 *
 * Each statement sits in `try: # tf: access=<pattern> desc=<kind>` / `except
 * EXPECTED`, so an exception is a value of the result and the rest still runs.
 * Where the result goes is the program's collect mode (hz_program.h): appended
 * (`out.append(v)`, a call ending every statement, which a tracer treats as an
 * escape) or stored (`out[i] = v` into `RESULTS = out = [None] * N`, a module global
 * the call rebinds, no call), so that a value a tracer cached in one statement is
 * still cached when a later one re-reads it.
 * Stored mode also avoids calls inside statements where one is incidental (a loop
 * accumulates into a tuple; delete_read re-reads with try/except, not getattr).
 * Either way item i of the result belongs to statement i (a loop adds items only
 * in appended mode), which the signature legend (hz_hint.c) relies on.
 *
 * The patterns added for issue 10 write behind the attribute protocol, or on the
 * class, or swap the class, between a read and a re-read of the same name in one
 * statement; side_effect_read reads another attribute around an accessor that
 * changes it. Their writes on classes are undone in a `finally` where leaving them
 * would break later code (a deleted class entry, a swapped __class__). */
#include <stdarg.h>
#include <string.h>

#include "hz_emit.h"

static const char *const arg_names[HZ_MAX_ARGS] = {"a", "b", "c"};

static bool
stored(const HzEmitter *e)
{
    return e->p->collect == HZ_COLLECT_stored;
}

/* One result line at `indent`: `out.append(EXPR)` or `out[s] = EXPR`. */
static void
sink(HzEmitter *e, int s, const char *indent, const char *fmt, ...)
{
    char expr[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(expr, sizeof(expr), fmt, ap);
    va_end(ap);
    if (stored(e))
        EMIT(e, "%sout[%d] = %s\n", indent, s, expr);
    else
        EMIT(e, "%sout.append(%s)\n", indent, expr);
}

/* `var = obj.n`, or "missing" if that raises AttributeError (an unset slot, a
 * deleted name): the write and the re-read after it still run. */
static void
guarded_read(HzEmitter *e, const char *var, const char *obj, const char *n)
{
    EMIT(e, "        try:\n            %s = %s.%s\n", var, obj, n);
    EMIT(e, "        except AttributeError:\n            %s = \"missing\"\n", var);
}

/* side_effect_read: the attribute the accessor of r changes, as an expression read
 * on obj (the kinds' code is in hz_emit_class.c); NULL for another kind. */
static const char *
side_companion(HzEmitter *e, HzRef r, const char *obj, const char *n, char *buf, size_t cap)
{
    const HzMember *mem = hz_ref_member(e->p, r);
    if (r.cls < 0)
        return NULL;
    if (mem->kind == HZ_DESC_prop_setdel) {
        snprintf(buf, cap, "%s._%s", obj, n);   /* the setter's and deleter's dict entry */
        return buf;
    }
    if (mem->kind != HZ_DESC_prop_counter)
        return NULL;
    switch (mem->variant) {
    case 0: snprintf(buf, cap, "COUNTS[\"%s.%s\"]", hz_emit_owner(e, r), n); break;
    case 1: case 2: snprintf(buf, cap, "%s.%s_hits", obj, n); break;   /* instance, class */
    default: snprintf(buf, cap, "%s.%s_log[-1]", obj, n); break;        /* class-level list */
    }
    return buf;
}

static void
emit_side_effect_read(HzEmitter *e, int s, const char *a, const char *n)
{
    const HzStmt *st = &e->p->stmts[s];
    HzRef r = e->stmt_ref[s];
    char buf[96];
    const char *comp = side_companion(e, r, a, n, buf, sizeof(buf));
    if (comp == NULL) {   /* no accessor with a side effect here: a plain re-read */
        EMIT(e, "        v1 = %s.%s\n", a, n);
        sink(e, s, "        ", "(v1, %s.%s)", a, n);
        return;
    }
    /* The first attribute on a line names the statement's member for the legend. */
    EMIT(e, "        # what %s.%s does to %s\n", a, n, comp);
    const HzMember *mem = hz_ref_member(e->p, r);
    if (mem->kind == HZ_DESC_prop_setdel)   /* a first write, so that s1 exists */
        EMIT(e, "        %s.%s = (\"first\", %d)\n", a, n, st->param);
    EMIT(e, "        try:\n            s1 = %s\n", comp);
    EMIT(e, "        except (AttributeError, LookupError):\n            s1 = None\n");
    if (mem->kind == HZ_DESC_prop_setdel && (st->param & 1))
        EMIT(e, "        del %s.%s\n        v1 = \"deleted\"\n", a, n);
    else if (mem->kind == HZ_DESC_prop_setdel)
        EMIT(e, "        %s.%s = v1 = (\"written\", %d)\n", a, n, st->param);
    else
        EMIT(e, "        v1 = %s.%s\n", a, n);
    EMIT(e, "        try:\n            s2 = %s\n", comp);
    EMIT(e, "        except (AttributeError, LookupError):\n            s2 = None\n");
    sink(e, s, "        ", "(s1, v1, s2)");
}

/* The new write-then-re-read patterns: read, write behind the protocol or on the
 * class, re-read the same name on the same object. */
static void
emit_write_reread(HzEmitter *e, int s, const char *a, const char *n)
{
    const HzStmt *st = &e->p->stmts[s];
    const char *cls = e->cls_name[e->p->arg_class[st->arg]];
    guarded_read(e, "v1", a, n);
    switch ((HzAccessPattern)st->pattern) {
    case HZ_ACCESS_dict_write_read:
        if (st->param % 3 == 0)
            EMIT(e, "        %s.__dict__[\"%s\"] = (\"dict\", %d)\n", a, n, st->param);
        else if (st->param % 3 == 1)
            EMIT(e, "        vars(%s)[\"%s\"] = (\"vars\", %d)\n", a, n, st->param);
        else
            EMIT(e, "        object.__setattr__(%s, \"%s\", (\"object_setattr\", %d))\n", a, n,
                 st->param);
        break;
    case HZ_ACCESS_shadow_read:
        if (st->param & 1)
            EMIT(e, "        vars(%s)[\"%s\"] = (\"shadow\", %d)  # shadows the class's\n", a, n,
                 st->param);
        else
            EMIT(e, "        %s.__dict__[\"%s\"] = (\"shadow\", %d)  # shadows the class's\n", a,
                 n, st->param);
        break;
    case HZ_ACCESS_class_write_read:
        if (st->param % 3 == 0)
            EMIT(e, "        type(%s).%s = (\"class\", %d)\n", a, n, st->param);
        else if (st->param % 3 == 1)
            EMIT(e, "        %s.%s = (\"class\", %d)\n", cls, n, st->param);
        else
            EMIT(e, "        setattr(type(%s), \"%s\", (\"class\", %d))\n", a, n, st->param);
        break;
    case HZ_ACCESS_class_del_read:
        /* Put back in `finally`: a missing class entry would break later code. */
        EMIT(e, "        saved = type(%s).__dict__[\"%s\"]\n", a, n);
        EMIT(e, "        del type(%s).%s\n        try:\n", a, n);
        EMIT(e, "            try:\n");
        sink(e, s, "                ", "(v1, %s.%s)", a, n);
        EMIT(e, "            except AttributeError:\n");
        sink(e, s, "                ", "(v1, \"deleted\")");
        EMIT(e, "        finally:\n            type(%s).%s = saved\n", a, n);
        return;
    case HZ_ACCESS_class_swap_read:
        /* StmtSwapN: a subclass adding no slots, so the swap and the swap back are
         * layout-compatible from the class or any class between() swaps to. */
        EMIT(e, "        old = type(%s)\n        %s.__class__ = StmtSwap%d\n", a, a, s + 1);
        EMIT(e, "        try:\n");
        sink(e, s, "            ", "(v1, %s.%s)", a, n);
        EMIT(e, "        finally:\n            %s.__class__ = old\n", a);
        return;
    default:
        break;
    }
    sink(e, s, "        ", "(v1, %s.%s)", a, n);
}

static void
emit_stmt(HzEmitter *e, int s)
{
    const HzStmt *st = &e->p->stmts[s];
    /* A metaclass member exists on the class, not on instances: read it there. */
    char meta_obj[16];
    snprintf(meta_obj, sizeof(meta_obj), "type(%s)", arg_names[st->arg]);
    const char *a = e->stmt_ref[s].cls < 0 && st->pattern != HZ_ACCESS_class_read
                        && st->pattern != HZ_ACCESS_super_read
                        ? meta_obj : arg_names[st->arg];
    const char *cls = e->cls_name[e->p->arg_class[st->arg]];
    const char *n = hz_emit_name(e, e->stmt_ref[s]);
    const char *in = "        ";
    HzAccessPattern pat = (HzAccessPattern)st->pattern;
    /* The member's kind rides along on the tag line, for reports and signatures
     * (it is a member of the program, so the feature sets stay equal). */
    EMIT(e, "    try:  # tf: access=%s desc=%s\n", hz_access_name(pat),
         hz_desc_kind_name((HzDescKind)hz_ref_member(e->p, e->stmt_ref[s])->kind));
    switch (pat) {
    case HZ_ACCESS_repeat_read:
        sink(e, s, in, "(%s.%s, %s.%s)", a, n, a, n);
        break;
    case HZ_ACCESS_read_in_container:
        sink(e, s, in, "[%s.%s, {\"k\": %s.%s}]", a, n, a, n);
        break;
    case HZ_ACCESS_identity:
        sink(e, s, in, "%s.%s is %s.%s", a, n, a, n);
        break;
    /* With param & 2, read first: a value a tracer cached before the store or the
     * delete is what a missed invalidation hands back (read-modify-write,
     * `obj.n += 1`, is the commonest shape in real code). */
    case HZ_ACCESS_write_read: {
        bool first = st->param & 2;
        if (first)
            guarded_read(e, "v1", a, n);
        EMIT(e, "        %s.%s = (\"written\", %d)\n", a, n, st->param);
        sink(e, s, in, first ? "(v1, %s.%s)" : "%s.%s", a, n);
        break;
    }
    case HZ_ACCESS_delete_read: {
        bool first = st->param & 2;
        if (first)
            guarded_read(e, "v1", a, n);
        EMIT(e, "        del %s.%s\n", a, n);
        if (stored(e)) {   /* re-read without a call in between */
            EMIT(e, "        try:\n");
            sink(e, s, "            ", first ? "(v1, %s.%s)" : "%s.%s", a, n);
            EMIT(e, "        except AttributeError:\n");
            sink(e, s, "            ", first ? "(v1, \"deleted\")" : "\"deleted\"");
        } else if (first) {
            sink(e, s, in, "(v1, getattr(%s, \"%s\", \"deleted\"))", a, n);
        } else {
            sink(e, s, in, "getattr(%s, \"%s\", \"deleted\")", a, n);
        }
        break;
    }
    case HZ_ACCESS_getattr_default:
        sink(e, s, in, "getattr(%s, \"%s\", None)", a, n);
        break;
    case HZ_ACCESS_hasattr:
        sink(e, s, in, "hasattr(%s, \"%s\")", a, n);
        break;
    case HZ_ACCESS_super_read:
        if (stored(e))   /* the trailing comment keeps the line's first attribute */
            EMIT(e, "        out[%d] = %s.super_%s()  # super().%s inside %s\n", s, a, n, n, cls);
        else
            EMIT(e, "        out.append(%s.super_%s())  # super().%s inside %s\n", a, n, n, cls);
        break;
    case HZ_ACCESS_class_read:
        sink(e, s, in, "(%s.%s, type(%s).%s)", cls, n, a, n);
        break;
    case HZ_ACCESS_method_call:
        if (st->param & 1)
            sink(e, s, in, "%s.%s(%d)", a, n, st->param);
        else
            sink(e, s, in, "%s.%s()", a, n);
        break;
    case HZ_ACCESS_try_attrerror:
        EMIT(e, "        try:\n");
        if (st->param & 1)
            sink(e, s, "            ", "%s.missing_%s", a, n);
        else
            sink(e, s, "            ", "%s.%s", a, n);
        EMIT(e, "        except AttributeError:\n");
        sink(e, s, "            ", "\"AttributeError\"");
        break;
    case HZ_ACCESS_loop:
        if (stored(e)) {
            EMIT(e, "        acc = ()\n        for i in range(%d):\n", 2 + st->param % 3);
            EMIT(e, "            acc += (%s.%s,)\n", a, n);
            sink(e, s, in, "acc");
        } else {
            EMIT(e, "        for i in range(%d):\n", 2 + st->param % 3);
            sink(e, s, "            ", "%s.%s", a, n);
        }
        break;
    case HZ_ACCESS_branch:
        EMIT(e, "        if %s.%s:\n", a, n);
        sink(e, s, "            ", "(\"then\", %s.%s)", a, n);
        EMIT(e, "        else:\n");
        sink(e, s, "            ", "\"else\"");
        break;
    case HZ_ACCESS_alias:
        EMIT(e, "        alias = %s\n", a);
        sink(e, s, in, "(alias.%s, alias.%s is %s.%s)", n, n, a, n);
        break;
    case HZ_ACCESS_dict_write_read: case HZ_ACCESS_shadow_read:
    case HZ_ACCESS_class_write_read: case HZ_ACCESS_class_del_read:
    case HZ_ACCESS_class_swap_read:
        emit_write_reread(e, s, a, n);
        break;
    case HZ_ACCESS_side_effect_read:
        emit_side_effect_read(e, s, a, n);
        break;
    default:
        EMIT(e, "        pass\n");
        break;
    }
    EMIT(e, "    except EXPECTED as e:\n");
    sink(e, s, in, "(\"raised\", type(e).__name__)");
}

void
hz_emit_stmt_classes(HzEmitter *e)
{
    const HzProgram *p = e->p;
    for (int s = 0; s < p->nstmts; s++) {
        if (p->stmts[s].pattern != HZ_ACCESS_class_swap_read)
            continue;
        const char *cls = e->cls_name[p->arg_class[p->stmts[s].arg]];
        EMIT(e, "\nclass StmtSwap%d(%s):\n", s + 1, cls);
        EMIT(e, "    \"\"\"program() moves an instance here and back: no new slots.\"\"\"\n\n");
        EMIT(e, "    __slots__ = ()\n");
        if (e->stmt_ref[s].cls >= 0)
            EMIT(e, "    %s = \"stmt_swapped\"\n", hz_emit_name(e, e->stmt_ref[s]));
        EMIT(e, "\n");
    }
}

void
hz_emit_program(HzEmitter *e)
{
    const HzProgram *p = e->p;
    EMIT(e, "\n\ndef program(");
    for (int a = 0; a < p->nargs; a++)
        EMIT(e, "%s%s", a ? ", " : "", arg_names[a]);
    EMIT(e, "):\n    \"\"\"The function handed to the target: target(program)(*make()).\"\"\"\n");
    if (stored(e)) {
        /* The stored results also live in a module global that program() rebinds
         * (module-level registries are common): a JIT that runs program on a copy
         * of its globals, or does not write a STORE_GLOBAL through, leaves the
         * module's RESULTS behind, which the observation of globals sees. */
        EMIT(e, "    global RESULTS  # rebound by every call\n");
        EMIT(e, "    RESULTS = out = [None] * %d  # tf: collect=%s\n", p->nstmts,
             hz_collect_name(HZ_COLLECT_stored));
    }
    else
        EMIT(e, "    out = []  # tf: collect=%s\n", hz_collect_name(HZ_COLLECT_appended));
    for (int s = 0; s < p->nstmts; s++)
        emit_stmt(e, s);
    EMIT(e, "    return tuple(out)\n");
}
