/* hz_sbuf.c: the emitter's string buffer (see hz_sbuf.h). Doubling growth keeps
 * emission linear in the output size. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hz_sbuf.h"

static void
reserve(HzSbuf *sb, size_t extra)
{
    if (sb->len + extra + 1 <= sb->cap)
        return;
    size_t cap = sb->cap ? sb->cap : 4096;
    while (cap < sb->len + extra + 1)
        cap *= 2;
    char *nb = realloc(sb->buf, cap);
    if (nb == NULL) {
        fprintf(stderr, "hz_sbuf: out of memory\n");
        abort();
    }
    sb->buf = nb;
    sb->cap = cap;
}

static void
append(HzSbuf *sb, const char *s, size_t n)
{
    reserve(sb, n);
    memcpy(sb->buf + sb->len, s, n);
    sb->len += n;
}

/* fmt's %s, %d and %% (all the emitter spells) written without vsnprintf, which was a
 * fifth of emitting a program; false, with nothing written, at any other conversion. */
static bool
quick_printf(HzSbuf *sb, const char *fmt, va_list ap)
{
    size_t start = sb->len;
    for (const char *p = fmt;;) {
        const char *q = strchr(p, '%');
        append(sb, p, q != NULL ? (size_t)(q - p) : strlen(p));
        if (q == NULL)
            break;
        if (q[1] == 's') {
            const char *v = va_arg(ap, const char *);
            if (v == NULL)
                v = "(null)";   /* as glibc prints it */
            append(sb, v, strlen(v));
        }
        else if (q[1] == 'd') {
            char tmp[16], *e = tmp + sizeof tmp, *d = e;
            int v = va_arg(ap, int);
            unsigned u = v < 0 ? 0u - (unsigned)v : (unsigned)v;
            do
                *--d = (char)('0' + u % 10);
            while ((u /= 10) != 0);
            if (v < 0)
                *--d = '-';
            append(sb, d, (size_t)(e - d));
        }
        else if (q[1] == '%')
            append(sb, "%", 1);
        else {
            sb->len = start;
            return false;
        }
        p = q + 2;
    }
    reserve(sb, 0);
    sb->buf[sb->len] = '\0';
    return true;
}

void
hz_sbuf_printf(HzSbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bool done = quick_printf(sb, fmt, ap);
    va_end(ap);
    if (done)
        return;
    reserve(sb, 256);
    va_start(ap, fmt);
    int n = vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
    va_end(ap);
    if (n < 0) {
        fprintf(stderr, "hz_sbuf: bad format\n");
        abort();
    }
    if ((size_t)n >= sb->cap - sb->len) {
        reserve(sb, (size_t)n);
        va_start(ap, fmt);
        vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
        va_end(ap);
    }
    sb->len += (size_t)n;
}

char *
hz_sbuf_take(HzSbuf *sb)
{
    reserve(sb, 0);
    sb->buf[sb->len] = '\0';
    char *s = sb->buf;
    memset(sb, 0, sizeof(*sb));
    return s;
}
