/* hz_codecache.h: compiled code of program sources, cached by top-level piece.
 *
 * Compiling was most of an input's time in the fuzzing loop (docs/FUZZING.md,
 * "Throughput"), and a mutated input differs from its parent in one piece of the
 * module (a class, make, program, between): the prelude and the other classes are
 * the same text at the same lines. So a source is cut at its top-level `class` /
 * `def` statements and each piece is compiled once per text and filename while it
 * stays in the cache. A piece is compiled padded with newlines to its first line,
 * so its line numbers (tracebacks, traces) are those of the whole file -- but a
 * lookup that does not ask for exact lines takes the piece's code whatever line it
 * was compiled at: a class that moved down because a class above it grew is the
 * same code, and lines matter only for reports (hz_protocol's fast mode decides OK
 * inputs that way and reruns every other one with exact lines). Executing the
 * pieces in order in one namespace is executing the module: top-level statements
 * run in order in the same globals either way.
 *
 * A source the cut cannot be trusted on (`from __future__`, an encoding
 * declaration, or a piece that does not compile alone although the whole does, e.g.
 * a string spanning a cut) is compiled whole, as one piece. Compile errors are those of the whole source.
 *
 * A top-level `def` piece that is not cached is assembled from its statements
 * compiled apart and cached by text (hz_assemble.h): the code object is the piece's
 * compile byte for byte, so exact lookups take it too. Only with TRACEFUZZ_ASSEMBLE=1
 * (read by hz_codecache_new; 2: small pieces too, for the tests); by default def
 * pieces are compiled whole.
 *
 * A lookup that does not ask for exact lines (the fast protocol's) takes a def
 * piece's code assembled from statement templates (hz_assemble_piece_templated) and
 * any other piece's (or a def piece that route refuses) from the template of its
 * shape (hz_template.h: the piece's code up to layout), unless TRACEFUZZ_TEMPLATES=0
 * (no templates) or 1 (whole-piece templates only); exact lookups compile as written. The two kinds of
 * lookup keep apart entries, so what the fast protocol runs for a text does not
 * depend on the exact runs before it. */
#ifndef HZ_CODECACHE_H
#define HZ_CODECACHE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdbool.h>

#include "hz_assemble.h"
#include "hz_template.h"

/* Which branches of the cache run (hit or miss) depends on the inputs that ran before,
 * not on the input: its functions are left out of coverage instrumentation so that an
 * input's features are a function of the input alone (tests/fuzz/feature_determinism.c;
 * `corpus prune` and `merge` rely on it). */
#if defined(__clang__)
#define HZ_NO_COVERAGE __attribute__((noinline, no_sanitize("coverage")))
/* A small helper called only from HZ_NO_COVERAGE functions: left out too, and free to
 * be inlined into them (a call per character of a scan cost more than the scan). */
#define HZ_NO_COV_HELPER __attribute__((no_sanitize("coverage")))
#else
#define HZ_NO_COVERAGE
#define HZ_NO_COV_HELPER
#endif

typedef struct HzCodeCache HzCodeCache;

typedef struct {
    unsigned long sources;       /* lookups */
    unsigned long source_hits;   /* the whole source was cached */
    unsigned long pieces;        /* pieces looked up on source misses */
    unsigned long piece_hits;    /* of those, already compiled */
    double cpu_def_compile;      /* CPU seconds compiling def pieces (when the assembler is
                                  * off or refused one) */
    /* each route's own counts, zero when it is off: the exact assembler
     * (TRACEFUZZ_ASSEMBLE, hz_assemble.h), the templates (hz_template.h: whole pieces,
     * class skeletons and members, class bodies linked) and program() from statement
     * templates (hz_assemble_piece_templated) */
    HzAssembleStats assembler;
    HzTemplateStats templates;
    HzAssembleStats statements;
} HzCodeCacheStats;

/* Never returns NULL (aborts on out-of-memory). CPython must be initialised for
 * hz_codecache_get; free before finalising it. */
HzCodeCache *hz_codecache_new(void);
void hz_codecache_free(HzCodeCache *c);

/* Returns a new reference to a non-empty tuple of code objects to execute in
 * order in one namespace, or NULL with the compile error of the whole source set.
 * exact_lines: every code object has the line numbers of source; otherwise pieces
 * may come with the lines of an identical piece at another place. */
PyObject *hz_codecache_get(HzCodeCache *c, const char *source, const char *filename,
                           bool exact_lines);

HzCodeCacheStats hz_codecache_stats(const HzCodeCache *c);

/* The cut alone (for tests): writes up to cap piece start offsets (the first is 0)
 * and returns how many pieces source has (1 when it is not cut). */
int hz_codecache_cut(const char *source, size_t *starts, int cap);

#endif
