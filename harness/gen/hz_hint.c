/* hz_hint.c: the legend of a generated program (its `# tf:` comments, written by
 * hz_emit.c / hz_emit_class.c) and the verdict's hint hook built on it
 * (hz_hint.h says what the hint names). It reads the source as text, the way
 * hz_source_features does, and runs no Python; it mirrors the emitter's shapes,
 * so a change of a statement's shape there belongs here too. */
#include "hz_hint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hz_program.h"

/* ---- small text helpers ---- */

static int
is_ident(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
           || (c >= '0' && c <= '9');
}

/* Copies [s, s+n) into out (cap bytes), truncated, NUL-terminated. */
static void
copy_n(char *out, size_t cap, const char *s, size_t n)
{
    if (n >= cap) {
        n = cap - 1;
    }
    memcpy(out, s, n);
    out[n] = '\0';
}

/* The value of `key` in the tag on [s, end) (hz_tf_tag_value), copied into out;
 * "" when absent. */
static void
tag_word(const char *s, const char *end, const char *key, char *out, size_t cap)
{
    const char *v = NULL;
    size_t n = hz_tf_tag_value(s, end, key, &v);
    copy_n(out, cap, n > 0 ? v : "", n);
}

static const char *
line_end(const char *s)
{
    const char *e = strchr(s, '\n');
    return e ? e : s + strlen(s);
}

static const char *
skip_spaces(const char *s, const char *end)
{
    while (s < end && (*s == ' ' || *s == '\t')) {
        s++;
    }
    return s;
}

/* Whether [s, end) starts with word w. */
static int
starts(const char *s, const char *end, const char *w)
{
    size_t n = strlen(w);
    return (size_t)(end - s) >= n && memcmp(s, w, n) == 0;
}

/* ---- growing arrays ---- */

static int
grow(void **arr, size_t n, size_t size)
{
    /* Capacity doubles at powers of two: n items fit, one more is added. */
    if (n == 0 || (n & (n - 1)) == 0) {
        size_t cap = n == 0 ? 8 : n * 2;
        void *p = realloc(*arr, cap * size);
        if (p == NULL) {
            return -1;
        }
        *arr = p;
    }
    return 0;
}

/* A new statement of the legend starting at line (its tag at tag), or NULL when
 * out of memory. The pointer is valid until the next statement is added. */
static HzHintStmt *
add_stmt(HzLegend *out, const char *line, const char *tag, const char *end)
{
    if (grow((void **)&out->stmts, out->nstmts, sizeof *out->stmts) < 0) {
        return NULL;
    }
    HzHintStmt *st = &out->stmts[out->nstmts++];
    memset(st, 0, sizeof *st);
    tag_word(tag, end, "access", st->access, sizeof st->access);
    tag_word(tag, end, "desc", st->desc, sizeof st->desc);
    st->src = line;
    st->src_len = (size_t)(end - line);
    out->has_legend = 1;
    return st;
}

/* ---- the legend ---- */

typedef enum { CTX_OTHER, CTX_CLASS, CTX_PROGRAM, CTX_BETWEEN } Ctx;

/* A member's name from its tagged line (and the next, for a decorator):
 * "@property  # tf:" + "def NAME(", "def NAME(", "# NAME: ...", "NAME = ...". */
static void
member_name(const char *line, const char *end, char *out, size_t cap)
{
    const char *s = skip_spaces(line, end);
    out[0] = '\0';
    if (*s == '@' && *end == '\n') {
        const char *next = end + 1, *nend = line_end(next);
        s = skip_spaces(next, nend);
        end = nend;
    }
    if (starts(s, end, "def ")) {
        s += 4;
    }
    else if (starts(s, end, "# ")) {
        s += 2;
    }
    const char *w = s;
    while (w < end && is_ident(*w)) {
        w++;
    }
    copy_n(out, cap, s, (size_t)(w - s));
}

/* The attribute a code line reads or writes and what it reads it on:
 * `getattr(a, "n", ...)` / `hasattr(a, "n")`, `X.__dict__["n"]`, else the first
 * `X.n` that is not `out.append`. 1 when found. */
static int
code_attr(const char *s, const char *end, char *attr, char *obj, size_t cap)
{
    attr[0] = obj[0] = '\0';
    for (const char *p = s; p < end; p++) {
        if ((starts(p, end, "getattr(") || starts(p, end, "hasattr("))
            && (p == s || !is_ident(p[-1]))) {
            const char *o = p + 8, *c = memchr(o, ',', (size_t)(end - o));
            const char *q = c ? memchr(c, '"', (size_t)(end - c)) : NULL;
            const char *qe = q ? memchr(q + 1, '"', (size_t)(end - q - 1)) : NULL;
            if (qe != NULL) {
                copy_n(obj, cap, o, (size_t)(c - o));
                copy_n(attr, cap, q + 1, (size_t)(qe - q - 1));
                return 1;
            }
        }
        if (starts(p, end, ".__dict__[\"")) {
            const char *q = p + 11, *qe = memchr(q, '"', (size_t)(end - q));
            if (qe != NULL) {
                const char *o = p;
                while (o > s && is_ident(o[-1])) {
                    o--;
                }
                copy_n(obj, cap, o, (size_t)(p - o));
                copy_n(attr, cap, q, (size_t)(qe - q));
                return 1;
            }
        }
    }
    for (const char *p = s; p < end; p++) {
        if (*p != '.' || p + 1 >= end || !is_ident(p[1]) || p == s) {
            continue;
        }
        const char *o = p;
        if (o[-1] == ')') {   /* type(a).n */
            while (o > s && o[-1] != '(' && o[-1] != ' ') {
                o--;
            }
            while (o > s && is_ident(o[-1])) {
                o--;
            }
        }
        while (o > s && is_ident(o[-1])) {
            o--;
        }
        const char *n = p + 1, *w = n;
        while (w < end && is_ident(*w)) {
            w++;
        }
        if (o == p || (p - o == 3 && memcmp(o, "out", 3) == 0)) {
            continue;
        }
        copy_n(obj, cap, o, (size_t)(p - o));
        copy_n(attr, cap, n, (size_t)(w - n));
        return 1;
    }
    return 0;
}

int
hz_legend_parse(const char *source, HzLegend *out)
{
    memset(out, 0, sizeof *out);
    if (source == NULL) {
        return 0;
    }
    Ctx ctx = CTX_OTHER;
    char cls[HZ_HINT_NAME] = "";
    HzHintStmt *cur = NULL;    /* the statement whose body is being read */
    int stored = 0;            /* program() stores results (collect=stored) */
    for (const char *line = source; *line != '\0';) {
        const char *end = line_end(line);
        const char *tag = NULL;
        for (const char *p = line; p + 5 <= end; p++) {
            if (memcmp(p, "# tf:", 5) == 0) {
                tag = p + 5;
                break;
            }
        }
        if (line < end && *line != ' ' && *line != '\t' && *line != '#') {
            /* A top-level statement starts a new context. */
            cur = NULL;
            ctx = CTX_OTHER;
            if (starts(line, end, "class ")) {
                const char *n = line + 6, *w = n;
                while (w < end && is_ident(*w)) {
                    w++;
                }
                copy_n(cls, sizeof cls, n, (size_t)(w - n));
                ctx = CTX_CLASS;
            }
            else if (starts(line, end, "def program(")) {
                ctx = CTX_PROGRAM;
            }
            else if (starts(line, end, "def between(")) {
                ctx = CTX_BETWEEN;
            }
        }
        else if (ctx == CTX_CLASS && tag != NULL) {
            char desc[24];
            tag_word(tag, end, "desc", desc, sizeof desc);
            if (desc[0] != '\0') {
                if (grow((void **)&out->members, out->nmembers, sizeof *out->members) < 0) {
                    goto nomem;
                }
                HzHintMember *m = &out->members[out->nmembers++];
                memset(m, 0, sizeof *m);
                snprintf(m->cls, sizeof m->cls, "%s", cls);
                snprintf(m->desc, sizeof m->desc, "%s", desc);
                member_name(line, end, m->name, sizeof m->name);
                m->src = line;
                m->src_len = (size_t)(end - line);
                const char *s = skip_spaces(line, end);
                if (s < end && *s == '@' && *end == '\n') {   /* and the def it decorates */
                    m->src_len += 1 + (size_t)(line_end(end + 1) - (end + 1));
                }
                out->has_legend = 1;
            }
        }
        else if (ctx == CTX_PROGRAM && tag != NULL && strstr(line, "out = [None]") != NULL) {
            stored = 1;   /* `# tf: collect=stored`: out[i] = ..., item i is statement i */
        }
        else if (ctx == CTX_PROGRAM && tag != NULL && strstr(line, "try:") != NULL
                 && strstr(line, "try:") < tag) {
            if ((cur = add_stmt(out, line, tag, end)) == NULL) {
                goto nomem;
            }
        }
        else if (ctx == CTX_PROGRAM && tag != NULL && skip_spaces(line, end) < tag - 5 &&
                 hz_tf_tag_value(tag, end, "access", &(const char *){NULL}) > 0) {
            /* A statement without its try: (`tracefuzz reduce` unwraps them and moves
             * the tag onto the code): the statement is this line, and what follows
             * until the next tag. */
            if ((cur = add_stmt(out, line, tag, end)) == NULL) {
                goto nomem;
            }
            const char *s = skip_spaces(line, end);
            if (starts(s, end, "for i in range(") && !stored) {
                cur->loop = atoi(s + 15);
            }
            code_attr(s, tag - 5, cur->attr, cur->arg, sizeof cur->attr);
        }
        else if (ctx == CTX_PROGRAM && cur != NULL) {
            const char *s = skip_spaces(line, end);
            if (starts(s, end, "except EXPECTED")) {
                cur = NULL;
            }
            else {
                cur->src_len = (size_t)(end - cur->src);   /* its text: each body line */
                if (starts(s, end, "for i in range(") && !stored) {
                    /* appended mode: one item per iteration; stored: one per statement */
                    cur->loop = atoi(s + 15);
                }
                else if (cur->attr[0] == '\0') {
                    code_attr(s, end, cur->attr, cur->arg, sizeof cur->attr);
                }
            }
        }
        else if (ctx == CTX_BETWEEN && tag != NULL) {
            if (grow((void **)&out->muts, out->nmuts, sizeof *out->muts) < 0) {
                goto nomem;
            }
            HzHintMutation *m = &out->muts[out->nmuts++];
            memset(m, 0, sizeof *m);
            tag_word(tag, end, "between", m->kind, sizeof m->kind);
            const char *s = skip_spaces(line, end), *e = end;
            if (starts(s, end, "try:") && *end == '\n') {   /* the code is on the next line */
                s = skip_spaces(end + 1, line_end(end + 1));
                e = line_end(end + 1);
            }
            else if (tag - 5 > s) {
                e = tag - 5;
            }
            code_attr(s, e, m->attr, m->obj, sizeof m->attr);
            if (strncmp(m->attr, "__", 2) == 0) {   /* __class__, __getattr__: the object */
                m->attr[0] = '\0';
            }
        }
        line = *end ? end + 1 : end;
    }
    /* Statements reading a `super_n()` helper or a `missing_n` name read n. */
    for (size_t i = 0; i < out->nstmts; i++) {
        char *a = out->stmts[i].attr;
        const char *pre[] = {"super_", "missing_"};
        for (int k = 0; k < 2; k++) {
            size_t n = strlen(pre[k]);
            if (strncmp(a, pre[k], n) == 0 && hz_legend_member(out, a + n, strlen(a + n)) != NULL) {
                memmove(a, a + n, strlen(a + n) + 1);
            }
        }
    }
    {
        HzFeatures feat;
        hz_source_features(source, &feat);
        for (int k = 0; k < HZ_DESC__COUNT; k++) {
            if (!feat.desc[k]) {
                continue;
            }
            if (out->single_kind != NULL) {
                out->single_kind = NULL;
                break;
            }
            out->single_kind = hz_desc_kind_name((HzDescKind)k);
        }
    }
    return 0;
nomem:
    hz_legend_clear(out);
    return -1;
}

void
hz_legend_clear(HzLegend *lg)
{
    free(lg->members);
    free(lg->stmts);
    free(lg->muts);
    memset(lg, 0, sizeof *lg);
}

static const HzHintMember *
find_member(const HzLegend *lg, const char *cls, size_t clen, const char *name, size_t nlen)
{
    for (size_t i = 0; i < lg->nmembers; i++) {
        const HzHintMember *m = &lg->members[i];
        if (strlen(m->name) == nlen && memcmp(m->name, name, nlen) == 0
            && (cls == NULL || (strlen(m->cls) == clen && memcmp(m->cls, cls, clen) == 0))) {
            return m;
        }
    }
    return NULL;
}

const HzHintMember *
hz_legend_member(const HzLegend *lg, const char *text, size_t len)
{
    const char *dot = NULL;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '.') {
            dot = text + i;
        }
    }
    const HzHintMember *m;
    if (dot != NULL) {   /* "Base.fresh_prop": that class's member, else the name's */
        const char *name = dot + 1;
        size_t nlen = len - (size_t)(name - text);
        m = find_member(lg, text, (size_t)(dot - text), name, nlen);
        return m != NULL ? m : find_member(lg, NULL, 0, name, nlen);
    }
    if ((m = find_member(lg, NULL, 0, text, len)) != NULL) {
        return m;
    }
    /* What a member stores in the instance: "_named_attr" (a __set_name__
     * descriptor), "counter_prop_hits" (a counter's side effect). */
    if (len > 1 && text[0] == '_' && text[1] != '_'
        && (m = find_member(lg, NULL, 0, text + 1, len - 1)) != NULL) {
        return m;
    }
    const HzHintMember *best = NULL;
    for (size_t i = 0; i < lg->nmembers; i++) {
        size_t n = strlen(lg->members[i].name);
        if (n > 0 && n < len && text[n] == '_' && memcmp(text, lg->members[i].name, n) == 0
            && (best == NULL || n > strlen(best->name))) {
            best = &lg->members[i];
        }
    }
    return best;
}

/* Parses "ROOT[" digits "]" at the start of s: the index, or -1. *rest: after it. */
static long
leading_index(const char *s, const char *root, const char **rest)
{
    size_t n = strlen(root);
    if (strncmp(s, root, n) != 0 || s[n] != '[' || s[n + 1] < '0' || s[n + 1] > '9') {
        return -1;
    }
    char *e;
    long v = strtol(s + n + 1, &e, 10);
    if (*e != ']') {
        return -1;
    }
    *rest = e + 1;
    return v;
}

int
hz_legend_stmt_of(const HzLegend *lg, const char *r_text, size_t index)
{
    char root[8];
    if (lg->nstmts == 0 || r_text == NULL || r_text[0] != 'r') {
        return -1;
    }
    size_t rl = strcspn(r_text, " ");
    if (rl >= sizeof root || strncmp(r_text + rl, " = tuple[", 9) != 0) {
        return -1;
    }
    copy_n(root, sizeof root, r_text, rl);
    long count = atol(r_text + rl + 9);
    if (count <= 0 || (size_t)count <= index) {
        return -1;
    }
    /* Which items are ("raised", NAME): an exception ends a loop's statement. */
    unsigned char *raised = calloc((size_t)count, 1);
    if (raised == NULL) {
        return -1;
    }
    for (const char *line = r_text; *line;) {
        const char *end = line_end(line), *rest;
        long i = leading_index(line, root, &rest);
        if (i >= 0 && i < count && starts(rest, end, "[0] = 'raised'")
            && rest + 14 == end) {
            raised[i] = 1;
        }
        line = *end ? end + 1 : end;
    }
    int found = -1;
    size_t pos = 0;
    for (size_t s = 0; s < lg->nstmts && found < 0; s++) {
        size_t take = 1;
        if (lg->stmts[s].loop > 0) {
            take = 0;
            while (take < (size_t)lg->stmts[s].loop && pos + take < (size_t)count) {
                take++;
                if (raised[pos + take - 1]) {
                    break;
                }
            }
        }
        if (index < pos + take) {
            found = (int)s;
        }
        pos += take;
    }
    free(raised);
    return found;
}

/* ---- the hook ---- */

/* Access patterns grouped by what they ask of a tracer, for the signature: a bug
 * that breaks one way of reading an attribute twice breaks all of them, so one
 * bug gives one signature per kind, not one per pattern (the report keeps the
 * pattern). */
static const struct { const char *access, *family; } families[] = {
    {"repeat_read", "reread"}, {"read_in_container", "reread"}, {"identity", "reread"},
    {"loop", "reread"}, {"alias", "reread"}, {"branch", "reread"},
    {"write_read", "write"}, {"delete_read", "write"},
    {"getattr_default", "probe"}, {"hasattr", "probe"}, {"try_attrerror", "probe"},
    {"class_read", "class_read"}, {"super_read", "super_read"}, {"method_call", "call"},
    /* issue 10's write-then-re-read patterns ask what write_read asks */
    {"dict_write_read", "write"}, {"shadow_read", "write"}, {"class_write_read", "write"},
    {"class_del_read", "write"}, {"class_swap_read", "write"}, {"side_effect_read", "write"},
};

static const char *
access_family(const char *access)
{
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) {
        if (strcmp(families[i].access, access) == 0) {
            return families[i].family;
        }
    }
    return access;
}

/* The between() mutations of attribute `attr` (or of the object `arg` as a whole,
 * or a late __getattr__ when the attribute is missing), as "+kind" suffixes
 * appended to out, each kind once. */
static void
add_between(const HzLegend *lg, const char *attr, const char *arg, int missing, char *out,
            size_t cap)
{
    /* The mutation of the attribute itself first; else one of the whole object. */
    const HzHintMutation *pick = NULL;
    for (int pass = 0; pass < 2 && pick == NULL; pass++) {
        for (size_t i = 0; i < lg->nmuts && pick == NULL; i++) {
            const HzHintMutation *m = &lg->muts[i];
            if (pass == 0) {
                if (m->attr[0] != '\0' && attr != NULL && strcmp(m->attr, attr) == 0) {
                    pick = m;
                }
            }
            else if (m->attr[0] == '\0') {
                if (strcmp(m->kind, "class_swap") == 0
                        ? arg != NULL && strcmp(m->obj, arg) == 0
                        : missing) {   /* add_getattr serves names nothing else has */
                    pick = m;
                }
            }
        }
    }
    if (pick != NULL) {
        size_t n = strlen(out);
        snprintf(out + n, cap - n, "+%s", pick->kind);
    }
}

/* The strings of item `index` of a LOG-like section ("log1[3][1] = 'get'"): the
 * event's tag (its first string) and the member its other strings name. */
static const HzHintMember *
event_member(const HzLegend *lg, const char *text, const char *root, long index, char *tag,
             size_t cap)
{
    const HzHintMember *found = NULL;
    char cls[HZ_HINT_NAME] = "";
    tag[0] = '\0';
    for (const char *line = text; *line;) {
        const char *end = line_end(line), *rest;
        long i = leading_index(line, root, &rest);
        const char *q = i == index ? strstr(rest, " = '") : NULL;
        if (q != NULL && q < end && end[-1] == '\'') {
            const char *v = q + 4;
            size_t n = (size_t)(end - 1 - v);
            if (starts(rest, end, "[0] = ")) {
                copy_n(tag, cap, v, n);
            }
            else {
                const HzHintMember *m = hz_legend_member(lg, v, n);
                if (found == NULL && m != NULL) {
                    found = m;
                }
                for (size_t k = 0; k < lg->nmembers && cls[0] == '\0'; k++) {
                    if (strlen(lg->members[k].cls) == n
                        && memcmp(lg->members[k].cls, v, n) == 0) {
                        copy_n(cls, sizeof cls, v, n);
                    }
                }
            }
        }
        line = *end ? end + 1 : end;
    }
    /* Hooks log the name they were asked for. __getattribute__ runs first for
     * every name: the hook is what ran. __getattr__ runs when the normal lookup
     * failed: a member's name names the member (an unset slot, a module_like
     * entry; the tag says the hook ran), any other name the hook itself. */
    const char *hook = strcmp(tag, "getattribute") == 0 ? "__getattribute__"
                       : strcmp(tag, "getattr") == 0 && found == NULL ? "__getattr__"
                                                                      : NULL;
    if (hook != NULL && cls[0] != '\0') {
        const HzHintMember *m = find_member(lg, cls, strlen(cls), hook, strlen(hook));
        if (m != NULL) {
            found = m;
        }
    }
    return found;
}

/* The item count of a container line "ROOT = ...[n]" at the start of text. */
static long
header_count(const char *text)
{
    const char *end = line_end(text);
    const char *b = memchr(text, '[', (size_t)(end - text));
    return b != NULL && end[-1] == ']' ? atol(b + 1) : -1;
}

/* The answer for a divergence inside a LOG (a logN section or the state's LOG). */
static const HzHintMember *
log_answer(const HzHint *h, const OrHintQuery *q, const char *root, long index, char *tag,
           size_t cap)
{
    const char *ta = q->eager_text, *tb = q->target_text;
    if (q->section == OR_SEC_STATE) {   /* find the LOG root's lines */
        ta = ta ? strstr(ta, "\nLOG") : NULL;
        tb = tb ? strstr(tb, "\nLOG") : NULL;
        ta = ta ? ta + 1 : NULL;
        tb = tb ? tb + 1 : NULL;
    }
    /* The side with more events holds the divergent one: a skipped event is
     * eager's, an extra one the target's. */
    const char *first = ta, *second = tb;
    if (ta != NULL && tb != NULL && header_count(tb) > header_count(ta)) {
        first = tb;
        second = ta;
    }
    const HzHintMember *m = first ? event_member(&h->legend, first, root, index, tag, cap) : NULL;
    if (m == NULL && tag[0] == '\0' && second != NULL) {
        m = event_member(&h->legend, second, root, index, tag, cap);
    }
    return m;
}

/* The member that serves a name no member has: the program's __getattribute__
 * override, else its __getattr__ (a tracer reports the name it was asked for). */
static const HzHintMember *
hook_member(const HzLegend *lg)
{
    const char *hooks[] = {"__getattribute__", "__getattr__"};
    for (int k = 0; k < 2; k++) {
        const HzHintMember *m = find_member(lg, NULL, 0, hooks[k], strlen(hooks[k]));
        if (m != NULL) {
            return m;
        }
    }
    return NULL;
}

/* The member a tracer's message names, the attribute's name copied into name:
 * "attribute NAME of TYPE object out of sync" (the cache's assertion) or
 * "provenance X.NAME via ..." (a provenance check); a name no member has is
 * served by the program's attribute hook. */
static const HzHintMember *
message_member(const HzLegend *lg, const char *msg, char *name, size_t cap)
{
    /* The tracer's own sentence is the last "...ProvenanceError:" of a chain; the
     * exceptions before it name other attributes ("no attribute 'x'"). */
    for (const char *p = strstr(msg, "ProvenanceError"); p != NULL;
         p = strstr(p + 1, "ProvenanceError")) {
        msg = p;
    }
    for (const char *a = strstr(msg, "attribute "); a != NULL; a = strstr(a + 1, "attribute ")) {
        const char *n = a + 10, *w = n;
        while (is_ident(*w)) {
            w++;
        }
        const char *t = strncmp(w, " of ", 4) == 0 ? w + 4 : NULL, *te = t;
        while (te != NULL && is_ident(*te)) {
            te++;
        }
        if (w > n) {
            char qual[2 * HZ_HINT_NAME + 2];
            if (t != NULL && te > t && strncmp(te, " object", 7) == 0) {
                snprintf(qual, sizeof qual, "%.*s.%.*s", (int)(te - t), t, (int)(w - n), n);
            }
            else {
                snprintf(qual, sizeof qual, "%.*s", (int)(w - n), n);
            }
            copy_n(name, cap, n, (size_t)(w - n));
            const HzHintMember *m = hz_legend_member(lg, qual, strlen(qual));
            /* The generated __getattr__ refuses dunder names: those are Python's own
             * (type.__name__ read in an except clause). */
            return m != NULL || strncmp(name, "__", 2) == 0 ? m : hook_member(lg);
        }
    }
    const char *v = strstr(msg, " via ");
    if (v != NULL) {
        const char *n = v;
        while (n > msg && is_ident(n[-1])) {
            n--;
        }
        if (n > msg && n[-1] == '.' && n < v) {
            copy_n(name, cap, n, (size_t)(v - n));
            return hz_legend_member(lg, n, (size_t)(v - n));
        }
    }
    return NULL;
}

/* Appends the source lines [src, src+len) to the statement buffer as
 * "NUMBER | text" lines (the number counted from the source's start), at most
 * 12 lines per part. */
static void
put_statement(HzHint *h, const char *src, size_t len)
{
    if (src == NULL || len == 0) {
        return;
    }
    int lineno = 1;
    for (const char *p = h->source; p < src; p++) {
        lineno += *p == '\n';
    }
    char *out = h->statement;
    size_t cap = sizeof h->statement, o = strlen(out);
    int shown = 0;
    for (const char *p = src, *stop = src + len; p < stop; lineno++, shown++) {
        const char *e = memchr(p, '\n', (size_t)(stop - p));
        if (e == NULL) {
            e = stop;
        }
        int w = shown < 12 ? snprintf(out + o, cap - o, "%d | %.*s\n", lineno, (int)(e - p), p)
                           : snprintf(out + o, cap - o, "... (the statement goes on)\n");
        if (w < 0 || (size_t)w >= cap - o) {
            out[o] = '\0';   /* no half line */
            return;
        }
        o += (size_t)w;
        if (shown >= 12) {
            return;
        }
        p = e + 1;
    }
}

void
hz_hint_init(HzHint *h, const char *source)
{
    memset(h, 0, sizeof *h);
    h->source = source;
}

void
hz_hint_clear(HzHint *h)
{
    hz_legend_clear(&h->legend);
    h->parsed = 0;
}

void
hz_hint_answer(void *ctx, const OrHintQuery *q, OrHintAnswer *ans)
{
    HzHint *h = ctx;
    ans->hint = NULL;
    ans->group = NULL;
    ans->identity = false;
    ans->statement = NULL;
    h->statement[0] = '\0';
    if (!h->parsed) {
        if (hz_legend_parse(h->source, &h->legend) < 0) {
            return;   /* out of memory: no hint, the signature says "-" */
        }
        h->parsed = 1;
    }
    const HzLegend *lg = &h->legend;
    char *out = h->answer;
    size_t cap = sizeof h->answer;
    out[0] = '\0';
    const char *path = q->path;
    int step2 = q->section == OR_SEC_R2 || q->section == OR_SEC_LOG2;
    if (lg->has_legend && path != NULL) {
        const char *rest = NULL;
        char root[16];
        copy_n(root, sizeof root, path, strcspn(path, "[.{"));
        long index = leading_index(path, root, &rest);
        if (q->section == OR_SEC_R1 || q->section == OR_SEC_R2 || q->section == OR_SEC_R3) {
            int s = index >= 0 ? hz_legend_stmt_of(lg, q->eager_text, (size_t)index) : -1;
            if (s >= 0) {
                const HzHintStmt *st = &lg->stmts[s];
                snprintf(out, cap, "%s/%s", st->desc, access_family(st->access));
                size_t n = strlen(out);
                if (step2) {
                    int missing = hz_legend_member(lg, st->attr, strlen(st->attr)) == NULL;
                    add_between(lg, st->attr, st->arg, missing, out, cap);
                }
                /* The signature's group: the family and between()'s mutation. */
                snprintf(h->group, sizeof h->group, "%s", strchr(out, '/') + 1);
                ans->group = h->group;
                ans->identity = strcmp(st->access, "identity") == 0;
                put_statement(h, st->src, st->src_len);
                snprintf(h->detail, sizeof h->detail,
                         "%s (%s) read as %s by statement %d of program()%s%s", st->attr,
                         st->desc, st->access, s + 1, out[n] ? ", after between() did " : "",
                         out[n] ? out + n + 1 : "");
                ans->detail = h->detail;
            }
        }
        else if (index >= 0 && (q->section != OR_SEC_STATE || strcmp(root, "LOG") == 0)) {
            char tag[32];
            const HzHintMember *m = log_answer(h, q, root, index, tag, sizeof tag);
            if (m != NULL || tag[0] != '\0') {
                snprintf(out, cap, "%s%s%s", m ? m->desc : "-", tag[0] ? "/" : "", tag);
                size_t n = strlen(out);
                if (step2) {
                    add_between(lg, m ? m->name : NULL, NULL, m == NULL, out, cap);
                }
                /* The event's tag is in the shape; the group is between()'s
                 * mutation, if any: the kind stays in the report. */
                snprintf(h->group, sizeof h->group, "%s", out[n] ? out + n + 1 : "-");
                ans->group = h->group;
                snprintf(h->detail, sizeof h->detail,
                         "the LOG event %s of %s.%s (%s)%s%s", tag[0] ? tag : "?",
                         m ? m->cls : "?", m ? m->name : "?", m ? m->desc : "no member",
                         out[n] ? ", after between() did " : "", out[n] ? out + n + 1 : "");
                ans->detail = h->detail;
                if (m != NULL) {
                    put_statement(h, m->src, m->src_len);
                }
            }
        }
        else if (q->section == OR_SEC_STATE) {
            /* The deepest `.name` or `['key']` step naming a member. */
            const HzHintMember *m = NULL;
            for (const char *p = path; *p; p++) {
                const char *n = NULL;
                size_t len = 0;
                if (*p == '.' && is_ident(p[1])) {
                    n = p + 1;
                    while (is_ident(n[len])) {
                        len++;
                    }
                }
                else if (p[0] == '[' && p[1] == '\'') {
                    n = p + 2;
                    while (n[len] && n[len] != '\'') {
                        len++;
                    }
                }
                const HzHintMember *c = n ? hz_legend_member(lg, n, len) : NULL;
                if (c != NULL) {
                    m = c;
                }
            }
            if (m != NULL) {
                snprintf(out, cap, "%s", m->desc);
                snprintf(h->group, sizeof h->group, "%s", m->desc);
                ans->group = h->group;
                snprintf(h->detail, sizeof h->detail, "what %s.%s (%s) left in the world",
                         m->cls, m->name, m->desc);
                ans->detail = h->detail;
                put_statement(h, m->src, m->src_len);
            }
        }
    }
    if (lg->has_legend && path == NULL && q->target_message != NULL) {
        /* A crash: the tracer's message may name the attribute. */
        char name[HZ_HINT_NAME] = "";
        const HzHintMember *m = message_member(lg, q->target_message, name, sizeof name);
        if (m == NULL && strncmp(name, "__", 2) == 0) {
            /* No member of the program: a built-in attribute, named as such. */
            snprintf(out, cap, "builtin:%s", name);
        }
        if (m != NULL) {
            snprintf(out, cap, "%s", m->desc);
            size_t n = strlen(out);
            if (q->step == 2) {
                add_between(lg, name, NULL, strcmp(m->name, name) != 0, out, cap);
            }
            snprintf(h->detail, sizeof h->detail, "%s (%s), named by the target's message%s%s",
                     name, m->desc, out[n] ? ", after between() did " : "",
                     out[n] ? out + n + 1 : "");
            ans->detail = h->detail;
            put_statement(h, m->src, m->src_len);
        }
    }
    if (out[0] == '\0' && lg->single_kind != NULL) {
        snprintf(out, cap, "%s", lg->single_kind);
    }
    ans->hint = out[0] ? out : NULL;
    ans->statement = h->statement[0] ? h->statement : NULL;
}

void
hz_hint_bind(OrVerdictInput *in, const char *source)
{
    static _Thread_local HzHint slot;
    hz_hint_clear(&slot);
    hz_hint_init(&slot, source);
    in->hint = hz_hint_answer;
    in->hint_ctx = &slot;
}
