/* hz_assemble_link.c: the blocks put together (hz_assemble.c's last step): each
 * block's instructions copied without its RESUME and sentinel, its constants, names
 * and locals numbered into the function's tables in the order the compiler numbers
 * them, its lines shifted from the wrapper's to the file's, its jumps and handlers
 * relocated. */
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
            (u = PyUnicode_AsUTF8AndSize(c, &len)) != NULL && len == 7 && memcmp(u, MARK, 7) == 0)
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



/* Appends block co (statement k, first line wline in its wrapper, at file line
 * fline; extras or NULL; last: no sentinel) to s. Returns 0, 1 to refuse
 * (*refusal set), -1 on error. cg_end: where co's code-generation constants end
 * (-1: find the marker). */
HZ_NO_COVERAGE int hz_asm_add_block(const char **refusal, Asm *s, PyCodeObject *co, int wline,
                                    int wlines, int fline, PyObject *extras, bool last,
                                    Py_ssize_t cg_end, int nparams)
{
    HzBytecode b = {0};
    PyObject **first = NULL, **order = NULL;
    int rc = -1;
    if (hz_bc_decode(co, &b) < 0) {
        if (PyErr_Occurred())
            goto done;
        *refusal = "a block's tables do not decode";
        rc = 1;
        goto done;
    }
    if (b.n < 2 || b.ins[0].op != RESUME) {
        *refusal = "a block does not start with RESUME";
        rc = 1;
        goto done;
    }
    int end = b.n;
    PyObject *names = co->co_names;
    if (!last) {
        /* LOAD_CONST m, STORE_GLOBAL s, LOAD_CONST m, STORE_GLOBAL s, LOAD_CONST None,
         * RETURN_VALUE: the block's last six instructions */
        static const int shape[6] = {LOAD_CONST, STORE_GLOBAL, LOAD_CONST, STORE_GLOBAL,
                                     LOAD_CONST, RETURN_VALUE};
        end = b.n - 6;
        bool ok = end >= 1;
        for (int i = 0; ok && i < 6; i++)
            ok = b.ins[end + i].op == shape[i];
        ok = ok && b.ins[end + 1].arg < PyTuple_GET_SIZE(names) &&
             PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(names, b.ins[end + 1].arg),
                                              SENTINEL) == 0;
        if (!ok) {
            *refusal = "the statement does not end in its sentinel";
            rc = 1;
            goto done;
        }
        cg_end = hz_asm_mark_index(co);
        if (cg_end < 0 || b.ins[end].arg != cg_end) {
            *refusal = "the sentinel's constant is not the marker";
            rc = 1;
            goto done;
        }
    }
    if (co->co_stacksize > s->stacksize)
        s->stacksize = co->co_stacksize;
    /* constants: code generation's now, folded ones after all blocks */
    PyObject *consts = co->co_consts;
    Py_ssize_t nc = PyTuple_GET_SIZE(consts);
    for (Py_ssize_t i = 1; i < cg_end && i < nc; i++)
        if (hz_asm_table_add(&s->consts, PyTuple_GET_ITEM(consts, i), NULL) < 0)
            goto done;
    Py_ssize_t post = last ? cg_end : cg_end + 1;
    if (post < nc && PyTuple_GET_ITEM(consts, post) == Py_None) {
        /* the `return None` of the sentinel (dropped) or of the function's end
         * (numbered right after the code-generation constants) */
        if (last && hz_asm_table_add(&s->consts, Py_None, NULL) < 0)
            goto done;
        post++;
    }
    for (; post < nc; post++)
        if (PyList_Append(s->folded, PyTuple_GET_ITEM(consts, post)) < 0)
            goto done;
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
    if (nextra > 0) {
        for (int i = 1; i < end; i++) {
            int op = b.ins[i].op;
            if ((op == LOAD_FAST || op == STORE_FAST || op == DELETE_FAST) && b.ins[i].arg < nv) {
                PyObject *v = PyTuple_GET_ITEM(vn, b.ins[i].arg);
                if (find_name(first, nfirst, v) < 0)
                    first[nfirst++] = v;
            }
        }
        /* the extras in the order of their first use */
        PyObject *ex[64];
        int nex = 0, iex = 0;
        for (int i = 0; i < nfirst && nex < 64; i++)
            if (find_name(&PyTuple_GET_ITEM(vn, nparams), nextra, first[i]) >= 0)
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
    else {
        for (int i = wparams; i < nv; i++)
            order[norder++] = PyTuple_GET_ITEM(vn, i);
    }
    for (int i = 0; i < norder; i++)
        if (hz_asm_table_add(&s->varnames, order[i], order[i]) < 0)
            goto done;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(names); i++) {
        PyObject *nm = PyTuple_GET_ITEM(names, i);
        if (PyUnicode_CompareWithASCIIString(nm, SENTINEL) != 0 &&
            hz_asm_table_add(&s->names, nm, nm) < 0)
            goto done;
    }
    /* the instructions */
    int base = s->out.n - 1;   /* block instruction i (>= 1) -> out.ins[base + i] */
    int delta = fline - wline;
    for (int i = 1; i < end; i++) {
        HzInstr in = b.ins[i];
        PyObject *cobj = NULL;
        if (bad_opcode(in.op)) {
            *refusal = "an opcode the assembler does not take";
            rc = 1;
            goto done;
        }
        if (in.loc.line >= 0) {
            if (in.loc.line < wline || in.loc.line >= wline + wlines) {
                *refusal = "a location outside the statement";
                rc = 1;
                goto done;
            }
            in.loc.line += delta;
            in.loc.endline += delta;
        }
        if (in.op == LOAD_CONST || in.op == KW_NAMES) {
            if (in.arg >= nc || (!last && in.arg == cg_end)) {
                *refusal = "a constant out of range";
                rc = 1;
                goto done;
            }
            cobj = PyTuple_GET_ITEM(consts, in.arg);
        }
        else if (is_name_op(in.op)) {
            int ni = in.op == LOAD_GLOBAL ? in.arg >> 1 : in.arg;
            if (ni >= PyTuple_GET_SIZE(names)) {
                *refusal = "a name out of range";
                rc = 1;
                goto done;
            }
            PyObject *nm = PyTuple_GET_ITEM(names, ni);
            int j = hz_asm_table_add(&s->names, nm, nm);
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
            PyObject *v = PyTuple_GET_ITEM(vn, in.arg);
            int j = hz_asm_table_add(&s->varnames, v, v);
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
            /* to the sentinel: the next statement's first instruction, out.n + the
             * instructions left in this block */
            in.target = base + in.target;
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
        s->cobj[s->out.n - 1] = cobj;
    }
    for (int i = 0; i < b.nexc; i++) {
        HzExcEntry e = b.exc[i];
        if (e.start < 1 || e.end > end || e.target < 1 || e.target >= end) {
            *refusal = "a handler covering the sentinel";
            rc = 1;
            goto done;
        }
        e.start += base;
        e.end += base;
        e.target += base;
        if (hz_bc_push_exc(&s->out, &e) < 0)
            goto done;
    }
    rc = 0;
done:
    free(first);
    free(order);
    hz_bc_clear(&b);
    return rc;
}

/* Returns a new reference to the function code of the stub module (its one code
 * constant), or NULL (refusal set) when it is not one the assembler takes. */
