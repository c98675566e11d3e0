/* hz_stats.c: which descriptor kinds, access patterns and between kinds a program
 * uses, read from the IR or from the `# tf:` tags the emitter writes into source
 * (so a hand-written .py input that keeps the tags is counted the same way). */
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
