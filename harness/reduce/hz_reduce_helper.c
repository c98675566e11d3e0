/* hz_reduce_helper.c: the AST helper process of the source reducer.
 *
 * tracefuzz's parent process never initialises CPython (hz_worker.h: its workers
 * are forked from it), so the AST is read in a process of its own: forked, it
 * initialises the embedded interpreter (hz_embed_init, as a worker does) and runs
 * hz_reduce_ast.py (compiled in by harness/CMakeLists.txt) on requests over
 * a pipe pair. Frames: 4-byte little-endian length, then the payload. */
#include "hz_embed.h"   /* Python.h first: it sets _GNU_SOURCE (close_range) */
#include "hz_reduce.h"
/* hz_reduce_ast.py's text, compiled in (harness/CMakeLists.txt, hz_embed_py) */
extern const char hz_reduce_ast_py[];

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct HzAstHelper {
    pid_t pid;
    int to, from;
};

static int write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static int read_all(int fd, void *buf, size_t n)
{
    char *p = buf;
    while (n > 0) {
        ssize_t k = read(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static int send_frame(HzAstHelper *h, char op, const char *body)
{
    size_t n = strlen(body) + (op ? 1 : 0);
    uint8_t len[4] = {(uint8_t)n, (uint8_t)(n >> 8), (uint8_t)(n >> 16), (uint8_t)(n >> 24)};
    if (write_all(h->to, len, 4) < 0 || (op && write_all(h->to, &op, 1) < 0) ||
        write_all(h->to, body, strlen(body)) < 0)
        return -1;
    return 0;
}

/* A frame's payload, malloc'd and NUL-terminated; NULL when the helper died. */
static char *recv_frame(HzAstHelper *h)
{
    uint8_t len[4];
    if (read_all(h->from, len, 4) < 0)
        return NULL;
    size_t n = len[0] | (size_t)len[1] << 8 | (size_t)len[2] << 16 | (size_t)len[3] << 24;
    char *s = malloc(n + 1);
    if (s == NULL)
        abort();
    if (read_all(h->from, s, n) < 0) {
        free(s);
        return NULL;
    }
    s[n] = 0;
    return s;
}

/* The helper's side: never returns. */
static void helper_main(int in, int out)
{
    HzEmbedConfig ec;
    memset(&ec, 0, sizeof ec);
    char err[1024];
    if (hz_embed_init(&ec, err, sizeof err) < 0) {
        fprintf(stderr, "tracefuzz reduce: AST helper: %s\n", err);
        _exit(2);
    }
    PyObject *g = PyDict_New();   /* new reference: the script's globals */
    PyObject *vin = PyLong_FromLong(in), *vout = PyLong_FromLong(out);   /* new */
    int bad = g == NULL || vin == NULL || vout == NULL ||
              PyDict_SetItemString(g, "__builtins__", PyEval_GetBuiltins()) < 0 ||
              PyDict_SetItemString(g, "IN_FD", vin) < 0 || PyDict_SetItemString(g, "OUT_FD", vout) < 0;
    Py_XDECREF(vin);
    Py_XDECREF(vout);
    PyObject *r = bad ? NULL : PyRun_String(hz_reduce_ast_py, Py_file_input, g, g);   /* new */
    Py_XDECREF(r);
    PyObject *serve = r ? PyDict_GetItemString(g, "serve") : NULL;   /* borrowed */
    PyObject *r2 = serve ? PyObject_CallNoArgs(serve) : NULL;        /* new */
    if (r2 == NULL && PyErr_Occurred())
        PyErr_Print();
    Py_XDECREF(r2);
    _exit(r2 ? 0 : 3);   /* no Py_Finalize: nothing to flush, the process is done */
}

HzAstHelper *hz_ast_helper_new(char *err, size_t errlen)
{
    int down[2], up[2];
    if (pipe(down) < 0)
        goto fail;
    if (pipe(up) < 0) {
        close(down[0]);
        close(down[1]);
        goto fail;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(down[0]);
        close(down[1]);
        close(up[0]);
        close(up[1]);
        goto fail;
    }
    if (pid == 0) {
        close(down[1]);
        close(up[0]);
        /* nothing else of the parent's (a worker's channel) stays open here */
        int lo = down[0] < up[1] ? down[0] : up[1], hi = down[0] < up[1] ? up[1] : down[0];
        close_range(3, (unsigned)lo - 1, 0);
        close_range((unsigned)lo + 1, (unsigned)hi - 1, 0);
        close_range((unsigned)hi + 1, ~0U, 0);
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0) {   /* stdout is for the reducer's lines */
            dup2(devnull, 1);
            close(devnull);
        }
        helper_main(down[0], up[1]);
    }
    close(down[0]);
    close(up[1]);
    HzAstHelper *h = malloc(sizeof *h);
    if (h == NULL)
        abort();
    h->pid = pid;
    h->to = down[1];
    h->from = up[0];
    return h;
fail:
    snprintf(err, errlen, "cannot start the AST helper: %s", strerror(errno));
    return NULL;
}

void hz_ast_helper_free(HzAstHelper *h)
{
    if (h == NULL)
        return;
    close(h->to);
    close(h->from);
    kill(h->pid, SIGKILL);   /* a worker forked later may hold our end of its pipe */
    while (waitpid(h->pid, NULL, 0) < 0 && errno == EINTR)
        ;
    free(h);
}

void hz_reduce_strings_free(char **v, size_t n)
{
    for (size_t i = 0; i < n && v != NULL; i++)
        free(v[i]);
    free(v);
}

int hz_ast_analyse(HzAstHelper *h, const char *src, HzAstUnit **units, size_t *nunits,
                   char ***rewrites, size_t *nrewrites)
{
    *units = NULL;
    *rewrites = NULL;
    *nunits = *nrewrites = 0;
    if (send_frame(h, 'A', src) < 0)
        return -1;
    char *u = recv_frame(h);
    if (u == NULL)
        return -1;
    if (u[0] == '!') {
        free(u);
        return 1;
    }
    size_t cap = 1;
    for (const char *s = u; *s; s++)
        cap += *s == '\n';
    *units = calloc(cap, sizeof **units);
    if (*units == NULL)
        abort();
    for (char *line = strtok(u, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        HzAstUnit x;
        if (sscanf(line, "D %d %d %d %d", &x.depth, &x.body, &x.first, &x.last) == 4)
            (*units)[(*nunits)++] = x;
    }
    free(u);
    char *cnt = recv_frame(h);
    if (cnt == NULL)
        return -1;
    size_t n = strtoul(cnt, NULL, 10);
    free(cnt);
    *rewrites = calloc(n + 1, sizeof **rewrites);
    if (*rewrites == NULL)
        abort();
    for (size_t i = 0; i < n; i++) {
        char *t = recv_frame(h);
        if (t == NULL)
            return -1;
        (*rewrites)[(*nrewrites)++] = t;
    }
    return 0;
}

int hz_ast_compiles(HzAstHelper *h, char *const *srcs, size_t n, bool *ok)
{
    char num[32];
    snprintf(num, sizeof num, "%zu", n);
    if (send_frame(h, 'C', num) < 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (send_frame(h, 0, srcs[i]) < 0)
            return -1;
    char *r = recv_frame(h);
    if (r == NULL)
        return -1;
    for (size_t i = 0; i < n; i++)
        ok[i] = r[i] == '1';
    free(r);
    return 0;
}
