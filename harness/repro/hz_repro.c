/* hz_repro.c: a program's standalone repro script (hz_repro.h): the program, the
 * marker line, the embedded harness with the set-up the finding was found with. */
#include "hz_repro.h"
#include "hz_sbuf.h"

#include <glob.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The footer's line that the set-up replaces; the footer as it is loads `builtin`
 * with no faults. */
static const char found_line[] = "FOUND = {}\n";

static char *xstrdup(const char *s)
{
    char *r = strdup(s);
    if (r == NULL)
        abort();
    return r;
}

static bool ends_with(const char *s, size_t n, const char *suffix)
{
    size_t m = strlen(suffix);
    return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

char *hz_repro_abs_spec(const char *spec)
{
    const char *colon = strrchr(spec, ':');
    if (colon == NULL || !ends_with(spec, (size_t)(colon - spec), ".py"))
        return xstrdup(spec);
    char *file = strndup(spec, (size_t)(colon - spec));
    if (file == NULL)
        abort();
    char abs[PATH_MAX];
    char *out;
    if (realpath(file, abs) != NULL) {
        size_t n = strlen(abs) + strlen(colon) + 1;
        out = malloc(n);
        if (out == NULL)
            abort();
        snprintf(out, n, "%s%s", abs, colon);
    }
    else {
        out = xstrdup(spec);   /* the script will say it cannot load it */
    }
    free(file);
    return out;
}

/* A Python string literal of s: quotes, backslashes and control bytes escaped;
 * bytes >= 0x80 kept (the script is UTF-8 source, as paths are). */
static void put_py_str(HzSbuf *b, const char *s)
{
    hz_sbuf_printf(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            hz_sbuf_printf(b, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            hz_sbuf_printf(b, "\\x%02x", *p);
        else
            hz_sbuf_printf(b, "%c", *p);
    }
    hz_sbuf_printf(b, "\"");
}

/* Where this build's tfjit extension module is, for a script run by a python3.11
 * whose sys.path lacks it (`-I`): beside the running binary (build/X/python),
 * else the build directory it was configured with. malloc'd or NULL. */
static char *tfjit_dir(void)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    const char *candidates[2] = {NULL, HZ_TFJIT_DIR};
    char here[PATH_MAX + 16];
    if (n > 0) {
        exe[n] = 0;
        char *slash = strrchr(exe, '/');
        if (slash != NULL) {
            *slash = 0;
            snprintf(here, sizeof here, "%s/python", exe);
            candidates[0] = here;
        }
    }
    for (int i = 0; i < 2; i++) {
        if (candidates[i] == NULL || !*candidates[i])
            continue;
        char pattern[PATH_MAX + 32];
        snprintf(pattern, sizeof pattern, "%s/tfjit*.so", candidates[i]);
        glob_t g;
        bool found = glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc > 0;
        globfree(&g);
        if (found) {
            char abs[PATH_MAX];
            return xstrdup(realpath(candidates[i], abs) ? abs : candidates[i]);
        }
    }
    return NULL;
}

/* The FOUND line: {"target": ..., "faults": ..., ...}. */
static void put_found(HzSbuf *b, const HzReproSetup *s)
{
    char *target = hz_repro_abs_spec(s->target ? s->target : "builtin");
    hz_sbuf_printf(b, "%s", "FOUND = {\"target\": ");
    put_py_str(b, target);
    hz_sbuf_printf(b, "%s", ", \"faults\": ");
    put_py_str(b, s->faults ? s->faults : "");
    if (s->unsupported != NULL) {
        char *u = hz_repro_abs_spec(s->unsupported);
        hz_sbuf_printf(b, "%s", ", \"unsupported\": ");
        put_py_str(b, u);
        free(u);
    }
    hz_sbuf_printf(b, "%s", ", \"python_path\": [");
    for (size_t i = 0; i < s->n_python_path; i++) {
        char abs[PATH_MAX];
        const char *d = realpath(s->python_path[i], abs) ? abs : s->python_path[i];
        if (i > 0)
            hz_sbuf_printf(b, "%s", ", ");
        put_py_str(b, d);
    }
    hz_sbuf_printf(b, "%s", "]");
    char *dir = tfjit_dir();
    if (dir != NULL) {
        hz_sbuf_printf(b, "%s", ", \"tfjit_dir\": ");
        put_py_str(b, dir);
        free(dir);
    }
    hz_sbuf_printf(b, "%s", "}\n");
    free(target);
}

char *hz_repro_script(const char *program, const HzReproSetup *setup)
{
    HzSbuf b = {0};
    size_t n = hz_program_length(program, strlen(program));
    hz_sbuf_printf(&b, "%.*s%s" HZ_REPRO_MARKER "\n", (int)n, program,
                   n > 0 && program[n - 1] != '\n' ? "\n" : "");
    const char *at = strstr(hz_repro_footer, found_line);
    if (at == NULL || (at != hz_repro_footer && at[-1] != '\n')) {
        fprintf(stderr, "tracefuzz: internal error: the repro footer has no FOUND line\n");
        abort();
    }
    hz_sbuf_printf(&b, "%.*s", (int)(at - hz_repro_footer), hz_repro_footer);
    put_found(&b, setup);
    hz_sbuf_printf(&b, "%s", at + strlen(found_line));
    return hz_sbuf_take(&b);
}
