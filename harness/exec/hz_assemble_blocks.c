/* hz_assemble_blocks.c: a piece's statement blocks for hz_assemble.c -- from the
 * cache, compiled together as wrappers (with their extra locals guessed from the
 * text, then checked), or cut out of the piece's whole compile when the cost gate
 * says so (see hz_assemble.c's header comment and docs/PERFORMANCE.md). */
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

/* Writes the wrapper of statement k into b; *wline = its first line there. extras:
 * a list of str or NULL. */
HZ_NO_COVERAGE void hz_asm_block_text(const Piece *pc, int k, PyObject *extras, bool sentinel,
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
    hz_asm_block_text(pc, k, extras, sentinel, &b, wline);
    if (b.failed) {
        free(b.p);
        PyErr_NoMemory();
        return NULL;
    }
    PyObject *code = hz_asm_cached_compile(a, b.p, b.n, b.p, 0, pc->filename, true);
    free(b.p);
    return (PyCodeObject *)code;
}

/* A thread's CPU clock is a system call (the vDSO serves only the wall clocks): the
 * compile route read it ~7 times an input, ~1% of the fuzzing loop's time. So the
 * breakdown is timed only when asked for (TRACEFUZZ_TIMINGS=1); otherwise every
 * reading is 0 and the CPU seconds reported stay 0. */
HZ_NO_COVERAGE bool hz_asm_timings(void)
{
    static int on = -1;
    if (on < 0) {
        const char *v = getenv("TRACEFUZZ_TIMINGS");
        on = v != NULL && strcmp(v, "1") == 0;
    }
    return on;
}

HZ_NO_COVERAGE double hz_asm_cpu_now(void)
{
    if (!hz_asm_timings())
        return 0;
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ---- the statements' blocks: from the cache, compiled together, or cut out ---- */



/* b's hash, masked key and hash, and out_num, from its key; 0, or -1 with an
 * exception. */
HZ_NO_COVERAGE int hz_asm_blk_keys(Blk *b)
{
    if (b->key.failed) {
        PyErr_NoMemory();
        return -1;
    }
    b->hash = hz_asm_fnv(b->key.p, b->key.n);
    hz_asm_buf_add(&b->mkey, b->key.p, b->key.n);
    if (b->mkey.failed) {
        PyErr_NoMemory();
        return -1;
    }
    b->out_num = hz_asm_mask_out(b->mkey.p, b->mkey.n);
    b->mhash = hz_asm_fnv(b->mkey.p, b->mkey.n);
    return 0;
}

HZ_NO_COVERAGE void hz_asm_blk_clear(Blk *b)
{
    Py_CLEAR(b->cap);
    Py_CLEAR(b->out_value);
    free(b->key.p);
    free(b->mkey.p);
    memset(b, 0, sizeof *b);
}

/* b->cap, just made for this statement's own text, into the cache: under the masked
 * key when its out[N] constant can be replaced, else under the exact one. */
HZ_NO_COVERAGE void hz_asm_store_block(HzAssembler *a, Blk *b)
{
    Py_CLEAR(b->out_value);   /* made for this N */
    HzBlock *hb = hz_asm_block(b->cap);
    bool masked = false;
    if (b->out_num >= 0) {
        hz_asm_find_out_const(hb, b->out_num);
        masked = hb->out_const > 0;
    }
    Slot *s = masked ? hz_asm_slot_put(a, b->mkey.p, b->mkey.n, b->mhash)
                     : hz_asm_slot_put(a, b->key.p, b->key.n, b->hash);
    if (s != NULL)
        s->code = Py_NewRef(b->cap);
}

/* The hash the cost gate remembers a statement by: a renumbered one counts as seen. */
HZ_NO_COVERAGE static uint64_t seen_hash(const Blk *b)
{
    return b->out_num >= 0 ? b->mhash : b->hash;
}

/* Statement k's cached block into b->cap (and b->out_value when it was made for
 * another out[N]); false when neither key is in the cache. */
HZ_NO_COVERAGE bool hz_asm_find_block(HzAssembler *a, Blk *b)
{
    if (b->out_num >= 0) {
        Slot *s = hz_asm_slot_find(a, b->mkey.p, b->mkey.n, b->mhash);
        if (s != NULL && PyCapsule_CheckExact(s->code)) {
            HzBlock *hb = hz_asm_block(s->code);
            if (hb->out_const > 0) {
                if (hb->out_num != b->out_num) {
                    b->out_value = PyLong_FromLong(b->out_num);
                    if (b->out_value == NULL) {
                        PyErr_Clear();   /* no memory: compiled instead */
                        return false;
                    }
                }
                b->cap = Py_NewRef(s->code);
                return true;
            }
        }
        a->stats.blocks--;   /* one lookup of this statement, not two */
    }
    Slot *s = hz_asm_slot_find(a, b->key.p, b->key.n, b->hash);
    if (s != NULL && PyCapsule_CheckExact(s->code)) {
        b->cap = Py_NewRef(s->code);
        return true;
    }
    return false;
}

/* Whether co's constants past the docstring hold a tuple: the one kind the optimiser
 * folds, after the code generation's own constants. */
HZ_NO_COVERAGE bool hz_asm_has_tuples(PyCodeObject *co)
{
    for (Py_ssize_t i = 1; i < PyTuple_GET_SIZE(co->co_consts); i++)
        if (PyTuple_CheckExact(PyTuple_GET_ITEM(co->co_consts, i)))
            return true;
    return false;
}

/* Where the last statement's code-generation constants end in its block co, told
 * apart from the folded ones after them by co2, the same statement compiled with the
 * sentinel; -1 with *refusal set (or an exception) when they do not agree. */
HZ_NO_COVERAGE Py_ssize_t hz_asm_cg_end(const char **refusal, PyCodeObject *co, PyCodeObject *co2)
{
    Py_ssize_t cg_end = PyTuple_GET_SIZE(co->co_consts);
    Py_ssize_t m = hz_asm_mark_index(co2);
    if (m >= 0 && m <= cg_end) {
        for (Py_ssize_t i = 1; i < m; i++) {
            PyObject *k1 = _PyCode_ConstantKey(PyTuple_GET_ITEM(co2->co_consts, i));
            PyObject *k2 = k1 ? _PyCode_ConstantKey(PyTuple_GET_ITEM(co->co_consts, i)) : NULL;
            int eq = k2 ? PyObject_RichCompareBool(k1, k2, Py_EQ) : -1;
            Py_XDECREF(k1);
            Py_XDECREF(k2);
            if (eq != 1) {
                if (PyErr_Occurred() && PyErr_ExceptionMatches(PyExc_MemoryError))
                    return -1;
                PyErr_Clear();
                *refusal = "the last statement's constants differ with a sentinel";
                return -1;
            }
        }
        cg_end = m;
    }
    return cg_end;
}

/* Where the last statement's code-generation constants end in its block co (see
 * hz_asm_cg_end; its sentinel compile only when it has tuples). -1 to refuse. */
HZ_NO_COVERAGE static Py_ssize_t last_cg_end(HzAssembler *a, const Piece *pc, int k,
                                             PyObject *extras, PyCodeObject *co)
{
    if (!hz_asm_has_tuples(co))
        return PyTuple_GET_SIZE(co->co_consts);
    int w2;
    PyCodeObject *co2 = get_block(a, pc, k, extras, true, &w2);
    if (co2 == NULL) {
        a->refusal = "the last statement does not compile with a sentinel";
        return -1;
    }
    Py_ssize_t cg_end = hz_asm_cg_end(&a->refusal, co, co2);
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
        hz_asm_block_text(pc, k, want[k], k < N - 1, &src, &wl);
        wline[k] = line + wl - 1;
        line += (int)hz_asm_count_lines(src.p + at, src.n - at);
    }
    if (src.failed) {
        free(src.p);
        free(wline);
        PyErr_NoMemory();
        return -1;
    }
    double t0 = hz_asm_cpu_now();
    PyObject *mod = Py_CompileStringExFlags(src.p, pc->filename, Py_file_input, NULL, 0);
    a->stats.cpu_wrappers += hz_asm_cpu_now() - t0;
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
        hz_asm_store_block(a, &blk[k]);
    }
    rc = 0;
done:
    free(wline);
    Py_DECREF(mod);
    return rc;
}

/* A sorted list of the set's names (new reference), or NULL. */
HZ_NO_COVERAGE PyObject *hz_asm_sorted_list(PyObject *set)
{
    PyObject *l = PySequence_List(set);
    if (l != NULL && PyList_Sort(l) < 0)
        Py_CLEAR(l);
    return l;
}

HZ_NO_COVERAGE PyObject *hz_asm_sorted_common(PyObject *names, PyObject *set)
{
    PyObject *l = PyList_New(0);
    for (Py_ssize_t i = 0; l != NULL && i < PyTuple_GET_SIZE(names); i++) {
        PyObject *x = PyTuple_GET_ITEM(names, i);
        int in = PySet_Contains(set, x);
        if (in < 0 || (in == 1 && PyList_Append(l, x) < 0))
            Py_CLEAR(l);
    }
    if (l != NULL && PyList_Sort(l) < 0)
        Py_CLEAR(l);
    return l;
}

HZ_NO_COVERAGE PyObject *hz_asm_set_tuple(PyObject *set)
{
    return set != NULL ? PySequence_Tuple(set) : NULL;
}

/* The guess of the extra locals of each statement without a block (blk[k].cap NULL)
 * into want[k] (a new sorted list): the names its text uses that some statement
 * visibly binds (known holds the bound locals of the blocks found; the names the
 * others' texts bind are added), but not the ones it binds itself, never a
 * parameter or a declared global. Returns 0, or -1 with an exception. */
HZ_NO_COVERAGE int hz_asm_guess_extras(const Piece *pc, int N, const Blk *blk, PyObject *known,
                                       PyObject **want)
{
    int rc = -1;
    PyObject **idents = calloc((size_t)N, sizeof *idents);
    PyObject **assigned = calloc((size_t)N, sizeof *assigned);
    PyObject *gl = NULL, *dummy = NULL, *rest = NULL;
    if (idents == NULL || assigned == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (int k = 0; k < N; k++) {
        if (blk[k].cap != NULL)
            continue;
        const Span *st = &pc->cut->stmts[k];
        idents[k] = PySet_New(NULL);
        assigned[k] = PySet_New(NULL);
        if (idents[k] == NULL || assigned[k] == NULL ||
            hz_asm_names(pc->text + st->start, st->end - st->start, idents[k], assigned[k]) < 0 ||
            _PySet_Update(known, assigned[k]) < 0)
            goto done;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(pc->params); i++)
        if (PySet_Discard(known, PyTuple_GET_ITEM(pc->params, i)) < 0)
            goto done;
    rest = Py_NewRef(known);
    if (pc->cut->globals.n > 0) {
        gl = PySet_New(NULL);
        dummy = PySet_New(NULL);
        if (gl == NULL || dummy == NULL ||
            hz_asm_names(pc->cut->globals.p, pc->cut->globals.n, gl, dummy) < 0)
            goto done;
        Py_SETREF(rest, PyNumber_Subtract(known, gl));
        if (rest == NULL)
            goto done;
    }
    for (int k = 0; k < N; k++) {
        if (blk[k].cap != NULL)
            continue;
        PyObject *g = PyNumber_And(idents[k], rest);
        PyObject *e = g ? PyNumber_Subtract(g, assigned[k]) : NULL;
        Py_XDECREF(g);
        Py_XSETREF(want[k], e ? hz_asm_sorted_list(e) : NULL);
        Py_XDECREF(e);
        if (want[k] == NULL)
            goto done;
    }
    rc = 0;
done:
    for (int k = 0; k < N; k++) {
        if (idents != NULL)
            Py_XDECREF(idents[k]);
        if (assigned != NULL)
            Py_XDECREF(assigned[k]);
    }
    free(idents);
    free(assigned);
    Py_XDECREF(gl);
    Py_XDECREF(dummy);
    Py_XDECREF(rest);
    return rc;
}

/* With every statement's block in blk[0..N): the extras each needs, now that all
 * bindings are known (the names it would read as globals that some statement
 * binds), into want[k] (a new sorted list) where they are not the ones its block was
 * made for (want[k] cleared elsewhere). Returns how many differ, or -1 with an
 * exception. */
HZ_NO_COVERAGE int hz_asm_needed_extras(int N, const Blk *blk, PyObject **want)
{
    PyObject *U = PySet_New(NULL);
    if (U == NULL)
        return -1;
    int again = 0;
    for (int k = 0; k < N; k++)
        if (_PySet_Update(U, hz_asm_block(blk[k].cap)->bound) < 0)
            goto fail;
    for (int k = 0; k < N; k++) {
        Py_CLEAR(want[k]);
        HzBlock *b = hz_asm_block(blk[k].cap);
        PyObject *l = hz_asm_sorted_common(b->g0, U);
        if (l == NULL)
            goto fail;
        int same = PyObject_RichCompareBool(l, b->extras, Py_EQ);
        if (same < 0) {
            Py_DECREF(l);
            goto fail;
        }
        if (same)
            Py_DECREF(l);
        else {
            want[k] = l;
            again++;
        }
    }
    Py_DECREF(U);
    return again;
fail:
    Py_DECREF(U);
    return -1;
}

/* Fills blk[0..N): each statement's block, made for exactly the extra locals it
 * needs (the names it reads as globals that another statement binds). Cached blocks
 * are taken as they are; the others are compiled in one module with a guess of
 * their extras from the text, and again (together) where the guess was wrong.
 * Returns 0, 1 to refuse (a->refusal set), 2 when the piece is better compiled
 * whole (and its blocks cut out of that compile), -1 on error. */
HZ_NO_COVERAGE int hz_asm_gather(HzAssembler *a, const Piece *pc, int N, Blk *blk)
{
    int rc = -1, nmiss = 0, nseen = 0;
    PyObject **want = calloc((size_t)N, sizeof *want);
    PyObject *known = PySet_New(NULL);
    if (want == NULL || known == NULL) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        goto done;
    }
    for (int k = 0; k < N; k++) {
        int wl;
        hz_asm_block_text(pc, k, NULL, k < N - 1, &blk[k].key, &wl);
        if (hz_asm_blk_keys(&blk[k]) < 0)
            goto done;
        if (hz_asm_find_block(a, &blk[k])) {
            if (_PySet_Update(known, hz_asm_block(blk[k].cap)->bound) < 0)
                goto done;
            continue;
        }
        nmiss++;
        nseen += a->seen[seen_hash(&blk[k]) % HZ_SEEN_SLOTS] == seen_hash(&blk[k]);
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
                a->seen[seen_hash(&blk[k]) % HZ_SEEN_SLOTS] = seen_hash(&blk[k]);
            a->refusal = "mostly new statements";
            rc = 1;
            goto done;
        }
        rc = 2;
        goto done;
    }
    if (nmiss > 0) {
        if (hz_asm_guess_extras(pc, N, blk, known, want) < 0)
            goto done;
        int r = compile_blocks(a, pc, N, blk, want);
        if (r != 0) {
            rc = r;
            goto done;
        }
    }
    int again = hz_asm_needed_extras(N, blk, want);
    if (again < 0)
        goto done;
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
    for (int k = 0; want != NULL && k < N; k++)
        Py_XDECREF(want[k]);
    free(want);
    Py_XDECREF(known);
    return rc;
}

/* The piece compiled whole (padded to its line), as a new reference, its statements'
 * blocks cut out of it into the cache; NULL with an exception when it does not
 * compile. */
HZ_NO_COVERAGE PyObject *hz_asm_compile_whole(HzAssembler *a, const Piece *pc, int N,
                                                    Blk *blk, int line, Py_ssize_t fn_at)
{
    size_t pad = (size_t)(line - 1);
    char *buf = malloc(pad + pc->n + 1);
    if (buf == NULL)
        return PyErr_NoMemory();
    memset(buf, '\n', pad);
    memcpy(buf + pad, pc->text, pc->n);
    buf[pad + pc->n] = '\0';
    double t0 = hz_asm_cpu_now();
    PyObject *mod = Py_CompileStringExFlags(buf, pc->filename, Py_file_input, NULL, 0);
    free(buf);
    double t1 = hz_asm_cpu_now();
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
        hz_asm_store_block(a, &blk[k]);
        a->stats.cut_out++;
    }
    free(lines);
    free(nlines);
    free(caps);
    a->stats.cpu_cut_out += hz_asm_cpu_now() - t1;
    return mod;
}
