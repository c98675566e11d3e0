/* hz_template.c: the template cache and the instantiation (see hz_template.h).
 *
 * A template is the module code of an abstract piece, compiled once and kept in a
 * bounded table keyed by filename and abstract text (a slot holds Py_None for a
 * shape whose template does not compile or does not map back). Instantiating maps,
 * recursively over the nested code objects: each constant (a placeholder string or
 * integer to the piece's value, the negation of an integer placeholder to the
 * negated value, tuples and frozensets element-wise), each name of co_names,
 * co_varnames, co_cellvars and co_freevars, and co_name and co_qualname (dotted
 * names part by part: a nested class's __qualname__ constant too). One object stands
 * for each placeholder, as the compiler merges equal constants across a module. A
 * string that still holds the placeholder prefix after mapping (a placeholder the
 * compiler cut or joined) makes the template unusable: the piece is compiled. */
#include "hz_template.h"
#include "hz_assemble_int.h"   /* Buf, hz_asm_fnv, hz_asm_cpu_now */
#include "hz_codecache.h"       /* HZ_NO_COVERAGE */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 1,024 sets of 2, least recently used out: the templates of program() (a new
 * combination of statements nearly every time) no longer evict the class members'
 * and skeletons' that are used again and again. */
#define HZ_TEMPLATE_SETS 1024
#define HZ_TEMPLATE_SLOTS (2 * HZ_TEMPLATE_SETS)
#define HZ_INT_BASE 700000000000000000LL   /* hz_template_abstract.c's integer placeholders */

typedef struct {
    uint64_t hash;
    char *key;        /* malloc'd: filename, NUL, abstract text */
    size_t len;
    PyObject *code;   /* owned: the template's module code, or Py_None */
    unsigned long used;   /* the lookup count when last found or stored */
} TSlot;

/* Class members by their exact text (direct-mapped): a mutated class is mostly its
 * parent's members, and abstracting and instantiating one costs ~40k instructions. */
#define HZ_MEMBER_SLOTS 4096

typedef struct {
    TSlot slot;             /* key: filename, NUL, the member's text; code: its module
                             * code, or Py_None (refused, why in refusal) */
    const char *refusal;
} MSlot;

struct HzTemplates {
    TSlot slots[HZ_TEMPLATE_SLOTS];
    MSlot members[HZ_MEMBER_SLOTS];
    HzTemplateStats stats;
    const char *refusal;
    HzClassBlocks *cb;   /* skeleton bodies linked from statements; NULL: off */
};

HZ_NO_COVERAGE HzTemplates *hz_templates_new(void)
{
    HzTemplates *t = calloc(1, sizeof *t);
    if (t == NULL)
        abort();
    t->refusal = "";
    t->cb = hz_class_blocks_new();
    return t;
}

HZ_NO_COVERAGE void hz_templates_link_classes(HzTemplates *t, bool on)
{
    if (!on) {
        hz_class_blocks_free(t->cb);
        t->cb = NULL;
    }
    else if (t->cb == NULL)
        t->cb = hz_class_blocks_new();
}

HZ_NO_COVERAGE void hz_templates_free(HzTemplates *t)
{
    if (t == NULL)
        return;
    for (int i = 0; i < HZ_TEMPLATE_SLOTS; i++) {
        free(t->slots[i].key);
        Py_XDECREF(t->slots[i].code);
    }
    for (int i = 0; i < HZ_MEMBER_SLOTS; i++) {
        free(t->members[i].slot.key);
        Py_XDECREF(t->members[i].slot.code);
    }
    hz_class_blocks_free(t->cb);
    free(t);
}

HZ_NO_COVERAGE HzTemplateStats hz_templates_stats(const HzTemplates *t)
{
    HzTemplateStats s = t->stats;
    if (t->cb != NULL)
        s.link = hz_class_blocks_stats(t->cb);
    return s;
}

HZ_NO_COVERAGE const char *hz_templates_last_refusal(const HzTemplates *t)
{
    return t->refusal;
}

/* ---- the mapping ---- */


HZ_NO_COVERAGE void hz_placeholders_clear(HzPlaceholderMap *m)
{
    for (int k = 0; k < 3; k++) {
        for (int i = 0; m->obj[k] != NULL && i < m->n[k]; i++)
            Py_XDECREF(m->obj[k][i]);
        free(m->obj[k]);
    }
}

HZ_NO_COVERAGE int hz_placeholders_init(HzPlaceholderMap *m, const HzAbstract *a)
{
    memset(m, 0, sizeof *m);
    m->n[HZ_PH_NAME] = a->nnames;
    m->n[HZ_PH_STR] = a->nstrs;
    m->n[HZ_PH_INT] = a->nints;
    for (int k = 0; k < 3; k++) {
        m->obj[k] = calloc((size_t)m->n[k] + 1, sizeof(PyObject *));
        if (m->obj[k] == NULL) {
            PyErr_NoMemory();
            return -1;
        }
    }
    for (int i = 0; i < a->nph; i++) {
        const HzPlaceholder *p = &a->ph[i];
        PyObject *v = NULL;
        if (p->kind == HZ_PH_NAME) {
            v = PyUnicode_FromStringAndSize(p->text, (Py_ssize_t)p->len);
            if (v != NULL)
                PyUnicode_InternInPlace(&v);
        }
        else if (p->kind == HZ_PH_STR) {
            v = PyUnicode_DecodeUTF8(p->text, (Py_ssize_t)p->len, NULL);
            if (v == NULL && PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) {
                PyErr_Clear();
                return -1;
            }
        }
        else {
            char digits[24];
            memcpy(digits, p->text, p->len);   /* at most 15 digits (the abstraction) */
            digits[p->len] = '\0';
            v = PyLong_FromString(digits, NULL, 10);
        }
        if (v == NULL)
            return -1;
        m->obj[p->kind][p->num] = v;
    }
    return 0;
}

/* The placeholder s[0..n) spells ("_tfN12_", "_tfS3_"): its value (borrowed), or NULL. */
HZ_NO_COVERAGE static PyObject *placeholder_value(const HzPlaceholderMap *m, const char *s, Py_ssize_t n)
{
    if (n < 6 || s[0] != '_' || s[1] != 't' || s[2] != 'f' || s[n - 1] != '_')
        return NULL;
    int kind = s[3] == 'N' ? HZ_PH_NAME : s[3] == 'S' ? HZ_PH_STR : -1;
    if (kind < 0)
        return NULL;
    long num = 0;
    for (Py_ssize_t i = 4; i < n - 1; i++) {
        if (s[i] < '0' || s[i] > '9' || num > 100000)
            return NULL;
        num = num * 10 + (s[i] - '0');
    }
    return num < m->n[kind] ? m->obj[kind][num] : NULL;
}

/* A new reference to str s mapped: a placeholder to its value, a dotted name part by
 * part; anything else as it is (m->failed when it still holds the prefix). NULL
 * with an exception on error. */
HZ_NO_COVERAGE static PyObject *map_str(HzPlaceholderMap *m, PyObject *s)
{
    Py_ssize_t n;
    const char *u = PyUnicode_AsUTF8AndSize(s, &n);
    if (u == NULL)
        return NULL;
    if (!hz_spells_placeholder(u, (size_t)n))
        return Py_NewRef(s);
    PyObject *v = placeholder_value(m, u, n);
    if (v != NULL)
        return Py_NewRef(v);
    /* a dotted name: Outer.Inner, f.<locals>.g */
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (Py_ssize_t at = 0; at <= n;) {
        Py_ssize_t end = at;
        while (end < n && u[end] != '.')
            end++;
        const char *part = u + at;
        Py_ssize_t plen = end - at;
        PyObject *pv = placeholder_value(m, part, plen);
        if (pv != NULL) {
            part = PyUnicode_AsUTF8AndSize(pv, &plen);
            if (part == NULL) {
                free(buf);
                return NULL;
            }
        }
        else if (hz_spells_placeholder(part, (size_t)plen)) {
            m->failed = true;
            free(buf);
            return Py_NewRef(s);
        }
        if (len + (size_t)plen + 2 > cap) {
            cap = (len + (size_t)plen + 2) * 2;
            char *nb = realloc(buf, cap);
            if (nb == NULL) {
                free(buf);
                return PyErr_NoMemory();
            }
            buf = nb;
        }
        if (at > 0)
            buf[len++] = '.';
        memcpy(buf + len, part, (size_t)plen);
        len += (size_t)plen;
        at = end + 1;
    }
    PyObject *r = PyUnicode_FromStringAndSize(buf, (Py_ssize_t)len);
    free(buf);
    return r;
}

HZ_NO_COVERAGE static PyObject *instantiate(HzPlaceholderMap *m, PyCodeObject *co);

HZ_NO_COVERAGE PyObject *hz_placeholders_map(HzPlaceholderMap *m, PyObject *c)
{
    if (PyUnicode_CheckExact(c))
        return map_str(m, c);
    if (PyLong_CheckExact(c)) {
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(c, &overflow);
        if (v == -1 && PyErr_Occurred())
            return NULL;
        int nints = m->n[HZ_PH_INT];
        if (overflow == 0 && v >= HZ_INT_BASE && v < HZ_INT_BASE + nints)
            return Py_NewRef(m->obj[HZ_PH_INT][v - HZ_INT_BASE]);
        if (overflow == 0 && v <= -HZ_INT_BASE && v > -HZ_INT_BASE - nints)
            return PyNumber_Negative(m->obj[HZ_PH_INT][-v - HZ_INT_BASE]);
        return Py_NewRef(c);
    }
    if (PyTuple_CheckExact(c)) {
        Py_ssize_t n = PyTuple_GET_SIZE(c);
        PyObject *t = PyTuple_New(n);
        if (t == NULL)
            return NULL;
        bool changed = false;
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *e = hz_placeholders_map(m, PyTuple_GET_ITEM(c, i));
            if (e == NULL) {
                Py_DECREF(t);
                return NULL;
            }
            changed = changed || e != PyTuple_GET_ITEM(c, i);
            PyTuple_SET_ITEM(t, i, e);
        }
        if (!changed) {
            Py_DECREF(t);
            return Py_NewRef(c);
        }
        return t;
    }
    if (PyFrozenSet_CheckExact(c)) {
        PyObject *items = PySequence_Tuple(c);
        PyObject *mapped = items ? hz_placeholders_map(m, items) : NULL;
        Py_XDECREF(items);
        if (mapped == NULL)
            return NULL;
        PyObject *fs = PyFrozenSet_New(mapped);
        Py_DECREF(mapped);
        return fs;
    }
    if (PyCode_Check(c))
        return instantiate(m, (PyCodeObject *)c);
    return Py_NewRef(c);
}

/* A new reference to a tuple of str names mapped, or NULL. Steals names. */
HZ_NO_COVERAGE static PyObject *map_names(HzPlaceholderMap *m, PyObject *names)
{
    if (names == NULL)
        return NULL;
    PyObject *r = hz_placeholders_map(m, names);
    Py_DECREF(names);
    return r;
}

/* What code_remade replaces in a code object; each a new reference, NULL: co's own. */
typedef struct {
    PyObject *consts, *names, *varnames, *cellvars, *freevars, *name, *qualname;
} CodeParts;

HZ_NO_COVERAGE static void parts_clear(CodeParts *p)
{
    Py_XDECREF(p->consts);
    Py_XDECREF(p->names);
    Py_XDECREF(p->varnames);
    Py_XDECREF(p->cellvars);
    Py_XDECREF(p->freevars);
    Py_XDECREF(p->name);
    Py_XDECREF(p->qualname);
}

/* A new reference to co with the parts p holds replaced (what code.replace does), or
 * NULL with an exception. Releases p's references (the caller's error paths too: a
 * NULL part it meant to set, with an exception pending, gives NULL). */
HZ_NO_COVERAGE static PyObject *code_remade(PyCodeObject *co, CodeParts *p)
{
    PyObject *r = NULL, *bytes = NULL;
    if (PyErr_Occurred())
        goto done;
    if ((p->varnames == NULL && (p->varnames = PyCode_GetVarnames(co)) == NULL) ||
        (p->cellvars == NULL && (p->cellvars = PyCode_GetCellvars(co)) == NULL) ||
        (p->freevars == NULL && (p->freevars = PyCode_GetFreevars(co)) == NULL) ||
        (bytes = PyCode_GetCode(co)) == NULL)
        goto done;
    r = (PyObject *)PyCode_NewWithPosOnlyArgs(
        co->co_argcount, co->co_posonlyargcount, co->co_kwonlyargcount, co->co_nlocals,
        co->co_stacksize, co->co_flags, bytes, p->consts ? p->consts : co->co_consts,
        p->names ? p->names : co->co_names, p->varnames, p->freevars, p->cellvars,
        co->co_filename, p->name ? p->name : co->co_name,
        p->qualname ? p->qualname : co->co_qualname, co->co_firstlineno, co->co_linetable,
        co->co_exceptiontable);
done:
    Py_XDECREF(bytes);
    parts_clear(p);
    return r;
}

/* A new reference to code co with every name and constant mapped, or NULL. */
HZ_NO_COVERAGE static PyObject *instantiate(HzPlaceholderMap *m, PyCodeObject *co)
{
    CodeParts p = {0};
    if ((p.consts = hz_placeholders_map(m, co->co_consts)) != NULL &&
        (p.names = map_names(m, Py_NewRef(co->co_names))) != NULL &&
        (p.varnames = map_names(m, PyCode_GetVarnames(co))) != NULL &&
        (p.cellvars = map_names(m, PyCode_GetCellvars(co))) != NULL &&
        (p.freevars = map_names(m, PyCode_GetFreevars(co))) != NULL &&
        (p.name = map_str(m, co->co_name)) != NULL)
        p.qualname = map_str(m, co->co_qualname);
    return code_remade(co, &p);   /* NULL when a part failed: its exception is set */
}

/* ---- the cache ---- */

HZ_NO_COVERAGE static bool same_key(const TSlot *s, uint64_t h, const char *key, size_t len)
{
    return s->key != NULL && s->hash == h && s->len == len && hz_asm_same(s->key, key, len);
}

/* Slot s emptied and holding key (taken), its hash h, and code (a reference taken). */
HZ_NO_COVERAGE static void slot_set(TSlot *s, char *key, size_t len, uint64_t h, PyObject *code)
{
    free(s->key);
    Py_XDECREF(s->code);
    s->key = key;
    s->len = len;
    s->hash = h;
    s->code = code;
}

/* A table key: filename, NUL, text[0..n) (malloc'd, its length in *len), or NULL with
 * MemoryError set. */
HZ_NO_COVERAGE static char *file_key(const char *filename, const char *text, size_t n,
                                     size_t *len)
{
    size_t flen = strlen(filename);
    *len = flen + 1 + n;
    char *key = malloc(*len);
    if (key == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    memcpy(key, filename, flen + 1);
    memcpy(key + flen + 1, text, n);
    return key;
}

/* The template of abstract text a as filename (borrowed; Py_None: none), compiled
 * and stored when new; NULL with an exception on out-of-memory. */
HZ_NO_COVERAGE static PyObject *template_of(HzTemplates *t, const HzAbstract *a,
                                            const char *filename)
{
    size_t len;
    char *key = file_key(filename, a->text, a->len, &len);
    if (key == NULL)
        return NULL;
    uint64_t h = hz_asm_fnv(key, len);
    TSlot *set = &t->slots[2 * (h % HZ_TEMPLATE_SETS)];
    for (int w = 0; w < 2; w++)
        if (same_key(&set[w], h, key, len)) {
            free(key);
            t->stats.hits++;
            set[w].used = t->stats.lookups;
            return set[w].code;
        }
    TSlot *s = set[0].used <= set[1].used ? &set[0] : &set[1];
    double t0 = hz_asm_cpu_now();
    PyObject *code = Py_CompileStringExFlags(a->text, filename, Py_file_input, NULL, 0);
    t->stats.cpu_compile += hz_asm_cpu_now() - t0;
    t->stats.compiles++;
    if (code == NULL) {
        if (PyErr_ExceptionMatches(PyExc_MemoryError)) {
            free(key);
            return NULL;
        }
        PyErr_Clear();   /* the piece's own compile reports its error */
        code = Py_NewRef(Py_None);
    }
    slot_set(s, key, len, h, code);
    s->used = t->stats.lookups;
    return code;
}

/* The whole-piece route: a new reference to the piece's module code from the template
 * of its abstract text, or NULL (an exception only on out-of-memory). */
HZ_NO_COVERAGE static PyObject *piece_code(HzTemplates *t, const char *text, size_t n,
                                           const char *filename)
{
    HzAbstract a;
    HzPlaceholderMap m;
    memset(&m, 0, sizeof m);
    PyObject *r = NULL;
    if (hz_abstract(text, n, &a, &t->refusal) < 0)
        goto done;
    PyObject *tmpl = template_of(t, &a, filename);   /* borrowed */
    if (tmpl == NULL)
        goto done;
    if (tmpl == Py_None) {
        t->refusal = "the template does not compile";
        goto done;
    }
    if (hz_placeholders_init(&m, &a) < 0) {
        if (!PyErr_Occurred())
            t->refusal = "a string that is not UTF-8";
        goto done;
    }
    r = instantiate(&m, (PyCodeObject *)tmpl);
    if (r != NULL && m.failed) {
        Py_CLEAR(r);
        t->refusal = "a placeholder the compiler changed";
    }
done:
    if (r == NULL && PyErr_Occurred() && !PyErr_ExceptionMatches(PyExc_MemoryError)) {
        PyErr_Clear();   /* anything but out-of-memory: no template, the piece is compiled */
        t->refusal = "an error while instantiating";
    }
    hz_placeholders_clear(&m);
    hz_abstract_clear(&a);
    return r;
}

HZ_NO_COVERAGE PyObject *hz_templates_piece(HzTemplates *t, const char *text, size_t n,
                                            const char *filename)
{
    return piece_code(t, text, n, filename);
}

/* piece_code of a class member's text, kept by the text: the same new reference (or
 * NULL and refusal) piece_code gives, which is the text's alone. */
HZ_NO_COVERAGE static PyObject *member_code(HzTemplates *t, const char *text, size_t n,
                                            const char *filename)
{
    size_t len;
    char *key = file_key(filename, text, n, &len);
    if (key == NULL)
        return NULL;
    uint64_t h = hz_asm_fnv(key, len);
    MSlot *m = &t->members[h % HZ_MEMBER_SLOTS];
    if (same_key(&m->slot, h, key, len)) {
        free(key);
        t->stats.member_hits++;
        if (m->slot.code == Py_None) {
            t->refusal = m->refusal;
            return NULL;
        }
        return Py_NewRef(m->slot.code);
    }
    PyObject *r = piece_code(t, text, n, filename);
    if (r == NULL && PyErr_Occurred()) {   /* out of memory: nothing kept */
        free(key);
        return NULL;
    }
    slot_set(&m->slot, key, len, h, r != NULL ? Py_NewRef(r) : Py_NewRef(Py_None));
    m->refusal = t->refusal;
    return r;
}

HZ_NO_COVERAGE PyCodeObject *hz_only_code(PyObject *co, Py_ssize_t *at)
{
    PyObject *consts = ((PyCodeObject *)co)->co_consts;
    PyCodeObject *found = NULL;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(consts); i++)
        if (PyCode_Check(PyTuple_GET_ITEM(consts, i))) {
            if (found != NULL)
                return NULL;
            found = (PyCodeObject *)PyTuple_GET_ITEM(consts, i);
            *at = i;
        }
    return found;
}

#define HZ_MAX_MEMBERS 64

/* A new reference to module code mod with its constant at replaced by the class body
 * body (borrowed), or NULL with an exception. */
HZ_NO_COVERAGE static PyObject *with_body(PyObject *mod, Py_ssize_t at, PyObject *body)
{
    PyObject *mconsts = PySequence_List(((PyCodeObject *)mod)->co_consts);
    if (mconsts == NULL)
        return NULL;
    PyList_SetItem(mconsts, at, Py_NewRef(body));
    CodeParts mp = {.consts = PyList_AsTuple(mconsts)};
    Py_DECREF(mconsts);
    return mp.consts ? code_remade((PyCodeObject *)mod, &mp) : NULL;
}

/* The skeleton route of a class piece with def members m[0..k): the class with every
 * member's body replaced by `pass` (its decorators, defaults and annotations stay:
 * the class body evaluates them), or by `__class__` for a member that closes over the
 * class's cell (`super()`, `__class__`: the class body then makes the cell and passes
 * it as the whole compile does), and each member alone (`if True:` over its lines, a
 * top-level function, as a method of a top-level class is: not nested; inside `class
 * K:` for one with the cell, whose code has the `__class__` free variable);
 * both through the templates, then each stub's code in the class body's constants
 * replaced by its member's, under the stub's qualified name. A class template
 * would be the combination of its members' shapes, which rarely repeats; the
 * skeleton and each member's shape do. A new reference, or NULL (an exception only
 * on out-of-memory). */
HZ_NO_COVERAGE static PyObject *class_code(HzTemplates *t, const char *text, size_t n,
                                           const char *filename, const HzClassMember *m, int k)
{
    Buf sk = {0};
    PyObject *mod = NULL, *r = NULL, *consts = NULL, *body = NULL, *linked = NULL;
    size_t at = 0;
    for (int i = 0; i < k; i++) {
        hz_asm_buf_add(&sk, text + at, m[i].body - at);
        /* a stub that closes over the class's cell as its member does: the class body
         * makes the cell and passes it to the function as the whole compile does */
        if (m[i].cell)
            hz_asm_buf_add(&sk, " __class__\n", 11);
        else
            hz_asm_buf_add(&sk, " pass\n", 6);
        at = m[i].end;
    }
    hz_asm_buf_add(&sk, text + at, n - at);
    if (sk.failed) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t cls_at = 0;
    if (t->cb != NULL)
        mod = hz_class_linked(t->cb, t, sk.p, sk.n, filename, &linked, &cls_at);
    if (mod == NULL && !PyErr_Occurred())   /* not linked: the skeleton's own template */
        mod = piece_code(t, sk.p, sk.n, filename);
    if (mod == NULL)
        goto done;
    PyCodeObject *cls = linked != NULL ? (PyCodeObject *)linked : hz_only_code(mod, &cls_at);
    if (cls == NULL) {
        t->refusal = "the skeleton holds no class body";
        goto done;
    }
    consts = PySequence_List(cls->co_consts);
    if (consts == NULL)
        goto done;
    int i = 0;
    for (Py_ssize_t c = 0; c < PyList_GET_SIZE(consts); c++) {
        PyObject *stub = PyList_GET_ITEM(consts, c);
        if (!PyCode_Check(stub))
            continue;
        if (i == k) {
            t->refusal = "more code in the skeleton than members";
            goto done;
        }
        /* the member alone: a top-level function, or inside a class when it closes
         * over the class's cell (its code then has the __class__ free variable) */
        Buf mt = {0};
        if (m[i].cell)
            hz_asm_buf_add(&mt, "class K:\n", 9);
        else
            hz_asm_buf_add(&mt, "if True:\n", 9);
        hz_asm_buf_add(&mt, text + m[i].line, m[i].end - m[i].line);
        PyObject *mmod = mt.failed ? PyErr_NoMemory() : member_code(t, mt.p, mt.n, filename);
        bool cell = m[i].cell;
        free(mt.p);
        i++;
        if (mmod == NULL)
            goto done;
        Py_ssize_t fn_at;
        PyCodeObject *fn = hz_only_code(mmod, &fn_at);
        if (fn != NULL && cell)   /* the class body's one code: the method */
            fn = hz_only_code((PyObject *)fn, &fn_at);
        if (fn != NULL && cell != (fn->co_nfreevars == 1 &&
                                   PyUnicode_CompareWithASCIIString(
                                       PyTuple_GET_ITEM(fn->co_localsplusnames,
                                                        fn->co_nlocalsplus - 1),
                                       "__class__") == 0))
            fn = NULL;   /* not the stub's closure: refused below */
        int same = fn != NULL ? PyObject_RichCompareBool(fn->co_name, ((PyCodeObject *)stub)->co_name, Py_EQ) : 0;
        CodeParts qp = {.qualname = Py_NewRef(((PyCodeObject *)stub)->co_qualname)};
        PyObject *code = NULL;
        if (same == 1)
            code = code_remade(fn, &qp);
        else
            parts_clear(&qp);
        Py_DECREF(mmod);
        if (code == NULL) {
            if (!PyErr_Occurred())
                t->refusal = "a member is not the skeleton's";
            goto done;
        }
        PyList_SetItem(consts, c, code);   /* steals code */
    }
    if (i != k) {
        t->refusal = "fewer code objects in the skeleton than members";
        goto done;
    }
    CodeParts bp = {.consts = PyList_AsTuple(consts)};
    body = bp.consts ? code_remade(cls, &bp) : NULL;
    if (body == NULL)
        goto done;
    r = with_body(mod, cls_at, body);
done:
    if (r == NULL && PyErr_Occurred() && !PyErr_ExceptionMatches(PyExc_MemoryError)) {
        PyErr_Clear();
        t->refusal = "an error while instantiating";
    }
    free(sk.p);
    Py_XDECREF(mod);
    Py_XDECREF(linked);
    Py_XDECREF(consts);
    Py_XDECREF(body);
    return r;
}

/* The class piece text[0..n) with no def member (what hz_class_members does not take):
 * its body linked from its statements; a new reference, or NULL (an exception only on
 * out-of-memory). */
HZ_NO_COVERAGE static PyObject *linked_class(HzTemplates *t, const char *text, size_t n,
                                             const char *filename)
{
    PyObject *body = NULL, *r = NULL;
    Py_ssize_t at = 0;
    PyObject *mod = hz_class_linked(t->cb, t, text, n, filename, &body, &at);
    if (mod != NULL)
        r = with_body(mod, at, body);
    if (r == NULL && PyErr_Occurred() && !PyErr_ExceptionMatches(PyExc_MemoryError)) {
        PyErr_Clear();
        t->refusal = "an error while linking";
    }
    Py_XDECREF(mod);
    Py_XDECREF(body);
    return r;
}

HZ_NO_COVERAGE PyObject *hz_templates_code(HzTemplates *t, const char *text, size_t n,
                                           const char *filename)
{
    double t0 = hz_asm_cpu_now();
    double compile0 = t->stats.cpu_compile;
    t->stats.lookups++;
    t->refusal = "";
    /* the route is the text's alone (never the cache's), so a piece's code is too */
    HzClassMember m[HZ_MAX_MEMBERS];
    int k = hz_class_members(text, n, m, HZ_MAX_MEMBERS);
    PyObject *r = k > 0 ? class_code(t, text, n, filename, m, k) : NULL;
    if (k == 0 && t->cb != NULL && n > 0 && (text[0] == 'c' || text[0] == '@'))
        r = linked_class(t, text, n, filename);   /* NULL: not a class it links */
    if (k > 0)
        t->stats.classes++;
    if (k > 0 && r != NULL)
        t->stats.skeletons++;
    if (r == NULL && !PyErr_Occurred())   /* not a class, or one the skeleton route refuses */
        r = piece_code(t, text, n, filename);
    if (r == NULL && !PyErr_Occurred())
        t->stats.refused++;
    t->stats.cpu_instantiate += hz_asm_cpu_now() - t0 - (t->stats.cpu_compile - compile0);
    return r;
}
