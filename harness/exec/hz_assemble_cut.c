/* hz_assemble_cut.c: a def piece cut into header, docstring, globals and statements
 * (hz_assemble.c's first step), with the byte buffer the assembler writes its
 * wrappers into. The scanner follows what decides where a logical line ends --
 * brackets, strings (prefixes, triple quotes, escapes), backslash continuations,
 * comments -- and refuses what it does not follow (tabs, form feeds, an unbalanced
 * bracket); everything it accepts is checked again by compiling. */
#include "hz_assemble_int.h"
#include "hz_codecache.h"

#include <opcode.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A logical line of the piece (blank and comment-only lines are none). */
typedef struct {
    size_t start;     /* offset in the piece */
    int line;         /* 0-based physical line of the piece it starts on */
    int indent;
    size_t last;      /* offset of its last significant character */
    bool nonstring;   /* holds something else than string literals */
} LLine;

HZ_NO_COVERAGE void hz_asm_buf_add(Buf *b, const char *s, size_t n)
{
    if (b->failed)
        return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        while (cap < b->n + n + 1)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (p == NULL) {
            b->failed = true;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

HZ_NO_COVERAGE void hz_asm_buf_str(Buf *b, const char *s)
{
    hz_asm_buf_add(b, s, strlen(s));
}

HZ_NO_COVERAGE void hz_asm_buf_pyname(Buf *b, PyObject *name)
{
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(name, &n);
    if (s == NULL) {
        PyErr_Clear();
        b->failed = true;
        return;
    }
    hz_asm_buf_add(b, s, (size_t)n);
}

/* ---- the cut ---- */

HZ_NO_COV_HELPER static bool ident_char(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (unsigned char)c >= 0x80;
}

HZ_NO_COV_HELPER static bool starts_word(const char *s, const char *end, const char *word)
{
    size_t n = strlen(word);
    return (size_t)(end - s) > n && hz_asm_same(s, word, n) && !ident_char(s[n]);
}

/* A string prefix letter. Not strchr: logical_lines asks at most characters of a
 * piece (a libc call each was 1% of a loop exec's instructions). */
HZ_NO_COV_HELPER static bool prefix_char(char c)
{
    switch (c) {
    case 'r': case 'R': case 'b': case 'B': case 'u': case 'U': case 'f': case 'F':
        return true;
    default:
        return false;
    }
}

HZ_NO_COV_HELPER int hz_asm_string_start(const char *s, const char *end)
{
    int i = 0;
    while (i < 3 && s + i < end && prefix_char(s[i]))
        i++;
    return s + i < end && (s[i] == '"' || s[i] == '\'') ? i + 1 : 0;
}

/* Splits text[0..n) into its non-blank logical lines; returns how many (up to
 * cap), or -1 for what the scanner does not follow (tabs, form feeds, unbalanced
 * brackets, an unterminated string). */
HZ_NO_COVERAGE static int logical_lines(const char *text, size_t n, LLine *out, int cap)
{
    int count = 0, line = 0, depth = 0;
    bool line_start = true, cont = false;
    LLine *cur = NULL;
    size_t i = 0;
    while (i < n) {
        if (line_start && depth == 0 && !cont) {
            size_t j = i;
            while (j < n && text[j] == ' ')
                j++;
            if (j < n && (text[j] == '\t' || text[j] == '\f'))
                return -1;
            if (j == n || text[j] == '\n' || text[j] == '\r' || text[j] == '#') {
                while (j < n && text[j] != '\n')
                    j++;
                i = j + 1;
                line++;
                continue;
            }
            if (count == cap)
                return -1;
            cur = &out[count++];
            *cur = (LLine){i, line, (int)(j - i), j, false};
            i = j;
        }
        line_start = false;
        cont = false;
        char c = text[i];
        if (c == '#') {
            while (i < n && text[i] != '\n')
                i++;
            continue;
        }
        if (c == '\n') {
            line++;
            i++;
            line_start = true;
            continue;
        }
        if (c == '\\' && i + 1 < n && text[i + 1] == '\n') {
            cont = true;
            line_start = true;
            line++;
            i += 2;
            continue;
        }
        int q = (i == 0 || !ident_char(text[i - 1])) ? hz_asm_string_start(text + i, text + n)
                                                       : 0;
        if (q > 0) {
            char quote = text[i + q - 1];
            bool triple = i + q + 1 < n && text[i + q] == quote && text[i + q + 1] == quote;
            size_t j = i + q + (triple ? 2 : 0);
            for (;;) {
                if (j >= n)
                    return -1;
                if (text[j] == '\\') {
                    if (j + 1 < n && text[j + 1] == '\n')
                        line++;
                    j += 2;
                    continue;
                }
                if (text[j] == '\n') {
                    if (!triple)
                        return -1;
                    line++;
                }
                if (text[j] == quote &&
                    (!triple || (j + 2 < n && text[j + 1] == quote && text[j + 2] == quote))) {
                    j += triple ? 3 : 1;
                    break;
                }
                j++;
            }
            cur->last = j - 1;
            i = j;
            continue;
        }
        if (ident_char(c)) {
            while (i < n && ident_char(text[i]))
                i++;
            cur->last = i - 1;
            cur->nonstring = true;
            continue;
        }
        if (c == '(' || c == '[' || c == '{')
            depth++;
        else if (c == ')' || c == ']' || c == '}') {
            if (--depth < 0)
                return -1;
        }
        if (c != ' ' && c != '\r') {
            cur->last = i;
            cur->nonstring = true;
        }
        i++;
    }
    return depth == 0 && !cont ? count : -1;
}

HZ_NO_COVERAGE size_t hz_asm_count_lines(const char *s, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += s[i] == '\n';
    return k;
}

/* Cuts the piece; returns 0, or -1 with *refusal set. cut->stmts is malloc'd
 * either way (free it, and cut->globals.p). */
HZ_NO_COVERAGE int hz_asm_cut(const char **refusal, const char *text, size_t n, Cut *cut)
{
    int cap = (int)hz_asm_count_lines(text, n) + 2;   /* logical lines <= physical lines */
    LLine *ll = malloc((size_t)cap * sizeof *ll);
    cut->stmts = malloc((size_t)HZ_MAX_STMTS * sizeof *cut->stmts);
    int rc = -1;
    if (ll == NULL || cut->stmts == NULL) {
        *refusal = "out of memory";
        goto done;
    }
    int nl = logical_lines(text, n, ll, cap);
    if (nl < 0) {
        *refusal = "the scanner does not follow the piece";
        goto done;
    }
    int k = 0;
    while (k < nl && ll[k].indent == 0 && text[ll[k].start] == '@')
        k++;
    if (k >= nl || ll[k].indent != 0 || !starts_word(text + ll[k].start, text + n, "def")) {
        *refusal = "not a def";
        goto done;
    }
    if (text[ll[k].last] != ':') {
        *refusal = "body on the def line";
        goto done;
    }
    k++;
    if (k >= nl || ll[k].indent == 0) {
        *refusal = "no body";
        goto done;
    }
    cut->header_end = ll[k].start;
    cut->body_line = ll[k].line;
    cut->indent = ll[k].indent;
    cut->doc = (Span){0, 0, 0};
    cut->nstmts = 0;
    int first = k;
    bool seen_stmt = false;
    for (; k < nl; k++) {
        const LLine *l = &ll[k];
        const char *s = text + l->start + l->indent, *end = text + n;
        size_t next = k + 1 < nl ? ll[k + 1].start : n;
        if (l->indent > cut->indent)
            continue;   /* inside the statement before */
        if (l->indent < cut->indent) {
            *refusal = "dedent inside the body";
            goto done;
        }
        if (starts_word(s, end, "else") || starts_word(s, end, "elif") ||
            starts_word(s, end, "except") || starts_word(s, end, "finally")) {
            if (cut->nstmts == 0) {
                *refusal = "a clause without its statement";
                goto done;
            }
            continue;
        }
        if (hz_asm_string_start(s, end) > 0 && !l->nonstring) {
            /* a string statement: the docstring when first (and not bytes or an
             * f-string); elsewhere it would become a wrapper's docstring */
            bool plain = true;
            for (const char *p = s; *p != '"' && *p != '\''; p++)
                plain = plain && strchr("bBfF", *p) == NULL;
            if (k != first || !plain) {
                *refusal = "a string statement";
                goto done;
            }
            cut->doc = (Span){l->start, next, l->line};
            continue;
        }
        if (starts_word(s, end, "global")) {
            if (seen_stmt) {
                *refusal = "global after a statement";
                goto done;
            }
            const char *p = s + 6, *e = text + next;
            while (p < e && *p != '#' && *p != '\n') {
                if (*p == '\\' || *p == '(' || *p == ';') {
                    *refusal = "global spelled unusually";
                    goto done;
                }
                const char *q = p;
                while (q < e && ident_char(*q))
                    q++;
                if (q > p) {
                    hz_asm_buf_add(&cut->globals, p, (size_t)(q - p));
                    hz_asm_buf_str(&cut->globals, ", ");
                    p = q;
                }
                else
                    p++;
            }
            continue;
        }
        if (cut->nstmts >= HZ_MAX_STMTS) {
            *refusal = "too many statements";
            goto done;
        }
        if (cut->nstmts > 0)
            cut->stmts[cut->nstmts - 1].end = l->start;
        cut->stmts[cut->nstmts++] = (Span){l->start, n, l->line};
        seen_stmt = true;
    }
    if (cut->nstmts == 0) {
        *refusal = "no statements";
        goto done;
    }
    size_t last = ll[nl - 1].last, bol = last;
    while (bol > 0 && text[bol - 1] != '\n')
        bol--;
    cut->end_line = (int)hz_asm_count_lines(text, last);
    cut->end_col = (int)(last - bol) + 1;
    if (cut->globals.failed) {
        *refusal = "out of memory";
        goto done;
    }
    rc = 0;
done:
    free(ll);
    return rc;
}

/* Cuts a class piece for hz_template_class.c; see hz_assemble_int.h. */
HZ_NO_COVERAGE int hz_asm_class_cut(const char **refusal, const char *text, size_t n,
                                    size_t *header_end, Span *stmts, int cap)
{
    int lcap = (int)hz_asm_count_lines(text, n) + 2;
    LLine *ll = malloc((size_t)lcap * sizeof *ll);
    int rc = -1, k = 0, body = 0, count = 0;
    if (ll == NULL) {
        *refusal = "out of memory";
        goto done;
    }
    int nl = logical_lines(text, n, ll, lcap);
    if (nl < 0) {
        *refusal = "the scanner does not follow the piece";
        goto done;
    }
    while (k < nl && ll[k].indent == 0 && text[ll[k].start] == '@')
        k++;
    if (k >= nl || ll[k].indent != 0 || !starts_word(text + ll[k].start, text + n, "class") ||
        text[ll[k].last] != ':') {
        *refusal = "not a class with its body on the lines below";
        goto done;
    }
    if (++k >= nl || (body = ll[k].indent) == 0) {
        *refusal = "no body";
        goto done;
    }
    *header_end = ll[k].start;
    bool decorated = false;   /* the statement open is a decorator run so far */
    for (; k < nl; k++) {
        const LLine *l = &ll[k];
        const char *s = text + l->start + l->indent, *end = text + n;
        if (l->indent > body)
            continue;   /* inside the statement before */
        if (l->indent < body) {
            *refusal = "dedent inside the body";
            goto done;
        }
        if (decorated) {   /* the decorated statement itself: same statement */
            decorated = *s == '@';
            continue;
        }
        /* a string statement elsewhere than first would be a docstring alone; the
         * scopes of names and annotations are the whole body's */
        if ((count > 0 && hz_asm_string_start(s, end) > 0 && !l->nonstring) ||
            starts_word(s, end, "global") || starts_word(s, end, "nonlocal") ||
            starts_word(s, end, "else") || starts_word(s, end, "elif") ||
            starts_word(s, end, "except") || starts_word(s, end, "finally")) {
            *refusal = "a statement that is not the class body's alone";
            goto done;
        }
        if (count == cap) {
            *refusal = "too many statements";
            goto done;
        }
        if (count > 0)
            stmts[count - 1].end = l->start;
        stmts[count++] = (Span){l->start, n, l->line};
        decorated = *s == '@';
    }
    rc = count;
done:
    free(ll);
    return rc;
}

/* ---- names in a statement's text, for guessing its extra locals ---- */

HZ_NO_COVERAGE static int add_name(PyObject *set, const char *s, size_t n)
{
    PyObject *name = PyUnicode_DecodeUTF8(s, (Py_ssize_t)n, NULL);
    if (name == NULL) {
        PyErr_Clear();   /* not a name then: no guess from it */
        return 0;
    }
    int rc = PySet_Add(set, name);
    Py_DECREF(name);
    return rc;
}

HZ_NO_COVERAGE static bool prev_word(const char *text, size_t at, const char *word)
{
    size_t n = strlen(word), j = at;
    while (j > 0 && text[j - 1] == ' ')
        j--;
    return j >= n && hz_asm_same(text + j - n, word, n) && (j == n || !ident_char(text[j - n - 1]));
}

/* Where the string literal at text[i] (its prefix and quote q characters) ends: the
 * index after its closing quote, or n when it does not end in text. */
HZ_NO_COVERAGE static size_t string_end(const char *text, size_t n, size_t i, int q)
{
    char quote = text[i + q - 1];
    bool triple = i + q + 1 < n && text[i + q] == quote && text[i + q + 1] == quote;
    size_t j = i + q + (triple ? 2 : 0);
    while (j < n) {
        if (text[j] == '\\') {
            j += 2;
            continue;
        }
        if (text[j] == quote &&
            (!triple || (j + 2 < n && text[j + 1] == quote && text[j + 2] == quote)))
            return j + (triple ? 3 : 1);
        j++;
    }
    return n;
}

HZ_NO_COVERAGE static bool after_dot(const char *text, size_t at)
{
    while (at > 0 && text[at - 1] == ' ')
        at--;
    return at > 0 && text[at - 1] == '.';
}

/* The next name of text[*at..n) outside comments and strings (an attribute after a
 * dot counts too: callers ask after_dot): true with it at [*start, *at), false at the
 * end. */
HZ_NO_COVERAGE static bool next_name(const char *text, size_t n, size_t *at, size_t *start)
{
    size_t i = *at;
    while (i < n) {
        char c = text[i];
        if (c == '#') {
            while (i < n && text[i] != '\n')
                i++;
            continue;
        }
        int q = (i == 0 || !ident_char(text[i - 1])) ? hz_asm_string_start(text + i, text + n)
                                                       : 0;
        if (q > 0) {
            i = string_end(text, n, i, q);
            continue;
        }
        if (!ident_char(c) || (c >= '0' && c <= '9')) {
            i++;
            continue;
        }
        *start = i;
        while (i < n && ident_char(text[i]))
            i++;
        *at = i;
        return true;
    }
    *at = n;
    return false;
}

HZ_NO_COVERAGE long hz_asm_mask_out(char *text, size_t n)
{
    enum { MAX_SITES = 64 };
    size_t at[MAX_SITES], len[MAX_SITES];
    int sites = 0;
    long num = -1;
    size_t i = 0, s;
    if (hz_asm_find(text, n, "out[", 4) == NULL)   /* most statements: no scan */
        return -1;
    while (next_name(text, n, &i, &s)) {
        if (i - s != 3 || !hz_asm_same(text + s, "out", 3) || after_dot(text, s) ||
            i >= n || text[i] != '[')
            continue;
        size_t d = i + 1, e = d;
        long v = 0;
        while (e < n && text[e] >= '0' && text[e] <= '9' && e - d < 9)
            v = v * 10 + (text[e++] - '0');
        if (e == d || e >= n || text[e] != ']')
            continue;   /* not a plain index (a slice, an expression, 10+ digits) */
        if ((num >= 0 && v != num) || sites == MAX_SITES)
            return -1;
        num = v;
        at[sites] = d;
        len[sites++] = e - d;
        i = e;
    }
    for (int k = 0; k < sites; k++)
        memset(text + at[k], '#', len[k]);
    return num;
}

HZ_NO_COVERAGE int hz_asm_names(const char *text, size_t n, PyObject *idents, PyObject *assigned)
{
    size_t i = 0, s;
    while (next_name(text, n, &i, &s)) {
        if (after_dot(text, s))
            continue;   /* an attribute */
        if (add_name(idents, text + s, i - s) < 0)
            return -1;
        /* bound here: NAME =, NAME op=, NAME :=, as NAME, for NAME, del NAME, import NAME */
        size_t j = i;
        while (j < n && text[j] == ' ')
            j++;
        size_t k = j;
        while (k < n && k < j + 2 && strchr("+-*/%&|^@<>", text[k]) != NULL && text[k] != '\0')
            k++;
        bool ops_ok = k == j || (k == j + 1 && text[j] != '<' && text[j] != '>') ||
                      (k == j + 2 && text[j] == text[j + 1] && strchr("*/<>", text[j]) != NULL);
        bool bound = (k < n && text[k] == '=' && (k + 1 >= n || text[k + 1] != '=') && ops_ok) ||
                     (j + 1 < n && text[j] == ':' && text[j + 1] == '=') ||
                     prev_word(text, s, "as") || prev_word(text, s, "import") ||
                     ((prev_word(text, s, "for") || prev_word(text, s, "del")) &&
                      (j >= n || strchr("(.[", text[j]) == NULL));   /* not del f(x).y */
        if (bound && add_name(assigned, text + s, i - s) < 0)
            return -1;
    }
    return 0;
}
