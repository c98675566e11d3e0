/* resolution_test.c: the built-in tracer's attribute operations as the fuzz target
 * reads them for feedback (tr_last_trace_visit_attrs, tr_module.h), checked against
 * the text of tfjit.last_trace(): the same operations in the same order, each with
 * the mechanism its line names after "via" and its "[cached]" mark. */
#include "hz_embed.h"
#include "tr_module.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tf_check.h"

static const char program[] =
    "import functools, tfjit\n"
    "class A:\n"
    "    cls_val = 3\n"
    "    @property\n"
    "    def fresh(self):\n"
    "        return object()\n"
    "    @functools.cached_property\n"
    "    def cached(self):\n"
    "        return [1]\n"
    "    def meth(self):\n"
    "        return 1\n"
    "def f(a):\n"
    "    a.x = 1\n"
    "    y = a.x + a.x + a.cls_val\n"
    "    z = (a.fresh, a.cached, a.cached, a.meth())\n"
    "    del a.x\n"
    "    return y, z\n"
    "g = tfjit.jit(f)\n"
    "g(A())\n"
    "TEXT = tfjit.last_trace()\n";

#define MAX_OPS 64
static struct { char op[32]; char how[64]; int cached; } seen[MAX_OPS];
static int nseen;

static void visit(void *ctx, const char *op, const char *how, int cached)
{
    (void)ctx;
    REQUIRE(nseen < MAX_OPS, "too many operations");
    snprintf(seen[nseen].op, sizeof seen[nseen].op, "%s", op);
    snprintf(seen[nseen].how, sizeof seen[nseen].how, "%s", how ? how : "");
    seen[nseen].cached = cached;
    nseen++;
}

int main(void)
{
    char err[1024];
    HzEmbedConfig ec = {NULL, 0, NULL};
    REQUIRE(hz_embed_init(&ec, err, sizeof err) == 0, "%s", err);
    PyObject *ns = PyDict_New();
    PyDict_SetItemString(ns, "__builtins__", PyEval_GetBuiltins());
    PyObject *r = PyRun_String(program, Py_file_input, ns, ns);
    if (r == NULL)
        PyErr_Print();
    REQUIRE(r != NULL, "program raised");
    Py_DECREF(r);
    const char *text = PyUnicode_AsUTF8(PyDict_GetItemString(ns, "TEXT"));
    tr_last_trace_visit_attrs(visit, NULL);

    /* the attribute lines of the text, in order */
    int n = 0, loads = 0, stores = 0, cached = 0;
    for (const char *line = text; *line; ) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        char buf[512];
        snprintf(buf, sizeof buf, "%.*s", (int)len, line);
        const char *op = NULL;
        static const char *const ops[] = {"LOAD_ATTR", "LOAD_METHOD", "STORE_ATTR",
                                          "DELETE_ATTR"};
        for (int i = 0; i < 4; i++) {
            const char *p = strstr(buf, ops[i]);
            if (p != NULL && p[strlen(ops[i])] == ' ' && (op == NULL || p < op))
                op = p;
        }
        if (op != NULL) {
            REQUIRE(n < nseen, "text has more attribute lines than the visit: %s", buf);
            REQUIRE(strncmp(op, seen[n].op, strlen(seen[n].op)) == 0,
                  "line %d: %s, visit says %s", n, buf, seen[n].op);
            REQUIRE(seen[n].cached == (strstr(buf, "[cached]") != NULL), "line %d: %s", n, buf);
            if (seen[n].how[0] != '\0') {
                char via[128];
                snprintf(via, sizeof via, " via %s", seen[n].how);
                REQUIRE(strstr(buf, via) != NULL, "line %d: %s lacks '%s'", n, buf, via);
            }
            loads += strncmp(seen[n].op, "LOAD", 4) == 0;
            stores += strncmp(seen[n].op, "LOAD", 4) != 0;
            cached += seen[n].cached;
            n++;
        }
        line = eol ? eol + 1 : line + len;
    }
    REQUIRE(n == nseen, "text has %d attribute lines, the visit %d", n, nseen);
    REQUIRE(loads >= 6 && stores == 2, "loads %d, stores %d", loads, stores);
    int fget = 0;
    for (int i = 0; i < nseen; i++)
        fget += strcmp(seen[i].how, "property.fget") == 0;
    REQUIRE(fget == 1, "property.fget seen %d times", fget);
    printf("%d attribute operations (%d loads, %d cached, %d stores/deletes) as in the text\n",
           n, loads, cached, stores);
    Py_DECREF(ns);
    return 0;
}
