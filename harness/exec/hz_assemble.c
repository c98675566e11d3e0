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

/* Statement blocks kept: program() has ~15-35 statements, and the fuzz loop's inputs
 * come from all over its corpus (see docs/PERFORMANCE.md for the hit rates and RSS). */
#define HZ_BLOCK_SLOTS 4096
/* Smaller pieces are compiled whole: compiling one costs ~64 us per KiB (program()
 * of 8 KiB: 512 us), assembling it from cached blocks ~84 us for 8 KiB, plus a
 * fixed part (the stub's compile, the cut) that small ones do not pay back. */
#define HZ_MIN_BYTES 1536
/* Base hashes of statements seen in pieces compiled whole (direct-mapped). */
#define HZ_SEEN_SLOTS 16384

typedef struct {
    uint64_t hash;
    char *key;         /* malloc'd; NULL for an empty slot */
    size_t len;
    PyObject *code;    /* owned: a block (capsule, hz_assemble_int.h), or a module code:
                        * a stub's, or a wrapper's for a last statement's constants */
} Slot;

struct HzAssembler {
    Slot slots[HZ_BLOCK_SLOTS];
    uint64_t seen[HZ_SEEN_SLOTS];
    HzAssembleStats stats;
    const char *refusal;
    bool no_gate;
    size_t min_bytes;   /* smaller pieces are refused */
    bool cut_seen_only; /* cut blocks out of whole compiles only when mostly seen */
};

/* ---- the block cache ---- */

HZ_NO_COVERAGE static uint64_t fnv(const char *s, size_t n)
{
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
    return h;
}

HZ_NO_COVERAGE static void slot_clear(Slot *s)
{
    free(s->key);
    Py_CLEAR(s->code);
    memset(s, 0, sizeof *s);
}

/* The slot holding key (counted as a lookup), or NULL. */
HZ_NO_COVERAGE static Slot *slot_find(HzAssembler *a, const char *key, size_t len, uint64_t h)
{
    Slot *s = &a->slots[h % HZ_BLOCK_SLOTS];
    a->stats.blocks++;
    if (s->key != NULL && s->hash == h && s->len == len && memcmp(s->key, key, len) == 0) {
        a->stats.block_hits++;
        return s;
    }
    return NULL;
}

/* key's slot emptied and keyed (its former entry evicted), or NULL on out-of-memory
 * (nothing stored then: the caller goes on without caching). */
HZ_NO_COVERAGE static Slot *slot_put(HzAssembler *a, const char *key, size_t len, uint64_t h)
{
    Slot *s = &a->slots[h % HZ_BLOCK_SLOTS];
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

HZ_NO_COVERAGE HzAssembler *hz_assembler_new(void)
{
    HzAssembler *a = calloc(1, sizeof *a);
    if (a == NULL)
        abort();
    a->refusal = "";
    a->min_bytes = HZ_MIN_BYTES;
    a->cut_seen_only = getenv("TF_ASM_CUT_ALL") == NULL;
    return a;
}

HZ_NO_COVERAGE void hz_assembler_free(HzAssembler *a)
{
    if (a == NULL)
        return;
    for (int i = 0; i < HZ_BLOCK_SLOTS; i++)
        slot_clear(&a->slots[i]);
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
HZ_NO_COVERAGE static PyObject *cached_compile(HzAssembler *a, const char *key, size_t len,
                                               const char *src, int pad, const char *filename,
                                               bool function)
{
    uint64_t h = fnv(key, len);
    Slot *s = slot_find(a, key, len, h);
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
    s = slot_put(a, key, len, h);
    if (s != NULL)   /* else used, not cached */
        s->code = Py_NewRef(code);
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

HZ_NO_COVERAGE static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ---- the statements' blocks: from the cache, compiled together, or cut out ---- */

/* Statement k's block while a piece is assembled (references owned). */
typedef struct {
    PyObject *cap;       /* its block (a capsule) */
    Buf key;             /* the cache key: the wrapper's text without extras */
    uint64_t hash;
} Blk;

HZ_NO_COVERAGE static void blk_clear(Blk *b)
{
    Py_CLEAR(b->cap);
    free(b->key.p);
    memset(b, 0, sizeof *b);
}

HZ_NO_COVERAGE static void store_block(HzAssembler *a, Blk *b)
{
    Slot *s = slot_put(a, b->key.p, b->key.n, b->hash);
    if (s != NULL)
        s->code = Py_NewRef(b->cap);
}

/* Where the last statement's code-generation constants end in its block co: the
 * folded constants after them are told apart by compiling it with the sentinel too
 * (only when it has tuples, the one kind the optimiser folds). -1 to refuse. */
HZ_NO_COVERAGE static Py_ssize_t last_cg_end(HzAssembler *a, const Piece *pc, int k,
                                             PyObject *extras, PyCodeObject *co)
{
    Py_ssize_t cg_end = PyTuple_GET_SIZE(co->co_consts);
    bool tuples = false;
    for (Py_ssize_t i = 1; i < cg_end; i++)
        tuples = tuples || PyTuple_CheckExact(PyTuple_GET_ITEM(co->co_consts, i));
    if (!tuples)
        return cg_end;
    int w2;
    PyCodeObject *co2 = get_block(a, pc, k, extras, true, &w2);
    if (co2 == NULL) {
        a->refusal = "the last statement does not compile with a sentinel";
        return -1;
    }
    Py_ssize_t m = hz_asm_mark_index(co2);
    if (m >= 0 && m <= cg_end) {
        for (Py_ssize_t i = 1; i < m; i++) {
            PyObject *k1 = _PyCode_ConstantKey(PyTuple_GET_ITEM(co2->co_consts, i));
            PyObject *k2 = k1 ? _PyCode_ConstantKey(PyTuple_GET_ITEM(co->co_consts, i)) : NULL;
            int eq = k2 ? PyObject_RichCompareBool(k1, k2, Py_EQ) : -1;
            Py_XDECREF(k1);
            Py_XDECREF(k2);
            if (eq != 1) {
                PyErr_Clear();
                Py_DECREF(co2);
                a->refusal = "the last statement's constants differ with a sentinel";
                return -1;
            }
        }
        cg_end = m;
    }
    Py_DECREF(co2);
    return cg_end;
}

/* Compiles the wrappers of the statements with want[k] != NULL, extras want[k], as
 * one module (one parse for all) and stores each block in blk[k] and the cache.
 * Returns 0, 1 to refuse (a->refusal set), -1 on error. */
HZ_NO_COVERAGE static int compile_blocks(HzAssembler *a, const Piece *pc, int N, Blk *blk,
                                         PyObject **want)
{
    Buf src = {0};
    int line = 1, rc = -1;
    int *wline = malloc((size_t)N * sizeof *wline);
    if (wline == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (int k = 0; k < N; k++) {
        if (want[k] == NULL)
            continue;
        size_t at = src.n;
        int wl;
        block_text(pc, k, want[k], k < N - 1, &src, &wl);
        wline[k] = line + wl - 1;
        line += (int)hz_asm_count_lines(src.p + at, src.n - at);
    }
    if (src.failed) {
        free(src.p);
        free(wline);
        PyErr_NoMemory();
        return -1;
    }
    double t0 = cpu_now();
    PyObject *mod = Py_CompileStringExFlags(src.p, pc->filename, Py_file_input, NULL, 0);
    a->stats.cpu_wrappers += cpu_now() - t0;
    for (int k = 0; k < N; k++)
        a->stats.wrappers += want[k] != NULL;
    free(src.p);
    if (mod == NULL) {
        free(wline);
        if (PyErr_ExceptionMatches(PyExc_MemoryError))
            return -1;
        PyErr_Clear();
        a->refusal = "a statement does not compile alone";
        return 1;
    }
    a->stats.compiles++;
    PyObject *consts = ((PyCodeObject *)mod)->co_consts;
    Py_ssize_t ci = 0;
    for (int k = 0; k < N; k++) {
        if (want[k] == NULL)
            continue;
        while (ci < PyTuple_GET_SIZE(consts) && !PyCode_Check(PyTuple_GET_ITEM(consts, ci)))
            ci++;
        if (ci == PyTuple_GET_SIZE(consts)) {
            a->refusal = "a wrapper holds no function";
            rc = 1;
            goto done;
        }
        PyCodeObject *co = (PyCodeObject *)PyTuple_GET_ITEM(consts, ci++);
        bool last = k == N - 1;
        Py_ssize_t cg_end = last ? last_cg_end(a, pc, k, want[k], co) : 0;
        if (cg_end < 0) {
            rc = PyErr_Occurred() ? -1 : 1;
            goto done;
        }
        const Span *st = &pc->cut->stmts[k];
        size_t len = st->end - st->start;
        int nlines = (int)hz_asm_count_lines(pc->text + st->start, len) +
                     (len > 0 && pc->text[st->end - 1] != '\n');
        PyObject *cap = hz_asm_block_from_wrapper(&a->refusal, co, wline[k], nlines, want[k],
                                                  last, cg_end, pc->params);
        if (cap == NULL) {
            rc = PyErr_Occurred() ? -1 : 1;
            goto done;
        }
        Py_XSETREF(blk[k].cap, cap);
        store_block(a, &blk[k]);
    }
    rc = 0;
done:
    free(wline);
    Py_DECREF(mod);
    return rc;
}

/* A sorted list of the set's names (new reference), or NULL. */
HZ_NO_COVERAGE static PyObject *sorted_list(PyObject *set)
{
    PyObject *l = PySequence_List(set);
    if (l != NULL && PyList_Sort(l) < 0)
        Py_CLEAR(l);
    return l;
}

/* Fills blk[0..N): each statement's block, made for exactly the extra locals it
 * needs (the names it reads as globals that another statement binds). Cached blocks
 * are taken as they are; the others are compiled in one module with a guess of
 * their extras from the text, and again (together) where the guess was wrong.
 * Returns 0, 1 to refuse (a->refusal set), 2 when the piece is better compiled
 * whole (and its blocks cut out of that compile), -1 on error. */
HZ_NO_COVERAGE static int gather_blocks(HzAssembler *a, const Piece *pc, int N, Blk *blk)
{
    int rc = -1, nmiss = 0, nseen = 0;
    PyObject **want = calloc((size_t)N, sizeof *want);
    PyObject *known = PySet_New(NULL), *U = PySet_New(NULL);
    PyObject **idents = calloc((size_t)N, sizeof *idents);
    PyObject **assigned = calloc((size_t)N, sizeof *assigned);
    if (want == NULL || known == NULL || U == NULL || idents == NULL || assigned == NULL) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        goto done;
    }
    for (int k = 0; k < N; k++) {
        int wl;
        block_text(pc, k, NULL, k < N - 1, &blk[k].key, &wl);
        if (blk[k].key.failed) {
            PyErr_NoMemory();
            goto done;
        }
        blk[k].hash = fnv(blk[k].key.p, blk[k].key.n);
        Slot *s = slot_find(a, blk[k].key.p, blk[k].key.n, blk[k].hash);
        if (s != NULL && PyCapsule_CheckExact(s->code)) {
            blk[k].cap = Py_NewRef(s->code);
            if (_PySet_Update(known, hz_asm_block(s->code)->bound) < 0)
                goto done;
            continue;
        }
        nmiss++;
        nseen += a->seen[blk[k].hash % HZ_SEEN_SLOTS] == blk[k].hash;
    }
    /* More statements to compile than a third: compiling them apart would cost more
     * than compiling the function (each wrapper is a function of its own), so the
     * piece is compiled whole. Its statements are cut out of that compile into the
     * cache when most of them were seen in a piece before (a program edited again:
     * its next edits will find them); a piece of mostly new statements (a fresh
     * program, most of which are never edited) is only remembered as seen, which
     * costs a hash per statement instead of cutting (~27% of the compile). */
    if (!a->no_gate && nmiss > N / 3) {
        if (a->cut_seen_only && 2 * nseen < nmiss) {
            for (int k = 0; k < N; k++)
                a->seen[blk[k].hash % HZ_SEEN_SLOTS] = blk[k].hash;
            a->refusal = "mostly new statements";
            rc = 1;
            goto done;
        }
        rc = 2;
        goto done;
    }
    if (nmiss > 0) {
        /* the guess: names the text uses that some statement visibly binds, but not
         * the ones it binds itself, never a parameter or a declared global */
        for (int k = 0; k < N; k++) {
            if (blk[k].cap != NULL)
                continue;
            const Span *st = &pc->cut->stmts[k];
            idents[k] = PySet_New(NULL);
            assigned[k] = PySet_New(NULL);
            if (idents[k] == NULL || assigned[k] == NULL ||
                hz_asm_names(pc->text + st->start, st->end - st->start, idents[k],
                             assigned[k]) < 0 ||
                _PySet_Update(known, assigned[k]) < 0)
                goto done;
        }
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(pc->params); i++)
            if (PySet_Discard(known, PyTuple_GET_ITEM(pc->params, i)) < 0)
                goto done;
        if (pc->cut->globals.n > 0) {
            PyObject *gl = PySet_New(NULL), *dummy = PySet_New(NULL);
            int r = gl && dummy ? hz_asm_names(pc->cut->globals.p, pc->cut->globals.n, gl, dummy) : -1;
            PyObject *rest = r == 0 ? PyNumber_Subtract(known, gl) : NULL;
            Py_XDECREF(gl);
            Py_XDECREF(dummy);
            if (rest == NULL)
                goto done;
            Py_SETREF(known, rest);
        }
        for (int k = 0; k < N; k++) {
            if (blk[k].cap != NULL)
                continue;
            PyObject *g = PyNumber_And(idents[k], known);
            PyObject *e = g ? PyNumber_Subtract(g, assigned[k]) : NULL;
            Py_XDECREF(g);
            want[k] = e ? sorted_list(e) : NULL;
            Py_XDECREF(e);
            if (want[k] == NULL)
                goto done;
        }
        int r = compile_blocks(a, pc, N, blk, want);
        if (r != 0) {
            rc = r;
            goto done;
        }
    }
    /* the extras each statement needs, now that all bindings are known */
    for (int k = 0; k < N; k++)
        if (_PySet_Update(U, hz_asm_block(blk[k].cap)->bound) < 0)
            goto done;
    int again = 0;
    for (int k = 0; k < N; k++) {
        Py_CLEAR(want[k]);
        HzBlock *b = hz_asm_block(blk[k].cap);
        PyObject *e = PyNumber_And(b->g0, U);
        PyObject *l = e ? sorted_list(e) : NULL;
        Py_XDECREF(e);
        if (l == NULL)
            goto done;
        int same = PyObject_RichCompareBool(l, b->extras, Py_EQ);
        if (same < 0) {
            Py_DECREF(l);
            goto done;
        }
        if (same)
            Py_DECREF(l);
        else {
            want[k] = l;
            again++;
        }
    }
    if (again > 0) {
        a->stats.recompiles += (unsigned long)again;
        int r = compile_blocks(a, pc, N, blk, want);
        if (r != 0) {
            rc = r;
            goto done;
        }
    }
    rc = 0;
done:
    for (int k = 0; k < N; k++) {
        if (want != NULL)
            Py_XDECREF(want[k]);
        if (idents != NULL)
            Py_XDECREF(idents[k]);
        if (assigned != NULL)
            Py_XDECREF(assigned[k]);
    }
    free(want);
    free(idents);
    free(assigned);
    Py_XDECREF(known);
    Py_XDECREF(U);
    return rc;
}

/* The piece compiled whole (padded to its line), as a new reference, its statements'
 * blocks cut out of it into the cache; NULL with an exception when it does not
 * compile. */
HZ_NO_COVERAGE static PyObject *compile_whole_piece(HzAssembler *a, const Piece *pc, int N,
                                                    Blk *blk, int line, Py_ssize_t fn_at)
{
    size_t pad = (size_t)(line - 1);
    char *buf = malloc(pad + pc->n + 1);
    if (buf == NULL)
        return PyErr_NoMemory();
    memset(buf, '\n', pad);
    memcpy(buf + pad, pc->text, pc->n);
    buf[pad + pc->n] = '\0';
    double t0 = cpu_now();
    PyObject *mod = Py_CompileStringExFlags(buf, pc->filename, Py_file_input, NULL, 0);
    free(buf);
    double t1 = cpu_now();
    a->stats.cpu_whole_compile += t1 - t0;
    if (mod == NULL)
        return NULL;
    a->stats.whole++;
    PyObject *consts = ((PyCodeObject *)mod)->co_consts;
    if (fn_at >= PyTuple_GET_SIZE(consts) || !PyCode_Check(PyTuple_GET_ITEM(consts, fn_at)))
        return mod;
    int *lines = malloc((size_t)N * sizeof *lines), *nlines = malloc((size_t)N * sizeof *nlines);
    PyObject **caps = calloc((size_t)N, sizeof *caps);
    if (lines == NULL || nlines == NULL || caps == NULL) {
        free(lines);
        free(nlines);
        free(caps);
        return mod;   /* no blocks then */
    }
    for (int k = 0; k < N; k++) {
        const Span *st = &pc->cut->stmts[k];
        size_t len = st->end - st->start;
        lines[k] = line + st->line;
        nlines[k] = (int)hz_asm_count_lines(pc->text + st->start, len) +
                    (len > 0 && pc->text[st->end - 1] != '\n');
    }
    if (hz_asm_blocks_from_whole((PyCodeObject *)PyTuple_GET_ITEM(consts, fn_at), lines, nlines,
                                 N, pc->params, caps) < 0)
        PyErr_Clear();   /* the code is good without its blocks */
    for (int k = 0; k < N; k++) {
        if (caps[k] == NULL)
            continue;
        Py_XSETREF(blk[k].cap, caps[k]);
        store_block(a, &blk[k]);
        a->stats.cut_out++;
    }
    free(lines);
    free(nlines);
    free(caps);
    a->stats.cpu_cut_out += cpu_now() - t1;
    return mod;
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
                                const char *filename);

HZ_NO_COVERAGE PyObject *hz_assemble_piece(HzAssembler *a, const char *text, size_t n, int line,
                                           const char *filename)
{
    double t0 = cpu_now();
    unsigned long whole = a->stats.whole, assembled = a->stats.assembled;
    PyObject *r = assemble_piece(a, text, n, line, filename);
    double dt = cpu_now() - t0;
    if (a->stats.assembled != assembled)
        a->stats.cpu_assembled += dt;
    else if (a->stats.whole != whole)
        a->stats.cpu_whole += dt;
    else
        a->stats.cpu_refused += dt;
    return r;
}

HZ_NO_COVERAGE static PyObject *assemble_piece(HzAssembler *a, const char *text, size_t n, int line,
                                               const char *filename)
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
    if (memmem(text, n, "__tf_", 5) != NULL || memmem(text, n, "tf-end", 6) != NULL) {
        a->refusal = "the piece spells the assembler's own names";
        goto done;
    }
    if (hz_asm_cut(&a->refusal, text, n, &cut) < 0)
        goto done;
    N = cut.nstmts;
    if (a->min_bytes > 0 && (N < 3 || n < a->min_bytes)) {
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
    /* the blocks */
    blk = calloc((size_t)N, sizeof *blk);
    if (blk == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    int g = gather_blocks(a, &pc, N, blk);
    if (g == 2) {
        result = compile_whole_piece(a, &pc, N, blk, line, fn_at);
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
        if (hz_asm_link(&s, hz_asm_block(blk[k].cap), line + cut.stmts[k].line) < 0)
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
        blk_clear(&blk[k]);
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
