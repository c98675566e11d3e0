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
}

/* Sets the flag of `table` whose name equals [s, s+n); unknown names are ignored. */
static void
mark(bool *flags, const char *(*name)(int), int count, const char *s, size_t n)
{
    for (int i = 0; i < count; i++) {
        const char *nm = name(i);
        if (strlen(nm) == n && memcmp(nm, s, n) == 0) {
            flags[i] = true;
            return;
        }
    }
}

static const char *desc_name(int i) { return hz_desc_kind_name((HzDescKind)i); }
static const char *access_name(int i) { return hz_access_name((HzAccessPattern)i); }
static const char *between_name(int i) { return hz_between_name((HzBetweenKind)i); }

static bool
is_word(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
           || c == '_';
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

/* Finds `key=` on [s, end) and returns the index of its value in the table, or -1. */
static int
tag_value(const char *s, const char *end, const char *key, const char *(*name)(int), int count)
{
    size_t klen = strlen(key);
    for (const char *t = s; t + klen < end; t++) {
        if (memcmp(t, key, klen) != 0 || (t > s && t[-1] != ' ' && t[-1] != ':'))
            continue;
        const char *v = t + klen, *w = v;
        while (w < end && *w != ' ' && *w != '\t')
            w++;
        for (int i = 0; i < count; i++) {
            const char *nm = name(i);
            if (strlen(nm) == (size_t)(w - v) && memcmp(nm, v, (size_t)(w - v)) == 0)
                return i;
        }
        return -1;
    }
    return -1;
}

static const char *desc_name(int i);
static const char *access_name(int i);

void
hz_source_pairs(const char *source, HzPairs *out)
{
    memset(out, 0, sizeof(*out));
    if (source == NULL)
        return;
    const char *s = source;
    while ((s = strstr(s, "# tf:")) != NULL) {
        s += 5;
        const char *end = strchr(s, '\n');
        if (end == NULL)
            end = s + strlen(s);
        int a = tag_value(s, end, "access=", access_name, HZ_ACCESS__COUNT);
        int d = tag_value(s, end, "desc=", desc_name, HZ_DESC__COUNT);
        if (a >= 0 && d >= 0)
            out->pair[d][a] = true;
        s = end;
    }
}

/* Each "# tf:" marker is followed, up to the end of its line, by key=value tokens
 * (desc=, access=, between=); other tokens are ignored. */
void
hz_source_features(const char *source, HzFeatures *out)
{
    memset(out, 0, sizeof(*out));
    if (source == NULL)
        return;
    const char *s = source;
    while ((s = strstr(s, "# tf:")) != NULL) {
        s += 5;
        while (*s && *s != '\n') {
            while (*s == ' ' || *s == '\t')
                s++;
            const char *key = s;
            while (is_word(*s))
                s++;
            size_t keylen = (size_t)(s - key);
            if (*s == '=' && keylen > 0) {
                const char *val = ++s;
                while (is_word(*s))
                    s++;
                size_t vallen = (size_t)(s - val);
                if (keylen == 4 && memcmp(key, "desc", 4) == 0)
                    mark(out->desc, desc_name, HZ_DESC__COUNT, val, vallen);
                else if (keylen == 6 && memcmp(key, "access", 6) == 0)
                    mark(out->access, access_name, HZ_ACCESS__COUNT, val, vallen);
                else if (keylen == 7 && memcmp(key, "between", 7) == 0)
                    mark(out->between, between_name, HZ_BETWEEN__COUNT, val, vallen);
            }
            while (*s && *s != '\n' && *s != ' ' && *s != '\t')
                s++;
        }
    }
}
