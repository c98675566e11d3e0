/* hz_jitstats.c: trace-reuse statistics over a run (see hz_jitstats.h). */
#include "hz_jitstats.h"

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>
#include <string.h>

/* Calls tfjit.<fn>(): a new reference or NULL (no exception left). */
static PyObject *call_tfjit(const char *fn)
{
    PyObject *m = PyImport_ImportModule("tfjit");
    PyObject *r = m != NULL ? PyObject_CallMethod(m, fn, NULL) : NULL;
    Py_XDECREF(m);
    if (r == NULL)
        PyErr_Clear();
    return r;
}

char *hz_jitstats_take(void)
{
    PyObject *et, *ev, *etb;
    PyErr_Fetch(&et, &ev, &etb);
    char *text = NULL;
    size_t len = 0, cap = 0;
    PyObject *d = call_tfjit("stats");
    if (d != NULL && PyDict_Check(d)) {
        PyObject *k, *v;
        Py_ssize_t pos = 0;
        while (PyDict_Next(d, &pos, &k, &v)) {
            long n = PyLong_AsLong(v);
            const char *name = PyUnicode_AsUTF8(k);
            if (name == NULL || n <= 0) {
                PyErr_Clear();
                continue;
            }
            char line[160];
            int w = snprintf(line, sizeof line, "%s=%ld\n", name, n);
            if (w <= 0 || (size_t)w >= sizeof line)
                continue;
            if (len + (size_t)w + 1 > cap) {
                cap = cap ? 2 * cap + (size_t)w : 1024;
                char *nt = realloc(text, cap);
                if (nt == NULL)
                    abort();
                text = nt;
            }
            memcpy(text + len, line, (size_t)w + 1);
            len += (size_t)w;
        }
        if (text == NULL)
            text = strdup("");
        Py_XDECREF(call_tfjit("reset_stats"));
    }
    Py_XDECREF(d);
    PyErr_Restore(et, ev, etb);
    return text;
}

long hz_jitstats_retraces(void)
{
    PyObject *et, *ev, *etb;
    PyErr_Fetch(&et, &ev, &etb);
    long n = -1;
    PyObject *d = call_tfjit("stats");
    PyObject *v = d != NULL && PyDict_Check(d) ? PyDict_GetItemString(d, "retraces") : NULL;
    if (v != NULL)
        n = PyLong_AsLong(v);
    if (PyErr_Occurred())
        PyErr_Clear();
    Py_XDECREF(d);
    PyErr_Restore(et, ev, etb);
    return n;
}

/* ---- parent side ---- */
#define MAX_KEYS 128
#define MAX_BETWEEN 32

struct HzJitStats {
    char *name[MAX_KEYS];
    unsigned long long count[MAX_KEYS];
    int n;
    char *between[MAX_BETWEEN];
    unsigned long programs[MAX_BETWEEN], retraced[MAX_BETWEEN];
    int nbetween;
    unsigned long inputs;
};

HzJitStats *hz_jitstats_new(void)
{
    HzJitStats *s = calloc(1, sizeof *s);
    if (s == NULL)
        abort();
    return s;
}

void hz_jitstats_free(HzJitStats *s)
{
    if (s == NULL)
        return;
    for (int i = 0; i < s->n; i++)
        free(s->name[i]);
    for (int i = 0; i < s->nbetween; i++)
        free(s->between[i]);
    free(s);
}

static void add_key(HzJitStats *s, const char *name, size_t len, unsigned long long n)
{
    for (int i = 0; i < s->n; i++) {
        if (strlen(s->name[i]) == len && memcmp(s->name[i], name, len) == 0) {
            s->count[i] += n;
            return;
        }
    }
    if (s->n == MAX_KEYS)
        return;
    s->name[s->n] = strndup(name, len);
    if (s->name[s->n] == NULL)
        abort();
    s->count[s->n++] = n;
}

static int between_index(HzJitStats *s, const char *name, size_t len)
{
    for (int i = 0; i < s->nbetween; i++) {
        if (strlen(s->between[i]) == len && memcmp(s->between[i], name, len) == 0)
            return i;
    }
    if (s->nbetween == MAX_BETWEEN)
        return -1;
    s->between[s->nbetween] = strndup(name, len);
    if (s->between[s->nbetween] == NULL)
        abort();
    return s->nbetween++;
}

void hz_jitstats_add(HzJitStats *s, const char *text, const char *source, long call2_retraces)
{
    s->inputs++;
    for (const char *p = text; p != NULL && *p; ) {
        const char *eq = strchr(p, '='), *nl = strchr(p, '\n');
        if (eq == NULL || nl == NULL || eq > nl)
            break;
        add_key(s, p, (size_t)(eq - p), strtoull(eq + 1, NULL, 10));
        p = nl + 1;
    }
    if (call2_retraces < 0 || source == NULL)
        return;
    /* Each between kind once per program. */
    int seen[MAX_BETWEEN] = {0};
    for (const char *p = strstr(source, "# tf: between="); p != NULL;
         p = strstr(p + 1, "# tf: between=")) {
        const char *k = p + strlen("# tf: between="), *e = k;
        while ((*e >= 'a' && *e <= 'z') || *e == '_')
            e++;
        int i = e > k ? between_index(s, k, (size_t)(e - k)) : -1;
        if (i < 0 || seen[i])
            continue;
        seen[i] = 1;
        s->programs[i]++;
        if (call2_retraces > 0)
            s->retraced[i]++;
    }
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(**(char *const *const *)a, **(char *const *const *)b);
}

void hz_jitstats_print(const HzJitStats *s, FILE *out)
{
    char **order[MAX_KEYS];
    int n = s->n;
    for (int i = 0; i < n; i++)
        order[i] = (char **)&s->name[i];
    qsort(order, (size_t)n, sizeof order[0], cmp_names);
    fprintf(out, "\n%-36s %12s\n", "trace reuse (tfjit.stats)", "count");
    for (int i = 0; i < n; i++) {
        int k = (int)(order[i] - (char **)s->name);
        fprintf(out, "%-36s %12llu\n", s->name[k], s->count[k]);
    }
    if (s->nbetween > 0) {
        fprintf(out, "\n%-36s %12s %12s\n", "between kind", "programs", "call2 retraced");
        for (int i = 0; i < s->nbetween; i++)
            fprintf(out, "%-36s %12lu %12lu\n", s->between[i], s->programs[i], s->retraced[i]);
    }
}
