/* hz_sbuf.c: the emitter's string buffer (see hz_sbuf.h). Doubling growth keeps
 * emission linear in the output size. */
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

void
hz_sbuf_printf(HzSbuf *sb, const char *fmt, ...)
{
    va_list ap;
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
