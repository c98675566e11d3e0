/* hz_sbuf.h: a growing string buffer for the emitter (printf-style appends). Out of
 * memory aborts: the emitter's callers cannot do anything useful with half a
 * program. */
#ifndef HZ_SBUF_H
#define HZ_SBUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct {
    char *buf;
    size_t len, cap;
} HzSbuf;

void hz_sbuf_printf(HzSbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hands the NUL-terminated string to the caller (malloc'd) and empties sb. */
char *hz_sbuf_take(HzSbuf *sb);

#endif
