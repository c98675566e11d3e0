/* or_text.c: the text side of observations: the growable buffer the oracles write
 * into, the versioned text form ("tfobs 2", the caps, one "[section]" block each),
 * section names, comparison of two observations and the line helpers used to find
 * the first divergence. Pure C: nothing here touches Python objects. */
#include "or_observe.h"
#include "or_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- OrBuf ---- */

void
or_buf_init(OrBuf *b)
{
    b->p = NULL;
    b->len = b->cap = 0;
    b->oom = 0;
}

void
or_buf_free(OrBuf *b)
{
    free(b->p);
    or_buf_init(b);
}

int
or_buf_grow(OrBuf *b, size_t extra)
{
    if (b->oom) {
        return -1;
    }
    if (b->len + extra + 1 <= b->cap) {
        return 0;
    }
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1) {
        cap *= 2;
    }
    char *p = realloc(b->p, cap);
    if (p == NULL) {
        b->oom = 1;
        b->cap = 0;   /* the inline appends now always take the failing path */
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

void
or_buf_put_u64(OrBuf *b, unsigned long long v)
{
    char tmp[24];
    char *end = tmp + sizeof tmp, *q = or_fmt_u64(end, v);
    or_buf_putn(b, q, (size_t)(end - q));
}

void
or_buf_put_i64(OrBuf *b, long long v)
{
    if (v < 0) {
        or_buf_putc(b, '-');
        /* the magnitude in unsigned arithmetic: -LLONG_MIN overflows long long */
        or_buf_put_u64(b, 0ull - (unsigned long long)v);
    }
    else {
        or_buf_put_u64(b, (unsigned long long)v);
    }
}

void
or_buf_printf(OrBuf *b, const char *fmt, ...)
{
    char small[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {   /* a format error is a bug of ours, never an input's */
        fprintf(stderr, "tracefuzz: oracles: bad format string \"%s\"\n", fmt);
        abort();
    }
    if ((size_t)n < sizeof small) {
        or_buf_putn(b, small, (size_t)n);
        return;
    }
    if (or_buf_grow(b, (size_t)n) < 0) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void
or_buf_truncate(OrBuf *b, size_t len)
{
    if (len < b->len) {
        b->len = len;
        b->p[len] = '\0';
    }
}

char *
or_buf_finish(OrBuf *b)
{
    if (b->oom) {
        or_buf_free(b);
        return NULL;
    }
    if (b->p == NULL && or_buf_grow(b, 0) == 0) {
        b->p[0] = '\0';
    }
    char *p = b->p;
    or_buf_init(b);
    return p;
}

/* ---- lines ---- */

int
or_lines_split(const char *text, OrLine **out, size_t *n)
{
    size_t count = 0, cap = 16;
    OrLine *lines = malloc(cap * sizeof *lines);
    if (lines == NULL) {
        return -1;
    }
    const char *p = text ? text : "";
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (count == cap) {
            cap *= 2;
            OrLine *grown = realloc(lines, cap * sizeof *lines);
            if (grown == NULL) {
                free(lines);
                return -1;
            }
            lines = grown;
        }
        lines[count].start = p;
        lines[count].len = len;
        count++;
        p += len + (nl ? 1 : 0);
    }
    *out = lines;
    *n = count;
    return 0;
}

size_t
or_line_path_len(const OrLine *l)
{
    /* Paths never contain " = ": strings inside paths escape their spaces. */
    for (size_t i = 0; i + 3 <= l->len; i++) {
        if (memcmp(l->start + i, " = ", 3) == 0) {
            return i;
        }
    }
    return l->len;
}

const char *
or_line_value(const OrLine *l, size_t *len)
{
    size_t p = or_line_path_len(l);
    if (p + 3 > l->len) {
        *len = 0;
        return "";
    }
    *len = l->len - p - 3;
    return l->start + p + 3;
}

int
or_value_is_backref(const char *v, size_t n)
{
    if (n < 2 || v[0] != '#') {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if (v[i] < '0' || v[i] > '9') {
            return 0;
        }
    }
    return 1;
}

int
or_value_is_new_object(const char *v, size_t n)
{
    size_t i = 1;
    if (n < 3 || v[0] != '#') {
        return 0;
    }
    while (i < n && v[i] >= '0' && v[i] <= '9') {
        i++;
    }
    return i > 1 && i < n && v[i] == ' ';
}

/* ---- observations ---- */

static const char *const section_names[OR_SEC__COUNT] = {
    "r1", "log1", "r2", "log2", "r3", "log3", "state",
};

const char *
or_section_name(OrSection s)
{
    if ((int)s < 0 || s >= OR_SEC__COUNT) {
        return "?";
    }
    return section_names[s];
}

void
or_observation_clear(OrObservation *obs)
{
    for (int i = 0; i < OR_SEC__COUNT; i++) {
        free(obs->section[i]);
        obs->section[i] = NULL;
    }
}

OrSection
or_observation_diff(const OrObservation *a, const OrObservation *b)
{
    for (int i = 0; i < OR_SEC__COUNT; i++) {
        const char *x = a->section[i], *y = b->section[i];
        if (x == NULL || y == NULL ? x != y : strcmp(x, y) != 0) {
            return (OrSection)i;
        }
    }
    return OR_SEC__COUNT;
}

#define OR_STR_(x) #x
#define OR_STR(x) OR_STR_(x)

/* The first two lines, fixed at compile time (the same text the format names). */
static const char obs_text_head[] =
    "tfobs " OR_STR(OR_OBS_VERSION) "\n"
    "caps depth=" OR_STR(OR_CAP_DEPTH) " items=" OR_STR(OR_CAP_ITEMS)
    " log=" OR_STR(OR_CAP_LOG) " objects=" OR_STR(OR_CAP_OBJECTS)
    " lines=" OR_STR(OR_CAP_LINES) " str=" OR_STR(OR_CAP_STR)
    " classes=" OR_STR(OR_CAP_CLASSES) "\n";

char *
or_observation_text(const OrObservation *obs)
{
    /* The harness writes this text for every observation it keeps: one exact
     * allocation and a copy per section. */
    size_t lens[OR_SEC__COUNT];
    size_t total = sizeof obs_text_head - 1;
    for (int i = 0; i < OR_SEC__COUNT; i++) {
        const char *s = obs->section[i];
        lens[i] = s != NULL ? strlen(s) : 0;
        /* "[name]\n", the section, and a newline if it lacks its last one */
        total += strlen(section_names[i]) + 3 + lens[i] + 1;
    }
    char *text = malloc(total + 1);
    if (text == NULL) {
        return NULL;
    }
    char *q = text;
    memcpy(q, obs_text_head, sizeof obs_text_head - 1);
    q += sizeof obs_text_head - 1;
    for (int i = 0; i < OR_SEC__COUNT; i++) {
        size_t n = strlen(section_names[i]);
        *q++ = '[';
        memcpy(q, section_names[i], n);
        q += n;
        *q++ = ']';
        *q++ = '\n';
        if (lens[i] > 0) {
            memcpy(q, obs->section[i], lens[i]);
            q += lens[i];
            if (q[-1] != '\n') {
                *q++ = '\n';
            }
        }
    }
    *q = '\0';
    return text;
}
