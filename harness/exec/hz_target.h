/* hz_target.h: loading the target under test, a Python callable jit(fn) -> callable
 * (the convention of thunder.jit and torch.compile; DESIGN.md "Targets").
 *
 *   identity                 lambda fn: fn (the harness checking itself)
 *   builtin                  tfjit.jit, unsupported exception tfjit.Unsupported
 *   path/to/file.py:attr     the file loaded as a module, its directory on sys.path
 *   package.module:attr      imported (through --python-path and VIRTUAL_ENV)
 *
 * `attr` may be dotted (mod:obj.jit). The unsupported exception, if declared with
 * --unsupported, is resolved the same way (mod:Exc or file.py:Exc; a file already
 * loaded as a target is not loaded twice, so its classes are the same objects). */
#ifndef HZ_TARGET_H
#define HZ_TARGET_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stddef.h>

typedef struct {
    char *name;             /* the spec as given, or the default chosen (malloc'd) */
    PyObject *jit;          /* owned: the callable applied to program */
    PyObject *unsupported;  /* owned or NULL: the declared "unsupported" exception */
} HzTarget;

/* Loads the target (spec NULL: builtin; a tfjit that does not import is an error)
 * and the unsupported exception (NULL: the target's default). CPython must be
 * initialised. Returns 0, or -1 with a message in err and no exception set. */
int hz_target_load(const char *spec, const char *unsupported_spec, HzTarget *out,
                   char *err, size_t errlen);
void hz_target_clear(HzTarget *t);

/* The absolute directory of a file.py target (to put on sys.path), malloc'd, or NULL
 * for other specs. Runs no Python. */
char *hz_target_file_dir(const char *spec);

/* Sets the tracer's faults (tfjit.set_faults(csv)). Returns 0, or -1 with err (an
 * unknown fault name among them). */
int hz_target_set_faults(const char *faults, char *err, size_t errlen);

#endif
