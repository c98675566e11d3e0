/* hz_embed.h: the one initialisation of the embedded CPython 3.11 (TOOLCHAIN.md).
 *
 * Isolated configuration (no environment, no user site, no signal handlers), a
 * fixed hash seed so hash() and set order are the same in every run, unbuffered
 * stdio, no bytecode writing, the tracer module `tfjit` built in, and the modules
 * generated programs import loaded once. Mirrors CPython's own fuzz harness
 * (Modules/_xxtestfuzz/fuzzer.c), which also initialises once per process. */
#ifndef HZ_EMBED_H
#define HZ_EMBED_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    /* --python-path DIRs, put in front of sys.path (in order). */
    const char *const *python_path;
    size_t n_python_path;
    /* The directory of a file.py target (NULL if none), also in front of sys.path. */
    const char *target_dir;
} HzEmbedConfig;

/* Initialises CPython once; later calls do nothing and return 0. An active
 * virtualenv (VIRTUAL_ENV) adds its site-packages with .pth processing. The
 * standard library comes from TRACEFUZZ_PYTHONHOME, else from python-home/ next to
 * the executable when it holds one (a relocated build: .clusterfuzzlite/build.sh),
 * else from libpython's compiled-in prefix. Returns 0,
 * or -1 with a message in err (CPython not usable). */
int hz_embed_init(const HzEmbedConfig *cfg, char *err, size_t errlen);

/* True once hz_embed_init succeeded in this process. */
bool hz_embed_ready(void);

/* Whether Python objects go through malloc (ASan builds or TRACEFUZZ_MALLOC=1). */
bool hz_embed_uses_malloc(void);

/* The pending exception as text, and clears it: "Type: message", followed by the
 * formatted traceback when with_traceback. malloc'd; never NULL (falls back to a
 * fixed text when formatting itself fails). Aborts if no exception is set. */
char *hz_exception_text(int with_traceback);

/* Text of an exception instance (borrowed), same format; malloc'd, never NULL. */
char *hz_exception_text_of(PyObject *exc, int with_traceback);

#endif
