/* hz_assemble_link.c: statement blocks (HzBlock) made from a wrapper's compile or
 * cut out of a whole function's compile, and put together into a function.
 *
 * A block is a statement's instructions (jumps as indices in the block, n meaning
 * "the next statement"), its handlers, its lines counted from the statement's first
 * line, and its own tables of constants, names and locals in the order the compiler
 * numbered them; linking numbers each block's tables into the function's (the
 * compiler's first-use order, block after block), which is what compiling the whole
 * function does. From a wrapper the tables are the compiler's own (codegen
 * constants before the sentinel's marker, folded ones after it); cut out of a whole
 * compile, they are in the order the block's instructions first use them, which
 * differs from the compiler's only for what no instruction uses (dead code's names
 * and constants) and for folded tuples (docs/PERFORMANCE.md, "program() assembled
 * from statements"). */
#include "hz_assemble_int.h"
#include "hz_codecache.h"

#include <opcode.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

HZ_NO_COVERAGE int hz_asm_table_init(Table *t)
{
    t->list = PyList_New(0);
    t->index = PyDict_New();
    return t->list != NULL && t->index != NULL ? 0 : -1;
}

HZ_NO_COVERAGE void hz_asm_table_clear(Table *t)
{
    Py_CLEAR(t->list);
    Py_CLEAR(t->index);
}

/* Returns value's index (appended when its key is new), or -1 with an exception.
 * key: borrowed; NULL for the constant key of value. */
HZ_NO_COVERAGE int hz_asm_table_add(Table *t, PyObject *value, PyObject *key)
{
    PyObject *k = key != NULL ? Py_NewRef(key) : _PyCode_ConstantKey(value);   /* new */
    if (k == NULL)
        return -1;
    PyObject *found = PyDict_GetItemWithError(t->index, k);   /* borrowed */
    int rc;
    if (found != NULL) {
        rc = (int)PyLong_AsLong(found);
    }
    else if (PyErr_Occurred()) {
        rc = -1;
    }
    else {
        rc = (int)PyList_GET_SIZE(t->list);
        PyObject *i = PyLong_FromLong(rc);
        if (i == NULL || PyDict_SetItem(t->index, k, i) < 0 || PyList_Append(t->list, value) < 0)
            rc = -1;
        Py_XDECREF(i);
    }
    Py_DECREF(k);
    return rc;
}

/* Index of the sentinel's marker constant in co_consts, or -1. */
HZ_NO_COVERAGE Py_ssize_t hz_asm_mark_index(PyCodeObject *co)
{
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(co->co_consts); i++) {
        PyObject *c = PyTuple_GET_ITEM(co->co_consts, i);
        Py_ssize_t len;
        const char *u;
        if (PyUnicode_CheckExact(c) && PyUnicode_GET_LENGTH(c) == 7 &&
            (u = PyUnicode_AsUTF8AndSize(c, &len)) != NULL && len == 7 && hz_asm_same(u, MARK, 7))
            return i;
    }
    return -1;
}

HZ_NO_COVERAGE static int find_name(PyObject *const *arr, int n, PyObject *name)
{
    for (int i = 0; i < n; i++)
        if (arr[i] == name || PyUnicode_Compare(arr[i], name) == 0)
            return i;
    return -1;
}

HZ_NO_COVERAGE static bool bad_opcode(int op)
{
    switch (op) {
    case MAKE_FUNCTION: case LOAD_BUILD_CLASS: case YIELD_VALUE: case SEND:
    case RETURN_GENERATOR: case GET_AWAITABLE: case ASYNC_GEN_WRAP: case GET_AITER:
    case GET_ANEXT: case BEFORE_ASYNC_WITH: case END_ASYNC_FOR: case GET_YIELD_FROM_ITER:
    case LOAD_NAME: case STORE_NAME: case DELETE_NAME: case IMPORT_STAR:
    case SETUP_ANNOTATIONS: case MAKE_CELL: case LOAD_CLOSURE: case LOAD_DEREF:
    case STORE_DEREF: case DELETE_DEREF: case LOAD_CLASSDEREF: case COPY_FREE_VARS:
    case RESUME: case EXTENDED_ARG: case CACHE:
        return true;
    default:
        return false;
    }
}

HZ_NO_COVERAGE static bool is_name_op(int op)
{
    switch (op) {
    case STORE_ATTR: case DELETE_ATTR: case STORE_GLOBAL: case DELETE_GLOBAL:
    case LOAD_ATTR: case IMPORT_NAME: case IMPORT_FROM: case LOAD_GLOBAL: case LOAD_METHOD:
        return true;
    default:
        return false;
    }
}




/* ---- blocks ---- */

/* Frees b and releases the references it owns. */
HZ_NO_COVERAGE static void block_release(HzBlock *b)
{
    hz_bc_clear(&b->bc);
    Py_XDECREF(b->consts);
    Py_XDECREF(b->names);
    Py_XDECREF(b->lnames);
    Py_XDECREF(b->g0);
    Py_XDECREF(b->bound);
    Py_XDECREF(b->extras);
    free(b);
}

HZ_NO_COVERAGE static void block_free(PyObject *cap)
{
    HzBlock *b = PyCapsule_GetPointer(cap, "tf.block");
    if (b == NULL) {
        PyErr_Clear();
        return;
    }
    block_release(b);
}

/* A new capsule owning b (freed with it), or NULL (b freed) with an exception. Its
 * arrays are cut to their size first: thousands of blocks stay cached. */
HZ_NO_COVERAGE PyObject *hz_asm_block_capsule(HzBlock *b)
{
    if (b->bc.n > 0 && b->bc.n < b->bc.cap) {
        HzInstr *p = realloc(b->bc.ins, (size_t)b->bc.n * sizeof *p);
        if (p != NULL) {
            b->bc.ins = p;
            b->bc.cap = b->bc.n;
        }
    }
    if (b->bc.nexc > 0 && b->bc.nexc < b->bc.capexc) {
        HzExcEntry *p = realloc(b->bc.exc, (size_t)b->bc.nexc * sizeof *p);
        if (p != NULL) {
            b->bc.exc = p;
            b->bc.capexc = b->bc.nexc;
        }
    }
    PyObject *cap = PyCapsule_New(b, "tf.block", block_free);
    if (cap == NULL)
        block_release(b);
    return cap;
}

HZ_NO_COVERAGE HzBlock *hz_asm_block(PyObject *cap)
{
    return PyCapsule_GetPointer(cap, "tf.block");
}

/* Index of v in list (appended when new), comparing by identity then equality;
 * -1 with an exception. For the few names of one block. */
HZ_NO_COVERAGE static int list_index(PyObject *list, PyObject *v)
{
    Py_ssize_t n = PyList_GET_SIZE(list);
    for (Py_ssize_t i = 0; i < n; i++)
        if (PyList_GET_ITEM(list, i) == v)
            return (int)i;
    for (Py_ssize_t i = 0; i < n; i++) {
        int eq = PyUnicode_Compare(PyList_GET_ITEM(list, i), v) == 0;
        if (eq)
            return (int)i;
    }
    if (PyErr_Occurred() || PyList_Append(list, v) < 0)
        return -1;
    return (int)n;
}

/* The tuple of a list (new reference), or NULL; the list is released. */
HZ_NO_COVERAGE static PyObject *take_tuple(PyObject *list)
{
    PyObject *t = list ? PyList_AsTuple(list) : NULL;
    Py_XDECREF(list);
    return t;
}

/* The facts of a block from its instructions: g0 = names it uses as globals plus
 * the non-parameter locals it only reads (globals if it were compiled alone),
 * bound = the locals it stores or deletes. 0, or -1 with an exception. */
HZ_NO_COVERAGE static int block_facts(HzBlock *b, int nparams_in_lnames, PyObject *params)
{
    PyObject *g0 = PySet_New(NULL), *bound = PySet_New(NULL);
    int rc = -1;
    if (g0 == NULL || bound == NULL)
        goto done;
    (void)nparams_in_lnames;
    for (int i = 0; i < b->bc.n; i++) {
        const HzInstr *in = &b->bc.ins[i];
        if (in->op == STORE_FAST || in->op == DELETE_FAST)
            if (PySet_Add(bound, PyTuple_GET_ITEM(b->lnames, in->arg)) < 0)
                goto done;
    }
    for (int i = 0; i < b->bc.n; i++) {
        const HzInstr *in = &b->bc.ins[i];
        PyObject *nm = NULL;
        if (in->op == LOAD_GLOBAL)
            nm = PyTuple_GET_ITEM(b->names, in->arg >> 1);
        else if (in->op == STORE_GLOBAL || in->op == DELETE_GLOBAL)
            nm = PyTuple_GET_ITEM(b->names, in->arg);
        else if (in->op == LOAD_FAST) {
            PyObject *v = PyTuple_GET_ITEM(b->lnames, in->arg);
            int is_bound = PySet_Contains(bound, v);
            int param = PySequence_Contains(params, v);
            if (is_bound < 0 || param < 0)
                goto done;
            if (!is_bound && !param)
                nm = v;
        }
        if (nm != NULL && PySet_Add(g0, nm) < 0)
            goto done;
    }
    if ((b->g0 = hz_asm_set_tuple(g0)) != NULL && (b->bound = hz_asm_set_tuple(bound)) != NULL)
        rc = 0;
done:
    Py_XDECREF(g0);
    Py_XDECREF(bound);
    return rc;
}

/* The extras a block was made for: its g0 names that are locals (a new sorted list). */
HZ_NO_COVERAGE static PyObject *block_extras(HzBlock *b, PyObject *locals)
{
    return hz_asm_sorted_common(b->g0, locals);
}

HZ_NO_COVERAGE PyObject *hz_asm_block_from_wrapper(const char **refusal, PyCodeObject *co,
                                                   int wline, int nlines, PyObject *extras,
                                                   bool last, Py_ssize_t cg_end, PyObject *params)
{
    HzBytecode d = {0};
    HzBlock *b = calloc(1, sizeof *b);
    PyObject *cl = PyList_New(0), *nl = PyList_New(0), *ll = PyList_New(0);
    PyObject **order = NULL, **first = NULL;
    int rc = -1;
    int nparams = (int)PyTuple_GET_SIZE(params);
    if (b == NULL || cl == NULL || nl == NULL || ll == NULL) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        goto done;
    }
    if (co->co_ncellvars != 0 || co->co_nfreevars != 0 ||
        (co->co_flags & (CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR |
                         CO_ITERABLE_COROUTINE)) != 0) {
        *refusal = "a statement makes cells or a generator";
        rc = 1;
        goto done;
    }
    if (hz_bc_decode(co, &d) < 0) {
        if (!PyErr_Occurred()) {
            *refusal = "a block's tables do not decode";
            rc = 1;
        }
        goto done;
    }
    if (d.n < 2 || d.ins[0].op != RESUME) {
        *refusal = "a block does not start with RESUME";
        rc = 1;
        goto done;
    }
    int end = d.n;
    PyObject *names = co->co_names, *consts = co->co_consts;
    Py_ssize_t nc = PyTuple_GET_SIZE(consts);
    if (!last) {
        /* LOAD_CONST m, STORE_GLOBAL s, LOAD_CONST m, STORE_GLOBAL s, LOAD_CONST None,
         * RETURN_VALUE: the block's last six instructions */
        static const int shape[6] = {LOAD_CONST, STORE_GLOBAL, LOAD_CONST, STORE_GLOBAL,
                                     LOAD_CONST, RETURN_VALUE};
        end = d.n - 6;
        bool ok = end >= 1;
        for (int i = 0; ok && i < 6; i++)
            ok = d.ins[end + i].op == shape[i];
        ok = ok && d.ins[end + 1].arg < PyTuple_GET_SIZE(names) &&
             PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(names, d.ins[end + 1].arg),
                                              SENTINEL) == 0;
        if (!ok) {
            *refusal = "the statement does not end in its sentinel";
            rc = 1;
            goto done;
        }
        cg_end = hz_asm_mark_index(co);
        if (cg_end < 0 || d.ins[end].arg != cg_end) {
            *refusal = "the sentinel's constant is not the marker";
            rc = 1;
            goto done;
        }
    }
    /* constants: index 0 stays 0 (the docstring or None), codegen ones 1.., then the
     * `return None` of a last statement, then the folded ones (b->nconsts marks
     * where they start) */
    Py_ssize_t post = last ? cg_end : cg_end + 1;
    for (Py_ssize_t i = 1; i < cg_end && i < nc; i++)
        if (PyList_Append(cl, PyTuple_GET_ITEM(consts, i)) < 0)
            goto done;
    if (post < nc && PyTuple_GET_ITEM(consts, post) == Py_None) {
        if (last && PyList_Append(cl, Py_None) < 0)
            goto done;
        post++;   /* the sentinel's own `return None` (dropped) */
    }
    b->nconsts = (int)PyList_GET_SIZE(cl);
    for (Py_ssize_t i = post; i < nc; i++)
        if (PyList_Append(cl, PyTuple_GET_ITEM(consts, i)) < 0)
            goto done;
    /* a wrapper constant index -> the block's */
    #define CONST_ARG(c) ((c) == 0 ? 0 : (c) < cg_end ? (int)(c) : \
                          last && (c) == cg_end ? b->nconsts : \
                          b->nconsts + 1 + (int)((c) - post))
    /* locals: the wrapper's own in its order; extra ones where they are first used */
    PyObject *vn = co->co_localsplusnames;
    int nv = (int)PyTuple_GET_SIZE(vn);
    int nextra = extras != NULL ? (int)PyList_GET_SIZE(extras) : 0;
    int wparams = nparams + nextra;
    first = malloc(((size_t)nv + 1) * sizeof *first);
    order = malloc(((size_t)nv + 1) * sizeof *order);
    if (first == NULL || order == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    int nfirst = 0, norder = 0;
    for (int i = 1; i < end; i++) {
        int op = d.ins[i].op;
        if ((op == LOAD_FAST || op == STORE_FAST || op == DELETE_FAST) && d.ins[i].arg < nv) {
            PyObject *v = PyTuple_GET_ITEM(vn, d.ins[i].arg);
            if (find_name(first, nfirst, v) < 0)
                first[nfirst++] = v;
        }
    }
    {
        PyObject *ex[64];
        int nex = 0, iex = 0;
        for (int i = 0; i < nfirst && nex < 64; i++)
            if (nextra > 0 && find_name(&PyTuple_GET_ITEM(vn, nparams), nextra, first[i]) >= 0)
                ex[nex++] = first[i];
        for (int i = wparams; i < nv; i++) {
            PyObject *v = PyTuple_GET_ITEM(vn, i);
            int pv = find_name(first, nfirst, v);
            while (iex < nex && (pv < 0 || find_name(first, nfirst, ex[iex]) < pv))
                order[norder++] = ex[iex++];
            order[norder++] = v;
        }
        while (iex < nex)
            order[norder++] = ex[iex++];
    }
    for (int i = 0; i < norder; i++)
        if (PyList_Append(ll, order[i]) < 0)
            goto done;
    for (int i = 0; i < nparams; i++)
        if (PyList_Append(ll, PyTuple_GET_ITEM(params, i)) < 0)
            goto done;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(names); i++) {
        PyObject *nm = PyTuple_GET_ITEM(names, i);
        if (PyUnicode_CompareWithASCIIString(nm, SENTINEL) != 0 && PyList_Append(nl, nm) < 0)
            goto done;
    }
    /* the instructions, with block-relative args, targets and lines */
    for (int i = 1; i < end; i++) {
        HzInstr in = d.ins[i];
        if (bad_opcode(in.op)) {
            *refusal = "an opcode the assembler does not take";
            rc = 1;
            goto done;
        }
        if (in.loc.line >= 0) {
            if (in.loc.line < wline || in.loc.line >= wline + nlines) {
                *refusal = "a location outside the statement";
                rc = 1;
                goto done;
            }
            in.loc.line -= wline;
            in.loc.endline -= wline;
        }
        if (in.op == LOAD_CONST || in.op == KW_NAMES) {
            if (in.arg >= nc || (!last && in.arg == cg_end)) {
                *refusal = "a constant out of range";
                rc = 1;
                goto done;
            }
            in.arg = CONST_ARG(in.arg);
        }
        else if (is_name_op(in.op)) {
            int ni = in.op == LOAD_GLOBAL ? in.arg >> 1 : in.arg;
            if (ni >= PyTuple_GET_SIZE(names)) {
                *refusal = "a name out of range";
                rc = 1;
                goto done;
            }
            int j = list_index(nl, PyTuple_GET_ITEM(names, ni));
            if (j < 0)
                goto done;
            in.arg = in.op == LOAD_GLOBAL ? (j << 1) | (in.arg & 1) : j;
        }
        else if (in.op == LOAD_FAST || in.op == STORE_FAST || in.op == DELETE_FAST) {
            if (in.arg >= nv) {
                *refusal = "a local out of range";
                rc = 1;
                goto done;
            }
            int j = list_index(ll, PyTuple_GET_ITEM(vn, in.arg));
            if (j < 0)
                goto done;
            in.arg = j;
        }
        if (hz_bc_is_jump(in.op)) {
            if (in.target <= 0 || in.target > end || (last && in.target == end)) {
                *refusal = "a jump into the sentinel";
                rc = 1;
                goto done;
            }
            in.target -= 1;   /* without RESUME; end - 1 = the block's n: the next statement */
        }
        if (hz_bc_push(&b->bc, &in) < 0)
            goto done;
    }
    #undef CONST_ARG
    for (int i = 0; i < d.nexc; i++) {
        HzExcEntry e = d.exc[i];
        if (e.start < 1 || e.end > end || e.target < 1 || e.target >= end) {
            *refusal = "a handler covering the sentinel";
            rc = 1;
            goto done;
        }
        e.start -= 1;
        e.end -= 1;
        e.target -= 1;
        if (hz_bc_push_exc(&b->bc, &e) < 0)
            goto done;
    }
    b->stacksize = co->co_stacksize;
    b->nlines = nlines;
    b->consts = take_tuple(cl);
    b->names = take_tuple(nl);
    b->lnames = take_tuple(ll);
    cl = nl = ll = NULL;
    if (b->consts == NULL || b->names == NULL || b->lnames == NULL ||
        block_facts(b, nparams, params) < 0)
        goto done;
    b->extras = extras != NULL ? Py_NewRef(extras) : PyList_New(0);
    if (b->extras == NULL)
        goto done;
    rc = 0;
done:
    hz_bc_clear(&d);
    free(first);
    free(order);
    Py_XDECREF(cl);
    Py_XDECREF(nl);
    Py_XDECREF(ll);
    if (rc != 0) {
        if (b != NULL) {
            PyObject *cap = hz_asm_block_capsule(b);   /* frees b */
            Py_XDECREF(cap);
        }
        return NULL;
    }
    return hz_asm_block_capsule(b);
}

/* The most stack block b uses, starting empty, as compile.c's stackdepth counts it:
 * each path through the instructions (jumps with their effect, handlers entered
 * with their depth, the exception and lasti pushed); -1 when a path is inconsistent. */
HZ_NO_COVERAGE static int block_stackdepth(const HzBlock *b)
{
    int n = b->bc.n, maxd = 0, top = 0;
    int *depth = malloc(((size_t)n + 1) * sizeof *depth), *work = malloc(((size_t)n + 1) * 2 * sizeof *work);
    if (depth == NULL || work == NULL) {
        free(depth);
        free(work);
        return -1;
    }
    for (int i = 0; i <= n; i++)
        depth[i] = -1;
#define REACH(i, d) do { int i_ = (i), d_ = (d); \
        if (i_ < n && depth[i_] < 0) { depth[i_] = d_; work[top++] = i_; } \
        else if (i_ < n && depth[i_] != d_) { maxd = -1; goto out; } } while (0)
    REACH(0, 0);
    while (top > 0) {
        int i = work[--top], d = depth[i];
        for (; i < n; i++) {
            const HzInstr *in = &b->bc.ins[i];
            if (depth[i] >= 0 && depth[i] != d) {
                maxd = -1;
                goto out;
            }
            depth[i] = d;
            for (int x = 0; x < b->bc.nexc; x++) {
                const HzExcEntry *e = &b->bc.exc[x];
                if (i >= e->start && i < e->end) {
                    int hd = e->depth + e->lasti + 1;
                    if (hd > maxd)
                        maxd = hd;
                    REACH(e->target, hd);
                }
            }
            if (hz_bc_is_jump(in->op)) {
                int jd = d + PyCompile_OpcodeStackEffectWithJump(in->op, in->arg, 1);
                if (jd > maxd)
                    maxd = jd;
                REACH(in->target, jd);
            }
            int op = in->op;
            if (op == JUMP_FORWARD || op == JUMP_BACKWARD || op == JUMP_BACKWARD_NO_INTERRUPT ||
                op == RETURN_VALUE || op == RAISE_VARARGS || op == RERAISE)
                break;
            d += PyCompile_OpcodeStackEffectWithJump(op, in->arg, 0);
            if (d > maxd)
                maxd = d;
            if (d < 0) {
                maxd = -1;
                goto out;
            }
            if (i + 1 < n && depth[i + 1] >= 0) {   /* joins a path already walked */
                if (depth[i + 1] != d)
                    maxd = -1;
                break;
            }
        }
    }
#undef REACH
out:
    free(depth);
    free(work);
    return maxd;
}

HZ_NO_COVERAGE int hz_asm_blocks_from_whole(PyCodeObject *fn, const int *lines, const int *nlines,
                                           int N, PyObject *params, PyObject **out)
{
    HzBytecode d = {0};
    int *start = NULL, *of = NULL, rc = -1;
    PyObject *U = NULL;
    for (int k = 0; k < N; k++)
        out[k] = NULL;
    if (fn->co_ncellvars != 0 || fn->co_nfreevars != 0)
        return 0;
    if (hz_bc_decode(fn, &d) < 0)
        return PyErr_Occurred() ? -1 : 0;
    start = malloc(((size_t)N + 1) * sizeof *start);
    of = malloc(((size_t)d.n + 1) * sizeof *of);
    U = PySet_New(NULL);
    if (start == NULL || of == NULL || U == NULL) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        goto done;
    }
    if (d.n < 1 || d.ins[0].op != RESUME) {
        rc = 0;
        goto done;
    }
    /* each instruction's statement, from its line; unlocated ones go with the one
     * before; statements must come in order and each start with a located one */
    int k = -1;
    for (int i = 1; i < d.n; i++) {
        int line = d.ins[i].loc.line;
        if (line >= 0) {
            int j = k < 0 ? 0 : k;
            while (j < N && line >= lines[j] + nlines[j])
                j++;
            if (j >= N || line < lines[j] || j < k) {
                rc = 0;   /* not cut into statements here */
                goto done;
            }
            while (k < j)
                start[++k] = i;
        }
        else if (k < 0) {
            rc = 0;
            goto done;
        }
        of[i] = k;
    }
    if (k != N - 1) {   /* a statement without code (or dead): not from this compile */
        rc = 0;
        goto done;
    }
    start[N] = d.n;
    for (int j = 0; j < N; j++)
        if (start[j + 1] <= start[j]) {
            rc = 0;
            goto done;
        }
    /* the function's locals: for the extras each block is good for */
    for (Py_ssize_t i = PyTuple_GET_SIZE(params); i < PyTuple_GET_SIZE(fn->co_localsplusnames); i++)
        if (PySet_Add(U, PyTuple_GET_ITEM(fn->co_localsplusnames, i)) < 0)
            goto done;
    for (int j = 0; j < N; j++) {
        int s = start[j], e = start[j + 1], n = e - s;
        bool ok = true;
        for (int i = s; ok && i < e; i++) {
            const HzInstr *in = &d.ins[i];
            ok = !bad_opcode(in->op) &&
                 (!hz_bc_is_jump(in->op) || (in->target >= s && in->target <= e &&
                                             !(j == N - 1 && in->target == e)));
        }
        for (int x = 0; ok && x < d.nexc; x++) {
            const HzExcEntry *en = &d.exc[x];
            bool inside = en->start >= s && en->end <= e;
            bool outside = en->end <= s || en->start >= e;
            ok = outside || (inside && en->target >= s && en->target < e);
        }
        if (!ok)
            continue;
        HzBlock *b = calloc(1, sizeof *b);
        PyObject *cl = PyList_New(0), *nl = PyList_New(0), *ll = PyList_New(0);
        if (b == NULL || cl == NULL || nl == NULL || ll == NULL) {
            free(b);
            Py_XDECREF(cl);
            Py_XDECREF(nl);
            Py_XDECREF(ll);
            if (!PyErr_Occurred())
                PyErr_NoMemory();
            goto done;
        }
        bool fail = false;
        /* constants and names in first-use order; folded ones cannot be told apart */
        for (int i = s; !fail && i < e; i++) {
            HzInstr in = d.ins[i];
            if ((in.op == LOAD_CONST || in.op == KW_NAMES) && in.arg > 0) {
                PyObject *c = PyTuple_GET_ITEM(fn->co_consts, in.arg);
                Py_ssize_t m = PyList_GET_SIZE(cl), q = 0;
                while (q < m && PyList_GET_ITEM(cl, q) != c)
                    q++;
                if (q == m && PyList_Append(cl, c) < 0)
                    fail = true;
                in.arg = (int)q + 1;
            }
            else if (is_name_op(in.op)) {
                int ni = in.op == LOAD_GLOBAL ? in.arg >> 1 : in.arg;
                int q = list_index(nl, PyTuple_GET_ITEM(fn->co_names, ni));
                fail = q < 0;
                in.arg = in.op == LOAD_GLOBAL ? (q << 1) | (in.arg & 1) : q;
            }
            else if (in.op == LOAD_FAST || in.op == STORE_FAST || in.op == DELETE_FAST) {
                int q = list_index(ll, PyTuple_GET_ITEM(fn->co_localsplusnames, in.arg));
                fail = q < 0;
                in.arg = q;
            }
            if (hz_bc_is_jump(in.op))
                in.target -= s;
            if (in.loc.line >= 0) {
                in.loc.line -= lines[j];
                in.loc.endline -= lines[j];
            }
            if (!fail && hz_bc_push(&b->bc, &in) < 0)
                fail = true;
        }
        for (int x = 0; !fail && x < d.nexc; x++) {
            HzExcEntry en = d.exc[x];
            if (en.end <= s || en.start >= e)
                continue;
            en.start -= s;
            en.end -= s;
            en.target -= s;
            fail = hz_bc_push_exc(&b->bc, &en) < 0;
        }
        for (Py_ssize_t i = 0; !fail && i < PyTuple_GET_SIZE(params); i++)
            fail = list_index(ll, PyTuple_GET_ITEM(params, i)) < 0;
        /* The last statement's `return None` comes after its constants in the
         * compiler's numbering (it is added when the body is done), though a copy of
         * it may come first in the code (an exit duplicated into a try's body). */
        if (!fail && j == N - 1) {
            Py_ssize_t m = PyList_GET_SIZE(cl), at = -1, none_f = -1, max_other = -1;
            for (Py_ssize_t q = 0; q < m; q++) {
                PyObject *c = PyList_GET_ITEM(cl, q);
                Py_ssize_t f = 0;
                while (PyTuple_GET_ITEM(fn->co_consts, f) != c)
                    f++;
                if (c == Py_None) {
                    at = q;
                    none_f = f;
                }
                else if (f > max_other)
                    max_other = f;
            }
            if (at >= 0 && none_f > max_other && at != m - 1) {
                /* renumber: every instruction's index above at moves down by one */
                for (int i = 0; i < b->bc.n; i++) {
                    HzInstr *in = &b->bc.ins[i];
                    if (in->op != LOAD_CONST && in->op != KW_NAMES)
                        continue;
                    if (in->arg == at + 1)
                        in->arg = (int)m;
                    else if (in->arg > at + 1)
                        in->arg--;
                }
                fail = PySequence_DelItem(cl, at) < 0 || PyList_Append(cl, Py_None) < 0;
            }
        }
        b->nconsts = (int)PyList_GET_SIZE(cl);
        b->stacksize = fn->co_stacksize;   /* the function's (an upper bound) until counted */
        b->nlines = nlines[j];
        b->consts = take_tuple(cl);
        b->names = take_tuple(nl);
        b->lnames = take_tuple(ll);
        PyObject *cap = hz_asm_block_capsule(b);   /* owns b from here */
        if (fail || cap == NULL || b->consts == NULL || b->names == NULL || b->lnames == NULL ||
            block_facts(b, 0, params) < 0 || (b->extras = block_extras(b, U)) == NULL) {
            Py_XDECREF(cap);
            goto done;
        }
        (void)n;
        int sd = block_stackdepth(b);
        if (sd >= 0)
            b->stacksize = sd;
        out[j] = cap;
    }
    rc = 0;
done:
    if (rc != 0)
        for (int j = 0; j < N; j++)
            Py_CLEAR(out[j]);
    hz_bc_clear(&d);
    free(start);
    free(of);
    Py_XDECREF(U);
    return rc;
}

/* ---- linking ---- */

HZ_NO_COVERAGE void hz_asm_find_out_const(HzBlock *b, long num)
{
    b->out_const = 0;
    int c = 0;
    for (int i = 0; i < b->nconsts && c == 0; i++) {
        PyObject *v = PyTuple_GET_ITEM(b->consts, i);
        int overflow = 0;
        if (PyLong_CheckExact(v) && PyLong_AsLongAndOverflow(v, &overflow) == num && !overflow)
            c = i + 1;   /* an exact int: AsLongAndOverflow does not raise */
    }
    if (c == 0)
        return;
    /* every load of it an index of the local `out`: LOAD_FAST out; LOAD_CONST c; then
     * the subscript (or the COPY of an augmented one). Any other use would change
     * with it. */
    int uses = 0;
    for (int i = 0; i < b->bc.n; i++) {
        const HzInstr *in = &b->bc.ins[i];
        if ((in->op != LOAD_CONST && in->op != KW_NAMES) || in->arg != c)
            continue;
        const HzInstr *prev = i > 0 ? &b->bc.ins[i - 1] : NULL;
        const HzInstr *next = i + 1 < b->bc.n ? &b->bc.ins[i + 1] : NULL;
        bool index = in->op == LOAD_CONST && prev != NULL && prev->op == LOAD_FAST &&
                     prev->arg < PyTuple_GET_SIZE(b->lnames) &&
                     PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(b->lnames, prev->arg),
                                                      "out") == 0 &&
                     next != NULL && (next->op == STORE_SUBSCR || next->op == BINARY_SUBSCR ||
                                      next->op == DELETE_SUBSCR || next->op == COPY);
        if (!index)
            return;
        uses++;
    }
    if (uses > 0) {
        b->out_const = c;
        b->out_num = num;
    }
}

HZ_NO_COVERAGE int hz_asm_link(Asm *s, const HzBlock *b, int fline, PyObject *out_value)
{
    int nc = (int)PyTuple_GET_SIZE(b->consts), nn = (int)PyTuple_GET_SIZE(b->names);
    int nl = (int)PyTuple_GET_SIZE(b->lnames), rc = -1;
    int *cmap = malloc(((size_t)nc + 2) * sizeof *cmap);
    int *nmap = malloc(((size_t)nn + 1) * sizeof *nmap);
    int *lmap = malloc(((size_t)nl + 1) * sizeof *lmap);
    if (cmap == NULL || nmap == NULL || lmap == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    cmap[0] = 0;
    for (int i = 0; i < b->nconsts; i++) {
        /* in the block's order, so equal constants merge where the compiler would */
        PyObject *v = out_value != NULL && i + 1 == b->out_const ? out_value
                                                                 : PyTuple_GET_ITEM(b->consts, i);
        if ((cmap[i + 1] = hz_asm_table_add(&s->consts, v, NULL)) < 0)
            goto done;
    }
    for (int i = 0; i < nn; i++) {
        PyObject *nm = PyTuple_GET_ITEM(b->names, i);
        if ((nmap[i] = hz_asm_table_add(&s->names, nm, nm)) < 0)
            goto done;
    }
    for (int i = 0; i < nl; i++) {
        PyObject *v = PyTuple_GET_ITEM(b->lnames, i);
        if ((lmap[i] = hz_asm_table_add(&s->varnames, v, v)) < 0)
            goto done;
    }
    if (b->stacksize > s->stacksize)
        s->stacksize = b->stacksize;
    int base = s->out.n;
    for (int i = 0; i < b->bc.n; i++) {
        HzInstr in = b->bc.ins[i];
        PyObject *pending = NULL;
        if (in.op == LOAD_CONST || in.op == KW_NAMES) {
            if (in.arg <= b->nconsts)
                in.arg = cmap[in.arg];
            else
                pending = PyTuple_GET_ITEM(b->consts, in.arg - 1);   /* folded */
        }
        else if (is_name_op(in.op))
            in.arg = in.op == LOAD_GLOBAL ? (nmap[in.arg >> 1] << 1) | (in.arg & 1) : nmap[in.arg];
        else if (in.op == LOAD_FAST || in.op == STORE_FAST || in.op == DELETE_FAST)
            in.arg = lmap[in.arg];
        if (hz_bc_is_jump(in.op))
            in.target += base;   /* b->bc.n + base: the next block's first instruction */
        if (in.loc.line >= 0) {
            in.loc.line += fline;
            in.loc.endline += fline;
        }
        if (hz_bc_push(&s->out, &in) < 0)
            goto done;
        if (s->out.n > s->cobj_cap) {
            int cap = s->cobj_cap ? 2 * s->cobj_cap : 512;
            PyObject **p = realloc(s->cobj, (size_t)cap * sizeof *p);
            if (p == NULL) {
                PyErr_NoMemory();
                goto done;
            }
            s->cobj = p;
            s->cobj_cap = cap;
        }
        s->cobj[s->out.n - 1] = pending;
    }
    for (int i = b->nconsts; i < nc; i++)
        if (PyList_Append(s->folded, PyTuple_GET_ITEM(b->consts, i)) < 0)
            goto done;
    for (int i = 0; i < b->bc.nexc; i++) {
        HzExcEntry e = b->bc.exc[i];
        e.start += base;
        e.end += base;
        e.target += base;
        if (hz_bc_push_exc(&s->out, &e) < 0)
            goto done;
    }
    rc = 0;
done:
    free(cmap);
    free(nmap);
    free(lmap);
    return rc;
}
