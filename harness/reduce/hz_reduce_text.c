/* hz_reduce_text.c: reduction of a program's text (.py inputs, and the emitted
 * program of a reduced bytes input).
 *
 * Passes, repeated until none changes the text:
 *   1. statements by the AST, depth by depth (module level: classes, functions,
 *      the main block; then class members and function bodies; then what nests in
 *      them): a ddmin pass over the statements of one depth, each removal of whole
 *      lines; a body left empty gets `pass`;
 *   2. the helper's rewrites that save lines (a try/if/for/with replaced by its
 *      body, a decorator dropped, `x = E` inlined into its one use or turned
 *      into `E`), one at a time;
 *   3. single lines and blocks (a line and the more indented lines under it);
 *   4. the rewrites that only shorten (constants, elements of a display, a call's
 *      arguments, base classes): the text reads better, and what they make
 *      unused goes in pass 3 again.
 * Every candidate is compiled by the helper before a worker runs it: a candidate
 * that does not parse costs a compile, not a run. Edits work on the text at AST
 * positions, so comments, `# tf:` tags among them, stay with their lines. */
#include "hz_reduce.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    char **line;   /* views into buf */
    size_t n;
    char *buf;
} Lines;

static void lines_split(const char *src, Lines *l)
{
    l->buf = strdup(src);
    if (l->buf == NULL)
        abort();
    size_t cap = 2;
    for (const char *s = src; *s; s++)
        cap += *s == '\n';
    l->line = malloc(cap * sizeof *l->line);
    if (l->line == NULL)
        abort();
    l->n = 0;
    char *s = l->buf;
    for (;;) {
        l->line[l->n++] = s;
        char *e = strchr(s, '\n');
        if (e == NULL)
            break;
        *e = 0;
        s = e + 1;
    }
}

static void lines_free(Lines *l)
{
    free(l->line);
    free(l->buf);
}

static size_t indent_of(const char *s)
{
    size_t i = 0;
    while (s[i] == ' ' || s[i] == '\t')
        i++;
    return i;
}

static bool is_code(const char *s)
{
    size_t i = indent_of(s);
    return s[i] != 0 && s[i] != '#' && s[i] != '\r';
}

/* Text of l without the lines marked in del; before line i, pass_at[i] (when
 * nonzero) inserts `pass` indented by pass_at[i] - 1 columns. */
static char *lines_join(const Lines *l, const bool *del, const size_t *pass_at)
{
    size_t cap = 1;
    for (size_t i = 0; i < l->n; i++)
        cap += strlen(l->line[i]) + 1 + (pass_at && pass_at[i] ? pass_at[i] + 8 : 0);
    char *out = malloc(cap), *o = out;
    if (out == NULL)
        abort();
    bool first = true;
    for (size_t i = 0; i < l->n; i++) {
        if (pass_at != NULL && pass_at[i]) {
            if (!first)
                *o++ = '\n';
            memset(o, ' ', pass_at[i] - 1);
            o += pass_at[i] - 1;
            memcpy(o, "pass", 4);
            o += 4;
            first = false;
        }
        if (del[i])
            continue;
        if (!first)
            *o++ = '\n';
        size_t k = strlen(l->line[i]);
        memcpy(o, l->line[i], k);
        o += k;
        first = false;
    }
    *o = 0;
    return out;
}

/* ---- a batch of candidate texts: filtered, compiled, run ---- */

typedef struct {
    char **src;
    size_t n, cap;
    size_t *tag;   /* the caller's number for each candidate */
} Texts;

static void texts_add(Texts *t, char *s, size_t tag, const char *cur)
{
    if (!hz_reduce_smaller(s, cur)) {
        free(s);
        return;
    }
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->src[i], s) == 0) {
            free(s);
            return;
        }
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        t->src = realloc(t->src, t->cap * sizeof *t->src);
        t->tag = realloc(t->tag, t->cap * sizeof *t->tag);
        if (t->src == NULL || t->tag == NULL)
            abort();
    }
    t->src[t->n] = s;
    t->tag[t->n++] = tag;
}

static void texts_clear(Texts *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->src[i]);
    t->n = 0;
}

static void texts_free(Texts *t)
{
    texts_clear(t);
    free(t->src);
    free(t->tag);
}

/* Runs the candidates of t that compile; on an interesting one, it becomes *cur and
 * its tag goes to *tag. Returns 1 when one was taken, 0 when none was, -1 when the
 * helper died. */
static int try_batch(Texts *t, char **cur, size_t *tag, HzOracle *o, HzAstHelper *h)
{
    if (t->n == 0)
        return 0;
    bool *ok = malloc(t->n * sizeof *ok);
    if (ok == NULL)
        abort();
    if (hz_ast_compiles(h, t->src, t->n, ok) < 0) {
        free(ok);
        return -1;
    }
    size_t m = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (ok[i]) {
            t->src[m] = t->src[i];
            t->tag[m++] = t->tag[i];
        }
        else {
            free(t->src[i]);
        }
    }
    t->n = m;
    free(ok);
    long k = hz_oracle_first(o, t->src, t->n);
    if (k < 0)
        return 0;
    free(*cur);
    *cur = t->src[k];
    t->src[k] = strdup("");   /* freed with the batch */
    if (tag != NULL)
        *tag = t->tag[k];
    return 1;
}

/* ---- pass 1: statements by depth, ddmin ---- */

/* cur without the units marked in del (indices into u[0..n)); a body all of whose
 * units go gets `pass` where its first unit was. */
static char *without_units(const Lines *l, const HzAstUnit *u, size_t n, const bool *del,
                           const HzAstUnit *all, size_t nall)
{
    bool *dl = calloc(l->n + 1, sizeof *dl);
    size_t *pass_at = calloc(l->n + 1, sizeof *pass_at);
    if (dl == NULL || pass_at == NULL)
        abort();
    for (size_t i = 0; i < n; i++)
        if (del[i])
            for (int k = u[i].first; k <= u[i].last && (size_t)k <= l->n; k++)
                dl[k - 1] = true;
    /* bodies emptied: every unit of the body is deleted */
    for (size_t i = 0; i < n; i++) {
        if (!del[i])
            continue;
        bool empty = true;
        size_t first = (size_t)u[i].first;
        for (size_t j = 0; j < nall && empty; j++)
            if (all[j].body == u[i].body) {
                if (!dl[all[j].first - 1])
                    empty = false;
                if ((size_t)all[j].first < first)
                    first = (size_t)all[j].first;
            }
        if (empty && first - 1 < l->n)
            pass_at[first - 1] = indent_of(l->line[first - 1]) + 1;
    }
    char *s = lines_join(l, dl, pass_at);
    free(dl);
    free(pass_at);
    return s;
}

static int ddmin_depth(char **cur, int depth, HzOracle *o, HzAstHelper *h, bool *any)
{
    HzAstUnit *all;
    size_t nall;
    char **rw;
    size_t nrw;
    int rc = hz_ast_analyse(h, *cur, &all, &nall, &rw, &nrw);
    hz_reduce_strings_free(rw, nrw);
    if (rc != 0) {
        free(all);
        return rc < 0 ? -1 : 0;
    }
    HzAstUnit *u = malloc((nall + 1) * sizeof *u);
    bool *del = calloc(nall + 1, sizeof *del), *d2 = calloc(nall + 1, sizeof *d2);
    size_t *idx = malloc((nall + 1) * sizeof *idx);
    if (u == NULL || del == NULL || d2 == NULL || idx == NULL)
        abort();
    size_t n = 0;
    for (size_t i = 0; i < nall; i++)
        if (all[i].depth == depth)
            u[n++] = all[i];
    Lines l;
    lines_split(*cur, &l);   /* the text the units' line numbers refer to */
    Texts t = {0};
    size_t chunk = (n + 1) / 2;
    int result = 0;
    while (n > 0) {
        size_t nleft = 0;
        for (size_t i = 0; i < n; i++)
            if (!del[i])
                idx[nleft++] = i;
        if (nleft == 0)
            break;
        if (chunk > nleft)
            chunk = (nleft + 1) / 2;
        for (size_t s = 0; s < nleft; s += chunk) {
            memcpy(d2, del, n * sizeof *d2);
            for (size_t j = s; j < s + chunk && j < nleft; j++)
                d2[idx[j]] = true;
            texts_add(&t, without_units(&l, u, n, d2, all, nall), s, *cur);
        }
        size_t s;
        int r = try_batch(&t, cur, &s, o, h);
        texts_clear(&t);
        if (r < 0) {
            result = -1;
            break;
        }
        if (r == 1) {
            for (size_t j = s; j < s + chunk && j < nleft; j++)
                del[idx[j]] = true;
            *any = true;
            continue;
        }
        if (chunk == 1)
            break;
        chunk = (chunk + 1) / 2;
    }
    texts_free(&t);
    lines_free(&l);
    free(u);
    free(del);
    free(d2);
    free(idx);
    free(all);
    return result;
}

/* ---- passes 2-4: one edit at a time ---- */

/* Candidates from cur into t (tag: the candidate's number, for resuming). */
typedef int (*GenFn)(const char *cur, HzAstHelper *h, bool lines_only, Texts *t);

static int gen_rewrites(const char *cur, HzAstHelper *h, bool lines_only, Texts *t)
{
    HzAstUnit *u;
    size_t nu;
    char **rw;
    size_t nrw;
    int rc = hz_ast_analyse(h, cur, &u, &nu, &rw, &nrw);
    free(u);
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    size_t size = hz_program_text_size(cur);
    for (size_t i = 0; i < nrw; i++) {
        bool saves = hz_program_text_size(rw[i]) < size;
        if (saves == lines_only) {
            texts_add(t, rw[i], i, cur);
            rw[i] = NULL;
        }
    }
    hz_reduce_strings_free(rw, nrw);
    return 0;
}

/* Each code line with the lines under it (more indented, or blank / comments). */
static int gen_lines(const char *cur, HzAstHelper *h, bool lines_only, Texts *t)
{
    (void)h;
    (void)lines_only;
    Lines l;
    lines_split(cur, &l);
    bool *del = calloc(l.n + 1, sizeof *del);
    size_t *pass_at = calloc(l.n + 1, sizeof *pass_at);
    if (del == NULL || pass_at == NULL)
        abort();
    for (size_t i = 0; i < l.n; i++) {
        if (!is_code(l.line[i]))
            continue;
        size_t ind = indent_of(l.line[i]), j = i + 1;
        while (j < l.n && (!is_code(l.line[j]) || indent_of(l.line[j]) > ind))
            j++;
        for (size_t k = i; k < j; k++)
            del[k] = true;
        /* a block header left without a body gets `pass` */
        size_t prev = i, next = j;
        while (prev > 0 && !is_code(l.line[prev - 1]))
            prev--;
        while (next < l.n && !is_code(l.line[next]))
            next++;
        bool need_pass = false;
        if (prev > 0) {
            const char *pl = l.line[prev - 1];
            const char *hash = strstr(pl, "  #");
            size_t end = hash ? (size_t)(hash - pl) : strlen(pl);
            while (end > 0 && (pl[end - 1] == ' ' || pl[end - 1] == '\r'))
                end--;
            need_pass = end > 0 && pl[end - 1] == ':' &&
                        (next >= l.n || indent_of(l.line[next]) <= indent_of(pl));
        }
        if (need_pass)
            pass_at[i] = ind + 1;
        texts_add(t, lines_join(&l, del, pass_at), i, cur);
        pass_at[i] = 0;
        for (size_t k = i; k < j; k++)
            del[k] = false;
    }
    free(del);
    free(pass_at);
    lines_free(&l);
    return 0;
}

/* Takes one interesting edit at a time; after one, the next round starts at the
 * edit of the same number (those before it failed a moment ago). */
static int greedy(char **cur, GenFn gen, bool lines_only, HzOracle *o, HzAstHelper *h,
                  bool *any)
{
    Texts t = {0}, r = {0};
    size_t resume = 0;
    int result = 0;
    for (;;) {
        if (gen(*cur, h, lines_only, &t) < 0) {
            result = -1;
            break;
        }
        /* rotate: candidates numbered from `resume` first */
        for (int pass = 0; pass < 2; pass++)
            for (size_t i = 0; i < t.n; i++)
                if ((t.tag[i] >= resume) == (pass == 0)) {
                    texts_add(&r, t.src[i], t.tag[i], *cur);
                    t.src[i] = NULL;
                }
        t.n = 0;
        size_t tag;
        int rc = try_batch(&r, cur, &tag, o, h);
        texts_clear(&r);
        if (rc < 0)
            result = -1;
        if (rc <= 0)
            break;
        resume = tag;
        *any = true;
    }
    texts_free(&t);
    texts_free(&r);
    return result;
}

/* The layout PEP 8 asks for, after deletions left it ragged: no blank lines but
 * one before each top-level def, class or decorator (two in PEP 8; one keeps a
 * ten-line reproducer on a screen) and none at the end. Program lines do not change. */
static char *tidy(const char *src)
{
    Lines l;
    lines_split(src, &l);
    size_t cap = strlen(src) + l.n + 2;
    char *out = malloc(cap), *o = out;
    if (out == NULL)
        abort();
    bool any_code = false, prev_decorator = false;
    for (size_t i = 0; i < l.n; i++) {
        const char *s = l.line[i];
        if (s[indent_of(s)] == 0)
            continue;   /* blank */
        bool top = indent_of(s) == 0 && is_code(s);
        bool header = top && (strncmp(s, "def ", 4) == 0 || strncmp(s, "class ", 6) == 0 ||
                              strncmp(s, "async def ", 10) == 0 || s[0] == '@');
        if (header && any_code && !prev_decorator)
            *o++ = '\n';
        if (top)
            prev_decorator = s[0] == '@';
        any_code |= is_code(s);
        size_t k = strlen(s);
        memcpy(o, s, k);
        o += k;
        *o++ = '\n';
    }
    *o = 0;
    lines_free(&l);
    return out;
}

int hz_reduce_text(char **src, HzOracle *o, HzAstHelper *h)
{
    bool changed = true;
    const HzOracleStats *st = hz_oracle_stats(o);
    while (changed && !st->expired && !st->interrupted && !st->broken) {
        changed = false;
        for (int depth = 0; depth < 8; depth++)
            if (ddmin_depth(src, depth, o, h, &changed) < 0)
                return -1;
        /* rewrites that only shorten count as a change when they make a later
         * pass remove lines (`Desc("n", 1)` -> `Desc()`, then its __init__ goes) */
        size_t lines = hz_program_text_size(*src);
        bool shorter = false;
        if (greedy(src, gen_rewrites, true, o, h, &changed) < 0 ||
            greedy(src, gen_lines, true, o, h, &changed) < 0 ||
            greedy(src, gen_rewrites, false, o, h, &shorter) < 0 ||
            (shorter && greedy(src, gen_lines, true, o, h, &shorter) < 0))
            return -1;
        changed |= hz_program_text_size(*src) < lines;
    }
    /* the tidy layout, if it keeps the signature (a candidate like any other) */
    char *t = tidy(*src);
    bool ok = false;
    if (strcmp(t, *src) != 0 && hz_ast_compiles(h, &t, 1, &ok) == 0 && ok &&
        hz_oracle_first(o, &t, 1) == 0) {
        free(*src);
        *src = t;
    }
    else {
        free(t);
    }
    return st->broken ? -1 : 0;
}
