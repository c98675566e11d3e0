/* hz_target.c: resolving --target and --unsupported specs to Python objects. */
#include "hz_target.h"
#include "hz_embed.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static char *xstrdup(const char *s)
{
    char *r = strdup(s);
    if (r == NULL)
        abort();
    return r;
}

/* Loading a file as a module the way importlib documents it ("Importing a source
 * file directly"); a file already loaded under any name is reused. */
static const char loader_src[] =
    "def load(path, name):\n"
    "    import importlib.util, sys\n"
    "    for m in list(sys.modules.values()):\n"
    "        if getattr(m, '__file__', None) == path:\n"
    "            return m\n"
    "    if name in sys.modules:\n"
    "        name = 'tftarget_' + name\n"
    "    spec = importlib.util.spec_from_file_location(name, path)\n"
    "    if spec is None:\n"
    "        raise ImportError('cannot load %s as a module' % path)\n"
    "    mod = importlib.util.module_from_spec(spec)\n"
    "    sys.modules[name] = mod\n"
    "    try:\n"
    "        spec.loader.exec_module(mod)\n"
    "    except BaseException:\n"
    "        del sys.modules[name]\n"
    "        raise\n"
    "    return mod\n";

/* Evaluates a one-expression source in a fresh namespace: new reference or NULL. */
static PyObject *eval_expr(const char *src, const char *filename)
{
    PyObject *code = NULL, *ns = NULL, *res = NULL;
    code = Py_CompileString(src, filename, Py_eval_input);
    if (code == NULL)
        goto done;
    ns = PyDict_New();
    if (ns == NULL || PyDict_SetItemString(ns, "__builtins__", PyEval_GetBuiltins()) < 0)
        goto done;
    res = PyEval_EvalCode(code, ns, ns);
done:
    Py_XDECREF(code);
    Py_XDECREF(ns);
    return res;
}

static bool ends_with(const char *s, size_t n, const char *suffix)
{
    size_t m = strlen(suffix);
    return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

char *hz_target_file_dir(const char *spec)
{
    if (spec == NULL)
        return NULL;
    const char *colon = strrchr(spec, ':');
    if (colon == NULL || !ends_with(spec, (size_t)(colon - spec), ".py"))
        return NULL;
    char *file = strndup(spec, (size_t)(colon - spec));
    if (file == NULL)
        abort();
    char abs[PATH_MAX];
    char *dir = NULL;
    if (realpath(file, abs) != NULL) {
        char *slash = strrchr(abs, '/');
        if (slash != NULL) {
            *slash = 0;
            dir = xstrdup(abs[0] ? abs : "/");
        }
    }
    free(file);
    return dir;
}

/* Returns a new reference to the module a spec's left part names (file.py or a
 * dotted module), or NULL with an exception set. */
static PyObject *load_module_part(const char *mod, size_t len)
{
    char *name = strndup(mod, len);
    if (name == NULL)
        return PyErr_NoMemory();
    PyObject *res = NULL, *ns = NULL, *code = NULL, *loadfn = NULL;
    if (ends_with(name, len, ".py")) {
        char abs[PATH_MAX];
        if (realpath(name, abs) == NULL) {
            PyErr_Format(PyExc_FileNotFoundError, "no such file: %s", name);
            goto done;
        }
        const char *base = strrchr(abs, '/');
        base = base ? base + 1 : abs;
        char stem[256];
        snprintf(stem, sizeof stem, "%.*s", (int)(strlen(base) - 3), base);
        for (char *c = stem; *c; c++)
            if (!(Py_ISALNUM(*c) || *c == '_'))
                *c = '_';
        code = Py_CompileString(loader_src, "<tracefuzz-loader>", Py_file_input);
        if (code == NULL)
            goto done;
        ns = PyDict_New();
        if (ns == NULL ||
            PyDict_SetItemString(ns, "__builtins__", PyEval_GetBuiltins()) < 0)
            goto done;
        PyObject *r = PyEval_EvalCode(code, ns, ns);
        if (r == NULL)
            goto done;
        Py_DECREF(r);
        loadfn = PyDict_GetItemString(ns, "load");   /* borrowed */
        if (loadfn == NULL) {
            PyErr_SetString(PyExc_RuntimeError, "loader missing");
            goto done;
        }
        res = PyObject_CallFunction(loadfn, "ss", abs, stem);
    }
    else {
        res = PyImport_ImportModule(name);
    }
done:
    free(name);
    Py_XDECREF(code);
    Py_XDECREF(ns);
    return res;
}

/* Returns a new reference to the object `mod:attr.attr` names, or NULL with an
 * exception set. */
static PyObject *resolve(const char *spec)
{
    const char *colon = strrchr(spec, ':');
    if (colon == NULL || colon == spec || colon[1] == 0) {
        PyErr_Format(PyExc_ValueError,
                     "'%s' is not MODULE:ATTR or FILE.py:ATTR", spec);
        return NULL;
    }
    PyObject *obj = load_module_part(spec, (size_t)(colon - spec));
    if (obj == NULL)
        return NULL;
    char *attrs = xstrdup(colon + 1);
    for (char *save = NULL, *a = strtok_r(attrs, ".", &save); a != NULL;
         a = strtok_r(NULL, ".", &save)) {
        PyObject *next = PyObject_GetAttrString(obj, a);
        Py_DECREF(obj);
        obj = next;
        if (obj == NULL)
            break;
    }
    free(attrs);
    return obj;
}

/* Returns a new reference to tfjit.<name>, or NULL (with an exception set). */
static PyObject *tfjit_attr(const char *name)
{
    PyObject *m = PyImport_ImportModule("tfjit");
    if (m == NULL)
        return NULL;
    PyObject *r = PyObject_GetAttrString(m, name);
    Py_DECREF(m);
    return r;
}

int hz_target_load(const char *spec, const char *unsupported_spec, HzTarget *out,
                   char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    const char *what = "target";
    /* The default is the built-in tracer, never a silent fallback: a tfjit that does
     * not import (a misspelt TRACEFUZZ_FAULTS, a broken build) is an error, or a
     * run would test the identity and pass. */
    if (spec == NULL)
        spec = "builtin";
    out->name = xstrdup(spec);
    if (strcmp(spec, "identity") == 0) {
        out->jit = eval_expr("lambda fn: fn", "<identity>");
    }
    else if (strcmp(spec, "builtin") == 0) {
        out->jit = tfjit_attr("jit");
        if (out->jit == NULL)
            goto error;
        if (unsupported_spec == NULL)
            out->unsupported = tfjit_attr("Unsupported");
    }
    else {
        out->jit = resolve(spec);
    }
    if (out->jit == NULL)
        goto error;
    if (!PyCallable_Check(out->jit)) {
        snprintf(err, errlen, "target %s: %s object is not callable", spec,
                 Py_TYPE(out->jit)->tp_name);
        goto error_noexc;
    }
    if (unsupported_spec != NULL) {
        what = "unsupported exception";
        spec = unsupported_spec;
        out->unsupported = resolve(unsupported_spec);
        if (out->unsupported == NULL)
            goto error;
        if (!PyExceptionClass_Check(out->unsupported)) {
            snprintf(err, errlen, "--unsupported %s: not an exception class",
                     unsupported_spec);
            goto error_noexc;
        }
    }
    else if (out->unsupported == NULL && PyErr_Occurred()) {
        goto error;
    }
    return 0;

error: {
        char *text = hz_exception_text(0);
        snprintf(err, errlen, "cannot load %s %s: %s", what, spec, text);
        free(text);
    }
error_noexc:
    hz_target_clear(out);
    return -1;
}

void hz_target_clear(HzTarget *t)
{
    free(t->name);
    Py_CLEAR(t->jit);
    Py_CLEAR(t->unsupported);
    t->name = NULL;
}

int hz_target_set_faults(const char *faults, char *err, size_t errlen)
{
    PyObject *fn = tfjit_attr("set_faults");
    if (fn == NULL)
        goto error;
    PyObject *r = PyObject_CallFunction(fn, "s", faults ? faults : "");
    Py_DECREF(fn);
    if (r == NULL)
        goto error;
    Py_DECREF(r);
    return 0;
error: {
        char *text = hz_exception_text(0);
        snprintf(err, errlen, "cannot set faults '%s': %s", faults ? faults : "", text);
        free(text);
        return -1;
    }
}
