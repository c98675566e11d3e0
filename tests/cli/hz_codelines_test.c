/* hz_codelines_test.c: the line arrays tr_lines_fill (tracer/tr_lines.h) gives the
 * code cache's pieces hold, for every code unit of every function, the line CPython's
 * line-table walk gives, and tracebacks through such code report the same lines.
 * Sources: the regression corpus (argv[1], its .py files) and a generated one whose
 * lines pass int16's range (the int32 form). */
#include "tr_lines.h"
#include "hz_embed.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long units, codes, arrays;

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 1 << 20;
    char *buf = malloc(cap);
    size_t n = buf ? fread(buf, 1, cap - 1, f) : 0;
    fclose(f);
    if (buf != NULL)
        buf[n] = 0;
    return buf;
}

/* Records the walk's line of every unit of every function in code into a list
 * [(code, [lines])] (new reference), before any array exists. */
static int record(PyObject *code, PyObject *out)
{
    PyCodeObject *co = (PyCodeObject *)code;
    if ((co->co_flags & CO_OPTIMIZED) && co->_co_linearray == NULL) {
        PyObject *lines = PyList_New(Py_SIZE(co));
        if (lines == NULL)
            return -1;
        for (Py_ssize_t i = 0; i < Py_SIZE(co); i++)
            PyList_SET_ITEM(lines, i, PyLong_FromLong(tr_lines_walk(co, (int)i)));
        PyObject *pair = Py_BuildValue("(ON)", code, lines);
        if (pair == NULL || PyList_Append(out, pair) < 0)
            return -1;
        Py_DECREF(pair);
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(co->co_consts); i++) {
        PyObject *c = PyTuple_GET_ITEM(co->co_consts, i);
        if (PyCode_Check(c) && record(c, out) < 0)
            return -1;
    }
    return 0;
}

/* 0 when every recorded unit now reads the same line from the array. */
static int check_source(const char *name, const char *src)
{
    PyObject *code = Py_CompileString(src, name, Py_file_input);
    if (code == NULL) {
        PyErr_Clear();   /* a corpus file that is not Python alone: not this test's */
        return 0;
    }
    PyObject *seen = PyList_New(0);
    if (seen == NULL || record(code, seen) < 0) {
        PyErr_Print();
        return 1;
    }
    arrays += tr_lines_fill(code);
    int bad = 0;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(seen); k++) {
        PyObject *pair = PyList_GET_ITEM(seen, k);
        PyCodeObject *co = (PyCodeObject *)PyTuple_GET_ITEM(pair, 0);
        PyObject *lines = PyTuple_GET_ITEM(pair, 1);
        codes++;
        if (co->_co_linearray == NULL) {
            fprintf(stderr, "%s: %s got no line array\n", name, PyUnicode_AsUTF8(co->co_name));
            bad = 1;
            continue;
        }
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(lines); i++, units++) {
            long want = PyLong_AsLong(PyList_GET_ITEM(lines, i));
            int got = PyCode_Addr2Line(co, (int)(i * (Py_ssize_t)sizeof(_Py_CODEUNIT)));
            if (got != want) {
                fprintf(stderr, "%s: %s unit %zd: array %d, walk %ld\n", name,
                        PyUnicode_AsUTF8(co->co_name), i, got, want);
                bad = 1;
                break;
            }
        }
    }
    Py_DECREF(seen);
    Py_DECREF(code);
    return bad;
}

/* A traceback through filled code names the raising line: f raises on the last
 * line of a generated source past line 40,000 (int32 entries). */
static int check_traceback(void)
{
    size_t pad = 40000;
    const char body[] = "def f(x):\n    y = x + 1\n    z = [y]\n    return z[5]\n";
    char *src = malloc(pad + sizeof body);
    memset(src, '\n', pad);
    memcpy(src + pad, body, sizeof body);
    PyObject *code = Py_CompileString(src, "<big>", Py_file_input);
    free(src);
    if (code == NULL)
        return 1;
    int made = tr_lines_fill(code);
    PyObject *g = PyDict_New();
    PyDict_SetItemString(g, "__builtins__", PyEval_GetBuiltins());
    PyObject *r = PyEval_EvalCode(code, g, g);
    Py_XDECREF(r);
    PyObject *f = PyDict_GetItemString(g, "f");
    PyObject *fc = f ? PyObject_GetAttrString(f, "__code__") : NULL;
    int filled = fc != NULL && ((PyCodeObject *)fc)->_co_linearray != NULL &&
                 ((PyCodeObject *)fc)->_co_linearray_entry_size == 4;
    Py_XDECREF(fc);
    PyObject *res = f ? PyObject_CallFunction(f, "i", 1) : NULL;
    long line = -1;
    if (res == NULL && PyErr_ExceptionMatches(PyExc_IndexError)) {
        PyObject *t, *v, *tb;
        PyErr_Fetch(&t, &v, &tb);
        PyTracebackObject *last = (PyTracebackObject *)tb;
        while (last != NULL && last->tb_next != NULL)
            last = last->tb_next;
        line = last ? last->tb_lineno : -1;
        Py_XDECREF(t);
        Py_XDECREF(v);
        Py_XDECREF(tb);
    }
    Py_XDECREF(res);
    Py_DECREF(g);
    Py_DECREF(code);
    printf("<big>: %d array(s) made, int32 entries %s; IndexError reported at line %ld "
           "(raised at %zu)\n", made, filled ? "yes" : "no", line, pad + 4);
    return made == 1 && filled && line == (long)(pad + 4) ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: hz_codelines_test CORPUS_DIR\n");
        return 2;
    }
    char err[1024];
    HzEmbedConfig ec = {NULL, 0, NULL};
    if (hz_embed_init(&ec, err, sizeof err) < 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    int bad = 0, files = 0;
    DIR *d = opendir(argv[1]);
    struct dirent *de;
    while (d != NULL && (de = readdir(d)) != NULL) {
        size_t n = strlen(de->d_name);
        if (n < 4 || strcmp(de->d_name + n - 3, ".py") != 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", argv[1], de->d_name);
        char *src = read_file(path);
        if (src == NULL)
            continue;
        files++;
        bad |= check_source(de->d_name, src);
        free(src);
    }
    if (d != NULL)
        closedir(d);
    printf("%d files: %ld function code objects, %ld arrays made, %ld code units, %s\n",
           files, codes, arrays, units, bad ? "MISMATCHES" : "every line equal to the walk's");
    bad |= check_traceback();
    if (files == 0 || codes == 0)
        bad = 1;
    return bad;
}
