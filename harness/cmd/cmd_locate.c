/* cmd_locate.c: the prebuilt pieces the engine commands run (`fuzz`, `corpus`), found
 * next to this binary, and the environment the fuzz target reads (cmd.h). Nothing is
 * built here: a missing piece is a configuration error with the command that builds it. */
#include "cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *cmd_exe_dir(void)
{
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        return NULL;
    buf[n] = 0;
    char *slash = strrchr(buf, '/');
    if (slash == NULL)
        return NULL;
    *slash = 0;
    return strdup(buf);
}

bool cmd_is_file(const char *path, bool exec)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && (!exec || access(path, X_OK) == 0);
}

bool cmd_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

char *cmd_find_near(const char *dir, const char *const *rels, bool exec, bool want_dir)
{
    for (const char *const *r = rels; dir != NULL && *r != NULL; r++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, *r);
        if (want_dir ? cmd_is_dir(path) : cmd_is_file(path, exec)) {
            char *real = realpath(path, NULL);
            if (real != NULL)
                return real;
        }
    }
    return NULL;
}

char *cmd_find_fuzzer(const char *override, bool afl, const char *command)
{
    /* The dev build has its own tf_fuzz; the fuzz-fast and fuzz build folders are
     * siblings of this binary's in a preset build tree (build/PRESET/). */
    static const char *const lf_rels[] = {"tf_fuzz", "../fuzz-fast/tf_fuzz", "../fuzz/tf_fuzz",
                                          NULL};
    static const char *const afl_rels[] = {"../afl/tf_fuzz", "tf_fuzz_afl", NULL};
    char *fuzzer = NULL;
    if (override != NULL) {
        fuzzer = realpath(override, NULL);
    }
    else {
        char *dir = cmd_exe_dir();
        fuzzer = cmd_find_near(dir, afl ? afl_rels : lf_rels, true, false);
        free(dir);
    }
    if (fuzzer == NULL || !cmd_is_file(fuzzer, true)) {
        fprintf(stderr, "tracefuzz %s: no %s fuzz target %s%s: build it first:\n  %s\n", command,
                afl ? "AFL++" : "libFuzzer", override ? "at " : "next to this binary",
                override ? override : "",
                afl ? "cmake --preset afl && cmake --build --preset afl   (build/afl/tf_fuzz)"
                    : "cmake --build --preset dev   (or fuzz-fast; builds tf_fuzz with clang)");
        free(fuzzer);
        return NULL;
    }
    return fuzzer;
}

void cmd_fuzzer_env(const CmdFuzzerEnv *e)
{
    if (e->target != NULL)
        setenv("TRACEFUZZ_TARGET", e->target, 1);
    if (e->faults != NULL)
        setenv("TRACEFUZZ_FAULTS", e->faults, 1);
    else
        unsetenv("TRACEFUZZ_FAULTS");
    if (e->unsupported != NULL)
        setenv("TRACEFUZZ_UNSUPPORTED", e->unsupported, 1);
    if (e->strict)
        setenv("TRACEFUZZ_STRICT", "1", 1);
    if (e->npypath > 0) {
        size_t n = 1;
        for (size_t i = 0; i < e->npypath; i++)
            n += strlen(e->pypath[i]) + 1;
        char *pp = calloc(1, n);
        if (pp == NULL)
            abort();
        for (size_t i = 0; i < e->npypath; i++) {
            if (i > 0)
                strcat(pp, ":");
            strcat(pp, e->pypath[i]);
        }
        setenv("TRACEFUZZ_PYTHON_PATH", pp, 1);
        free(pp);
    }
}
