/* or_internal.h: what the oracles' own files share and nobody else needs: a growable
 * text buffer, the version-1 caps of the observation format, and the line helpers
 * the verdict and the report use to find the first divergence. Not a contract:
 * other parts include or_observe.h and or_verdict.h only. */
#ifndef OR_INTERNAL_H
#define OR_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* For the fuzz target's coverage (a persistent process running input after input):
 * address hash tables, caches and capacity growth run differently after other inputs
 * (or at other addresses) for the same input. Functions of that kind are left out of
 * coverage instrumentation (and not inlined into instrumented ones) so that an input's
 * features depend on the input alone (tests/fuzz/feature_determinism.c). */
#if defined(__clang__)
#define OR_NO_COVERAGE __attribute__((noinline, no_sanitize("coverage")))
#else
#define OR_NO_COVERAGE
#endif

/* Caps of the observation format (docs/OBSERVATION.md). Changing one changes what an
 * observation says, so it bumps OR_OBS_VERSION. */
#define OR_CAP_DEPTH   8      /* nesting below a root whose contents are printed */
#define OR_CAP_ITEMS   64     /* elements printed per container */
#define OR_CAP_LOG     1024   /* elements printed of LOG and its snapshots */
#define OR_CAP_OBJECTS 2000   /* objects numbered per observation */
#define OR_CAP_LINES   10000  /* lines per section */
#define OR_CAP_STR     200    /* characters printed of a str or bytes */
#define OR_CAP_SETSORT 4096   /* larger sets are not sorted, only counted */
#define OR_CAP_KEY     1024   /* characters of one inline form (dict key, sort key) */
#define OR_KEY_BUDGET  1000000 /* inline-form steps per observation: a DAG of shared
                                  frozensets could otherwise expand exponentially */
#define OR_CAP_CLASSES 1000   /* heap types examined per observation (or_world.c) */

/* A growable NUL-terminated buffer. Allocation failure sets `oom` once and makes
 * every later call a no-op, so callers check once at the end. Observations write
 * every byte through here, so the common appends are inline: a bound check and a
 * memcpy; growth (geometric) and failure are or_buf_grow's. */
typedef struct {
    char *p;
    size_t len, cap;    /* cap is 0 once oom is set, so the inline paths miss */
    int oom;
} OrBuf;

void or_buf_init(OrBuf *b);
void or_buf_free(OrBuf *b);
/* Makes room for `extra` more bytes plus the NUL; 0, or -1 with oom set. */
int or_buf_grow(OrBuf *b, size_t extra);
void or_buf_printf(OrBuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void or_buf_truncate(OrBuf *b, size_t len);
/* Hands the text over (malloc'd, caller frees); NULL if any allocation failed. */
char *or_buf_finish(OrBuf *b);
/* Decimal digits, no printf: integers are most of an observation's numbers. */
void or_buf_put_i64(OrBuf *b, long long v);
void or_buf_put_u64(OrBuf *b, unsigned long long v);

/* Writes v's decimal digits backwards, ending just before `end` (at most 20
 * bytes); returns where they start. For callers that frame the digits
 * ("[12]", "#3 ") in one small array and append it with one copy. */
static inline char *
or_fmt_u64(char *end, unsigned long long v)
{
    do {
        *--end = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    return end;
}

/* memcpy for the short pieces lines are made of (a path, a number, a name):
 * two possibly overlapping fixed-size moves instead of a library call. */
static inline void
or_copy(char *d, const char *s, size_t n)
{
    if (n >= 8 && n <= 16) {
        uint64_t x, y;
        memcpy(&x, s, 8);
        memcpy(&y, s + n - 8, 8);
        memcpy(d, &x, 8);
        memcpy(d + n - 8, &y, 8);
    }
    else if (n >= 4 && n < 8) {
        uint32_t x, y;
        memcpy(&x, s, 4);
        memcpy(&y, s + n - 4, 4);
        memcpy(d, &x, 4);
        memcpy(d + n - 4, &y, 4);
    }
    else if (n < 4) {
        if (n > 0) {
            d[0] = s[0];
            d[n / 2] = s[n / 2];
            d[n - 1] = s[n - 1];
        }
    }
    else {
        memcpy(d, s, n);
    }
}

static inline void
or_buf_putn(OrBuf *b, const char *s, size_t n)
{
    if (b->len + n >= b->cap && or_buf_grow(b, n) < 0) {
        return;
    }
    or_copy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static inline void
or_buf_puts(OrBuf *b, const char *s)
{
    or_buf_putn(b, s, strlen(s));
}

static inline void
or_buf_putc(OrBuf *b, char c)
{
    if (b->len + 1 >= b->cap && or_buf_grow(b, 1) < 0) {
        return;
    }
    b->p[b->len++] = c;
    b->p[b->len] = '\0';
}

/* ---- values (or_value.c): writers of the value part of a line; each returns
 * 0 (or 1 where it says), or -1 with a Python exception set. They run no
 * Python code. ---- */

#include "or_observe.h"   /* Python.h */

/* Flags of the text writers. */
#define OR_TEXT_SPACE 1   /* spaces as \x20 (text inside a path) */
#define OR_TEXT_ADDR  2   /* "0x" + 6 or more hex digits as "0x<addr>" (exception args) */

/* A str's characters escaped to printable ASCII, capped at OR_CAP_STR; quoted
 * ('...') when quote is set. */
int or_put_text(OrBuf *b, PyObject *s, int quote, int flags);
void or_put_bytes(OrBuf *b, PyObject *o, int flags);
/* A plain value (None, bools, exact int/float/complex/str/bytes): 1 written,
 * 0 not a plain value, -1 error. */
int or_put_scalar(OrBuf *b, PyObject *o, int flags);
/* " VALUE" of an int/float/complex/str/bytes subclass instance or a bytearray;
 * nothing for anything else. */
int or_put_subclass_value(OrBuf *b, PyObject *o, int flags);
/* A class statement's qualified name, a built-in type's tp_name. */
int or_put_type_name(OrBuf *b, PyTypeObject *tp, int flags);
/* The detail after "#n TYPE": " qualname" of a function or class, " name" of a
 * module or builtin, "[len]" of a container, " VALUE" of a value subclass. */
int or_put_detail(OrBuf *b, PyObject *o);

/* ---- the world's classes and globals (or_world.c): which classes the
 * observation met that the program defined, and which dict entries are data. ---- */

#define OR_WORLD_TABLE 2048   /* power of two, at least 2 * OR_CAP_CLASSES */
_Static_assert(OR_WORLD_TABLE >= 2 * OR_CAP_CLASSES && OR_CAP_CLASSES < 65536,
               "the class table must stay sparse and its entries fit uint16_t");

typedef struct {
    PyObject *ns;                          /* borrowed: the run's namespace, or NULL */
    PyObject *modname;                     /* borrowed: its __name__ (exact str), or NULL */
    PyTypeObject *seen[OR_CAP_CLASSES];    /* heap types examined, strong refs */
    unsigned char expanded[OR_CAP_CLASSES]; /* seen[i]'s MRO and metaclass examined */
    size_t nseen;
    uint16_t table[OR_WORLD_TABLE];        /* open addressing over seen: 0 empty, else n */
    PyTypeObject *classes[OR_CAP_CLASSES]; /* the program's classes met, in order; borrowed
                                              from seen */
    size_t nclasses;
} OrWorld;

/* Without a namespace (ns NULL, or no str __name__ in it) nothing is noted. */
void or_world_init(OrWorld *w, PyObject *ns);
void or_world_clear(OrWorld *w);
/* o was met: its type (o itself when a class) joins the examined types, with
 * their MROs and metaclasses; program classes join w->classes. */
void or_world_note(OrWorld *w, PyObject *o);
/* Whether key: value of a class dict or of the namespace is program data (a
 * class value is noted instead, and is not data). Runs no Python code. */
int or_world_is_data(OrWorld *w, PyObject *key, PyObject *value);
/* The namespace's LOG (observed as its own root). */
int or_world_is_log_root(PyObject *key);

/* One line of a section: [start, start+len) without the newline. */
typedef struct {
    const char *start;
    size_t len;
} OrLine;

/* The slot of a pointer in an open-addressed table of mask + 1 (a power of two)
 * entries: Fibonacci hashing of the address without its alignment bits. */
static inline size_t or_ptr_slot(const void *p, size_t mask)
{
    uintptr_t h = (uintptr_t)p >> 4;
    h *= (uintptr_t)0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 20) & mask;
}

/* Splits `text` into lines; *out is malloc'd (caller frees). -1 on OOM. */
int or_lines_split(const char *text, OrLine **out, size_t *n);
/* Length of the path of a line: everything before the first " = " (the whole line
 * when it has none, e.g. "<cap lines>"). */
size_t or_line_path_len(const OrLine *l);
/* The value part of a line "PATH = VALUE" ("" when it has none); *len its length. */
const char *or_line_value(const OrLine *l, size_t *len);
/* Whether a value is a reference back to an object seen before: "#12". */
int or_value_is_backref(const char *v, size_t n);
/* Whether a value is an object's first appearance: "#12 Type ...". */
int or_value_is_new_object(const char *v, size_t n);

/* ---- verdict internals (or_verdict.c, or_report.c) ---- */

#include "or_verdict.h"

#define OR_PATH_MAX 256

/* The first divergence between two observations, in protocol order. */
typedef struct {
    OrSection section;         /* OR_SEC__COUNT when the observations are equal */
    size_t line;               /* first differing line of that section, 0-based */
    char path[OR_PATH_MAX];    /* that line's path (side a's, else side b's) */
    int exc_a, exc_b;          /* an r-section whose result is an exception */
    int only_message;          /* both raise the same type; only `.args` lines differ */
} OrDivergence;

/* Fills d; -1 on OOM. */
int or_divergence(const OrObservation *a, const OrObservation *b, OrDivergence *d);

/* What the report needs besides the input and the verdict. */
typedef struct {
    const OrObservation *a, *b;   /* the two sides compared, or NULL */
    const char *label_a, *label_b;
    const OrDivergence *div;      /* NULL when no observation decided */
    const char *what;             /* one sentence on why this verdict */
    const char *statement;        /* the program's lines involved (the hint's), or NULL */
} OrReportCtx;

/* An event log section's divergence as a diff of its events (or_report_log.c):
 * the first hunk in context into b, and one line saying what it is into
 * one_line. 1 when the events differ, 0 when they agree (the difference is
 * elsewhere: nothing written), -1 on OOM. */
int or_report_log_diff(OrBuf *b, const char *text_a, const char *text_b, const char *root,
                       const char *label_a, const char *label_b, OrBuf *one_line);

/* The human report (malloc'd, NULL on OOM). */
char *or_report_build(const OrVerdictInput *in, OrVerdictKind kind,
                      const char *signature, const OrReportCtx *ctx);

#endif
