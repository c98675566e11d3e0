/* hz_stats.c: which descriptor kinds, access patterns and between kinds a program
 * uses, read from the IR or from the `# tf:` tags the emitter writes into source
 * (so a hand-written .py input that keeps the tags is counted the same way). */
#include <stdlib.h>
#include <string.h>

#include "hz_ir.h"

#define CAP(n, max) ((n) < (max) ? (n) : (max))

/* Of a valid program (decoded, generated or normalised); counts are capped so an
 * unnormalised IR is read in bounds, though its flags may then mean little. */
void
hz_program_features(const HzProgram *p, HzFeatures *out)
{
    memset(out, 0, sizeof(*out));
    for (int i = 0; i < CAP(p->nmetas, HZ_MAX_METAS); i++)
        for (int m = 0; m < CAP(p->metas[i].nmembers, HZ_MAX_META_MEMBERS); m++)
            if (p->metas[i].members[m].kind < HZ_DESC__COUNT)
                out->desc[p->metas[i].members[m].kind] = true;
    for (int i = 0; i < CAP(p->nclasses, HZ_MAX_CLASSES); i++)
        for (int m = 0; m < CAP(p->classes[i].nmembers, HZ_MAX_MEMBERS); m++)
            if (p->classes[i].members[m].kind < HZ_DESC__COUNT)
                out->desc[p->classes[i].members[m].kind] = true;
    for (int s = 0; s < CAP(p->nstmts, HZ_MAX_STMTS); s++)
        if (p->stmts[s].pattern < HZ_ACCESS__COUNT)
            out->access[p->stmts[s].pattern] = true;
    for (int b = 0; b < CAP(p->nbetween, HZ_MAX_BETWEEN); b++)
        if (p->between[b].kind < HZ_BETWEEN__COUNT)
            out->between[p->between[b].kind] = true;
    out->collect[p->collect < HZ_COLLECT__COUNT ? p->collect : HZ_COLLECT_appended] = true;
}

/* The index of the name in `table` that equals [s, s+n), or -1. */
static int
name_index(const char *(*name)(int), int count, const char *s, size_t n)
{
    for (int i = 0; i < count; i++) {
        const char *nm = name(i);
        if (strlen(nm) == n && memcmp(nm, s, n) == 0)
            return i;
    }
    return -1;
}

/* Sets the flag of `table` whose name equals [s, s+n); unknown names are ignored. */
static void
mark(bool *flags, const char *(*name)(int), int count, const char *s, size_t n)
{
    int i = name_index(name, count, s, n);
    if (i >= 0)
        flags[i] = true;
}

static const char *desc_name(int i) { return hz_desc_kind_name((HzDescKind)i); }
static const char *access_name(int i) { return hz_access_name((HzAccessPattern)i); }
static const char *between_name(int i) { return hz_between_name((HzBetweenKind)i); }
static const char *collect_name(int i) { return hz_collect_name((HzCollectMode)i); }

static bool
is_word(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
           || c == '_';
}

/* The next key=value word of a `# tf:` tag on [s, end) (words of identifier
 * characters, separated by blanks; other words are skipped): returns where to go on
 * from, or NULL when there is none left. */
static const char *
next_tag(const char *s, const char *end, const char **key, size_t *klen, const char **val,
         size_t *vlen)
{
    while (s < end) {
        while (s < end && (*s == ' ' || *s == '\t'))
            s++;
        const char *k = s;
        while (s < end && is_word(*s))
            s++;
        if (s < end && *s == '=' && s > k) {
            const char *v = ++s;
            while (s < end && is_word(*s))
                s++;
            *key = k;
            *klen = (size_t)(v - 1 - k);
            *val = v;
            *vlen = (size_t)(s - v);
            return s;
        }
        while (s < end && *s != ' ' && *s != '\t')
            s++;
    }
    return NULL;
}

size_t
hz_tf_tag_value(const char *s, const char *end, const char *key, const char **val)
{
    const char *k, *v;
    size_t kn, vn, want = strlen(key);
    while ((s = next_tag(s, end, &k, &kn, &v, &vn)) != NULL)
        if (kn == want && memcmp(k, key, kn) == 0) {
            *val = v;
            return vn;
        }
    return 0;
}

/* The end of the line at s. */
static const char *
line_end(const char *s)
{
    const char *e = strchr(s, '\n');
    return e ? e : s + strlen(s);
}

void
hz_program_pairs(const HzProgram *p, HzPairs *out)
{
    memset(out, 0, sizeof(*out));
    HzProgram *q = hz_program_clone(p);   /* resolve on the normalised program */
    hz_program_normalize(q);
    HzLayout *lay = malloc(sizeof(*lay));
    if (lay == NULL) {
        fprintf(stderr, "hz_program_pairs: out of memory\n");
        abort();
    }
    hz_layout(q, lay);
    HzRef cand[HZ_MAX_VISIBLE];
    for (int s = 0; s < q->nstmts; s++) {
        const HzStmt *st = &q->stmts[s];
        int n = hz_stmt_candidates(q, lay, q->arg_class[st->arg], (HzAccessPattern)st->pattern,
                                   cand);
        const HzMember *mem = hz_ref_member(q, cand[st->member < n ? st->member : 0]);
        out->pair[mem->kind][st->pattern] = true;
    }
    free(lay);
    hz_program_free(q);
}

/* The index in the table of the value of `key` in the tag on [s, end), or -1. */
static int
tag_value(const char *s, const char *end, const char *key, const char *(*name)(int), int count)
{
    const char *v;
    size_t n = hz_tf_tag_value(s, end, key, &v);
    return n > 0 ? name_index(name, count, v, n) : -1;
}

void
hz_source_pairs(const char *source, HzPairs *out)
{
    memset(out, 0, sizeof(*out));
    if (source == NULL)
        return;
    const char *s = source;
    while ((s = strstr(s, "# tf:")) != NULL) {
        s += 5;
        const char *end = line_end(s);
        int a = tag_value(s, end, "access", access_name, HZ_ACCESS__COUNT);
        int d = tag_value(s, end, "desc", desc_name, HZ_DESC__COUNT);
        if (a >= 0 && d >= 0)
            out->pair[d][a] = true;
        s = end;
    }
}

/* Each "# tf:" marker is followed, up to the end of its line, by key=value tokens
 * (desc=, access=, between=, collect=); other tokens are ignored. */
void
hz_source_features(const char *source, HzFeatures *out)
{
    memset(out, 0, sizeof(*out));
    if (source == NULL)
        return;
    const char *s = source;
    while ((s = strstr(s, "# tf:")) != NULL) {
        const char *end = line_end(s), *key, *val;
        size_t kn, vn;
        for (s += 5; (s = next_tag(s, end, &key, &kn, &val, &vn)) != NULL;) {
            if (kn == 4 && memcmp(key, "desc", 4) == 0)
                mark(out->desc, desc_name, HZ_DESC__COUNT, val, vn);
            else if (kn == 6 && memcmp(key, "access", 6) == 0)
                mark(out->access, access_name, HZ_ACCESS__COUNT, val, vn);
            else if (kn == 7 && memcmp(key, "between", 7) == 0)
                mark(out->between, between_name, HZ_BETWEEN__COUNT, val, vn);
            else if (kn == 7 && memcmp(key, "collect", 7) == 0)
                mark(out->collect, collect_name, HZ_COLLECT__COUNT, val, vn);
        }
        s = end;
    }
}

/* Size of a program as issue 11 counts it (reduce, triage, fuzz's summary): lines
 * that are neither blank nor, after their indentation, a comment. Docstrings count:
 * a reader reads them. */
size_t
hz_program_text_size(const char *src)
{
    size_t n = 0;
    bool content = false;   /* the current line has a non-blank character before any # */
    bool decided = false;   /* ... or its first non-blank character was seen */
    for (const char *s = src; s != NULL && *s; s++) {
        if (*s == '\n') {
            n += content;
            content = decided = false;
        }
        else if (!decided && *s != ' ' && *s != '\t' && *s != '\r' && *s != '\f') {
            decided = true;
            content = *s != '#';
        }
    }
    return n + content;
}
