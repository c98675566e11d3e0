/* hz_input.c: reading inputs (bytes or source), expectation headers, and walking
 * directories in a stable order. Pure C: runs in the parent of the worker. */
#include "hz_input.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The largest input read: more is no program a worker's message can carry. */
#define HZ_INPUT_MAX ((size_t)64 << 20)

static char *xstrdup(const char *s)
{
    char *r = strdup(s);
    if (r == NULL) {
        fprintf(stderr, "tracefuzz: out of memory\n");
        abort();
    }
    return r;
}

static char *xstrndup(const char *s, size_t n)
{
    char *r = strndup(s, n);
    if (r == NULL) {
        fprintf(stderr, "tracefuzz: out of memory\n");
        abort();
    }
    return r;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

bool hz_input_is_source(const char *path, const uint8_t *data, size_t size)
{
    size_t m = strlen(HZ_PY_MARKER);
    if (path != NULL && ends_with(path, ".py"))
        return true;
    if (size < m || memcmp(data, HZ_PY_MARKER, m) != 0)
        return false;
    return size == m || data[m] == '\n' || data[m] == '\r';
}

size_t hz_program_length(const char *src, size_t n)
{
    size_t m = strlen(HZ_REPRO_MARKER);
    for (size_t at = 0; at + m <= n;) {
        const char *nl = memchr(src + at, '\n', n - at);
        size_t end = nl ? (size_t)(nl - src) : n;   /* the line is src[at, end) */
        size_t len = end - at;
        if (len > 0 && src[end - 1] == '\r')
            len--;
        if (len == m && memcmp(src + at, HZ_REPRO_MARKER, m) == 0)
            return at;
        if (nl == NULL)
            break;
        at = end + 1;
    }
    return n;
}

int hz_input_load(const char *path, const HzEmitOptions *opts, HzInput *in,
                  char *err, size_t errlen)
{
    memset(in, 0, sizeof *in);
    /* Non-blocking: a FIFO among the inputs must not hang the run. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    memset(&st, 0, sizeof st);
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > HZ_INPUT_MAX) {
        snprintf(err, errlen, "cannot read %s: %s", path,
                 S_ISDIR(st.st_mode) ? "a directory"
                 : !S_ISREG(st.st_mode) ? "not a regular file (a FIFO, socket or device)"
                 : "larger than 64 MiB");
        close(fd);
        return -1;
    }
    FILE *f = fdopen(fd, "rb");
    if (f == NULL) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap + 1);
    if (buf == NULL)
        abort();
    for (;;) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap)
            break;
        cap *= 2;
        uint8_t *nb = realloc(buf, cap + 1);
        if (nb == NULL)
            abort();
        buf = nb;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        snprintf(err, errlen, "cannot read %s", path);
        return -1;
    }
    buf[n] = 0;
    in->path = xstrdup(path);
    in->data = buf;
    in->size = n;
    in->is_source = hz_input_is_source(path, buf, n);
    if (in->is_source) {
        /* An embedded NUL cannot reach the compiler; the protocol reports the
         * truncated source as invalid if it does not compile. */
        in->source = xstrndup((const char *)buf, hz_program_length((const char *)buf, n));
    }
    else {
        HzProgram *p = hz_decode(buf, n);
        in->source = hz_emit(p, opts);
        hz_program_free(p);
        if (in->source == NULL) {
            hz_input_clear(in);
            snprintf(err, errlen, "cannot emit the program of %s (out of memory)", path);
            return -1;
        }
    }
    return 0;
}

void hz_input_clear(HzInput *in)
{
    free(in->path);
    free(in->data);
    free(in->source);
    memset(in, 0, sizeof *in);
}

/* ---- fault lists ---------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char *hz_faults_canonical(const char *faults)
{
    if (faults == NULL)
        return xstrdup("");
    char *copy = xstrdup(faults);
    size_t n = 0, cap = 8;
    char **items = malloc(cap * sizeof *items);
    if (items == NULL)
        abort();
    for (char *save = NULL, *tok = strtok_r(copy, ", \t", &save); tok != NULL;
         tok = strtok_r(NULL, ", \t", &save)) {
        if (n == cap) {
            cap *= 2;
            char **ni = realloc(items, cap * sizeof *items);
            if (ni == NULL)
                abort();
            items = ni;
        }
        items[n++] = tok;
    }
    qsort(items, n, sizeof *items, cmp_str);
    size_t len = 1;
    for (size_t i = 0; i < n; i++)
        len += strlen(items[i]) + 1;
    char *out = malloc(len);
    if (out == NULL)
        abort();
    out[0] = 0;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && strcmp(items[i], items[i - 1]) == 0)
            continue;
        if (out[0])
            strcat(out, ",");
        strcat(out, items[i]);
    }
    free(items);
    free(copy);
    return out;
}

/* ---- expectation headers -------------------------------------------------- */

/* Lexically normalised path (malloc'd): "./" segments and doubled slashes gone. */
static char *path_lexical(const char *p, size_t n)
{
    char *out = xstrndup(p, n), *o = out;
    for (size_t i = 0; i < n;) {
        bool seg_start = i == 0 || p[i - 1] == '/';
        if (seg_start && p[i] == '.' && (i + 1 == n || p[i + 1] == '/')) {
            i += i + 1 < n ? 2 : 1;   /* a "." segment */
            continue;
        }
        if (p[i] == '/' && o > out && o[-1] == '/') {
            i++;
            continue;
        }
        *o++ = p[i++];
    }
    *o = 0;
    return out;
}

/* The file part of a file.py:attr target resolved (realpath) or lexically
 * normalised, then ":attr"; other specs as they are. malloc'd. */
static char *target_key(const char *spec)
{
    const char *colon = strstr(spec, ".py:");
    if (colon == NULL)
        return xstrndup(spec, strlen(spec));
    size_t flen = (size_t)(colon - spec) + 3;
    char *file = xstrndup(spec, flen);
    char *real = realpath(file, NULL);
    char *norm = real ? real : path_lexical(spec, flen);
    free(file);
    size_t n = strlen(norm) + strlen(colon + 3) + 1;
    char *key = malloc(n);
    if (key == NULL)
        abort();
    snprintf(key, n, "%s%s", norm, colon + 3);
    free(norm);
    return key;
}

/* Whether two target specs name the same target however its path is spelled
 * ("./tests/x.py:jit", "tests/x.py:jit", "/abs/tests/x.py:jit"). */
static bool same_target(const char *a, const char *b)
{
    if (strcmp(a, b) == 0)
        return true;
    char *ka = target_key(a), *kb = target_key(b);
    bool same = strcmp(ka, kb) == 0;
    free(ka);
    free(kb);
    return same;
}

/* Parses the bracket of one header line: "TARGET" or "TARGET faults=F1,F2". Returns
 * 1 when it names the current target and faults, 0 when not, -1 when malformed. */
static int bracket_matches(const char *b, size_t blen, const char *target,
                           const char *canon_faults)
{
    char *inner = xstrndup(b, blen);
    int rc = 0;
    char *sp = strchr(inner, ' ');
    const char *faults = NULL;
    if (sp != NULL) {
        *sp = 0;
        const char *rest = sp + 1;
        while (*rest == ' ')
            rest++;
        if (strncmp(rest, "faults=", 7) != 0) {
            rc = -1;
            goto done;
        }
        faults = rest + 7;
    }
    if (same_target(inner, target)) {
        char *cf = hz_faults_canonical(faults);
        rc = strcmp(cf, canon_faults) == 0;
        free(cf);
    }
done:
    free(inner);
    return rc;
}

static char *trimmed(const char *s, size_t n)
{
    while (n > 0 && (*s == ' ' || *s == '\t')) {
        s++;
        n--;
    }
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        n--;
    return xstrndup(s, n);
}

int hz_input_expectation(const char *source, const char *target, const char *faults,
                         char **verdict, char **report_has, char *err, size_t errlen)
{
    *verdict = NULL;
    *report_has = NULL;
    char *canon = hz_faults_canonical(faults);
    int lineno = 0, rc = 0;
    for (const char *line = source; line != NULL && *line; ) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        lineno++;
        bool is_report = false;
        const char *p = NULL;
        if (len > 9 && strncmp(line, "# expect[", 9) == 0)
            p = line + 9;
        else if (len > 16 && strncmp(line, "# expect-report[", 16) == 0) {
            p = line + 16;
            is_report = true;
        }
        if (p != NULL) {
            const char *close = memchr(p, ']', len - (size_t)(p - line));
            if (close == NULL || close + 1 >= line + len || close[1] != ':') {
                snprintf(err, errlen, "line %d: malformed expectation header", lineno);
                rc = -1;
                goto done;
            }
            int m = bracket_matches(p, (size_t)(close - p), target, canon);
            if (m < 0) {
                snprintf(err, errlen, "line %d: malformed expectation header "
                         "(want '[TARGET]' or '[TARGET faults=F1,F2]')", lineno);
                rc = -1;
                goto done;
            }
            if (m) {
                char *value = trimmed(close + 2, (size_t)(line + len - (close + 2)));
                char **slot = is_report ? report_has : verdict;
                free(*slot);   /* the last matching line wins */
                *slot = value;
            }
        }
        line = eol ? eol + 1 : NULL;
    }
    rc = *verdict != NULL;
done:
    if (rc < 0) {
        free(*verdict);
        free(*report_has);
        *verdict = *report_has = NULL;
    }
    free(canon);
    return rc;
}

/* ---- walking paths -------------------------------------------------------- */

typedef struct {
    char **items;
    size_t n, cap;
} PathList;

static void list_push(PathList *l, char *s)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        char **ni = realloc(l->items, l->cap * sizeof *ni);
        if (ni == NULL)
            abort();
        l->items = ni;
    }
    l->items[l->n++] = s;
}

/* Collects path (a file, or a directory walked recursively) into out. A path given
 * on the command line (top) that does not exist is an error of the command; an
 * entry met inside a directory that cannot be read (a broken link, an unreadable
 * subdirectory) goes into the list like a file, and reading it fails then as a
 * per-input ERROR, so one bad entry does not end the run. */
static int walk(const char *path, bool top, PathList *out, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        if (!top) {
            list_push(out, xstrdup(path));
            return 0;
        }
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        list_push(out, xstrdup(path));
        return 0;
    }
    DIR *d = opendir(path);
    if (d == NULL) {
        /* An unreadable directory, named or found, is like an unreadable file: its
         * entry reads as a per-input ERROR, and the run goes on. */
        list_push(out, xstrdup(path));
        return 0;
    }
    PathList names = {0};
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;   /* ., .., and hidden files (editor droppings, .git) */
        size_t nl = strlen(e->d_name);
        if (nl > 7 && strcmp(e->d_name + nl - 7, ".report") == 0)
            continue;   /* a finding's report beside its input: not an input */
        list_push(&names, xstrdup(e->d_name));
    }
    closedir(d);
    qsort(names.items, names.n, sizeof *names.items, cmp_str);
    int rc = 0;
    size_t plen = strlen(path);
    bool slash = plen > 0 && path[plen - 1] == '/';
    for (size_t i = 0; i < names.n; i++) {
        if (rc == 0) {
            size_t len = plen + strlen(names.items[i]) + 2;
            char *child = malloc(len);
            if (child == NULL)
                abort();
            snprintf(child, len, "%s%s%s", path, slash ? "" : "/", names.items[i]);
            rc = walk(child, false, out, err, errlen);
            free(child);
        }
        free(names.items[i]);
    }
    free(names.items);
    return rc;
}

int hz_input_collect(char *const *paths, size_t npaths, char ***out, size_t *nout,
                     char *err, size_t errlen)
{
    PathList l = {0};
    for (size_t i = 0; i < npaths; i++) {
        if (walk(paths[i], true, &l, err, errlen) < 0) {
            hz_paths_free(l.items, l.n);
            return -1;
        }
    }
    *out = l.items;
    *nout = l.n;
    return 0;
}

void hz_paths_free(char **paths, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
}
