/* hz_codecache_test.c: the compiled-code cache by top-level piece (hz_codecache.h).
 * One case per argv[1]:
 *   cut         where sources are cut, and where they must not be
 *   equivalent  running the pieces is running the module, for sources made to
 *               trip the cut (strings over a cut, else:, decorators, __future__)
 *   lines       exact lookups keep the file's line numbers; others reuse a piece
 *               compiled at another line (never one an exact lookup stored)
 *   errors      a source that does not compile fails with the whole file's error */
#include "hz_codecache.h"
#include "hz_embed.h"
#include "../tf_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char generated_like[] =
    "import functools\n"                    /* piece 0: imports and constants */
    "\n"
    "LOG = []\n"
    "\n"
    "class Base:\n"                         /* piece 1 */
    "    x = 1\n"
    "\n"
    "    @property\n"
    "    def p(self):\n"
    "        return object()\n"
    "\n"
    "# a comment at column 0\n"
    "@functools.total_ordering\n"           /* piece 2: decorator and its class */
    "class Child(Base):\n"
    "    def __lt__(self, o):\n"
    "        return False\n"
    "\n"
    "STABLE = object()\n"                   /* piece 3: after a class */
    "OTHER = 2\n"
    "def make():\n"                         /* piece 4 */
    "    return (Child(),)\n"
    "if __name__ == '__main__':\n"          /* piece 5 */
    "    pass\n"
    "else:\n"
    "    LOG.append('imported')\n";

static int test_cut(void)
{
    size_t starts[16];
    int n = hz_codecache_cut(generated_like, starts, 16);
    const char *want[] = {"import functools", "class Base:", "@functools", "STABLE",
                          "def make", "if __name__"};
    CHECK(n == 6, "generated_like: %d pieces, expected 6", n);
    for (int i = 0; i < n && i < 6; i++)
        CHECK(strncmp(generated_like + starts[i], want[i], strlen(want[i])) == 0,
              "piece %d starts with %.20s, expected %s", i, generated_like + starts[i],
              want[i]);
    /* not cut: a future import binds only its own piece */
    n = hz_codecache_cut("from __future__ import annotations\ndef f(x: T): pass\n"
                         "def g(): pass\n", starts, 16);
    CHECK(n == 1, "__future__: %d pieces, expected 1", n);
    /* not cut: an encoding declaration decodes only its own piece */
    n = hz_codecache_cut("# -*- coding: latin-1 -*-\ndef f(): pass\nS = 'caf\xe9'\n",
                         starts, 16);
    CHECK(n == 1, "coding cookie: %d pieces, expected 1", n);
    n = hz_codecache_cut("#!/usr/bin/env python3\n# vim: set fileencoding=utf-8 :\n"
                         "def f(): pass\nclass A: pass\n", starts, 16);
    CHECK(n == 1, "cookie on line 2: %d pieces, expected 1", n);
    /* a comment mentioning coding later on does not stop the cut */
    n = hz_codecache_cut("X = 1\nY = 2\n# coding: not a cookie on line 3\ndef f(): pass\n",
                         starts, 16);
    CHECK(n == 2, "late 'coding' comment: %d pieces, expected 2", n);
    /* not cut before a string literal statement (it would become a docstring) */
    n = hz_codecache_cut("def f():\n    pass\nr'''text'''\n", starts, 16);
    CHECK(n == 1, "string after def: %d pieces, expected 1", n);
    n = hz_codecache_cut("def f():\n    pass\nb'text'", starts, 16);   /* no newline at the end */
    CHECK(n == 1, "string on the last line: %d pieces, expected 1", n);
    /* try/except at top level stays one piece */
    n = hz_codecache_cut("try:\n    import x\nexcept ImportError:\n    x = None\n"
                         "finally:\n    pass\n", starts, 16);
    CHECK(n == 1, "try/except/finally: %d pieces, expected 1", n);
    return 0;
}

/* Returns a new reference to sorted((k, repr(v))) of ns without __builtins__. */
static PyObject *summary(PyObject *ns)
{
    PyObject *d = PyDict_Copy(ns);
    if (d == NULL || PyDict_DelItemString(d, "__builtins__") < 0)
        return NULL;
    PyObject *items = PyDict_Items(d);
    Py_DECREF(d);
    if (items == NULL)
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(items);
    PyObject *out = PyList_New(n);
    for (Py_ssize_t i = 0; out != NULL && i < n; i++) {
        PyObject *kv = PyList_GET_ITEM(items, i);
        PyObject *v = PyTuple_GET_ITEM(kv, 1);
        /* classes and functions by name and line: addresses differ between runs */
        PyObject *r;
        if (PyType_Check(v))
            r = PyUnicode_FromFormat("class %s", ((PyTypeObject *)v)->tp_name);
        else if (PyFunction_Check(v))
            r = PyUnicode_FromFormat(
                "function line %d",
                ((PyCodeObject *)PyFunction_GET_CODE(v))->co_firstlineno);
        else if (Py_TYPE(v)->tp_flags & Py_TPFLAGS_HEAPTYPE || Py_TYPE(v) == &PyBaseObject_Type)
            r = PyUnicode_FromFormat("instance of %s", Py_TYPE(v)->tp_name);
        else if (PyModule_Check(v))
            r = PyUnicode_FromFormat("module %s", PyModule_GetName(v));
        else
            r = PyObject_Repr(v);
        PyList_SET_ITEM(out, i, PyTuple_Pack(2, PyTuple_GET_ITEM(kv, 0), r));
        Py_XDECREF(r);
    }
    Py_DECREF(items);
    if (out != NULL && PyList_Sort(out) < 0)
        Py_CLEAR(out);
    return out;
}

/* Returns a new reference to a fresh namespace after running codes (a tuple). */
static PyObject *run(PyObject *codes)
{
    PyObject *ns = PyDict_New();
    PyObject *name = PyUnicode_FromString("tfprog");
    PyDict_SetItemString(ns, "__name__", name);
    Py_DECREF(name);
    PyDict_SetItemString(ns, "__builtins__", PyEval_GetBuiltins());
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(codes); i++) {
        PyObject *r = PyEval_EvalCode(PyTuple_GET_ITEM(codes, i), ns, ns);
        if (r == NULL) {
            PyErr_Print();
            Py_DECREF(ns);
            return NULL;
        }
        Py_DECREF(r);
    }
    return ns;
}

static int equivalent(HzCodeCache *c, const char *label, const char *src)
{
    PyObject *whole = Py_CompileStringExFlags(src, "<t>", Py_file_input, NULL, 0);
    PyObject *wt = whole ? PyTuple_Pack(1, whole) : NULL;
    PyObject *pieces = hz_codecache_get(c, src, "<t>", true);
    if (wt == NULL || pieces == NULL) {
        PyErr_Print();
        CHECK(0, "%s: does not compile", label);
        return 1;
    }
    PyObject *a = run(wt), *b = run(pieces);
    PyObject *sa = a ? summary(a) : NULL, *sb = b ? summary(b) : NULL;
    int eq = sa && sb ? PyObject_RichCompareBool(sa, sb, Py_EQ) : -1;
    if (eq != 1) {
        PyObject_Print(sa, stderr, 0);
        fprintf(stderr, "\n");
        PyObject_Print(sb, stderr, 0);
        fprintf(stderr, "\n");
    }
    CHECK(eq == 1, "%s: the pieces (%zd) do not run as the module", label,
          PyTuple_GET_SIZE(pieces));
    Py_XDECREF(sa);
    Py_XDECREF(sb);
    Py_XDECREF(a);
    Py_XDECREF(b);
    Py_DECREF(wt);
    Py_DECREF(whole);
    Py_DECREF(pieces);
    return 0;
}

static int test_equivalent(void)
{
    HzCodeCache *c = hz_codecache_new();
    equivalent(c, "generated_like", generated_like);
    /* a triple-quoted string whose text has a class at column 0: the cut is wrong,
     * the first piece does not compile alone, so the whole is one piece */
    equivalent(c, "string over a cut",
               "def f():\n    pass\nS = '''\nclass A:\n    pass\n'''\nT = len(S)\n");
    /* a matrix product continued at column 0 looks like a decorator */
    equivalent(c, "brackets over a cut", "class M:\n    def __matmul__(s, o):\n"
                                         "        return 7\nA = M()\nY = (A\n@ A)\n");
    equivalent(c, "annotations", "x: int = 1\ndef f():\n    pass\ny: str = 'a'\n"
                                 "class A:\n    z: int\nANN = dict(__annotations__)\n");
    equivalent(c, "docstring", "'''module doc'''\ndef f():\n    pass\nDOC = __doc__\n");
    equivalent(c, "future", "from __future__ import annotations\ndef f(x: Undefined):\n"
                            "    pass\nA = f.__annotations__\n");
    equivalent(c, "latin-1", "# -*- coding: latin-1 -*-\ndef f():\n    pass\n"
                              "S = 'caf\xc3\xa9'\nN = len(S)\n");   /* 5 in latin-1, 4 in UTF-8 */
    equivalent(c, "global and del", "X = 1\ndef f():\n    global X\n    X = 2\nf()\n"
                                    "class K:\n    pass\ndel K\n");
    hz_codecache_free(c);
    return 0;
}

/* co_firstlineno of the function `name` defined by running codes. */
static int def_line(PyObject *codes, const char *name)
{
    PyObject *ns = run(codes);
    PyObject *f = ns ? PyDict_GetItemString(ns, name) : NULL;
    int line = f && PyFunction_Check(f)
                   ? ((PyCodeObject *)PyFunction_GET_CODE(f))->co_firstlineno : -1;
    Py_XDECREF(ns);
    return line;
}

static int test_lines(void)
{
    HzCodeCache *c = hz_codecache_new();
    const char *a = "LOG = []\nclass A:\n    pass\ndef f():\n    return 1\n";
    const char *b = "LOG = []\nclass A:\n    x = 1\n    y = 2\ndef f():\n    return 1\n";
    PyObject *ca = hz_codecache_get(c, a, "<t>", true);
    CHECK(ca != NULL && def_line(ca, "f") == 4, "a: f at line %d", def_line(ca, "f"));
    /* an inexact lookup takes no entry an exact one stored (the code of a text in
     * the fast protocol must not depend on what ran before) */
    HzCodeCacheStats s0 = hz_codecache_stats(c);
    PyObject *cai = hz_codecache_get(c, a, "<t>", false);
    HzCodeCacheStats s1 = hz_codecache_stats(c);
    CHECK(s1.piece_hits == s0.piece_hits && cai != ca, "inexact: %lu exact pieces reused",
          s1.piece_hits - s0.piece_hits);
    /* b's f is a's f moved down a line: reused when lines need not be exact */
    PyObject *cb = hz_codecache_get(c, b, "<t>", false);
    HzCodeCacheStats s2 = hz_codecache_stats(c);
    CHECK(s2.piece_hits - s1.piece_hits == 2, "inexact: %lu pieces reused, expected 2",
          s2.piece_hits - s1.piece_hits);
    CHECK(cb != NULL && def_line(cb, "f") == def_line(cai, "f"), "inexact: f at line %d (a's %d)",
          def_line(cb, "f"), def_line(cai, "f"));
    /* exact: recompiled at its own line */
    PyObject *cbx = hz_codecache_get(c, b, "<t>", true);
    CHECK(cbx != NULL && def_line(cbx, "f") == 5, "exact: f at line %d, expected 5",
          def_line(cbx, "f"));
    CHECK(cbx != cb, "exact lookup returned the inexact tuple");
    /* the whole source again: one hash */
    PyObject *again = hz_codecache_get(c, b, "<t>", true);
    CHECK(again == cbx, "exact source not reused");
    Py_XDECREF(ca);
    Py_XDECREF(cai);
    Py_XDECREF(cb);
    Py_XDECREF(cbx);
    Py_XDECREF(again);
    hz_codecache_free(c);
    return 0;
}

static int test_errors(void)
{
    HzCodeCache *c = hz_codecache_new();
    const char *src = "LOG = []\nclass A:\n    pass\ndef f(:\n    pass\n";
    PyObject *codes = hz_codecache_get(c, src, "<t>", false);
    CHECK(codes == NULL && PyErr_ExceptionMatches(PyExc_SyntaxError), "no SyntaxError");
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    PyErr_NormalizeException(&t, &v, &tb);
    PyObject *line = v ? PyObject_GetAttrString(v, "lineno") : NULL;
    CHECK(line != NULL && PyLong_AsLong(line) == 4, "SyntaxError not at line 4");
    Py_XDECREF(line);
    Py_XDECREF(t);
    Py_XDECREF(v);
    Py_XDECREF(tb);
    PyErr_Clear();
    Py_XDECREF(codes);
    hz_codecache_free(c);
    return 0;
}

int main(int argc, char **argv)
{
    char err[1024];
    HzEmbedConfig ec = {NULL, 0, NULL};
    if (argc < 2) {
        fprintf(stderr, "usage: hz_codecache_test cut|equivalent|lines|errors\n");
        return 2;
    }
    if (hz_embed_init(&ec, err, sizeof err) < 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    if (strcmp(argv[1], "cut") == 0)
        test_cut();
    else if (strcmp(argv[1], "equivalent") == 0)
        test_equivalent();
    else if (strcmp(argv[1], "lines") == 0)
        test_lines();
    else if (strcmp(argv[1], "errors") == 0)
        test_errors();
    else {
        fprintf(stderr, "unknown case %s\n", argv[1]);
        return 2;
    }
    if (tf_failures == 0)
        printf("ok\n");
    return tf_failures != 0;
}
