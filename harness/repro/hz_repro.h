/* hz_repro.h: the standalone repro script of a program (docs/CLI.md "repro").
 *
 * The script is the program's source, verbatim, then the marker line
 * HZ_REPRO_MARKER, then the harness of harness/repro/hz_repro_footer.py (embedded
 * at build time) with its FOUND line filled in: `python3.11 SCRIPT` runs the
 * program eagerly and through the target it was found with, prints the first
 * divergence and exits 1, or exits 0 when they agree. hz_input_load reads only the
 * text above the marker as the program, so the script is also an input.
 * Pure C: no Python runs here. */
#ifndef HZ_REPRO_H
#define HZ_REPRO_H

#include "hz_input.h"

#include <stddef.h>

/* The set-up the script loads by default (what the finding was found with). */
typedef struct {
    const char *target;          /* --target as spelled (NULL: builtin) */
    const char *faults;          /* comma list or NULL */
    const char *unsupported;     /* --unsupported MOD:EXC or NULL */
    const char *const *python_path;   /* --python-path directories */
    size_t n_python_path;
} HzReproSetup;

/* The script for program (the text above any marker; a newline is added when it
 * lacks one). file.py paths of the target and the unsupported exception and the
 * python-path directories are made absolute; where tfjit was built is recorded as
 * a fallback for `builtin`. malloc'd. */
char *hz_repro_script(const char *program, const HzReproSetup *setup);

/* A target spec with the file of a FILE.py:ATTR spec made absolute (when it
 * exists); other specs as they are. malloc'd. */
char *hz_repro_abs_spec(const char *spec);

/* The harness text as embedded (hz_repro_footer.py). */
extern const char hz_repro_footer[];

#endif
