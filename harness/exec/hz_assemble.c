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
#include <time.h>

/* ---- the block cache ---- */

HZ_NO_COVERAGE uint64_t hz_asm_fnv(const char *s, size_t n)
{
    /* eight bytes a step (byte by byte, keys of hundreds of bytes were 1% of a fuzz
     * loop exec), each step's high bits folded down: tables index by the low ones */
    uint64_t h = 14695981039346656037ull ^ n;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h = (h ^ w) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 32;
    }
    for (; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 32);
}

HZ_NO_COVERAGE static void slot_clear(Slot *s)
{
    free(s->key);
    Py_CLEAR(s->code);
    memset(s, 0, sizeof *s);
}

/* Whether a[0..n) and b[0..n) are the same bytes: spelled out, 8 at a time, since in
 * a libFuzzer binary memcmp is its interceptor, which would feed every key compared
 * (hundreds of bytes each) to its tables. */
HZ_NO_COVERAGE bool hz_asm_same(const char *a, const char *b, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t x, y;
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y)
            return false;
    }
    for (; i < n; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

/* The first needle[0..m) in hay[0..n), or NULL: memmem without its interceptor. */
HZ_NO_COVERAGE const char *hz_asm_find(const char *hay, size_t n, const char *needle, size_t m)
{
    if (m == 0)
        return hay;
    for (const char *p = hay, *end = hay + n; (size_t)(end - p) >= m;) {
        p = memchr(p, needle[0], (size_t)(end - p) - m + 1);
        if (p == NULL)
            return NULL;
        if (hz_asm_same(p + 1, needle + 1, m - 1))
            return p;
        p++;
    }
    return NULL;
}

/* The slot holding key (counted as a lookup), or NULL. */
HZ_NO_COVERAGE Slot *hz_asm_slot_find(HzAssembler *a, const char *key, size_t len, uint64_t h)
{
    Slot *s = &a->slots[h % HZ_BLOCK_SLOTS];
    a->stats.blocks++;
    if (s->key != NULL && s->hash == h && s->len == len && hz_asm_same(s->key, key, len)) {
        a->stats.block_hits++;
        return s;
    }
    return NULL;
}

/* key's slot emptied and keyed (its former entry evicted), or NULL on out-of-memory
 * (nothing stored then: the caller goes on without caching). */
/* s emptied and keyed with a copy of key, or NULL on out-of-memory (s untouched). */
HZ_NO_COVERAGE static Slot *slot_key(Slot *s, const char *key, size_t len, uint64_t h)
{
    char *k = malloc(len);
    if (k == NULL)
        return NULL;
    memcpy(k, key, len);
    slot_clear(s);
    s->key = k;
    s->len = len;
    s->hash = h;
    return s;
}

HZ_NO_COVERAGE Slot *hz_asm_slot_put(HzAssembler *a, const char *key, size_t len, uint64_t h)
{
    return slot_key(&a->slots[h % HZ_BLOCK_SLOTS], key, len, h);
}

HZ_NO_COVERAGE Slot *hz_asm_tslot_find(HzAssembler *a, const char *key, size_t len, uint64_t h)
{
    Slot *set = &a->tslots[2 * (h % HZ_TEMPLATE_BLOCK_SETS)];
    a->stats.blocks++;
    for (int w = 0; w < 2; w++)
        if (set[w].key != NULL && set[w].hash == h && set[w].len == len &&
            hz_asm_same(set[w].key, key, len)) {
            a->stats.block_hits++;
            set[w].used = a->stats.blocks;
            return &set[w];
        }
    return NULL;
}

HZ_NO_COVERAGE Slot *hz_asm_tslot_put(HzAssembler *a, const char *key, size_t len, uint64_t h)
{
    Slot *set = &a->tslots[2 * (h % HZ_TEMPLATE_BLOCK_SETS)];
    Slot *s = slot_key(set[0].used <= set[1].used ? &set[0] : &set[1], key, len, h);
    if (s != NULL)
        s->used = a->stats.blocks;
    return s;
}

HZ_NO_COVERAGE HzAssembler *hz_assembler_new(void)
{
    HzAssembler *a = calloc(1, sizeof *a);
    if (a == NULL)
        abort();
    a->refusal = "";
    a->min_bytes = HZ_MIN_BYTES;
    a->cut_seen_only = true;
    return a;
}

HZ_NO_COVERAGE void hz_assembler_free(HzAssembler *a)
{
    if (a == NULL)
        return;
    for (int i = 0; i < HZ_BLOCK_SLOTS; i++)
        slot_clear(&a->slots[i]);
    for (int i = 0; i < 2 * HZ_TEMPLATE_BLOCK_SETS; i++)
        slot_clear(&a->tslots[i]);
    free(a);
}

HZ_NO_COVERAGE void hz_assembler_set_gate(HzAssembler *a, bool gate, size_t min_bytes)
{
    a->no_gate = !gate;
    a->min_bytes = min_bytes;
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
HZ_NO_COVERAGE PyObject *hz_asm_cached_compile(HzAssembler *a, const char *key, size_t len,
                                               const char *src, int pad, const char *filename,
                                               bool function)
{
    uint64_t h = hz_asm_fnv(key, len);
    Slot *s = hz_asm_slot_find(a, key, len, h);
    if (s != NULL)
        return Py_NewRef(s->code);
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
    s = hz_asm_slot_put(a, key, len, h);
    if (s != NULL)   /* else used, not cached */
        s->code = Py_NewRef(code);
    return code;
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

static PyObject *assemble_piece(HzAssembler *a, const char *text, size_t n, int line,
                                const char *filename, bool templated);

/* hz_assemble_piece and hz_assemble_piece_templated: assemble_piece timed. */
HZ_NO_COVERAGE static PyObject *assemble_timed(HzAssembler *a, const char *text, size_t n, int line,
                                               const char *filename, bool templated)
{
    double t0 = hz_asm_cpu_now();
    unsigned long whole = a->stats.whole, assembled = a->stats.assembled;
    PyObject *r = assemble_piece(a, text, n, line, filename, templated);
    double dt = hz_asm_cpu_now() - t0;
    if (a->stats.assembled != assembled)
        a->stats.cpu_assembled += dt;
    else if (a->stats.whole != whole)
        a->stats.cpu_whole += dt;
    else
        a->stats.cpu_refused += dt;
    return r;
}

HZ_NO_COVERAGE PyObject *hz_assemble_piece(HzAssembler *a, const char *text, size_t n, int line,
                                           const char *filename)
{
    return assemble_timed(a, text, n, line, filename, false);
}

HZ_NO_COVERAGE PyObject *hz_assemble_piece_templated(HzAssembler *a, const char *text, size_t n,
                                                     const char *filename)
{
    return assemble_timed(a, text, n, 1, filename, true);
}

HZ_NO_COVERAGE static PyObject *assemble_piece(HzAssembler *a, const char *text, size_t n, int line,
                                               const char *filename, bool templated)
{
    Cut cut = {0};
    Buf stub = {0}, key = {0};
    PyObject *result = NULL, *stubmod = NULL, *params = NULL;
    PyCodeObject *fn = NULL;
    Blk *blk = NULL;
    int N = 0;
    Asm s = {0};
    PyObject *code = NULL, *lt = NULL, *et = NULL, *consts = NULL, *names = NULL, *vn = NULL;
    PyObject *fcode = NULL, *mconsts = NULL;
    a->stats.pieces++;
    a->refusal = "";
    if (hz_asm_find(text, n, "__tf_", 5) != NULL || hz_asm_find(text, n, "tf-end", 6) != NULL ||
        (templated && hz_asm_find(text, n, "tf-doc", 6) != NULL)) {   /* DOC_SRC's */
        a->refusal = "the piece spells the assembler's own names";
        goto done;
    }
    if (hz_asm_cut(&a->refusal, text, n, &cut) < 0)
        goto done;
    N = cut.nstmts;
    if (templated ? N < HZ_TEMPLATED_MIN_STMTS : a->min_bytes > 0 && (N < 3 || n < a->min_bytes)) {
        /* a small function (make, between, a short program) compiles in less time
         * than cutting and assembling it takes: compiled whole */
        a->refusal = "too small";
        goto done;
    }
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
     * the stub's body, a name, ends where the real body ends (templated: `pass`,
     * lines are not asked for, and one stub serves every piece with this header) */
    int stub_lines = (int)hz_asm_count_lines(stub.p != NULL ? stub.p : "", stub.n);
    if (templated) {
        hz_asm_buf_str(&stub, ind);
        hz_asm_buf_str(&stub, "pass\n");
    }
    else if (stub_lines > cut.end_line || cut.end_col <= w) {
        a->refusal = "the body ends where the stub cannot";
        goto done;
    }
    else {
        for (int i = stub_lines; i < cut.end_line; i++)
            hz_asm_buf_str(&stub, "\n");
        hz_asm_buf_str(&stub, ind);
        for (int i = w; i < cut.end_col; i++)
            hz_asm_buf_str(&stub, "_");
        hz_asm_buf_str(&stub, "\n");
    }
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
    stubmod = hz_asm_cached_compile(a, key.p, key.n, stub.p, line - 1, filename, false);
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
    /* the blocks */
    blk = calloc((size_t)N, sizeof *blk);
    if (blk == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    int g = templated ? hz_asm_gather_templated(a, &pc, N, blk) : hz_asm_gather(a, &pc, N, blk);
    if (g == 2) {
        result = hz_asm_compile_whole(a, &pc, N, blk, line, fn_at);
        if (result == NULL) {
            PyErr_Clear();   /* the caller's compile reports it */
            a->refusal = "the piece does not compile";
        }
        goto done;
    }
    if (g != 0)
        goto done;
    /* the assembly */
    if (hz_asm_table_init(&s.consts) < 0 || hz_asm_table_init(&s.names) < 0 ||
        hz_asm_table_init(&s.varnames) < 0 || (s.folded = PyList_New(0)) == NULL)
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
    }
    for (int k = 0; k < N; k++)
        if (hz_asm_link(&s, hz_asm_block(blk[k].cap), line + cut.stmts[k].line,
                        blk[k].out_value) < 0)
            goto done;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(s.folded); i++)
        if (hz_asm_table_add(&s.consts, PyList_GET_ITEM(s.folded, i), NULL) < 0)
            goto done;
    /* constant numbers, then trailing unused constants trimmed (trim_unused_consts) */
    int maxc = 0;
    for (int i = 0; i < s.out.n; i++) {
        if (s.out.ins[i].op != LOAD_CONST && s.out.ins[i].op != KW_NAMES)
            continue;
        if (s.cobj[i] != NULL) {   /* a folded constant: numbered now */
            int j = hz_asm_table_add(&s.consts, s.cobj[i], NULL);
            if (j < 0)
                goto done;
            s.out.ins[i].arg = j;
        }
        if (s.out.ins[i].arg > maxc)
            maxc = s.out.ins[i].arg;
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
    {
        PyCodeObject *m = (PyCodeObject *)stubmod;
        PyObject *mcode = PyCode_GetCode(m);   /* new */
        PyObject *none = mcode ? PyTuple_New(0) : NULL;
        if (none != NULL)
            result = (PyObject *)PyCode_NewWithPosOnlyArgs(
                m->co_argcount, m->co_posonlyargcount, m->co_kwonlyargcount, m->co_nlocals,
                m->co_stacksize, m->co_flags, mcode, mconsts, m->co_names,
                m->co_localsplusnames, none, none, m->co_filename, m->co_name,
                m->co_qualname, m->co_firstlineno, m->co_linetable, m->co_exceptiontable);
        Py_XDECREF(mcode);
        Py_XDECREF(none);
    }
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
    for (int k = 0; blk != NULL && k < N; k++)
        hz_asm_blk_clear(&blk[k]);
    free(blk);
    hz_bc_clear(&s.out);
    free(s.cobj);
    hz_asm_table_clear(&s.consts);
    hz_asm_table_clear(&s.names);
    hz_asm_table_clear(&s.varnames);
    Py_XDECREF(s.folded);
    Py_XDECREF(stubmod);
    Py_XDECREF(fn);
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
