/* hz_template_class.c: a class skeleton's body linked from the blocks of its statements.
 *
 * The skeleton route (hz_template.c) compiles a class with its methods' bodies cut
 * out, through the whole-piece templates. A skeleton's shape is the sequence of the
 * class's statements, and mutations recombine them: in a 2,000-exec fuzz loop 1,455
 * of the 1,756 templates compiled were skeletons. But a class body is straight-line
 * code -- its statements store names one after the other, with no jump and no
 * handler -- so its code is the prologue (`__module__`, `__qualname__`), each
 * statement's instructions in order and the return, its constants and names numbered
 * by first use. So each statement is made alone, as the body of `class NAME:` over
 * it (through the whole-piece templates: a function of its text), kept by its text,
 * and a skeleton's body is linked from its statements' instructions. What the
 * compiler decides for the whole body is refused (annotations, whose
 * SETUP_ANNOTATIONS opens the body; `global`; a string statement not first): the
 * skeleton then goes through its own template as before. The code is the skeleton's
 * up to layout, as any template's (hz_template.h); tests/cli/hz_template_test.c
 * (`equivalent`) compares it with the compile instruction by instruction. */
#include "hz_template.h"
#include "hz_assemble_int.h"   /* Buf, Span, Table, hz_asm_class_cut, hz_asm_fnv */
#include "hz_bytecode.h"
#include "hz_codecache.h"       /* HZ_NO_COVERAGE */

#include <opcode.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Statements and headers kept, direct-mapped by the hash of their text. */
#define HZ_CLASS_SLOTS 4096
#define HZ_CLASS_MAX_STMTS 256

typedef struct {
    uint64_t hash;
    char *key;          /* malloc'd: a statement's "NAME:\n" and text, or "\x01" and a header */
    size_t len;
    PyObject *code;     /* owned: a statement's wrapper body, a header's module code;
                         * Py_None: refused (the text has no template or is not linkable) */
    HzInstr *ins;       /* a statement's instructions, lines from 0 at its first */
    int n;
    int stacksize;
    bool cell;          /* it closes over the class's cell (LOAD_CLOSURE __class__) */
} CSlot;

struct HzClassBlocks {
    CSlot slots[HZ_CLASS_SLOTS];
    HzClassStats stats;
};

HZ_NO_COVERAGE HzClassBlocks *hz_class_blocks_new(void)
{
    HzClassBlocks *cb = calloc(1, sizeof *cb);
    if (cb == NULL)
        abort();
    return cb;
}

HZ_NO_COVERAGE static void slot_clear(CSlot *s)
{
    free(s->key);
    free(s->ins);
    Py_XDECREF(s->code);
    memset(s, 0, sizeof *s);
}

HZ_NO_COVERAGE void hz_class_blocks_free(HzClassBlocks *cb)
{
    if (cb == NULL)
        return;
    for (int i = 0; i < HZ_CLASS_SLOTS; i++)
        slot_clear(&cb->slots[i]);
    free(cb);
}

HZ_NO_COVERAGE HzClassStats hz_class_blocks_stats(const HzClassBlocks *cb)
{
    return cb->stats;
}

/* The slot of key: *found when it holds key, else emptied and keyed (NULL on
 * out-of-memory, with MemoryError set). */
HZ_NO_COVERAGE static CSlot *slot_of(HzClassBlocks *cb, const char *key, size_t len, bool *found)
{
    uint64_t h = hz_asm_fnv(key, len);
    CSlot *s = &cb->slots[h % HZ_CLASS_SLOTS];
    *found = s->key != NULL && s->hash == h && s->len == len && hz_asm_same(s->key, key, len);
    if (*found)
        return s;
    slot_clear(s);
    if ((s->key = malloc(len)) == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    memcpy(s->key, key, len);
    s->len = len;
    s->hash = h;
    return s;
}

HZ_NO_COVERAGE static bool name_is(PyCodeObject *co, const HzInstr *in, int op, const char *name)
{
    return in->op == op && in->arg < PyTuple_GET_SIZE(co->co_names) &&
           PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(co->co_names, in->arg), name) == 0;
}

/* Whether b[at..at+5) is a class body's prologue: RESUME, `__module__ = __name__`,
 * `__qualname__ = <str>`. */
HZ_NO_COVERAGE static bool is_prologue(PyCodeObject *co, const HzBytecode *b, int at)
{
    const HzInstr *in = b->ins + at;
    return at + 5 <= b->n && in[0].op == RESUME && name_is(co, &in[1], LOAD_NAME, "__name__") &&
           name_is(co, &in[2], STORE_NAME, "__module__") && in[3].op == LOAD_CONST &&
           PyUnicode_Check(PyTuple_GET_ITEM(co->co_consts, in[3].arg)) &&
           name_is(co, &in[4], STORE_NAME, "__qualname__");
}

/* What a statement's instructions may hold to be linked anywhere in a body: no jump,
 * nothing of the prologue or the return, no fast local, the cell only as a closure. */
HZ_NO_COVERAGE static bool linkable(const HzInstr *in, bool cell)
{
    if (hz_bc_is_jump(in->op))
        return false;
    switch (in->op) {
    case RESUME: case MAKE_CELL: case COPY_FREE_VARS: case SETUP_ANNOTATIONS:
    case RETURN_VALUE: case LOAD_FAST: case STORE_FAST: case DELETE_FAST:
    case LOAD_DEREF: case STORE_DEREF: case DELETE_DEREF: case LOAD_CLASSDEREF:
        return false;
    case LOAD_CLOSURE:
        return cell && in->arg == 0;
    default:
        return true;
    }
}

/* Fills the statement slot s from its wrapper's module code mod (borrowed): s->code
 * Py_None when the wrapper's body is not a prologue, a run of linkable instructions
 * and a return. 0, or -1 with an exception. */
HZ_NO_COVERAGE static int take_statement(CSlot *s, PyObject *mod)
{
    Py_ssize_t at;
    PyCodeObject *co = hz_only_code(mod, &at);
    HzBytecode b = {0};
    if (co == NULL || co->co_nlocals != 0 || co->co_nfreevars != 0 || co->co_ncellvars > 1) {
        s->code = Py_NewRef(Py_None);
        return 0;
    }
    if (hz_bc_decode(co, &b) < 0) {
        hz_bc_clear(&b);
        if (PyErr_Occurred())
            return -1;
        s->code = Py_NewRef(Py_None);
        return 0;
    }
    bool cell = co->co_ncellvars == 1;
    int lo = cell ? 1 : 0, hi = b.n - (cell ? 4 : 2);   /* the statement: [lo + 5, hi) */
    bool ok = b.nexc == 0 && hi >= lo + 5 &&
              (!cell || (b.ins[0].op == MAKE_CELL && b.ins[0].arg == 0)) && is_prologue(co, &b, lo);
    const HzInstr *e = ok ? b.ins + hi : NULL;   /* the return */
    if (ok && cell)
        ok = e[0].op == LOAD_CLOSURE && e[0].arg == 0 && e[1].op == COPY && e[1].arg == 1 &&
             name_is(co, &e[2], STORE_NAME, "__classcell__") && e[3].op == RETURN_VALUE;
    else if (ok)
        ok = e[0].op == LOAD_CONST && PyTuple_GET_ITEM(co->co_consts, e[0].arg) == Py_None &&
             e[1].op == RETURN_VALUE;
    lo += 5;
    for (int i = lo; ok && i < hi; i++)
        ok = linkable(&b.ins[i], cell);
    if (!ok) {
        hz_bc_clear(&b);
        s->code = Py_NewRef(Py_None);
        return 0;
    }
    s->n = hi - lo;
    s->ins = malloc(((size_t)s->n + 1) * sizeof *s->ins);
    if (s->ins == NULL) {
        hz_bc_clear(&b);
        PyErr_NoMemory();
        return -1;
    }
    for (int i = 0; i < s->n; i++) {
        HzInstr in = b.ins[lo + i];
        if (in.loc.line >= 0) {   /* the wrapper's statement starts on its line 2 */
            in.loc.line -= 2;
            in.loc.endline -= 2;
        }
        s->ins[i] = in;
    }
    hz_bc_clear(&b);
    s->code = Py_NewRef((PyObject *)co);
    s->stacksize = co->co_stacksize;
    s->cell = cell;
    return 0;
}

/* The slot keyed by w->p[key_at..), made when new from the module code of the piece
 * w->p[text_at..) (a statement's wrapper: its class body taken by take_statement; a
 * header: the module code itself); NULL with an exception. Frees w->p. */
HZ_NO_COVERAGE static CSlot *made(HzClassBlocks *cb, HzTemplates *t, Buf *w, size_t key_at,
                                  size_t text_at, bool statement, const char *filename)
{
    bool found = false;
    CSlot *s = w->failed ? (CSlot *)PyErr_NoMemory() : slot_of(cb, w->p + key_at, w->n - key_at, &found);
    if (s != NULL && !found) {
        PyObject *mod = hz_templates_piece(t, w->p + text_at, w->n - text_at, filename);
        int rc = 0;
        if (mod == NULL)
            rc = PyErr_Occurred() ? -1 : 0;
        else if (statement)
            rc = take_statement(s, mod);
        else
            s->code = Py_NewRef(mod);
        if (rc == 0 && s->code == NULL)
            s->code = Py_NewRef(Py_None);   /* no template: refused, and kept so */
        Py_XDECREF(mod);
        if (rc < 0) {
            slot_clear(s);
            s = NULL;
        }
    }
    if (s != NULL && statement && found)
        cb->stats.found++;
    else if (s != NULL && statement)
        cb->stats.made++;
    free(w->p);
    return s;
}

/* The slot of statement text[0..n) of class name[0..nlen): its wrapper `class NAME:`
 * over it, kept by the name and the text. */
HZ_NO_COVERAGE static CSlot *statement(HzClassBlocks *cb, HzTemplates *t, const char *name,
                                       size_t nlen, const char *text, size_t n,
                                       const char *filename)
{
    Buf w = {0};
    hz_asm_buf_add(&w, "class ", 6);
    hz_asm_buf_add(&w, name, nlen);
    hz_asm_buf_add(&w, ":\n", 2);
    hz_asm_buf_add(&w, text, n);
    if (n == 0 || text[n - 1] != '\n')
        hz_asm_buf_add(&w, "\n", 1);
    return made(cb, t, &w, 6, 0, true, filename);
}

/* The slot of the header text[0..n) (decorators and `class NAME(...):`): the module
 * code of the header over `pass`, kept by the header (tagged apart from statements). */
HZ_NO_COVERAGE static CSlot *header(HzClassBlocks *cb, HzTemplates *t, const char *text,
                                    size_t n, const char *filename)
{
    Buf w = {0};
    hz_asm_buf_add(&w, "\x01", 1);
    hz_asm_buf_add(&w, text, n);
    hz_asm_buf_add(&w, "    pass\n", 9);
    return made(cb, t, &w, 0, 1, false, filename);
}

/* Appends in, its constant or name argument numbered in the body being linked (co's
 * tables to the linked ones); 0, or -1 with an exception. */
HZ_NO_COVERAGE static int link_instr(HzBytecode *out, Table *consts, Table *names,
                                     PyCodeObject *co, HzInstr in)
{
    int j = 0;
    PyObject *v;
    switch (in.op) {
    case LOAD_CONST: case KW_NAMES:
        v = PyTuple_GET_ITEM(co->co_consts, in.arg);
        /* a code object is a def's own: the compile never merges two (their first
         * lines differ), while two stubs made alone can be equal (code compares by
         * value) or one (the same statement text twice) */
        if (PyCode_Check(v))
            j = PyList_Append(consts->list, v) < 0 ? -1 : (int)PyList_GET_SIZE(consts->list) - 1;
        else
            j = hz_asm_table_add(consts, v, NULL);
        if (j < 0)
            return -1;
        in.arg = j;
        break;
    case LOAD_GLOBAL:
        if ((j = hz_asm_table_add(names, PyTuple_GET_ITEM(co->co_names, in.arg >> 1),
                                  PyTuple_GET_ITEM(co->co_names, in.arg >> 1))) < 0)
            return -1;
        in.arg = (j << 1) | (in.arg & 1);
        break;
    case STORE_NAME: case DELETE_NAME: case LOAD_NAME: case STORE_ATTR: case DELETE_ATTR:
    case STORE_GLOBAL: case DELETE_GLOBAL: case LOAD_ATTR: case IMPORT_NAME:
    case IMPORT_FROM: case LOAD_METHOD: {
        PyObject *nm = PyTuple_GET_ITEM(co->co_names, in.arg);
        if ((j = hz_asm_table_add(names, nm, nm)) < 0)
            return -1;
        in.arg = j;
        break;
    }
    default:
        break;
    }
    return hz_bc_push(out, &in);
}

/* The body of the class whose header's body is hb, linked from its statements
 * blk[0..k) at 0-based lines sp[i].line: a new reference, or NULL with an exception. */
HZ_NO_COVERAGE static PyObject *link_body(PyCodeObject *hb, CSlot **blk, const Span *sp, int k)
{
    HzBytecode hbc = {0}, out = {0};
    Table consts = {0}, names = {0};
    PyObject *r = NULL, *code = NULL, *lt = NULL, *et = NULL, *ct = NULL, *nt = NULL;
    PyObject *empty = NULL, *cells = NULL, *classcell = NULL;
    if (hz_bc_decode(hb, &hbc) < 0 || !is_prologue(hb, &hbc, 0)) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_SystemError, "a class header's body without its prologue");
        goto done;
    }
    if (hz_asm_table_init(&consts) < 0 || hz_asm_table_init(&names) < 0)
        goto done;
    bool cell = false;
    int stacksize = 1;
    for (int i = 0; i < k; i++) {
        cell = cell || blk[i]->cell;
        stacksize = blk[i]->stacksize > stacksize ? blk[i]->stacksize : stacksize;
    }
    if (cell) {
        HzInstr mc = {.op = MAKE_CELL, .arg = 0, .loc = {-1, -1, -1, -1}};
        if (hz_bc_push(&out, &mc) < 0)
            goto done;
        stacksize = stacksize < 2 ? 2 : stacksize;
    }
    for (int i = 0; i < 5; i++)
        if (link_instr(&out, &consts, &names, hb, hbc.ins[i]) < 0)
            goto done;
    for (int i = 0; i < k; i++) {
        PyCodeObject *co = (PyCodeObject *)blk[i]->code;
        for (int j = 0; j < blk[i]->n; j++) {
            HzInstr in = blk[i]->ins[j];
            if (in.loc.line >= 0) {
                in.loc.line += sp[i].line + 1;
                in.loc.endline += sp[i].line + 1;
            }
            if (link_instr(&out, &consts, &names, co, in) < 0)
                goto done;
        }
    }
    HzLoc end = out.ins[out.n - 1].loc;   /* the return is where the last statement ends */
    if (cell) {
        classcell = PyUnicode_InternFromString("__classcell__");
        int j = classcell != NULL ? hz_asm_table_add(&names, classcell, classcell) : -1;
        HzInstr ep[4] = {{.op = LOAD_CLOSURE, .arg = 0, .loc = end},
                         {.op = COPY, .arg = 1, .loc = end},
                         {.op = STORE_NAME, .arg = j, .loc = end},
                         {.op = RETURN_VALUE, .arg = 0, .loc = end}};
        for (int i = 0; j >= 0 && i < 4; i++)
            if (hz_bc_push(&out, &ep[i]) < 0)
                j = -1;
        if (j < 0)
            goto done;
    }
    else {
        int j = hz_asm_table_add(&consts, Py_None, NULL);
        HzInstr ep[2] = {{.op = LOAD_CONST, .arg = j, .loc = end},
                         {.op = RETURN_VALUE, .arg = 0, .loc = end}};
        if (j < 0 || hz_bc_push(&out, &ep[0]) < 0 || hz_bc_push(&out, &ep[1]) < 0)
            goto done;
    }
    if (hz_bc_encode(&out, hb->co_firstlineno, &code, &lt, &et) < 0 ||
        (ct = PyList_AsTuple(consts.list)) == NULL || (nt = PyList_AsTuple(names.list)) == NULL ||
        (empty = PyTuple_New(0)) == NULL)
        goto done;
    if (cell) {
        PyObject *c = PyUnicode_InternFromString("__class__");
        cells = c != NULL ? PyTuple_Pack(1, c) : NULL;
        Py_XDECREF(c);
        if (cells == NULL)
            goto done;
    }
    r = (PyObject *)PyCode_NewWithPosOnlyArgs(
        0, 0, 0, 0, stacksize, hb->co_flags, code, ct, nt, empty, empty,
        cells != NULL ? cells : empty, hb->co_filename, hb->co_name, hb->co_qualname,
        hb->co_firstlineno, lt, et);
done:
    hz_bc_clear(&hbc);
    hz_bc_clear(&out);
    hz_asm_table_clear(&consts);
    hz_asm_table_clear(&names);
    Py_XDECREF(code);
    Py_XDECREF(lt);
    Py_XDECREF(et);
    Py_XDECREF(ct);
    Py_XDECREF(nt);
    Py_XDECREF(empty);
    Py_XDECREF(cells);
    Py_XDECREF(classcell);
    return r;
}

HZ_NO_COVERAGE PyObject *hz_class_linked(HzClassBlocks *cb, HzTemplates *t, const char *text,
                                         size_t n, const char *filename, PyObject **body,
                                         Py_ssize_t *body_at)
{
    Span sp[HZ_CLASS_MAX_STMTS];
    size_t header_end = 0;
    const char *refusal = "";
    *body = NULL;
    int k = hz_asm_class_cut(&refusal, text, n, &header_end, sp, HZ_CLASS_MAX_STMTS);
    if (k <= 0)
        return NULL;
    /* the class's name: the word after `class` (the first line not a decorator) */
    const char *cls = text;
    while (*cls == '@' && (cls = memchr(cls, '\n', (size_t)(text + header_end - cls))) != NULL)
        cls++;
    if (cls == NULL || cls + 6 > text + header_end)
        return NULL;
    cls += 6;
    while (*cls == ' ')
        cls++;
    size_t nlen = 0;
    while (cls + nlen < text + header_end &&
           (cls[nlen] == '_' || (cls[nlen] >= 'a' && cls[nlen] <= 'z') ||
            (cls[nlen] >= 'A' && cls[nlen] <= 'Z') || (cls[nlen] >= '0' && cls[nlen] <= '9')))
        nlen++;
    if (nlen == 0)
        return NULL;
    CSlot *blk[HZ_CLASS_MAX_STMTS];
    uint64_t hash[HZ_CLASS_MAX_STMTS];
    for (int i = 0; i < k; i++) {
        blk[i] = statement(cb, t, cls, nlen, text + sp[i].start, sp[i].end - sp[i].start, filename);
        if (blk[i] == NULL)
            return NULL;
        if (blk[i]->code == Py_None) {
            cb->stats.refused++;
            return NULL;
        }
        hash[i] = blk[i]->hash;
    }
    /* after the statements: making them may have evicted the header's slot */
    CSlot *h = header(cb, t, text, header_end, filename);
    if (h == NULL)
        return NULL;
    Py_ssize_t at = 0;
    PyCodeObject *hb = h->code != Py_None ? hz_only_code(h->code, &at) : NULL;
    if (hb == NULL) {
        cb->stats.refused++;
        return NULL;
    }
    PyObject *mod = Py_NewRef(h->code);   /* before linking: a statement may share h's slot */
    /* two of the class's texts in one slot: the earlier was evicted (the same texts
     * always collide, so this refusal is the text's, not the cache's) */
    for (int i = 0; i < k; i++)
        if (blk[i] == h || blk[i]->hash != hash[i]) {
            Py_DECREF(mod);
            cb->stats.refused++;
            return NULL;
        }
    *body = link_body(hb, blk, sp, k);
    if (*body == NULL) {
        Py_DECREF(mod);
        return NULL;
    }
    *body_at = at;
    cb->stats.linked++;
    return mod;
}
