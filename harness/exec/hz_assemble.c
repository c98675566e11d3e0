/* hz_assemble.c: a def piece's code from per-statement blocks (see hz_assemble.h):
 * the block cache, the wrappers, the stub and the module code here; the cut in
 * hz_assemble_cut.c, the linking of blocks in hz_assemble_link.c.
 *
 * The cut (hz_asm_cut): the piece's logical lines (brackets, strings, backslash
 * continuations and comments followed by a small scanner) are the decorators and
 * the `def` line(s) up to the colon, an optional docstring, leading `global`
 * statements, then statements: logical lines at the body's indentation, with the
 * deeper ones and `else`/`elif`/`except`/`finally` at that indentation belonging to
 * the statement before.
 *
 * The blocks (block_text): statement k is compiled as
 *
 *     def __tf_stmt__(<parameters>[, <extra locals>]):
 *         <the docstring>               (keeps co_consts[0] what it is in the whole)
 *         global <the globals>, __tf_stmt_end__
 *         <statement k>
 *         __tf_stmt_end__ = '\x00tf-end'; __tf_stmt_end__ = '\x00tf-end'
 *
 * The sentinel line after all but the last statement keeps the statement's end
 * from being the function's end (compile.c's exit handling would otherwise make it
 * a `return None`); its 6 instructions are more than the 4 an exit block may have
 * to be copied into a jump (extend_block), its stack use is 1 (no more than any
 * function's `return`), and its constant marks the end of the constants the
 * statement's code generation added: the constants after it are the ones the
 * optimiser folded (tuples), which the whole compile numbers after all others. The
 * last statement is compiled without sentinel, so its tail is the function's.
 * A name bound in some statement is a local of the whole function, but a statement
 * that only reads it would compile it as a global: those names are found from the
 * blocks and the statement is compiled again with them as extra parameters, which
 * makes them locals without emitting code. Blocks and header stubs are cached by
 * their text in one bounded table.
 *
 * The assembly (hz_asm_add_block per block): RESUME of the stub (the real header with body `pass`),
 * then each block's instructions without its RESUME and sentinel; jumps to the
 * sentinel go to the next statement's first instruction; constants, names and
 * locals renumbered in first-use order by statement (constants by
 * _PyCode_ConstantKey; folded constants after all others; trailing unused ones
 * trimmed as trim_unused_consts does); line numbers shifted from the wrapper's to
 * the file's; hz_bc_encode writes the tables. The module code is the stub's with
 * its function constant replaced. */
#include "hz_assemble.h"
#include "hz_assemble_int.h"
#include "hz_codecache.h"

#include <opcode.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Statement blocks kept: program() has ~15-35 statements, and the fuzz loop's inputs
 * come from all over its corpus (see docs/PERFORMANCE.md for the hit rates and RSS). */
#define HZ_BLOCK_SLOTS 4096
typedef struct {
    uint64_t hash;
    char *key;         /* malloc'd; NULL for an empty slot */
    size_t len;
    PyObject *code;    /* owned: a block's function code, or a stub's module code */
} Slot;

struct HzAssembler {
    Slot slots[HZ_BLOCK_SLOTS];
    HzAssembleStats stats;
    const char *refusal;
};

/* ---- the block cache ---- */

HZ_NO_COVERAGE static uint64_t fnv(const char *s, size_t n)
{
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
    return h;
}

HZ_NO_COVERAGE HzAssembler *hz_assembler_new(void)
{
    HzAssembler *a = calloc(1, sizeof *a);
    if (a == NULL)
        abort();
    a->refusal = "";
    return a;
}

HZ_NO_COVERAGE void hz_assembler_free(HzAssembler *a)
{
    if (a == NULL)
        return;
    for (int i = 0; i < HZ_BLOCK_SLOTS; i++) {
        free(a->slots[i].key);
        Py_CLEAR(a->slots[i].code);
    }
    free(a);
}

HZ_NO_COVERAGE HzAssembleStats hz_assembler_stats(const HzAssembler *a)
{
    return a->stats;
}

HZ_NO_COVERAGE const char *hz_assembler_last_refusal(const HzAssembler *a)
{
    return a->refusal;
}

/* Returns a new reference to the code for key (the source compiled, padded with
 * pad newlines, as filename), from the cache or compiled and stored; NULL without
 * an exception when it does not compile, NULL with one on out-of-memory. */
HZ_NO_COVERAGE static PyObject *cached_compile(HzAssembler *a, const char *key, size_t len,
                                               const char *src, int pad, const char *filename,
                                               bool function)
{
    uint64_t h = fnv(key, len);
    Slot *s = &a->slots[h % HZ_BLOCK_SLOTS];
    a->stats.blocks++;
    if (s->key != NULL && s->hash == h && s->len == len && memcmp(s->key, key, len) == 0) {
        a->stats.block_hits++;
        return Py_NewRef(s->code);
    }
    size_t n = strlen(src);
    char *buf = malloc((size_t)pad + n + 1);
    if (buf == NULL)
        return PyErr_NoMemory();
    memset(buf, '\n', (size_t)pad);
    memcpy(buf + pad, src, n + 1);
    PyObject *mod = Py_CompileStringExFlags(buf, filename, Py_file_input, NULL, 0);   /* new */
    free(buf);
    if (mod == NULL) {
        if (PyErr_ExceptionMatches(PyExc_MemoryError))
            return NULL;
        PyErr_Clear();
        return NULL;
    }
    PyObject *code = mod;
    if (function) {   /* the wrapper's code: the module's one code constant */
        PyObject *consts = ((PyCodeObject *)mod)->co_consts;
        code = NULL;
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(consts); i++)
            if (PyCode_Check(PyTuple_GET_ITEM(consts, i)))
                code = Py_NewRef(PyTuple_GET_ITEM(consts, i));
        Py_DECREF(mod);
        if (code == NULL)
            return NULL;
    }
    char *k = malloc(len);
    if (k == NULL)
        return code;   /* used, not cached */
    memcpy(k, key, len);
    free(s->key);
    Py_XSETREF(s->code, Py_NewRef(code));
    s->key = k;
    s->len = len;
    s->hash = h;
    return code;
}
/* ---- the blocks ---- */

/* A piece being assembled: its text, cut, file and parameters. */
typedef struct {
    const char *text;
    size_t n;
    const Cut *cut;
    const char *filename;   /* for the compiler's warnings only: not in the block key */
    PyObject *params;   /* borrowed: the stub's parameter names (a tuple) */
} Piece;

/* Writes the wrapper of statement k into b; *wline = its first line there. extras:
 * a list of str or NULL. */
HZ_NO_COVERAGE static void block_text(const Piece *pc, int k, PyObject *extras, bool sentinel,
                                      Buf *b, int *wline)
{
    const Cut *cut = pc->cut;
    const Span *st = &cut->stmts[k];
    char ind[64];
    int w = cut->indent < 60 ? cut->indent : 60;
    memset(ind, ' ', (size_t)w);
    ind[w] = '\0';
    hz_asm_buf_str(b, "def __tf_stmt__(");
    Py_ssize_t np = PyTuple_GET_SIZE(pc->params);
    for (Py_ssize_t i = 0; i < np; i++) {
        hz_asm_buf_pyname(b, PyTuple_GET_ITEM(pc->params, i));
        hz_asm_buf_str(b, ", ");
    }
    for (Py_ssize_t i = 0; extras != NULL && i < PyList_GET_SIZE(extras); i++) {
        hz_asm_buf_pyname(b, PyList_GET_ITEM(extras, i));
        hz_asm_buf_str(b, ", ");
    }
    hz_asm_buf_str(b, "):\n");
    *wline = 2;
    if (cut->doc.end > cut->doc.start) {
        hz_asm_buf_add(b, pc->text + cut->doc.start, cut->doc.end - cut->doc.start);
        *wline += (int)hz_asm_count_lines(pc->text + cut->doc.start, cut->doc.end - cut->doc.start);
    }
    hz_asm_buf_str(b, ind);
    hz_asm_buf_str(b, "global ");
    if (cut->globals.n > 0)
        hz_asm_buf_add(b, cut->globals.p, cut->globals.n);
    hz_asm_buf_str(b, SENTINEL "\n");
    (*wline)++;
    hz_asm_buf_add(b, pc->text + st->start, st->end - st->start);
    if (st->end == st->start || pc->text[st->end - 1] != '\n')
        hz_asm_buf_str(b, "\n");
    if (sentinel) {
        hz_asm_buf_str(b, ind);
        hz_asm_buf_str(b, SENTINEL " = " MARK_SRC "; " SENTINEL " = " MARK_SRC "\n");
    }
}

/* Returns a new reference to statement k's block (a function code object) and sets
 * *wline; NULL without an exception when it does not compile. */
HZ_NO_COVERAGE static PyCodeObject *get_block(HzAssembler *a, const Piece *pc, int k,
                                              PyObject *extras, bool sentinel, int *wline)
{
    Buf b = {0};
    block_text(pc, k, extras, sentinel, &b, wline);
    if (b.failed) {
        free(b.p);
        PyErr_NoMemory();
        return NULL;
    }
    PyObject *code = cached_compile(a, b.p, b.n, b.p, 0, pc->filename, true);
    free(b.p);
    return (PyCodeObject *)code;
}

/* The names block co reads or writes as globals (a new set), or NULL on error. */
HZ_NO_COVERAGE static PyObject *global_names(PyCodeObject *co)
{
    HzBytecode b = {0};
    PyObject *set = PySet_New(NULL);
    if (set == NULL || hz_bc_decode(co, &b) < 0) {
        hz_bc_clear(&b);
        Py_XDECREF(set);
        return NULL;
    }
    for (int i = 0; i < b.n; i++) {
        int op = b.ins[i].op, arg = b.ins[i].arg;
        if (op == LOAD_GLOBAL)
            arg >>= 1;
        else if (op != STORE_GLOBAL && op != DELETE_GLOBAL)
            continue;
        if (arg >= PyTuple_GET_SIZE(co->co_names) ||
            PySet_Add(set, PyTuple_GET_ITEM(co->co_names, arg)) < 0) {
            Py_CLEAR(set);
            break;
        }
    }
    hz_bc_clear(&b);
    return set;
}

HZ_NO_COVERAGE static PyCodeObject *stub_function(HzAssembler *a, PyCodeObject *mod, Py_ssize_t *at)
{
    PyCodeObject *fn = NULL;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(mod->co_consts); i++) {
        PyObject *c = PyTuple_GET_ITEM(mod->co_consts, i);
        if (PyCode_Check(c)) {
            if (fn != NULL) {
                a->refusal = "the header holds code";
                return NULL;
            }
            fn = (PyCodeObject *)c;
            *at = i;
        }
    }
    if (fn == NULL) {
        a->refusal = "no function in the stub";
        return NULL;
    }
    if (fn->co_ncellvars != 0 || fn->co_nfreevars != 0 ||
        (fn->co_flags & (CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR |
                         CO_ITERABLE_COROUTINE)) != 0) {
        a->refusal = "the function has cells or is a generator";
        return NULL;
    }
    return (PyCodeObject *)Py_NewRef(fn);
}

HZ_NO_COVERAGE PyObject *hz_assemble_piece(HzAssembler *a, const char *text, size_t n, int line,
                                           const char *filename)
{
    Cut cut = {0};
    Buf stub = {0}, key = {0};
    PyObject *result = NULL, *stubmod = NULL, *U = NULL, *params = NULL;
    PyCodeObject *fn = NULL, **codes = NULL;
    PyObject **extras = NULL;
    int *wlines = NULL, N = 0;
    Asm s = {0};
    PyObject *code = NULL, *lt = NULL, *et = NULL, *consts = NULL, *names = NULL, *vn = NULL;
    PyObject *fcode = NULL, *mconsts = NULL;
    a->stats.pieces++;
    a->refusal = "";
    if (memmem(text, n, "__tf_", 5) != NULL || memmem(text, n, "tf-end", 6) != NULL) {
        a->refusal = "the piece spells the assembler's own names";
        goto done;
    }
    if (hz_asm_cut(&a->refusal, text, n, &cut) < 0)
        goto done;
    N = cut.nstmts;
    /* the stub: the header, docstring and globals over `pass`, at the piece's line */
    char ind[64];
    int w = cut.indent < 60 ? cut.indent : 60;
    memset(ind, ' ', (size_t)w);
    ind[w] = '\0';
    hz_asm_buf_add(&stub, text, cut.header_end);
    if (cut.doc.end > cut.doc.start)
        hz_asm_buf_add(&stub, text + cut.doc.start, cut.doc.end - cut.doc.start);
    if (cut.globals.n > 2) {
        hz_asm_buf_str(&stub, ind);
        hz_asm_buf_str(&stub, "global ");
        hz_asm_buf_add(&stub, cut.globals.p, cut.globals.n - 2);
        hz_asm_buf_str(&stub, "\n");
    }
    /* the def statement's end position is part of the module code's locations:
     * the stub's body, a name, ends where the real body ends */
    int stub_lines = (int)hz_asm_count_lines(stub.p != NULL ? stub.p : "", stub.n);
    if (stub_lines > cut.end_line || cut.end_col <= w) {
        a->refusal = "the body ends where the stub cannot";
        goto done;
    }
    for (int i = stub_lines; i < cut.end_line; i++)
        hz_asm_buf_str(&stub, "\n");
    hz_asm_buf_str(&stub, ind);
    for (int i = w; i < cut.end_col; i++)
        hz_asm_buf_str(&stub, "_");
    hz_asm_buf_str(&stub, "\n");
    char lbuf[32];
    snprintf(lbuf, sizeof lbuf, "\x01%d\x01", line);
    hz_asm_buf_str(&key, "\x01stub\x01");
    hz_asm_buf_str(&key, filename);
    hz_asm_buf_str(&key, lbuf);
    if (stub.p != NULL)
        hz_asm_buf_str(&key, stub.p);
    if (stub.failed || key.failed) {
        PyErr_NoMemory();
        goto done;
    }
    stubmod = cached_compile(a, key.p, key.n, stub.p, line - 1, filename, false);
    if (stubmod == NULL) {
        a->refusal = "the header does not compile with body pass";
        goto done;
    }
    Py_ssize_t fn_at = 0;
    fn = stub_function(a, (PyCodeObject *)stubmod, &fn_at);
    if (fn == NULL)
        goto done;
    PyObject *doc = PyTuple_GET_ITEM(fn->co_consts, 0);
    if ((cut.doc.end > cut.doc.start) != (PyUnicode_Check(doc) != 0)) {
        a->refusal = "the docstring is not what the cut took";
        goto done;
    }
    int nparams = fn->co_argcount + fn->co_kwonlyargcount + !!(fn->co_flags & CO_VARARGS) +
                  !!(fn->co_flags & CO_VARKEYWORDS);
    params = PyTuple_GetSlice(fn->co_localsplusnames, 0, nparams);
    if (params == NULL)
        goto done;
    Piece pc = {text, n, &cut, filename, params};
    /* the blocks, then again with extra locals where a statement reads one that
     * another binds */
    codes = calloc((size_t)N, sizeof *codes);
    extras = calloc((size_t)N, sizeof *extras);
    wlines = calloc((size_t)N, sizeof *wlines);
    U = PySet_New(NULL);
    if (codes == NULL || extras == NULL || wlines == NULL || U == NULL) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        goto done;
    }
    for (int k = 0; k < N; k++) {
        codes[k] = get_block(a, &pc, k, NULL, k < N - 1, &wlines[k]);
        if (codes[k] == NULL) {
            a->refusal = "a statement does not compile alone";
            goto done;
        }
        PyCodeObject *co = codes[k];
        int flags_mask = ~(CO_VARARGS | CO_VARKEYWORDS);
        if (co->co_ncellvars != 0 || co->co_nfreevars != 0 ||
            (co->co_flags & flags_mask) != (fn->co_flags & flags_mask)) {
            a->refusal = "a statement makes cells or changes the flags";
            goto done;
        }
        for (Py_ssize_t i = nparams; i < PyTuple_GET_SIZE(co->co_localsplusnames); i++)
            if (PySet_Add(U, PyTuple_GET_ITEM(co->co_localsplusnames, i)) < 0)
                goto done;
    }
    for (int k = 0; k < N; k++) {
        PyObject *g = global_names(codes[k]);   /* new */
        if (g == NULL) {
            if (!PyErr_Occurred())
                a->refusal = "a block's tables do not decode";
            goto done;
        }
        PyObject *both = PyNumber_And(g, U);
        Py_DECREF(g);
        if (both == NULL)
            goto done;
        if (PySet_GET_SIZE(both) > 0) {
            extras[k] = PySequence_List(both);
            if (extras[k] == NULL || PyList_Sort(extras[k]) < 0) {
                Py_DECREF(both);
                goto done;
            }
            Py_SETREF(codes[k], get_block(a, &pc, k, extras[k], k < N - 1, &wlines[k]));
            if (codes[k] == NULL) {
                Py_DECREF(both);
                a->refusal = "a statement does not compile with its extra locals";
                goto done;
            }
        }
        Py_DECREF(both);
    }
    /* the assembly */
    if (hz_asm_table_init(&s.consts) < 0 || hz_asm_table_init(&s.names) < 0 || hz_asm_table_init(&s.varnames) < 0 ||
        (s.folded = PyList_New(0)) == NULL)
        goto done;
    if (hz_asm_table_add(&s.consts, doc, NULL) < 0)
        goto done;
    for (int i = 0; i < nparams; i++)
        if (hz_asm_table_add(&s.varnames, PyTuple_GET_ITEM(params, i), PyTuple_GET_ITEM(params, i)) < 0)
            goto done;
    s.stacksize = fn->co_stacksize;
    {
        HzBytecode sb = {0};
        if (hz_bc_decode(fn, &sb) < 0 || sb.n < 1 || sb.ins[0].op != RESUME) {
            hz_bc_clear(&sb);
            if (!PyErr_Occurred())
                a->refusal = "the stub does not start with RESUME";
            goto done;
        }
        HzInstr resume = sb.ins[0];
        hz_bc_clear(&sb);
        if (hz_bc_push(&s.out, &resume) < 0)
            goto done;
        s.cobj = calloc(512, sizeof *s.cobj);
        if (s.cobj == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        s.cobj_cap = 512;
        s.cobj[0] = NULL;
    }
    for (int k = 0; k < N; k++) {
        const Span *st = &cut.stmts[k];
        bool last = k == N - 1;
        Py_ssize_t cg_end = PyTuple_GET_SIZE(codes[k]->co_consts);
        if (last) {
            /* the folded constants of the last statement are told apart by compiling it
             * with the sentinel too (only when it has tuples, the one kind folded) */
            bool tuples = false;
            for (Py_ssize_t i = 1; i < cg_end; i++)
                tuples = tuples || PyTuple_CheckExact(PyTuple_GET_ITEM(codes[k]->co_consts, i));
            if (tuples) {
                int w2;
                PyCodeObject *co2 = get_block(a, &pc, k, extras[k], true, &w2);
                if (co2 == NULL) {
                    a->refusal = "the last statement does not compile with a sentinel";
                    goto done;
                }
                Py_ssize_t m = hz_asm_mark_index(co2);
                if (m >= 0 && m <= cg_end) {
                    bool same = true;
                    for (Py_ssize_t i = 1; same && i < m; i++) {
                        PyObject *k1 = _PyCode_ConstantKey(PyTuple_GET_ITEM(co2->co_consts, i));
                        PyObject *k2 = k1 ? _PyCode_ConstantKey(PyTuple_GET_ITEM(codes[k]->co_consts, i)) : NULL;
                        int eq = k2 ? PyObject_RichCompareBool(k1, k2, Py_EQ) : -1;
                        Py_XDECREF(k1);
                        Py_XDECREF(k2);
                        if (eq < 0) {
                            Py_DECREF(co2);
                            goto done;
                        }
                        same = eq == 1;
                    }
                    cg_end = m;
                    if (!same) {
                        Py_DECREF(co2);
                        a->refusal = "the last statement's constants differ with a sentinel";
                        goto done;
                    }
                }
                Py_DECREF(co2);
            }
        }
        size_t len = st->end - st->start;
        size_t nlines = hz_asm_count_lines(text + st->start, len) +
                        (len > 0 && text[st->end - 1] != '\n');
        int r = hz_asm_add_block(&a->refusal, &s, codes[k], wlines[k], (int)nlines, line + st->line, extras[k],
                          last, cg_end, nparams);
        if (r != 0)
            goto done;
        /* jumps to this block's end (the sentinel) already point at out.n: the
         * next block's first instruction */
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(s.folded); i++)
        if (hz_asm_table_add(&s.consts, PyList_GET_ITEM(s.folded, i), NULL) < 0)
            goto done;
    /* constant numbers, then trailing unused constants trimmed (trim_unused_consts) */
    int maxc = 0;
    for (int i = 0; i < s.out.n; i++) {
        if (s.cobj[i] == NULL)
            continue;
        int j = hz_asm_table_add(&s.consts, s.cobj[i], NULL);
        if (j < 0)
            goto done;
        s.out.ins[i].arg = j;
        if (j > maxc)
            maxc = j;
    }
    consts = PyList_GetSlice(s.consts.list, 0, maxc + 1);
    if (consts == NULL)
        goto done;
    Py_SETREF(consts, PyList_AsTuple(consts));
    names = consts ? PyList_AsTuple(s.names.list) : NULL;
    vn = names ? PyList_AsTuple(s.varnames.list) : NULL;
    if (vn == NULL || hz_bc_encode(&s.out, fn->co_firstlineno, &code, &lt, &et) < 0)
        goto done;
    PyObject *empty = PyTuple_New(0);
    if (empty == NULL)
        goto done;
    fcode = (PyObject *)PyCode_NewWithPosOnlyArgs(
        fn->co_argcount, fn->co_posonlyargcount, fn->co_kwonlyargcount,
        (int)PyTuple_GET_SIZE(vn), s.stacksize, fn->co_flags, code, consts, names, vn, empty,
        empty, fn->co_filename, fn->co_name, fn->co_qualname, fn->co_firstlineno, lt, et);
    Py_DECREF(empty);
    if (fcode == NULL)
        goto done;
    /* the module code: the stub's with the function replaced */
    PyObject *old = ((PyCodeObject *)stubmod)->co_consts;
    mconsts = PyTuple_New(PyTuple_GET_SIZE(old));   /* a copy: the stub stays cached */
    if (mconsts == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(old); i++)
        PyTuple_SET_ITEM(mconsts, i, Py_NewRef(i == fn_at ? fcode : PyTuple_GET_ITEM(old, i)));
    PyObject *replace = PyObject_GetAttrString(stubmod, "replace");
    PyObject *kw = replace ? Py_BuildValue("{sO}", "co_consts", mconsts) : NULL;
    PyObject *args = kw ? PyTuple_New(0) : NULL;
    result = args ? PyObject_Call(replace, args, kw) : NULL;
    Py_XDECREF(replace);
    Py_XDECREF(kw);
    Py_XDECREF(args);
    if (result != NULL)
        a->stats.assembled++;
done:
    if (result == NULL && *a->refusal == '\0' && !PyErr_Occurred())
        a->refusal = "an error";
    if (result == NULL && PyErr_Occurred())
        a->refusal = "an error";
    free(cut.stmts);
    free(cut.globals.p);
    free(stub.p);
    free(key.p);
    for (int k = 0; codes != NULL && k < N; k++)
        Py_XDECREF(codes[k]);
    for (int k = 0; extras != NULL && k < N; k++)
        Py_XDECREF(extras[k]);
    free(codes);
    free(extras);
    free(wlines);
    hz_bc_clear(&s.out);
    free(s.cobj);
    hz_asm_table_clear(&s.consts);
    hz_asm_table_clear(&s.names);
    hz_asm_table_clear(&s.varnames);
    Py_XDECREF(s.folded);
    Py_XDECREF(stubmod);
    Py_XDECREF(fn);
    Py_XDECREF(U);
    Py_XDECREF(params);
    Py_XDECREF(code);
    Py_XDECREF(lt);
    Py_XDECREF(et);
    Py_XDECREF(consts);
    Py_XDECREF(names);
    Py_XDECREF(vn);
    Py_XDECREF(fcode);
    Py_XDECREF(mconsts);
    return result;
}
