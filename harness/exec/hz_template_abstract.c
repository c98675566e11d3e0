/* hz_template_abstract.c: a piece's abstract text and its placeholders (hz_template.h).
 *
 * A small scanner (physical lines, indentation, brackets, strings with prefixes,
 * triple quotes and escapes, numbers, names, comments, backslash continuations)
 * turns the piece into tokens, then writes them back: one logical line per line
 * with its indentation as written, a single space where the source had any
 * separation between two tokens and none where it had none (so operators that the
 * source kept apart stay apart), identifiers and literals replaced as hz_template.h
 * says. Anything the scanner does not follow is refused; what it accepts is compiled,
 * so a piece it misreads gets a template that does not compile, or another shape's.
 * Out of coverage instrumentation, like the code cache: its branches are the text's,
 * not the tracer's. Comparisons are spelled out here: in a libFuzzer binary
 * memcmp/strcmp are its interceptors and would feed every one to the mutator. */
#include "hz_template.h"
#include "hz_assemble_int.h"   /* Buf, hz_asm_fnv */
#include "hz_codecache.h"       /* HZ_NO_COVERAGE */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Small helpers inlined into their (out of coverage) callers: HZ_NO_COVERAGE keeps a
 * function out of line, and a call per character was most of the scanner's time. */
#define HZ_TINY static inline __attribute__((always_inline))

typedef enum { T_NL, T_NAME, T_NUM, T_STR, T_OP } TokKind;

typedef struct {
    TokKind kind;
    size_t start, end;     /* the token's text (T_NL: the indentation) */
    size_t cstart, cend;   /* T_STR: the content between the quotes */
    bool ws;               /* separated from the previous token in the source */
    bool plain;            /* T_STR: no prefix but u, no backslash, no CR, not empty */
} Tok;

#define HZ_FNAMES 64   /* distinct identifiers inside f-strings; more: refused */

/* Tokens kept in the Toks itself (on the caller's stack): most pieces have fewer,
 * and a 14 KiB malloc and free per piece went through glibc's slow paths (0.6% of
 * a loop exec with a grown corpus). */
#define HZ_TOKS_INLINE 192

typedef struct {
    Tok *t;                /* inline, or malloc'd once more are needed */
    size_t n, cap;
    /* the identifiers inside f-strings (spans of the text): the names their
     * expressions use are not renamed anywhere in the piece */
    size_t fname_at[HZ_FNAMES], fname_len[HZ_FNAMES];
    int nfnames;
    Tok inline_t[HZ_TOKS_INLINE];
} Toks;

HZ_TINY void toks_init(Toks *ts)
{
    ts->t = ts->inline_t;
    ts->n = 0;
    ts->cap = HZ_TOKS_INLINE;
    ts->nfnames = 0;
}

HZ_TINY void toks_free(Toks *ts)
{
    if (ts->t != ts->inline_t)
        free(ts->t);
    ts->t = NULL;
}

HZ_TINY bool push(Toks *ts, Tok t)
{
    if (ts->n == ts->cap) {
        size_t cap = ts->cap * 2;
        Tok *p = ts->t == ts->inline_t ? malloc(cap * sizeof *p)
                                       : realloc(ts->t, cap * sizeof *p);
        if (p == NULL)
            return false;
        if (ts->t == ts->inline_t)
            memcpy(p, ts->inline_t, ts->n * sizeof *p);
        ts->t = p;
        ts->cap = cap;
    }
    ts->t[ts->n++] = t;
    return true;
}

HZ_TINY bool eqn(const char *s, size_t n, const char *lit)
{
    size_t i = 0;
    for (; i < n; i++)
        if (lit[i] == '\0' || lit[i] != s[i])
            return false;
    return lit[i] == '\0';
}

HZ_TINY bool is_name_start(unsigned char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

HZ_TINY bool is_name_char(unsigned char c)
{
    return is_name_start(c) || (c >= '0' && c <= '9');
}

/* The names the abstraction keeps as written: keywords, soft keywords, and `super`
 * (whose use gives methods a __class__ cell); by first letter, as a scan of every
 * name against all of them was most of the abstraction's time. */
static const char *const kept_by_letter[26][8] = {
    ['a' - 'a'] = {"and", "as", "assert", "async", "await"},
    ['b' - 'a'] = {"break"},
    ['c' - 'a'] = {"class", "continue", "case"},
    ['d' - 'a'] = {"def", "del"},
    ['e' - 'a'] = {"elif", "else", "except"},
    ['f' - 'a'] = {"finally", "for", "from"},
    ['g' - 'a'] = {"global"},
    ['i' - 'a'] = {"if", "import", "in", "is"},
    ['l' - 'a'] = {"lambda"},
    ['m' - 'a'] = {"match"},
    ['n' - 'a'] = {"nonlocal", "not"},
    ['o' - 'a'] = {"or"},
    ['p' - 'a'] = {"pass"},
    ['r' - 'a'] = {"raise", "return"},
    ['s' - 'a'] = {"super"},
    ['t' - 'a'] = {"try"},
    ['w' - 'a'] = {"while", "with"},
    ['y' - 'a'] = {"yield"},
};

HZ_NO_COV_HELPER static bool kept_name(const char *s, size_t n)
{
    if (s[0] == '_')   /* `_` (a soft keyword) and dunder names (private ones are refused before) */
        return n == 1 || (n >= 2 && s[1] == '_');
    if (s[0] == 'F' || s[0] == 'N' || s[0] == 'T')
        return eqn(s, n, "False") || eqn(s, n, "None") || eqn(s, n, "True");
    if (s[0] < 'a' || s[0] > 'z')
        return false;
    const char *const *kw = kept_by_letter[s[0] - 'a'];
    for (int i = 0; i < 8 && kw[i] != NULL; i++)
        if (eqn(s, n, kw[i]))
            return true;
    return false;
}

/* A string prefix the scanner accepts (case-insensitive r, u, b, f and pairs). */
HZ_NO_COV_HELPER static bool is_prefix(const char *s, size_t n)
{
    if (n == 0 || n > 2)
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] != 'r' && s[i] != 'R' && s[i] != 'u' && s[i] != 'U' && s[i] != 'b' &&
            s[i] != 'B' && s[i] != 'f' && s[i] != 'F')
            return false;
    return true;
}

/* Scans a string literal whose quote is at text[i]; fills t (start set by the
 * caller) and returns the offset after it, or 0 when it does not end. */
HZ_NO_COVERAGE static size_t scan_string(const char *text, size_t n, size_t i, Tok *t)
{
    char q = text[i];
    bool triple = i + 2 < n && text[i + 1] == q && text[i + 2] == q;
    size_t open = triple ? 3 : 1;
    size_t j = i + open;
    bool backslash = false, cr = false;
    t->cstart = j;
    for (; j < n; j++) {
        char c = text[j];
        if (c == '\\') {
            backslash = true;
            j++;
            continue;
        }
        if (c == '\r')
            cr = true;
        if (!triple && c == '\n')
            return 0;
        if (c == q && (!triple || (j + 2 < n && text[j + 1] == q && text[j + 2] == q))) {
            t->cend = j;
            t->end = j + open;
            t->plain = !backslash && !cr && t->cend > t->cstart;
            return t->end;
        }
    }
    return 0;
}

/* Whether text[at..at+len) is one of the identifiers inside the f-strings. */
HZ_NO_COV_HELPER static bool in_fstring(const char *text, const Toks *ts, size_t at, size_t len)
{
    for (int i = 0; i < ts->nfnames; i++) {
        if (ts->fname_len[i] != len)
            continue;
        size_t k = 0;
        while (k < len && text[ts->fname_at[i] + k] == text[at + k])
            k++;
        if (k == len)
            return true;
    }
    return false;
}

/* Records every identifier-like run of the f-string t's content (its text parts
 * too: keeping a few more names as written costs nothing); -1 when too many. */
HZ_NO_COVERAGE static int f_names(const char *text, const Tok *t, Toks *ts)
{
    for (size_t k = t->cstart; k < t->cend;) {
        if (!is_name_start((unsigned char)text[k]) ||
            (k > t->cstart && is_name_char((unsigned char)text[k - 1]))) {
            k++;
            continue;
        }
        size_t e = k;
        while (e < t->cend && is_name_char((unsigned char)text[e]))
            e++;
        if (!in_fstring(text, ts, k, e - k)) {
            if (ts->nfnames == HZ_FNAMES)
                return -1;
            ts->fname_at[ts->nfnames] = k;
            ts->fname_len[ts->nfnames++] = e - k;
        }
        k = e;
    }
    return 0;
}

/* The tokens of text[0..n), or -1 with *refusal. */
HZ_NO_COVERAGE static int scan(const char *text, size_t n, Toks *ts, const char **refusal)
{
    int depth = 0;
    bool line_start = true, ws = false;
    size_t i = 0;
    while (i < n) {
        if (line_start && depth == 0) {
            size_t j = i;
            while (j < n && (text[j] == ' ' || text[j] == '\t' || text[j] == '\f'))
                j++;
            if (j >= n)
                break;
            if (text[j] == '\n' || text[j] == '#') {   /* blank or comment-only line */
                while (j < n && text[j] != '\n')
                    j++;
                i = j + 1;
                continue;
            }
            if (text[j] == '\r' || text[j] == '\\') {
                *refusal = "a line the scanner does not follow";
                return -1;
            }
            if (!push(ts, (Tok){.kind = T_NL, .start = i, .end = j})) {
                *refusal = "out of memory";
                return -1;
            }
            i = j;
            line_start = false;
            ws = false;
        }
        unsigned char c = (unsigned char)text[i];
        if (c == ' ' || c == '\t' || c == '\f') {
            ws = true;
            i++;
            continue;
        }
        if (c == '#') {
            while (i < n && text[i] != '\n')
                i++;
            ws = true;
            continue;
        }
        if (c == '\n') {
            i++;
            if (depth == 0)
                line_start = true;
            ws = true;
            continue;
        }
        if (c == '\\') {
            if (i + 1 < n && text[i + 1] == '\n') {
                i += 2;
                ws = true;
                continue;
            }
            *refusal = "a backslash outside a string";
            return -1;
        }
        Tok t = {.start = i, .ws = ws};
        ws = false;
        if (c >= 0x80 || c == '\r' || c < 0x20) {
            *refusal = "a character outside ASCII or a control character";
            return -1;
        }
        if (is_name_start(c)) {
            size_t j = i;
            while (j < n && is_name_char((unsigned char)text[j]))
                j++;
            if (j < n && (text[j] == '"' || text[j] == '\'') && is_prefix(text + i, j - i)) {
                bool fstring = false;
                for (size_t k = i; k < j; k++)
                    fstring = fstring || text[k] == 'f' || text[k] == 'F';
                t.kind = T_STR;
                i = scan_string(text, n, j, &t);
                if (i == 0) {
                    *refusal = "a string that does not end";
                    return -1;
                }
                if (fstring && f_names(text, &t, ts) < 0) {
                    *refusal = "too many names in f-strings";
                    return -1;
                }
                bool u_only = j - t.start == 1 && (text[t.start] == 'u' || text[t.start] == 'U');
                t.plain = t.plain && u_only;
            }
            else {
                t.kind = T_NAME;
                t.end = j;
                i = j;
            }
        }
        else if (c == '"' || c == '\'') {
            t.kind = T_STR;
            i = scan_string(text, n, i, &t);
            if (i == 0) {
                *refusal = "a string that does not end";
                return -1;
            }
        }
        else if ((c >= '0' && c <= '9') || (c == '.' && i + 1 < n && text[i + 1] >= '0' &&
                                             text[i + 1] <= '9')) {
            size_t j = i;
            while (j < n && (is_name_char((unsigned char)text[j]) || text[j] == '.' ||
                             ((text[j] == '+' || text[j] == '-') && j > i &&
                              (text[j - 1] == 'e' || text[j - 1] == 'E') &&
                              !(text[i] == '0' && i + 1 < n && (text[i + 1] == 'x' || text[i + 1] == 'X')))))
                j++;
            t.kind = T_NUM;
            t.end = j;
            i = j;
        }
        else {
            t.kind = T_OP;
            t.end = i + 1;
            if (c == '(' || c == '[' || c == '{')
                depth++;
            else if (c == ')' || c == ']' || c == '}') {
                if (--depth < 0) {
                    *refusal = "an unbalanced bracket";
                    return -1;
                }
            }
            i++;
        }
        if (!push(ts, t)) {
            *refusal = "out of memory";
            return -1;
        }
    }
    if (depth != 0) {
        *refusal = "an unbalanced bracket";
        return -1;
    }
    return 0;
}

/* ---- placeholders ---- */

#define HZ_PH_HASH 512   /* distinct spellings per piece; more: refused */

typedef struct {
    HzAbstract *a;
    int slot[HZ_PH_HASH];   /* index + 1 into a->ph, 0: empty */
} PhTable;


/* The number of the placeholder (within its kind) for s[0..n), added when new; -1
 * when the table is full or out of memory. */
HZ_NO_COVERAGE static int placeholder(PhTable *pt, HzPlaceholderKind k, const char *s, size_t n)
{
    HzAbstract *a = pt->a;
    size_t h = (size_t)((hz_asm_fnv(s, n) ^ (uint64_t)k) % HZ_PH_HASH);
    for (int probe = 0; probe < HZ_PH_HASH; probe++, h = (h + 1) % HZ_PH_HASH) {
        int at = pt->slot[h];
        if (at == 0)
            break;
        HzPlaceholder *p = &a->ph[at - 1];
        if (p->kind == k && p->len == n) {
            size_t i = 0;
            while (i < n && p->text[i] == s[i])
                i++;
            if (i == n)
                return p->num;
        }
    }
    if (pt->slot[h] != 0 || a->nph >= HZ_PH_HASH / 2)
        return -1;
    if ((a->nph & (a->nph - 1)) == 0 && a->nph >= 16) {   /* full at 16, 32, 64, ...: doubled */
        HzPlaceholder *grown = realloc(a->ph, (size_t)a->nph * 2 * sizeof *grown);
        if (grown == NULL)
            return -1;
        a->ph = grown;
    }
    else if (a->ph == NULL && (a->ph = malloc(16 * sizeof *a->ph)) == NULL)
        return -1;
    int *count = k == HZ_PH_NAME ? &a->nnames : k == HZ_PH_STR ? &a->nstrs : &a->nints;
    a->ph[a->nph] = (HzPlaceholder){k, s, n, *count};
    pt->slot[h] = ++a->nph;
    return (*count)++;
}

/* Appends head, the decimal digits of v, then tail (snprintf was a fifth of the
 * abstraction's time). */
HZ_NO_COVERAGE static void put_num(Buf *o, const char *head, size_t hn, long long v,
                                   const char *tail, size_t tn)
{
    char buf[48];
    size_t n = 0;
    memcpy(buf, head, hn);
    n = hn;
    char digits[24];
    int d = 0;
    do {
        digits[d++] = (char)('0' + v % 10);
        v /= 10;
    } while (v > 0);
    while (d > 0)
        buf[n++] = digits[--d];
    memcpy(buf + n, tail, tn);
    hz_asm_buf_add(o, buf, n + tn);
}

/* An operator the constant folder may apply to a literal beside it. */
HZ_TINY bool folding_op(const char *text, const Tok *t)
{
    if (t == NULL || t->kind != T_OP)
        return false;
    char c = text[t->start];
    return c == '+' || c == '-' || c == '*' || c == '/' || c == '%' || c == '@' || c == '&' ||
           c == '|' || c == '^' || c == '~' || c == '<' || c == '>';
}

HZ_TINY bool is_op(const char *text, const Tok *t, char c)
{
    return t != NULL && t->kind == T_OP && text[t->start] == c;
}

/* Whether literal i stays as written: something beside it lets the compiler fold
 * it into another constant (a different value would fold differently). */
HZ_NO_COV_HELPER static bool literal_kept(const char *text, const Toks *ts, size_t i)
{
    const Tok *prev = i > 0 && ts->t[i - 1].kind != T_NL ? &ts->t[i - 1] : NULL;
    const Tok *next = i + 1 < ts->n && ts->t[i + 1].kind != T_NL ? &ts->t[i + 1] : NULL;
    if ((prev && (prev->kind == T_STR || prev->kind == T_NUM)) ||
        (next && (next->kind == T_STR || next->kind == T_NUM)))
        return true;   /* implicit concatenation, or not Python */
    if (folding_op(text, prev) || folding_op(text, next) || is_op(text, next, '['))
        return true;
    if (is_op(text, prev, '[') && i >= 2) {   /* an index: of a constant? */
        const Tok *before = &ts->t[i - 2];
        if (before->kind == T_STR || before->kind == T_NUM || is_op(text, before, ')') ||
            is_op(text, before, ']'))
            return true;
    }
    return false;
}

HZ_NO_COVERAGE void hz_abstract_clear(HzAbstract *a)
{
    free(a->text);
    free(a->ph);
    memset(a, 0, sizeof *a);
}

HZ_NO_COVERAGE bool hz_spells_placeholder(const char *s, size_t n)
{
    for (const char *p = s, *end = s + n; end - p > 4 && (p = memchr(p, '_', (size_t)(end - p - 4))) != NULL; p++)
        if (p[1] == 't' && p[2] == 'f' && (p[3] == 'N' || p[3] == 'S') && p[4] >= '0' && p[4] <= '9')
            return true;
    return false;
}

HZ_NO_COVERAGE int hz_abstract(const char *text, size_t n, HzAbstract *a, const char **refusal)
{
    memset(a, 0, sizeof *a);
    if (hz_spells_placeholder(text, n)) {
        *refusal = "the piece spells a placeholder's prefix";
        return -1;
    }
    Toks ts;
    toks_init(&ts);
    if (scan(text, n, &ts, refusal) < 0) {
        toks_free(&ts);
        return -1;
    }
    PhTable table, *pt = &table;   /* 2 KiB on the stack: a calloc per piece was 0.5% of a loop exec */
    memset(pt->slot, 0, sizeof pt->slot);
    Buf o = {0};
    int rc = -1;
    pt->a = a;
    for (size_t i = 0; i < ts.n; i++) {
        const Tok *t = &ts.t[i];
        const char *s = text + t->start;
        size_t len = t->end - t->start;
        if (t->kind == T_NL) {
            if (i > 0)
                hz_asm_buf_add(&o, "\n", 1);
            hz_asm_buf_add(&o, s, len);
            continue;
        }
        if (t->ws && i > 0 && ts.t[i - 1].kind != T_NL)
            hz_asm_buf_add(&o, " ", 1);
        int k = -1;
        switch (t->kind) {
        case T_NAME:
            if (len > 2 && s[0] == '_' && s[1] == '_' && !(s[len - 1] == '_' && s[len - 2] == '_')) {
                *refusal = "a private name (mangled with its class's name)";
                goto done;
            }
            if (kept_name(s, len) || in_fstring(text, &ts, t->start, len))
                break;
            if ((k = placeholder(pt, HZ_PH_NAME, s, len)) < 0) {
                *refusal = "too many distinct names and literals";
                goto done;
            }
            put_num(&o, "_tfN", 4, k, "_", 1);
            continue;
        case T_NUM: {
            bool digits = len <= 15 && s[0] >= '1' && s[0] <= '9';
            for (size_t j = 0; digits && j < len; j++)
                digits = s[j] >= '0' && s[j] <= '9';
            if (len >= 16) {
                *refusal = "a long number literal (placeholders are 18 digits)";
                goto done;
            }
            if (!digits || literal_kept(text, &ts, i))
                break;
            if ((k = placeholder(pt, HZ_PH_INT, s, len)) < 0) {
                *refusal = "too many distinct names and literals";
                goto done;
            }
            put_num(&o, "", 0, 700000000000000000LL + k, "", 0);
            continue;
        }
        case T_STR:
            if (!t->plain || literal_kept(text, &ts, i))
                break;
            if ((k = placeholder(pt, HZ_PH_STR, text + t->cstart, t->cend - t->cstart)) < 0) {
                *refusal = "too many distinct names and literals";
                goto done;
            }
            put_num(&o, "\"_tfS", 5, k, "_\"", 2);
            continue;
        default:
            break;
        }
        hz_asm_buf_add(&o, s, len);
    }
    hz_asm_buf_add(&o, "\n", 1);
    if (o.failed) {
        *refusal = "out of memory";
        goto done;
    }
    a->text = o.p;
    a->len = o.n;
    o.p = NULL;
    rc = 0;
done:
    free(o.p);
    toks_free(&ts);
    if (rc < 0) {
        free(a->ph);
        memset(a, 0, sizeof *a);
    }
    return rc;
}

/* ---- a class piece's def members (hz_template.c's skeleton route) ---- */

HZ_TINY bool name_is(const char *text, const Tok *t, const char *lit)
{
    return t->kind == T_NAME && eqn(text + t->start, t->end - t->start, lit);
}

/* The width of a T_NL token's indentation, or -1 when it holds anything but spaces. */
HZ_NO_COVERAGE static long indent_width(const char *text, const Tok *t)
{
    for (size_t i = t->start; i < t->end; i++)
        if (text[i] != ' ')
            return -1;
    return (long)(t->end - t->start);
}

HZ_NO_COVERAGE int hz_class_members(const char *text, size_t n, HzClassMember *m, int cap)
{
    Toks ts;
    toks_init(&ts);
    const char *refusal = NULL;
    int count = 0;
    if (scan(text, n, &ts, &refusal) < 0)
        goto done;
    size_t i = 0;
    /* the class line, after any decorators (logical lines starting with @) */
    while (i + 1 < ts.n && ts.t[i].kind == T_NL && is_op(text, &ts.t[i + 1], '@')) {
        i++;
        while (i < ts.n && ts.t[i].kind != T_NL)
            i++;
    }
    if (i + 1 >= ts.n || ts.t[i].kind != T_NL || indent_width(text, &ts.t[i]) != 0 ||
        !name_is(text, &ts.t[i + 1], "class"))
        goto done;
    int depth = 0;
    for (i += 2; i < ts.n && ts.t[i].kind != T_NL; i++) {
        if (ts.t[i].kind != T_OP)
            continue;
        char c = text[ts.t[i].start];
        depth += (c == '(' || c == '[' || c == '{') - (c == ')' || c == ']' || c == '}');
        if (c == ':' && depth == 0)
            break;
    }
    if (i >= ts.n || ts.t[i].kind == T_NL || i + 1 >= ts.n || ts.t[i + 1].kind != T_NL)
        goto done;   /* no header colon, or a body on the header's line */
    long body = indent_width(text, &ts.t[i + 1]);
    if (body <= 0)
        goto done;
    for (i = i + 1; i < ts.n; i++) {
        const Tok *nl = &ts.t[i];
        if (nl->kind != T_NL)
            continue;
        long w = indent_width(text, nl);
        if (w < 0 || w < body) {   /* tabs, or past the class: not for the skeleton */
            count = w < 0 ? 0 : count;
            if (w < 0)
                goto done;
            break;
        }
        if (w != body || i + 1 >= ts.n || !name_is(text, &ts.t[i + 1], "def"))
            continue;
        size_t k = i + 2;
        depth = 0;
        for (; k < ts.n && ts.t[k].kind != T_NL; k++) {
            if (ts.t[k].kind != T_OP)
                continue;
            char c = text[ts.t[k].start];
            depth += (c == '(' || c == '[' || c == '{') - (c == ')' || c == ']' || c == '}');
            if (c == ':' && depth == 0)
                break;
        }
        if (k >= ts.n || ts.t[k].kind == T_NL) {
            count = 0;
            goto done;
        }
        size_t end = n;
        for (size_t e = k + 1; e < ts.n; e++)
            if (ts.t[e].kind == T_NL && indent_width(text, &ts.t[e]) >= 0 &&
                indent_width(text, &ts.t[e]) <= body) {
                end = ts.t[e].start;
                break;
            }
        if (count == cap) {
            count = 0;
            goto done;
        }
        m[count++] = (HzClassMember){nl->start, ts.t[k].end, end, false};
    }
    /* `super` and `__class__` make the class body a __class__ cell its methods close
     * over: a member that spells them is compiled inside a class (hz_template.c); the
     * class's own statements spelling them are not for the skeleton */
    for (size_t k = 0, j = 0; count > 0 && k < ts.n; k++) {
        if (!name_is(text, &ts.t[k], "super") && !name_is(text, &ts.t[k], "__class__"))
            continue;
        while (j < (size_t)count && m[j].end <= ts.t[k].start)
            j++;
        if (j == (size_t)count || ts.t[k].start < m[j].line) {
            count = 0;
            goto done;
        }
        m[j].cell = true;
    }
done:
    toks_free(&ts);
    return count;
}
