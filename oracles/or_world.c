/* or_world.c: which classes and module globals of a run are the program's own state
 * (docs/OBSERVATION.md, "Globals and classes").
 *
 * Real programs keep logs, counters and caches on their classes (`Module.log`,
 * `Counter.calls += 1`) and in module globals (`COUNTS = {}`). The observation
 * reads them; this file decides which classes and which entries: the classes met
 * while observing (the type of every numbered object, every class object numbered
 * or found in the namespace or in a class dict), with the classes of their MRO and
 * their metaclasses, kept when the class statement ran in the program's module
 * (`__module__` equal to the namespace's `__name__`); and, of a class dict or the
 * namespace, the data entries only: no dunder, no function, class, module, builtin,
 * bound method, nor anything whose type defines `__get__` (descriptors: property,
 * classmethod, staticmethod, cached_property, custom descriptors, whose state is
 * theirs, not the program's world). Everything is read from dict storage
 * (PyDict_Next, exact-str comparisons): no lookup that could call a key's
 * `__eq__`, no attribute access. The writer is or_observe.c. */
#include "or_internal.h"

#include <string.h>

/* An exact str equal to the ASCII text s, read from its storage. */
static int
str_is(PyObject *k, const char *s)
{
    return PyUnicode_CheckExact(k) && PyUnicode_IS_ASCII(k)
           && (size_t)PyUnicode_GET_LENGTH(k) == strlen(s)
           && memcmp(PyUnicode_1BYTE_DATA(k), s, strlen(s)) == 0;
}

/* The value under the exact-str key `name` of dict d, by a scan of its entries
 * (a lookup would compare with keys through their __eq__); borrowed, or NULL. */
static PyObject *
dict_scan(PyObject *d, const char *name)
{
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    while (PyDict_Next(d, &pos, &k, &v)) {
        if (str_is(k, name)) {
            return v;
        }
    }
    return NULL;
}

void
or_world_init(OrWorld *w, PyObject *ns)
{
    memset(w->table, 0, sizeof w->table);
    w->nseen = 0;
    w->nclasses = 0;
    w->ns = NULL;
    w->modname = NULL;
    if (ns != NULL && PyDict_Check(ns)) {
        PyObject *name = dict_scan(ns, "__name__");   /* borrowed */
        if (name != NULL && PyUnicode_CheckExact(name)) {
            w->ns = ns;
            w->modname = name;
        }
    }
}

void
or_world_clear(OrWorld *w)
{
    for (size_t i = 0; i < w->nseen; i++) {
        Py_DECREF(w->seen[i]);
    }
    w->nseen = 0;
    w->nclasses = 0;
}

/* Whether tp's class statement ran in the program's module. */
static int
is_program_class(const OrWorld *w, PyTypeObject *tp)
{
    PyObject *d = tp->tp_dict;
    if (d == NULL || !PyDict_Check(d)) {
        return 0;
    }
    PyObject *mod = dict_scan(d, "__module__");   /* borrowed */
    return mod != NULL && PyUnicode_CheckExact(mod)
           && PyUnicode_Compare(mod, w->modname) == 0;
}

static size_t
type_slot(PyTypeObject *tp)
{
    return or_ptr_slot(tp, OR_WORLD_TABLE - 1);
}

/* The index of tp among the examined types, added (a program class then joins
 * the list) when new; -1 for a static type (never the program's) or past the cap. */
OR_NO_COVERAGE static long
mark_type(OrWorld *w, PyTypeObject *tp)
{
    if (!(tp->tp_flags & Py_TPFLAGS_HEAPTYPE)) {
        return -1;
    }
    size_t i = type_slot(tp);
    for (; w->table[i] != 0; i = (i + 1) & (OR_WORLD_TABLE - 1)) {
        if (w->seen[w->table[i] - 1] == tp) {
            return (long)w->table[i] - 1;
        }
    }
    if (w->nseen >= OR_CAP_CLASSES) {
        return -1;
    }
    w->expanded[w->nseen] = 0;
    w->seen[w->nseen++] = (PyTypeObject *)Py_NewRef((PyObject *)tp);
    w->table[i] = (uint16_t)w->nseen;
    if (is_program_class(w, tp)) {
        w->classes[w->nclasses++] = tp;
    }
    return (long)w->nseen - 1;
}

/* tp, then the rest of its MRO in MRO order, then what each of those reaches
 * (its own MRO, which a metaclass's mro() may make differ, and its metaclass),
 * then tp's metaclass. Each type is expanded once. */
static void
note_type(OrWorld *w, PyTypeObject *tp)
{
    long at = mark_type(w, tp);
    if (at < 0 || w->expanded[at]) {
        return;
    }
    w->expanded[at] = 1;
    PyObject *mro = tp->tp_mro;
    Py_ssize_t n = mro != NULL && PyTuple_Check(mro) ? PyTuple_GET_SIZE(mro) : 0;
    for (Py_ssize_t k = 1; k < n; k++) {
        PyObject *base = PyTuple_GET_ITEM(mro, k);
        if (PyType_Check(base)) {
            mark_type(w, (PyTypeObject *)base);
        }
    }
    for (Py_ssize_t k = 1; k < n; k++) {
        PyObject *base = PyTuple_GET_ITEM(mro, k);
        if (PyType_Check(base)) {
            note_type(w, (PyTypeObject *)base);
        }
    }
    note_type(w, Py_TYPE(tp));
}

void
or_world_note(OrWorld *w, PyObject *o)
{
    if (w->modname == NULL) {
        return;
    }
    if (PyType_Check(o)) {
        note_type(w, (PyTypeObject *)o);   /* its metaclass follows */
    }
    else {
        note_type(w, Py_TYPE(o));
    }
}

/* A name Python reserves: `__x__`. */
static int
is_dunder(PyObject *k)
{
    if (!PyUnicode_CheckExact(k) || !PyUnicode_IS_ASCII(k)) {
        return 0;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(k);
    const Py_UCS1 *s = PyUnicode_1BYTE_DATA(k);
    return n > 4 && s[0] == '_' && s[1] == '_' && s[n - 2] == '_' && s[n - 1] == '_';
}

int
or_world_is_data(OrWorld *w, PyObject *key, PyObject *value)
{
    if (is_dunder(key)) {
        return 0;
    }
    if (PyType_Check(value)) {
        or_world_note(w, value);   /* a class in a dict is reached as a class */
        return 0;
    }
    if (PyFunction_Check(value) || PyModule_Check(value) || PyCFunction_Check(value)
        || PyMethod_Check(value) || Py_TYPE(value)->tp_descr_get != NULL) {
        return 0;   /* code, or a descriptor: not the program's data */
    }
    return 1;
}

int
or_world_is_log_root(PyObject *key)
{
    return str_is(key, "LOG");
}
