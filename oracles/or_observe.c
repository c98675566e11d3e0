/* or_observe.c: the canonical observation of one run (DESIGN.md, "The observation";
 * the text it writes is specified in docs/OBSERVATION.md).
 *
 * One depth-first traversal over the roots in protocol order (r1, log1, r2, log2,
 * r3, log3, state: args, args2, LOG, then the program's data globals and the data
 * in the dicts of the program's classes met, or_world.c) with ONE numbering: an object (anything that is not a plain
 * value) gets "#n" at its first appearance, where its contents are printed; later
 * appearances print "#n" alone, so `a is b` survives and addresses do not. The
 * traversal runs no Python code: containers are read through their C storage
 * (PyList_GET_ITEM, PyDict_Next, _PySet_NextEntry), instance state through the dict
 * pointer and the slot members' offsets, numbers through their C representation,
 * never through a type slot a class could override. The cyclic GC is paused for
 * the traversal, since an allocation (materialising an instance dict) could
 * otherwise start a collection and run a finalizer. */
#include "or_observe.h"
#include "or_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "structmember.h"   /* PyMemberDef, T_OBJECT_EX */

#define TABLE_SIZE 4096     /* power of two, at least 2 * OR_CAP_OBJECTS */
_Static_assert(TABLE_SIZE >= 2 * OR_CAP_OBJECTS && OR_CAP_OBJECTS < 65536,
               "the number table must stay sparse and its entries fit uint16_t");

typedef struct {
    OrBuf out;              /* the section being written */
    OrBuf path;             /* the path of the node being written */
    PyObject *objs[OR_CAP_OBJECTS];   /* numbered objects, strong refs; #n is objs[n-1] */
    size_t nobjs;
    uint16_t table[TABLE_SIZE];       /* open addressing over objs: 0 empty, else n */
    size_t lines;           /* lines written in the current section */
    size_t root_cap;        /* item cap of the root container (LOG's is larger) */
    int stopped;            /* the line cap ended the current section */
    int failed;             /* a Python exception is set (MemoryError) */
    size_t key_budget;      /* inline-form steps left: bounds pathological sharing */
    int scrub;              /* inside exception args: addresses in strings hidden */
    OrWorld world;          /* the program's classes met so far (or_world.c) */
} ObsState;

static void obs_node(ObsState *st, PyObject *o, int depth, const char *prefix);
static int put_key(ObsState *st, OrBuf *b, PyObject *o, int depth, int assign);
static int put_state_key(ObsState *st, OrBuf *b, PyObject *o, int depth, size_t stop);
static int key_rec(ObsState *st, OrBuf *b, PyObject *o, int depth, int assign,
                   size_t stop);

/* ---- numbering ---- */

static size_t
slot_of(PyObject *o)
{
    return or_ptr_slot(o, TABLE_SIZE - 1);
}

/* The number of o, or 0 when o has none yet. */
OR_NO_COVERAGE static size_t
obj_lookup(ObsState *st, PyObject *o)
{
    for (size_t i = slot_of(o);; i = (i + 1) & (TABLE_SIZE - 1)) {
        size_t n = st->table[i];
        if (n == 0) {
            return 0;
        }
        if (st->objs[n - 1] == o) {
            return n;
        }
    }
}

/* Numbers o (not numbered yet); 0 when the object cap is reached. Holds a
 * reference so the address cannot be reused during the traversal. */
OR_NO_COVERAGE static size_t
obj_number(ObsState *st, PyObject *o)
{
    if (st->nobjs >= OR_CAP_OBJECTS) {
        return 0;
    }
    size_t i = slot_of(o);
    while (st->table[i] != 0) {
        i = (i + 1) & (TABLE_SIZE - 1);
    }
    st->objs[st->nobjs++] = Py_NewRef(o);
    st->table[i] = (uint16_t)st->nobjs;
    or_world_note(&st->world, o);   /* its class joins the world's classes */
    return st->nobjs;
}

/* ---- lines and paths ---- */

/* "#n", the number of an object, and a space after it when `space` is set. */
static void
put_number(OrBuf *b, size_t num, int space)
{
    char tmp[24];
    char *end = tmp + sizeof tmp;
    if (space) {
        *--end = ' ';
    }
    char *q = or_fmt_u64(end, (unsigned long long)num);
    *--q = '#';
    or_buf_putn(b, q, (size_t)(tmp + sizeof tmp - q));
}

/* open, i, close: an index or a length ("[3]", "{0}"); i >= 0. */
static void
put_index(OrBuf *b, char open, Py_ssize_t i, char close)
{
    char tmp[24];
    char *end = tmp + sizeof tmp;
    *--end = close;
    char *q = or_fmt_u64(end, (unsigned long long)i);
    *--q = open;
    or_buf_putn(b, q, (size_t)(tmp + sizeof tmp - q));
}

/* Starts the line of the current path; 0 when the section is over its cap. */
static int
line_begin(ObsState *st)
{
    if (st->stopped || st->failed) {
        return 0;
    }
    if (st->lines >= OR_CAP_LINES) {
        or_buf_puts(&st->out, "<cap lines>\n");
        st->stopped = 1;
        return 0;
    }
    st->lines++;
    or_buf_putn(&st->out, st->path.p, st->path.len);
    or_buf_putn(&st->out, " = ", 3);
    return 1;
}

static void
line_end(ObsState *st)
{
    or_buf_putc(&st->out, '\n');
}

/* A whole line "PATH<suffix> = <text>". */
static void
line_simple(ObsState *st, const char *suffix, const char *text)
{
    size_t mark = st->path.len;
    or_buf_puts(&st->path, suffix);
    if (line_begin(st)) {
        or_buf_puts(&st->out, text);
        line_end(st);
    }
    or_buf_truncate(&st->path, mark);
}

static void
line_items_cap(ObsState *st, size_t shown, Py_ssize_t total)
{
    size_t mark = st->path.len;
    put_index(&st->path, '[', (Py_ssize_t)shown, ':');
    or_buf_putc(&st->path, ']');
    if (line_begin(st)) {
        or_buf_puts(&st->out, "<cap items ");
        or_buf_put_i64(&st->out, (long long)total);
        or_buf_putc(&st->out, '>');
        line_end(st);
    }
    or_buf_truncate(&st->path, mark);
}

/* Item i of a sequence ('[') or element i of a set ('{') at path "[i]" / "{i}". */
static void
child(ObsState *st, PyObject *o, int depth, char open, Py_ssize_t i)
{
    size_t mark = st->path.len;
    put_index(&st->path, open, i, open == '[' ? ']' : '}');
    obs_node(st, o, depth, NULL);
    or_buf_truncate(&st->path, mark);
}

/* ---- containers ---- */

static size_t
items_cap(ObsState *st, int depth)
{
    return depth == 0 ? st->root_cap : OR_CAP_ITEMS;
}

/* Items of a list or tuple (subclasses too), by their storage. */
static void
obs_seq(ObsState *st, PyObject *o, int depth)
{
    int is_list = PyList_Check(o);
    Py_ssize_t n = is_list ? PyList_GET_SIZE(o) : PyTuple_GET_SIZE(o);
    size_t cap = items_cap(st, depth);
    for (Py_ssize_t i = 0; i < n && !st->stopped && !st->failed; i++) {
        if ((size_t)i == cap) {
            line_items_cap(st, cap, n);
            break;
        }
        PyObject *item = is_list ? PyList_GET_ITEM(o, i) : PyTuple_GET_ITEM(o, i);
        child(st, item, depth + 1, '[', i);
    }
}

static void
obs_dict(ObsState *st, PyObject *o, int depth)
{
    Py_ssize_t pos = 0, n = PyDict_GET_SIZE(o);
    size_t cap = items_cap(st, depth), i = 0;
    PyObject *k, *v;
    while (!st->stopped && !st->failed && PyDict_Next(o, &pos, &k, &v)) {
        if (i++ == cap) {
            line_items_cap(st, cap, n);
            break;
        }
        size_t mark = st->path.len;
        or_buf_putc(&st->path, '[');
        if (put_key(st, &st->path, k, depth + 1, 1) < 0) {
            st->failed = 1;
            break;
        }
        or_buf_putc(&st->path, ']');
        obs_node(st, v, depth + 1, NULL);
        or_buf_truncate(&st->path, mark);
    }
}

/* A set's elements in canonical order: sorted by their inline form, where an
 * object not numbered yet shows as "#? Type" (numbering it while sorting would
 * make the numbers depend on the hash order). Ties between such objects keep
 * the table order: documented in docs/OBSERVATION.md. */
typedef struct {
    const char *key;
    size_t index;
    PyObject *elem;
} SetEntry;

static int
set_entry_cmp(const void *a, const void *b)
{
    const SetEntry *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    if (c != 0) {
        return c;
    }
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Fills *out (malloc'd, caller frees; keys live in *keys, caller frees) with the
 * elements of set o in canonical order; mode is put_key's assign (0 or -1).
 * -1 on error. */
static int
set_sorted(ObsState *st, PyObject *o, int depth, int mode, SetEntry **out, size_t *count,
           OrBuf *keys)
{
    size_t n = (size_t)PySet_GET_SIZE(o), i = 0;
    size_t *offsets = malloc((n ? n : 1) * sizeof *offsets);
    SetEntry *ents = malloc((n ? n : 1) * sizeof *ents);
    if (offsets == NULL || ents == NULL) {
        goto error;
    }
    Py_ssize_t pos = 0;
    PyObject *key;
    Py_hash_t hash;
    while (i < n && _PySet_NextEntry(o, &pos, &key, &hash)) {
        offsets[i] = keys->len;
        if (put_key(st, keys, key, depth, mode) < 0) {
            goto error;
        }
        or_buf_putc(keys, '\0');
        ents[i].index = i;
        ents[i].elem = key;
        i++;
    }
    if (keys->oom) {
        goto error;
    }
    for (size_t j = 0; j < i; j++) {
        ents[j].key = keys->p + offsets[j];
    }
    qsort(ents, i, sizeof *ents, set_entry_cmp);
    free(offsets);
    *out = ents;
    *count = i;
    return 0;
error:
    free(offsets);
    free(ents);
    return -1;
}

static void
obs_set(ObsState *st, PyObject *o, int depth)
{
    Py_ssize_t n = PySet_GET_SIZE(o);
    if (n > OR_CAP_SETSORT) {
        line_items_cap(st, 0, n);
        return;
    }
    SetEntry *ents = NULL;
    size_t count = 0, cap = items_cap(st, depth);
    OrBuf keys;
    or_buf_init(&keys);
    if (set_sorted(st, o, depth + 1, 0, &ents, &count, &keys) < 0) {
        st->failed = 1;
        goto done;
    }
    for (size_t i = 0; i < count && !st->stopped && !st->failed; i++) {
        if (i == cap) {
            line_items_cap(st, cap, n);
            break;
        }
        /* The table cannot change: no code runs while we hold ents. */
        child(st, ents[i].elem, depth + 1, '{', (Py_ssize_t)i);
    }
done:
    free(ents);
    or_buf_free(&keys);
}

/* ---- slots ---- */

/* Walks the object members of o's heap types in MRO order, read through their
 * offsets: the __slots__ of class statements (T_OBJECT_EX) and the object fields
 * of heap types from C (T_OBJECT, e.g. functools.partial's func, args, keywords;
 * NULL there reads None, as CPython's getter says). */
typedef struct {
    PyObject *mro;
    Py_ssize_t t;
    PyMemberDef *m;
} SlotIter;

static void
slot_iter_init(SlotIter *it, PyObject *o)
{
    PyObject *mro = Py_TYPE(o)->tp_mro;
    it->mro = mro != NULL && PyTuple_Check(mro) ? mro : NULL;
    it->t = -1;
    it->m = NULL;
}

/* 1 with *name and *value (NULL when unset, borrowed), 0 at the end. */
static int
slot_next(SlotIter *it, PyObject *o, const char **name, PyObject **value)
{
    while (it->mro != NULL) {
        for (; it->m != NULL && it->m->name != NULL; it->m++) {
            if (it->m->type == T_OBJECT_EX || it->m->type == T_OBJECT) {
                *name = it->m->name;
                *value = *(PyObject **)((char *)o + it->m->offset);
                if (*value == NULL && it->m->type == T_OBJECT) {
                    *value = Py_None;
                }
                it->m++;
                return 1;
            }
        }
        if (++it->t >= PyTuple_GET_SIZE(it->mro)) {
            return 0;
        }
        PyTypeObject *base = (PyTypeObject *)PyTuple_GET_ITEM(it->mro, it->t);
        it->m = PyType_Check(base) && (base->tp_flags & Py_TPFLAGS_HEAPTYPE)
                ? base->tp_members : NULL;
    }
    return 0;
}

/* ---- inline form (dict keys, set sort keys) ---- */

/* The sort key of an instance not numbered yet goes one level into its state,
 * so that distinct objects of one type in a set sort by their contents rather
 * than their addresses: "{name=VALUE, ...}" over the instance dict, then slots. */
static int
put_state_key(ObsState *st, OrBuf *b, PyObject *o, int depth, size_t stop)
{
    PyObject **dictptr = _PyObject_GetDictPtr(o);   /* borrowed slot; clears errors */
    PyObject *dict = dictptr != NULL ? *dictptr : NULL;
    int first = 1;
    or_buf_putc(b, '{');
    if (dict != NULL && PyDict_Check(dict)) {
        Py_ssize_t pos = 0;
        size_t i = 0;
        PyObject *k, *v;
        while (b->len < stop && PyDict_Next(dict, &pos, &k, &v) && i++ < OR_CAP_ITEMS) {
            or_buf_puts(b, first ? "" : ", ");
            first = 0;
            if (key_rec(st, b, k, depth + 1, -1, stop) < 0) {
                return -1;
            }
            or_buf_putc(b, '=');
            if (key_rec(st, b, v, depth + 1, -1, stop) < 0) {
                return -1;
            }
        }
    }
    SlotIter it;
    const char *name;
    PyObject *v;
    slot_iter_init(&it, o);
    while (b->len < stop && slot_next(&it, o, &name, &v)) {
        or_buf_puts(b, first ? "" : ", ");
        or_buf_puts(b, name);
        or_buf_putc(b, '=');
        first = 0;
        if (v == NULL) {
            or_buf_puts(b, "<unset>");
        }
        else if (key_rec(st, b, v, depth + 1, -1, stop) < 0) {
            return -1;
        }
    }
    or_buf_putc(b, '}');
    return 0;
}

/* Writes the one-line form of a hashable o into b: values as in lines, tuples
 * "(a, b)", frozensets sorted, objects "#n Type" or "#? Type". Spaces in strings
 * are escaped (keys end up in paths). assign: 1 numbers new objects (dict keys);
 * 0 and -1 make sort keys and number nothing, 0 also shows one level of a new
 * instance's state (put_state_key). */
static int
key_rec(ObsState *st, OrBuf *b, PyObject *o, int depth, int assign, size_t stop)
{
    if (b->len >= stop) {
        return 0;
    }
    if (st->key_budget == 0) {
        or_buf_puts(b, "<cap work>");
        return 0;
    }
    st->key_budget--;
    int r = or_put_scalar(b, o, OR_TEXT_SPACE);
    if (r != 0) {
        return r < 0 ? -1 : 0;
    }
    if (PyTuple_CheckExact(o)) {
        Py_ssize_t n = PyTuple_GET_SIZE(o);
        if (depth >= OR_CAP_DEPTH) {
            or_buf_printf(b, "(<cap depth %zd>)", n);
            return 0;
        }
        or_buf_putc(b, '(');
        for (Py_ssize_t i = 0; i < n && b->len < stop; i++) {
            if (i == OR_CAP_ITEMS) {
                or_buf_printf(b, ", <cap items %zd>", n);
                break;
            }
            if (i > 0) {
                or_buf_puts(b, ", ");
            }
            if (key_rec(st, b, PyTuple_GET_ITEM(o, i), depth + 1, assign, stop) < 0) {
                return -1;
            }
        }
        or_buf_puts(b, n == 1 ? ",)" : ")");
        return 0;
    }
    if (PyFrozenSet_CheckExact(o)) {
        Py_ssize_t n = PySet_GET_SIZE(o);
        if (depth >= OR_CAP_DEPTH || n > OR_CAP_ITEMS) {
            or_buf_printf(b, "frozenset(<cap %zd>)", n);
            return 0;
        }
        SetEntry *ents = NULL;
        size_t count = 0;
        OrBuf keys;
        or_buf_init(&keys);
        if (set_sorted(st, o, depth + 1, assign == 1 ? 0 : assign, &ents, &count,
                       &keys) < 0) {
            or_buf_free(&keys);
            return -1;
        }
        or_buf_puts(b, "frozenset({");
        int err = 0;
        for (size_t i = 0; i < count && !err && b->len < stop; i++) {
            if (i > 0) {
                or_buf_puts(b, ", ");
            }
            err = key_rec(st, b, ents[i].elem, depth + 1, assign, stop) < 0;
        }
        or_buf_puts(b, "})");
        free(ents);
        or_buf_free(&keys);
        return err ? -1 : 0;
    }
    size_t num = obj_lookup(st, o);
    if (num != 0) {
        put_number(b, num, 0);
        return 0;
    }
    num = assign == 1 ? obj_number(st, o) : 0;
    if (num != 0) {
        put_number(b, num, 1);
    }
    else {
        or_buf_puts(b, assign == 1 ? "<cap objects> " : "#? ");
    }
    if (or_put_type_name(b, Py_TYPE(o), OR_TEXT_SPACE) < 0
        || or_put_subclass_value(b, o, OR_TEXT_SPACE) < 0) {
        return -1;
    }
    if (assign == 0 && (Py_TYPE(o)->tp_flags & Py_TPFLAGS_HEAPTYPE)) {
        return put_state_key(st, b, o, depth, stop);
    }
    return 0;
}

/* put_key's entry: at most OR_CAP_KEY characters ("<cap key>" after them). */
static int
put_key(ObsState *st, OrBuf *b, PyObject *o, int depth, int assign)
{
    size_t stop = b->len + OR_CAP_KEY;
    if (key_rec(st, b, o, depth, assign, stop) < 0) {
        return -1;
    }
    if (b->len >= stop) {
        or_buf_truncate(b, stop);
        or_buf_puts(b, "<cap key>");
    }
    return 0;
}

/* ---- instance state ---- */

static int
is_identifier(PyObject *k)
{
    if (!PyUnicode_CheckExact(k) || !PyUnicode_IS_ASCII(k)) {
        return 0;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(k);
    const Py_UCS1 *s = PyUnicode_1BYTE_DATA(k);
    if (n == 0 || (s[0] >= '0' && s[0] <= '9')) {
        return 0;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS1 c = s[i];
        if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9'))) {
            return 0;
        }
    }
    return 1;
}

/* The raw instance dict in insertion order, then the slots in MRO order, read
 * through the member descriptors' offsets: no __getattribute__, no property. */
static void
obs_instance_state(ObsState *st, PyObject *o, int depth)
{
    PyObject **dictptr = _PyObject_GetDictPtr(o);   /* borrowed slot; clears errors */
    PyObject *dict = dictptr != NULL ? *dictptr : NULL;
    if (dict != NULL && PyDict_Check(dict)) {
        Py_INCREF(dict);
        Py_ssize_t pos = 0, n = PyDict_GET_SIZE(dict);
        size_t i = 0;
        PyObject *k, *v;
        while (!st->stopped && !st->failed && PyDict_Next(dict, &pos, &k, &v)) {
            if (i++ == OR_CAP_ITEMS) {
                size_t mark = st->path.len;
                or_buf_puts(&st->path, ".__dict__");
                line_items_cap(st, OR_CAP_ITEMS, n);
                or_buf_truncate(&st->path, mark);
                break;
            }
            size_t mark = st->path.len;
            if (is_identifier(k)) {
                or_buf_putc(&st->path, '.');
                or_buf_putn(&st->path, (const char *)PyUnicode_1BYTE_DATA(k),
                            (size_t)PyUnicode_GET_LENGTH(k));
            }
            else {
                or_buf_puts(&st->path, ".__dict__[");
                if (put_key(st, &st->path, k, depth + 1, 1) < 0) {
                    st->failed = 1;
                }
                or_buf_putc(&st->path, ']');
            }
            obs_node(st, v, depth + 1, NULL);
            or_buf_truncate(&st->path, mark);
        }
        Py_DECREF(dict);
    }
    SlotIter it;
    const char *name;
    PyObject *v;
    slot_iter_init(&it, o);
    while (!st->stopped && !st->failed && slot_next(&it, o, &name, &v)) {
        size_t mark = st->path.len;
        or_buf_putc(&st->path, '.');
        or_buf_puts(&st->path, name);
        if (v == NULL) {
            if (line_begin(st)) {
                or_buf_puts(&st->out, "<unset>");
                line_end(st);
            }
        }
        else {
            obs_node(st, v, depth + 1, NULL);
        }
        or_buf_truncate(&st->path, mark);
    }
}

/* ---- one node ---- */

/* The contents printed at an object's first appearance. */
static void
obs_contents(ObsState *st, PyObject *o, int depth)
{
    if (PyExceptionInstance_Check(o)) {
        PyObject *args = ((PyBaseExceptionObject *)o)->args;
        size_t mark = st->path.len;
        or_buf_puts(&st->path, ".args");
        if (args != NULL) {
            st->scrub++;
            obs_node(st, args, depth + 1, NULL);
            st->scrub--;
        }
        or_buf_truncate(&st->path, mark);
        return;
    }
    if (PyType_Check(o) || PyFunction_Check(o) || PyModule_Check(o)) {
        return;   /* named, not expanded: their dicts hold code, not state */
    }
    if (PyMethod_Check(o)) {
        size_t mark = st->path.len;
        or_buf_puts(&st->path, ".__func__");
        obs_node(st, PyMethod_GET_FUNCTION(o), depth + 1, NULL);
        or_buf_truncate(&st->path, mark);
        or_buf_puts(&st->path, ".__self__");
        obs_node(st, PyMethod_GET_SELF(o), depth + 1, NULL);
        or_buf_truncate(&st->path, mark);
        return;
    }
    if (PyCFunction_Check(o)) {
        PyObject *self = ((PyCFunctionObject *)o)->m_self;
        if (self != NULL && !PyModule_Check(self)) {
            size_t mark = st->path.len;
            or_buf_puts(&st->path, ".__self__");
            obs_node(st, self, depth + 1, NULL);
            or_buf_truncate(&st->path, mark);
        }
        return;
    }
    if (PyTuple_Check(o) || PyList_Check(o)) {
        obs_seq(st, o, depth);
    }
    else if (PyDict_Check(o)) {
        obs_dict(st, o, depth);
    }
    else if (PyAnySet_Check(o)) {
        obs_set(st, o, depth);
    }
    if (Py_TYPE(o)->tp_flags & Py_TPFLAGS_HEAPTYPE) {
        obs_instance_state(st, o, depth);
    }
}

/* Writes the line of o at the current path (after `prefix`, e.g. "raise "), then
 * the lines of its contents if this is o's first appearance. */
static void
obs_node(ObsState *st, PyObject *o, int depth, const char *prefix)
{
    if (!line_begin(st)) {
        return;
    }
    OrBuf *b = &st->out;
    if (prefix != NULL) {
        or_buf_puts(b, prefix);
    }
    int r = or_put_scalar(b, o, st->scrub ? OR_TEXT_ADDR : 0);
    if (r != 0) {
        st->failed |= r < 0;
        line_end(st);
        return;
    }
    if (PyTuple_CheckExact(o) || PyFrozenSet_CheckExact(o)) {
        /* Values with elements: no number, contents at every appearance. */
        int tuple = PyTuple_CheckExact(o);
        Py_ssize_t n = tuple ? PyTuple_GET_SIZE(o) : PySet_GET_SIZE(o);
        or_buf_puts(b, tuple ? "tuple" : "frozenset");
        put_index(b, '[', n, ']');
        if (depth >= OR_CAP_DEPTH) {
            or_buf_puts(b, " <cap depth>");
            line_end(st);
            return;
        }
        line_end(st);
        if (tuple) {
            obs_seq(st, o, depth);
        }
        else {
            obs_set(st, o, depth);
        }
        return;
    }
    size_t num = obj_lookup(st, o);
    if (num != 0) {
        put_number(b, num, 0);
        line_end(st);
        return;
    }
    num = obj_number(st, o);
    if (num == 0) {
        or_buf_puts(b, "<cap objects> ");
    }
    else {
        put_number(b, num, 1);
    }
    if (or_put_type_name(b, Py_TYPE(o), 0) < 0 || or_put_detail(b, o) < 0) {
        st->failed = 1;
        return;
    }
    if (num == 0 || depth >= OR_CAP_DEPTH) {
        if (num != 0) {
            or_buf_puts(b, " <cap depth>");
        }
        line_end(st);
        return;
    }
    line_end(st);
    obs_contents(st, o, depth);
}

/* ---- roots and sections ---- */

/* The section written in st->out becomes out->section[s], an exact-size copy: the
 * scratch buffer stays with st for the next section, grown once per observation. */
static int
section_finish(ObsState *st, OrObservation *out, OrSection s)
{
    if (!st->out.oom) {
        char *text = malloc(st->out.len + 1);
        if (text != NULL) {
            memcpy(text, st->out.p ? st->out.p : "", st->out.len);
            text[st->out.len] = '\0';
        }
        out->section[s] = text;
    }
    or_buf_truncate(&st->out, 0);
    st->lines = 0;
    st->stopped = 0;
    if (out->section[s] == NULL) {
        st->failed = 1;
    }
    return st->failed ? -1 : 0;
}

static void
root(ObsState *st, const char *name, PyObject *o, size_t cap, const char *prefix)
{
    or_buf_truncate(&st->path, 0);
    or_buf_puts(&st->path, name);
    st->root_cap = cap;
    if (o == NULL) {
        if (line_begin(st)) {
            or_buf_puts(&st->out, "<none>");
            line_end(st);
        }
        return;
    }
    obs_node(st, o, 0, prefix);
}

static const char *const result_names[OR_STEPS] = {"r1", "r2", "r3"};
static const char *const log_names[OR_STEPS] = {"log1", "log2", "log3"};

static void
root_result(ObsState *st, const OrRunRaw *raw, int i)
{
    const char *name = result_names[i];
    if (i >= raw->steps_done) {
        or_buf_truncate(&st->path, 0);
        or_buf_puts(&st->path, name);
        if (line_begin(st)) {
            or_buf_puts(&st->out, "<not run>");
            line_end(st);
        }
    }
    else if (raw->exc[i] != NULL) {
        root(st, name, raw->exc[i], OR_CAP_ITEMS, "raise ");
    }
    else {
        root(st, name, raw->result[i], OR_CAP_ITEMS, NULL);
    }
}

/* A LOG snapshot is a fresh copy: its identity means nothing, so a list prints
 * as "list[n]" without a number; its elements are numbered as everywhere. */
static void
root_log(ObsState *st, const OrRunRaw *raw, int i)
{
    const char *name = log_names[i];
    PyObject *snap = raw->log_after[i];
    or_buf_truncate(&st->path, 0);
    or_buf_puts(&st->path, name);
    st->root_cap = OR_CAP_LOG;
    if (i >= raw->steps_done || snap == NULL || !PyList_CheckExact(snap)) {
        if (i >= raw->steps_done) {
            line_simple(st, "", "<not run>");
        }
        else {
            root(st, name, snap, OR_CAP_LOG, NULL);
        }
        return;
    }
    if (line_begin(st)) {
        or_buf_puts(&st->out, "list");
        put_index(&st->out, '[', PyList_GET_SIZE(snap), ']');
        line_end(st);
        obs_seq(st, snap, 0);
    }
}

/* ---- the world's globals and classes (docs/OBSERVATION.md, "Globals and
 * classes"): after LOG, in the state section, each data entry a root of its own
 * (a log kept there gets LOG's item cap). ---- */

/* The entry k: v at the path st->path[0, mark) + its step: `ident` and the name
 * for an identifier key, else `other`, the key's inline form and "]". */
static void
world_entry(ObsState *st, size_t mark, const char *ident, const char *other,
            PyObject *k, PyObject *v)
{
    or_buf_truncate(&st->path, mark);
    if (is_identifier(k)) {
        or_buf_puts(&st->path, ident);
        or_buf_putn(&st->path, (const char *)PyUnicode_1BYTE_DATA(k),
                    (size_t)PyUnicode_GET_LENGTH(k));
    }
    else {
        or_buf_puts(&st->path, other);
        if (put_key(st, &st->path, k, 1, 1) < 0) {
            st->failed = 1;
            return;
        }
        or_buf_putc(&st->path, ']');
    }
    st->root_cap = OR_CAP_LOG;
    obs_node(st, v, 0, NULL);
}

/* "global:NAME = ...": the namespace's data entries in insertion order, LOG
 * excepted (a root already); the classes among its entries join the world's. */
static void
root_globals(ObsState *st)
{
    PyObject *ns = st->world.ns;
    if (ns == NULL) {
        return;
    }
    Py_INCREF(ns);
    Py_ssize_t pos = 0;
    size_t total = 0;
    PyObject *k, *v;
    while (!st->stopped && !st->failed && PyDict_Next(ns, &pos, &k, &v)) {
        if (or_world_is_log_root(k) || !or_world_is_data(&st->world, k, v)) {
            continue;
        }
        if (total++ < OR_CAP_LOG) {
            or_buf_truncate(&st->path, 0);
            or_buf_puts(&st->path, "global:");
            world_entry(st, st->path.len, "", "[", k, v);
        }
    }
    if (total > OR_CAP_LOG) {
        or_buf_truncate(&st->path, 0);
        or_buf_puts(&st->path, "global:");
        line_items_cap(st, OR_CAP_LOG, (Py_ssize_t)total);
    }
    Py_DECREF(ns);
}

/* "class:QUAL = #n type QUAL" and "class:QUAL.NAME = ..." for every program class
 * with data in its dict, in the order the world met them (the list grows while
 * it is written: a class entry may reach more classes). */
static void
root_classes(ObsState *st)
{
    OrWorld *w = &st->world;
    for (size_t c = 0; c < w->nclasses && !st->stopped && !st->failed; c++) {
        PyTypeObject *tp = w->classes[c];
        PyObject *d = tp->tp_dict;
        if (d == NULL || !PyDict_Check(d)) {
            continue;
        }
        Py_INCREF(d);
        or_buf_truncate(&st->path, 0);
        or_buf_puts(&st->path, "class:");
        if (or_put_type_name(&st->path, tp, OR_TEXT_SPACE) < 0) {
            st->failed = 1;
        }
        size_t mark = st->path.len, total = 0;
        Py_ssize_t pos = 0;
        PyObject *k, *v;
        while (!st->stopped && !st->failed && PyDict_Next(d, &pos, &k, &v)) {
            if (!or_world_is_data(w, k, v)) {
                continue;
            }
            if (total == 0) {   /* the class itself, numbered here or before */
                st->root_cap = OR_CAP_ITEMS;
                obs_node(st, (PyObject *)tp, 0, NULL);
            }
            if (total++ < OR_CAP_ITEMS) {
                world_entry(st, mark, ".", ".__dict__[", k, v);
            }
        }
        if (total > OR_CAP_ITEMS) {
            or_buf_truncate(&st->path, mark);
            or_buf_puts(&st->path, ".__dict__");
            line_items_cap(st, OR_CAP_ITEMS, (Py_ssize_t)total);
        }
        Py_DECREF(d);
    }
}

int
or_observe(const OrRunRaw *raw, OrObservation *out)
{
    for (int i = 0; i < OR_SEC__COUNT; i++) {
        out->section[i] = NULL;
    }
    /* Not calloc: objs[] is written before it is read; only the table must be
     * zero, and the 16 kB of objs need not be touched. The state of the last
     * observation is kept for the next one (observations do not nest: no code of
     * the program runs inside one): a malloc and free of ~40 KiB twice an input
     * went through glibc's slow paths. Single-threaded, as CPython's callers are. */
    static ObsState *spare;
    ObsState *st = spare != NULL ? spare : malloc(sizeof *st);
    spare = NULL;
    if (st == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    memset(st->table, 0, sizeof st->table);
    st->nobjs = 0;
    st->lines = 0;
    st->root_cap = 0;
    st->stopped = 0;
    st->failed = 0;
    st->scrub = 0;
    or_buf_init(&st->out);
    or_buf_init(&st->path);
    /* Most sections fit in 4 kB: one allocation instead of a chain of doublings
     * (a failure sets oom, which section_finish reports). */
    or_buf_grow(&st->out, 4096 - 1);
    st->key_budget = OR_KEY_BUDGET;
    or_world_init(&st->world, raw->ns);
    /* An exception already set would read as a failure of ours: set it aside. */
    PyObject *exc_type, *exc_value, *exc_tb;
    PyErr_Fetch(&exc_type, &exc_value, &exc_tb);
    int gc_was_enabled = PyGC_Disable();
    int rc = -1;
    for (int i = 0; i < OR_STEPS; i++) {
        root_result(st, raw, i);
        if (section_finish(st, out, (OrSection)(OR_SEC_R1 + 2 * i)) < 0) {
            goto done;
        }
        root_log(st, raw, i);
        if (section_finish(st, out, (OrSection)(OR_SEC_LOG1 + 2 * i)) < 0) {
            goto done;
        }
    }
    root(st, "args", raw->args, OR_CAP_ITEMS, NULL);
    root(st, "args2", raw->args2, OR_CAP_ITEMS, NULL);
    root(st, "LOG", raw->log, OR_CAP_LOG, NULL);
    root_globals(st);
    root_classes(st);
    if (section_finish(st, out, OR_SEC_STATE) < 0) {
        goto done;
    }
    rc = 0;
done:
    if (gc_was_enabled) {
        PyGC_Enable();
    }
    if (rc < 0 || st->path.oom) {
        or_observation_clear(out);
        if (!PyErr_Occurred()) {
            PyErr_NoMemory();
        }
        rc = -1;
        Py_XDECREF(exc_type);
        Py_XDECREF(exc_value);
        Py_XDECREF(exc_tb);
    }
    else {
        PyErr_Restore(exc_type, exc_value, exc_tb);
    }
    for (size_t i = 0; i < st->nobjs; i++) {
        Py_DECREF(st->objs[i]);
    }
    or_world_clear(&st->world);
    or_buf_free(&st->out);
    or_buf_free(&st->path);
    if (spare == NULL)
        spare = st;
    else
        free(st);
    return rc;
}
