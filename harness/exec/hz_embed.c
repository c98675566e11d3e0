/* hz_embed.c: initialising the embedded CPython once (see hz_embed.h), and turning
 * exceptions into text for messages and reports. */
#include "hz_embed.h"
#include "tr_module.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__has_feature)
#  if __has_feature(address_sanitizer)
#    define HZ_ASAN 1
#  endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(HZ_ASAN)
#  define HZ_ASAN 1
#endif

/* Modules generated programs import, loaded once so no input pays for them. */
static const char *const preimports[] = {"functools", "sys", NULL};

static bool ready;

bool hz_embed_ready(void)
{
    return ready;
}

bool hz_embed_uses_malloc(void)
{
#ifdef HZ_ASAN
    return true;
#else
    const char *v = getenv("TRACEFUZZ_MALLOC");
    return v != NULL && strcmp(v, "1") == 0;
#endif
}

static char *xstrdup(const char *s)
{
    char *r = strdup(s);
    if (r == NULL)
        abort();
    return r;
}

/* Returns a new reference to the str of traceback.format_exception(exc) joined, or
 * NULL with an exception set. */
static PyObject *format_with_traceback(PyObject *exc)
{
    PyObject *tb_mod = NULL, *lines = NULL, *empty = NULL, *res = NULL;
    tb_mod = PyImport_ImportModule("traceback");
    if (tb_mod == NULL)
        goto done;
    lines = PyObject_CallMethod(tb_mod, "format_exception", "O", exc);
    if (lines == NULL)
        goto done;
    empty = PyUnicode_FromString("");
    if (empty == NULL)
        goto done;
    res = PyUnicode_Join(empty, lines);
done:
    Py_XDECREF(tb_mod);
    Py_XDECREF(lines);
    Py_XDECREF(empty);
    return res;
}

char *hz_exception_text_of(PyObject *exc, int with_traceback)
{
    /* Formatting runs Python (str(), traceback); keep any pending error aside. */
    PyObject *st, *sv, *stb;
    PyErr_Fetch(&st, &sv, &stb);
    char *out = NULL;
    PyObject *text = NULL;
    if (with_traceback)
        text = format_with_traceback(exc);
    if (text == NULL) {
        PyErr_Clear();
        PyObject *msg = PyObject_Str(exc);
        if (msg == NULL)
            PyErr_Clear();
        text = PyUnicode_FromFormat("%s: %U", Py_TYPE(exc)->tp_name,
                                    msg ? msg : Py_None);
        Py_XDECREF(msg);
        if (text == NULL)
            PyErr_Clear();
    }
    if (text != NULL) {
        const char *u = PyUnicode_AsUTF8(text);
        if (u != NULL)
            out = xstrdup(u);
        else
            PyErr_Clear();
        Py_DECREF(text);
    }
    if (out == NULL) {
        size_t n = strlen(Py_TYPE(exc)->tp_name) + 40;
        out = malloc(n);
        if (out == NULL)
            abort();
        snprintf(out, n, "%s: <unprintable>", Py_TYPE(exc)->tp_name);
    }
    PyErr_Restore(st, sv, stb);
    return out;
}

char *hz_exception_text(int with_traceback)
{
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    if (t == NULL) {
        fprintf(stderr, "tracefuzz: internal error: no exception to format\n");
        abort();
    }
    PyErr_NormalizeException(&t, &v, &tb);
    if (tb != NULL && v != NULL)
        PyException_SetTraceback(v, tb);
    char *out = hz_exception_text_of(v ? v : t, with_traceback);
    Py_XDECREF(t);
    Py_XDECREF(v);
    Py_XDECREF(tb);
    return out;
}

/* Inserts dir at sys.path[pos]. 0 or -1 with an exception set. */
static int path_insert(Py_ssize_t pos, const char *dir)
{
    PyObject *path = PySys_GetObject("path");   /* borrowed */
    if (path == NULL || !PyList_Check(path)) {
        PyErr_SetString(PyExc_RuntimeError, "sys.path is not a list");
        return -1;
    }
    PyObject *s = PyUnicode_DecodeFSDefault(dir);
    if (s == NULL)
        return -1;
    int rc = PyList_Insert(path, pos, s);
    Py_DECREF(s);
    return rc;
}

/* site.addsitedir(dir): appends dir and processes its .pth files (editable installs
 * of a JIT under test live there), without running all of site's start-up. */
static int add_site_dir(const char *dir)
{
    PyObject *site = PyImport_ImportModule("site");
    if (site == NULL)
        return -1;
    PyObject *r = PyObject_CallMethod(site, "addsitedir", "s", dir);
    Py_DECREF(site);
    if (r == NULL)
        return -1;
    Py_DECREF(r);
    return 0;
}

/* Where the standard library lives when the binary runs away from the machine that
 * built it (ClusterFuzzLite runs fuzzers in a container without Python:
 * .clusterfuzzlite/build.sh ships one as $OUT/python-home, docs/CI.md). The isolated
 * configuration ignores PYTHONHOME, so: TRACEFUZZ_PYTHONHOME, else python-home/ next
 * to this executable when it holds lib/python3.X/os.py, else NULL (the prefix
 * compiled into libpython). Writes into buf. */
static const char *python_home(char *buf, size_t n)
{
    const char *env = getenv("TRACEFUZZ_PYTHONHOME");
    if (env != NULL && *env)
        return env;
    char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0)
        return NULL;
    exe[len] = 0;
    char *slash = strrchr(exe, '/');
    if (slash == NULL)
        return NULL;
    *slash = 0;
    char probe[4200];
    struct stat st;
    snprintf(probe, sizeof probe, "%s/python-home/lib/python%d.%d/os.py", exe,
             PY_MAJOR_VERSION, PY_MINOR_VERSION);
    if (stat(probe, &st) != 0)
        return NULL;
    snprintf(buf, n, "%s/python-home", exe);
    return buf;
}

static int check_status(PyStatus st, PyConfig *config, char *err, size_t errlen)
{
    if (!PyStatus_Exception(st))
        return 0;
    snprintf(err, errlen, "cannot initialise CPython: %s%s%s",
             st.func ? st.func : "", st.func ? ": " : "", st.err_msg ? st.err_msg : "");
    if (config != NULL)
        PyConfig_Clear(config);
    return -1;
}

int hz_embed_init(const HzEmbedConfig *cfg, char *err, size_t errlen)
{
    if (ready)
        return 0;
    PyPreConfig pre;
    PyPreConfig_InitIsolatedConfig(&pre);
    /* PYTHONMALLOC is ignored in isolated mode: choose malloc ourselves so ASan sees
     * Python objects (TOOLCHAIN.md). */
    if (hz_embed_uses_malloc())
        pre.allocator = PYMEM_ALLOCATOR_MALLOC;
    if (check_status(Py_PreInitialize(&pre), NULL, err, errlen) < 0)
        return -1;

    if (PyImport_AppendInittab("tfjit", PyInit_tfjit) < 0) {
        snprintf(err, errlen, "cannot register the tfjit module");
        return -1;
    }

    PyConfig config;
    PyConfig_InitIsolatedConfig(&config);
    config.use_hash_seed = 1;
    config.hash_seed = 0;          /* hash() and set order equal in every process */
    config.write_bytecode = 0;     /* as root, imports would write into the stdlib */
    config.buffered_stdio = 0;     /* workers may die without flushing */
    config.site_import = 0;        /* sys.path is extended below, explicitly */
    config.parse_argv = 0;
    if (check_status(PyConfig_SetString(&config, &config.program_name, L"tracefuzz"),
                     &config, err, errlen) < 0)
        return -1;
    char homebuf[4200];
    const char *home = python_home(homebuf, sizeof homebuf);
    if (home != NULL &&
        check_status(PyConfig_SetBytesString(&config, &config.home, home), &config, err,
                     errlen) < 0)
        return -1;
    if (check_status(Py_InitializeFromConfig(&config), &config, err, errlen) < 0)
        return -1;
    PyConfig_Clear(&config);

    Py_ssize_t pos = 0;
    for (size_t i = 0; cfg != NULL && i < cfg->n_python_path; i++)
        if (path_insert(pos++, cfg->python_path[i]) < 0)
            goto error;
    if (cfg != NULL && cfg->target_dir != NULL && path_insert(pos++, cfg->target_dir) < 0)
        goto error;
    const char *venv = getenv("VIRTUAL_ENV");
    if (venv != NULL && *venv) {
        char sp[4096];
        struct stat st;
        snprintf(sp, sizeof sp, "%s/lib/python%d.%d/site-packages", venv,
                 PY_MAJOR_VERSION, PY_MINOR_VERSION);
        if (stat(sp, &st) == 0 && S_ISDIR(st.st_mode) && add_site_dir(sp) < 0)
            goto error;
    }
    for (const char *const *m = preimports; *m != NULL; m++) {
        PyObject *mod = PyImport_ImportModule(*m);
        if (mod == NULL)
            goto error;
        Py_DECREF(mod);
    }
    ready = true;
    return 0;

error: {
        char *text = hz_exception_text(0);
        snprintf(err, errlen, "cannot set up the embedded CPython: %s", text);
        free(text);
        return -1;
    }
}
