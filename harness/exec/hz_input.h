/* hz_input.h: what one input file is, before anything runs.
 *
 * An input is either bytes (decoded by hz_decode and emitted by hz_emit into a
 * program) or Python source: a file named *.py, or any file whose first line is
 * `#tracefuzz-py` (DESIGN.md: readable seeds and regressions are valid corpus).
 * Source inputs may carry expectation headers (wren's `// expect:` habit):
 *
 *   # expect[TARGET]: VERDICT
 *   # expect[TARGET faults=F1,F2]: VERDICT
 *   # expect-report[TARGET]: text        (the report must contain `text`)
 *
 * TARGET is spelled exactly as given to `--target`. A line matches the current
 * target and fault set (order of faults does not matter; no `faults=` means none).
 * This part runs no Python: the parent of the worker uses it. */
#ifndef HZ_INPUT_H
#define HZ_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hz_program.h"

/* The line that ends the program in a repro script (hz_repro.h): a .py input's
 * program is the text above it, so the harness below never runs as the program. */
#define HZ_REPRO_MARKER "# ---- tracefuzz repro: below this line runs the program above " \
                        "eagerly and through the JIT ----"

typedef struct {
    char *path;          /* as given or found while walking a directory */
    uint8_t *data;       /* the file's bytes (NUL-terminated copy, size excludes it) */
    size_t size;
    bool is_source;      /* .py or marker line: data is the program's source */
    char *source;        /* the program's source (malloc'd), emitted for bytes inputs;
                            for a source input the text above HZ_REPRO_MARKER */
} HzInput;

/* The length of a source's program: up to and including the line before a line
 * that is exactly HZ_REPRO_MARKER, or all of it. */
size_t hz_program_length(const char *src, size_t n);

/* Reads path and produces the program source (hz_emit with opts for bytes inputs;
 * for source inputs the text above a repro marker line).
 * Returns 0, or -1 with a message in err. */
int hz_input_load(const char *path, const HzEmitOptions *opts, HzInput *in,
                  char *err, size_t errlen);
void hz_input_clear(HzInput *in);

/* True when the buffer is Python source by its content (marker line) or name. */
bool hz_input_is_source(const char *path, const uint8_t *data, size_t size);

/* Expectations of a source for one (target, faults) pair. `faults` is a comma list
 * or NULL. On a match, *verdict is the expected verdict name (malloc'd) and
 * *report_has the expected report substring (malloc'd) or NULL. Returns 1 when a
 * verdict expectation matched, 0 when none did, -1 on a malformed header (err). */
int hz_input_expectation(const char *source, const char *target, const char *faults,
                         char **verdict, char **report_has, char *err, size_t errlen);

/* Canonical form of a fault list: sorted, deduplicated, comma-separated, "" for
 * none. malloc'd. */
char *hz_faults_canonical(const char *faults);

/* Expands files and directories (recursively, entries sorted by name, hidden
 * entries and findings' NAME.report files skipped) into a list of file paths. Returns 0 or -1 with err. The list and
 * its strings are malloc'd: hz_paths_free. */
int hz_input_collect(char *const *paths, size_t npaths, char ***out, size_t *nout,
                     char *err, size_t errlen);
void hz_paths_free(char **paths, size_t n);

#endif
