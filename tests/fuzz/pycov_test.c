/* pycov_test.c: the Python coverage feedback of hz_pycov.h.
 *   lines:    running Python code under the trace function sets counters, and a
 *             different branch of the same function sets a different set;
 *   skip:     code compiled under the skipped filename (the program) sets none;
 *   stable:   the same run twice sets the same counters (keys do not depend on
 *             addresses), and hz_pycov_stop removes the trace function. */
#include "hz_embed.h"
#include "hz_pycov.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tf_check.h"

static const char target_src[] =
    "def f(x):\n"
    "    if x:\n"
    "        y = [i for i in range(3)]\n"
    "        return len(y)\n"
    "    else:\n"
    "        return -1\n";

static PyObject *ns_target, *ns_program;

/* Compiles src as filename into a fresh namespace; returns it (new reference). */
static PyObject *load(const char *src, const char *filename)
{
    PyObject *code = Py_CompileString(src, filename, Py_file_input);
    REQUIRE(code != NULL, "compile %s", filename);
    PyObject *ns = PyDict_New();
    PyDict_SetItemString(ns, "__builtins__", PyEval_GetBuiltins());
    PyObject *r = PyEval_EvalCode(code, ns, ns);
    REQUIRE(r != NULL, "exec %s", filename);
    Py_DECREF(r);
    Py_DECREF(code);
    return ns;
}

/* Calls ns.f(x) under the trace function (skipping "<prog>") and returns how many
 * counters it set. */
static size_t traced_call(PyObject *ns, int x)
{
    hz_cov_clear();
    REQUIRE(hz_pycov_start("<prog>") == 0, "start");
    PyObject *r = PyObject_CallFunction(PyDict_GetItemString(ns, "f"), "i", x);
    hz_pycov_stop();
    REQUIRE(r != NULL, "call");
    Py_DECREF(r);
    return hz_cov_nonzero();
}

int main(int argc, char **argv)
{
    REQUIRE(argc == 2, "usage: pycov_test lines|skip|stable");
    char err[1024];
    REQUIRE(hz_embed_init(NULL, err, sizeof err) == 0, "%s", err);
    ns_target = load(target_src, "/some/jit/interpreter.py");
    ns_program = load(target_src, "<prog>");
    const char *mode = argv[1];
    if (strcmp(mode, "lines") == 0) {
        size_t a = traced_call(ns_target, 1);
        size_t b = traced_call(ns_target, 0);
        printf("branch taken: %zu counters, not taken: %zu\n", a, b);
        REQUIRE(a >= 4 && b >= 2, "too few counters (%zu, %zu)", a, b);
        REQUIRE(a != b, "both branches set as many counters");
        REQUIRE(hz_pycov_edges() >= a, "edges seen %zu < %zu", hz_pycov_edges(), a);
    }
    else if (strcmp(mode, "skip") == 0) {
        size_t n = traced_call(ns_program, 1);
        printf("program's own code: %zu counters\n", n);
        REQUIRE(n == 0, "the program's frames were counted (%zu)", n);
    }
    else if (strcmp(mode, "stable") == 0) {
        size_t a = traced_call(ns_target, 1);
        size_t b = traced_call(ns_target, 1);
        REQUIRE(a == b && a > 0, "two equal runs differ: %zu vs %zu", a, b);
        hz_cov_clear();
        PyObject *r = PyObject_CallFunction(PyDict_GetItemString(ns_target, "f"), "i", 1);
        REQUIRE(r != NULL, "call");
        Py_DECREF(r);
        REQUIRE(hz_cov_nonzero() == 0, "counters set after hz_pycov_stop");
    }
    else {
        REQUIRE(0, "unknown mode %s", mode);
    }
    Py_DECREF(ns_target);
    Py_DECREF(ns_program);
    return 0;
}
