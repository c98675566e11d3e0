/* hz_bytecode.c: decode and encode 3.11 code objects (see hz_bytecode.h).
 *
 * Three tables, three encodings (all of CPython 3.11):
 *  - co_code: 2-byte code units; EXTENDED_ARG units before an instruction carry
 *    the high bytes of its oparg, CACHE units follow it (hz_bc_caches). A relative
 *    jump's oparg counts units from the end of the jump (its caches included).
 *  - co_linetable (Objects/locations.md): entries of 1-8 code units; first byte
 *    1cccclll (code, length-1), then per code: 0-9 short form (line delta 0, column
 *    group c, a byte of 3 low column bits and the width), 10-12 one-line form (line
 *    delta c-10, column, end column), 13 no columns (signed varint line delta), 14
 *    long form (signed line delta, end line delta, column+1, end column+1), 15 no
 *    location. Varints: 6-bit groups, least significant first, bit 6 = more.
 *  - co_exceptiontable (Objects/exception_handling_notes.txt): entries of four
 *    varints (start, length, target in code units, depth<<1|lasti); 6-bit groups,
 *    most significant first, bit 6 = more, bit 7 marks an entry's first byte.
 * Everything here runs from the code cache only (HZ_NO_COVERAGE, hz_codecache.h). */
#include "hz_bytecode.h"
#include "hz_codecache.h"

#include <opcode.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>


HZ_NO_COV_HELPER int hz_bc_caches(int op)
{
    /* opcode._inline_cache_entries of 3.11 (checked against it by the test) */
    switch (op) {
    case BINARY_SUBSCR: return 4;
    case STORE_SUBSCR: return 1;
    case UNPACK_SEQUENCE: return 1;
    case STORE_ATTR: return 4;
    case LOAD_ATTR: return 4;
    case COMPARE_OP: return 2;
    case LOAD_GLOBAL: return 5;
    case BINARY_OP: return 1;
    case LOAD_METHOD: return 10;
    case PRECALL: return 1;
    case CALL: return 4;
    default: return 0;
    }
}

HZ_NO_COV_HELPER bool hz_bc_is_backward(int op)
{
    switch (op) {
    case JUMP_BACKWARD:
    case JUMP_BACKWARD_NO_INTERRUPT:
    case POP_JUMP_BACKWARD_IF_NOT_NONE:
    case POP_JUMP_BACKWARD_IF_NONE:
    case POP_JUMP_BACKWARD_IF_FALSE:
    case POP_JUMP_BACKWARD_IF_TRUE:
        return true;
    default:
        return false;
    }
}

HZ_NO_COV_HELPER bool hz_bc_is_jump(int op)
{
    switch (op) {
    case FOR_ITER:
    case JUMP_FORWARD:
    case JUMP_IF_FALSE_OR_POP:
    case JUMP_IF_TRUE_OR_POP:
    case POP_JUMP_FORWARD_IF_FALSE:
    case POP_JUMP_FORWARD_IF_TRUE:
    case SEND:
    case POP_JUMP_FORWARD_IF_NOT_NONE:
    case POP_JUMP_FORWARD_IF_NONE:
        return true;
    default:
        return hz_bc_is_backward(op);
    }
}

HZ_NO_COVERAGE void hz_bc_clear(HzBytecode *b)
{
    free(b->ins);
    free(b->exc);
    memset(b, 0, sizeof *b);
}

HZ_NO_COVERAGE int hz_bc_push(HzBytecode *b, const HzInstr *in)
{
    if (b->n == b->cap) {
        int cap = b->cap ? 2 * b->cap : 256;
        HzInstr *p = realloc(b->ins, (size_t)cap * sizeof *p);
        if (p == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        b->ins = p;
        b->cap = cap;
    }
    b->ins[b->n++] = *in;
    return 0;
}

HZ_NO_COVERAGE int hz_bc_push_exc(HzBytecode *b, const HzExcEntry *e)
{
    if (b->nexc == b->capexc) {
        int cap = b->capexc ? 2 * b->capexc : 16;
        HzExcEntry *p = realloc(b->exc, (size_t)cap * sizeof *p);
        if (p == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        b->exc = p;
        b->capexc = cap;
    }
    b->exc[b->nexc++] = *e;
    return 0;
}

/* ---- decoding ---- */

/* Line-table varint at t[*i] (bounds-checked: -1 when it runs past n). */
HZ_NO_COV_HELPER static int lt_varint(const uint8_t *t, Py_ssize_t n, Py_ssize_t *i, int *out)
{
    unsigned v = 0, shift = 0;
    for (;;) {
        if (*i >= n || shift > 24)
            return -1;
        uint8_t b = t[(*i)++];
        v |= (unsigned)(b & 63) << shift;
        shift += 6;
        if (!(b & 64))
            break;
    }
    *out = (int)v;
    return 0;
}

HZ_NO_COV_HELPER static int lt_svarint(const uint8_t *t, Py_ssize_t n, Py_ssize_t *i, int *out)
{
    int v;
    if (lt_varint(t, n, i, &v) < 0)
        return -1;
    *out = (v & 1) ? -(v >> 1) : (v >> 1);
    return 0;
}

/* Fills locs[0..nunits) from co's location table; -1 when it is malformed or does
 * not cover exactly nunits code units. */
HZ_NO_COVERAGE static int decode_lines(PyCodeObject *co, HzLoc *locs, int nunits)
{
    const uint8_t *t = (const uint8_t *)PyBytes_AS_STRING(co->co_linetable);
    Py_ssize_t n = PyBytes_GET_SIZE(co->co_linetable), i = 0;
    int line = co->co_firstlineno, unit = 0;
    while (i < n) {
        uint8_t first = t[i++];
        int code = (first >> 3) & 15, len = (first & 7) + 1;
        HzLoc loc;
        if (!(first & 128))
            return -1;
        if (code == 15) {
            loc = (HzLoc){-1, -1, -1, -1};
        }
        else if (code == 14) {
            int d, el, c, ec;
            if (lt_svarint(t, n, &i, &d) < 0 || lt_varint(t, n, &i, &el) < 0 ||
                lt_varint(t, n, &i, &c) < 0 || lt_varint(t, n, &i, &ec) < 0)
                return -1;
            line += d;
            loc = (HzLoc){line, line + el, c - 1, ec - 1};
        }
        else if (code == 13) {
            int d;
            if (lt_svarint(t, n, &i, &d) < 0)
                return -1;
            line += d;
            loc = (HzLoc){line, line, -1, -1};
        }
        else if (code >= 10) {
            if (i + 2 > n)
                return -1;
            line += code - 10;
            loc = (HzLoc){line, line, t[i], t[i + 1]};
            i += 2;
        }
        else {
            if (i + 1 > n)
                return -1;
            int c = code * 8 + ((t[i] >> 4) & 7);
            loc = (HzLoc){line, line, c, c + (t[i] & 15)};
            i++;
        }
        if (unit + len > nunits)
            return -1;
        for (int k = 0; k < len; k++)
            locs[unit++] = loc;
    }
    return unit == nunits ? 0 : -1;
}

/* Exception-table varint (most significant group first). */
HZ_NO_COV_HELPER static int et_varint(const uint8_t *t, Py_ssize_t n, Py_ssize_t *i, int *out)
{
    unsigned v = 0;
    for (int k = 0;; k++) {
        if (*i >= n || k > 5)
            return -1;
        uint8_t b = t[(*i)++];
        v = (v << 6) | (b & 63);
        if (!(b & 64))
            break;
    }
    *out = (int)v;
    return 0;
}

HZ_NO_COVERAGE int hz_bc_decode(PyCodeObject *co, HzBytecode *b)
{
    int rc = -1;
    HzLoc *locs = NULL;
    int *index = NULL;   /* code unit -> instruction starting there, or -1 */
    PyObject *bytes = PyCode_GetCode(co);   /* new */
    if (bytes == NULL)
        return -1;
    const uint8_t *code = (const uint8_t *)PyBytes_AS_STRING(bytes);
    int nunits = (int)(PyBytes_GET_SIZE(bytes) / 2);
    locs = malloc(((size_t)nunits + 1) * sizeof *locs);
    index = malloc(((size_t)nunits + 1) * sizeof *index);
    if (locs == NULL || index == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (decode_lines(co, locs, nunits) < 0)
        goto done;
    for (int u = 0; u <= nunits; u++)
        index[u] = -1;
    int start = 0, ext = 0;
    for (int u = 0; u < nunits;) {
        int op = code[2 * u], arg = code[2 * u + 1] | ext;
        if (op == EXTENDED_ARG) {
            ext = arg << 8;
            u++;
            continue;
        }
        ext = 0;
        int end = u + 1 + hz_bc_caches(op);
        if (op == CACHE || end > nunits)
            goto done;
        index[start] = b->n;
        /* target holds the jump's unit offset until all instructions are known */
        HzInstr in = {op, arg, -1, locs[start]};
        if (hz_bc_is_jump(op))
            in.target = hz_bc_is_backward(op) ? end - arg : end + arg;
        if (hz_bc_push(b, &in) < 0)
            goto done;
        u = start = end;
    }
    if (ext != 0)
        goto done;
    index[nunits] = b->n;
    for (int k = 0; k < b->n; k++) {
        HzInstr *in = &b->ins[k];
        if (in->target >= 0) {
            if (in->target > nunits || index[in->target] < 0)
                goto done;
            in->target = index[in->target];
        }
    }
    const uint8_t *t = (const uint8_t *)PyBytes_AS_STRING(co->co_exceptiontable);
    Py_ssize_t n = PyBytes_GET_SIZE(co->co_exceptiontable), i = 0;
    while (i < n) {
        int s, len, target, dl;
        if (!(t[i] & 128) || et_varint(t, n, &i, &s) < 0 || et_varint(t, n, &i, &len) < 0 ||
            et_varint(t, n, &i, &target) < 0 || et_varint(t, n, &i, &dl) < 0)
            goto done;
        if (s + len > nunits || target >= nunits || index[s] < 0 || index[s + len] < 0 ||
            index[target] < 0)
            goto done;
        HzExcEntry e = {index[s], index[s + len], index[target], dl >> 1, dl & 1};
        if (hz_bc_push_exc(b, &e) < 0)
            goto done;
    }
    rc = 0;
done:
    free(locs);
    free(index);
    Py_DECREF(bytes);
    return rc;
}

/* ---- encoding ---- */

typedef struct {
    uint8_t *p;
    size_t n, cap;
    bool failed;
} Out;

HZ_NO_COV_HELPER static void out_byte(Out *o, int byte)
{
    if (o->n == o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 256;
        uint8_t *p = realloc(o->p, cap);
        if (p == NULL) {
            o->failed = true;
            return;
        }
        o->p = p;
        o->cap = cap;
    }
    o->p[o->n++] = (uint8_t)byte;
}

HZ_NO_COV_HELPER static void lt_put_varint(Out *o, unsigned v)
{
    while (v >= 64) {
        out_byte(o, 64 | (v & 63));
        v >>= 6;
    }
    out_byte(o, (int)v);
}

HZ_NO_COV_HELPER static void lt_put_svarint(Out *o, int v)
{
    lt_put_varint(o, v < 0 ? ((unsigned)-v << 1) | 1 : (unsigned)v << 1);
}

/* One location entry of len (1-8) code units, as compile.c's
 * write_location_info_entry chooses its form; *cur is the line the deltas count from. */
HZ_NO_COV_HELPER static void lt_entry(Out *o, const HzLoc *l, int len, int *cur)
{
    int first = 0x80 | (len - 1);
    if (l->line < 0) {
        out_byte(o, first | (15 << 3));
        return;
    }
    int d = l->line - *cur;
    if (l->col < 0 || l->endcol < 0) {
        if (l->endline == l->line || l->endline == -1) {
            out_byte(o, first | (13 << 3));
            lt_put_svarint(o, d);
            *cur = l->line;
            return;
        }
    }
    else if (l->endline == l->line) {
        if (d == 0 && l->col < 80 && l->endcol - l->col < 16 && l->endcol >= l->col) {
            out_byte(o, first | ((l->col >> 3) << 3));
            out_byte(o, ((l->col & 7) << 4) | (l->endcol - l->col));
            return;
        }
        if (d >= 0 && d < 3 && l->col < 128 && l->endcol < 128) {
            out_byte(o, first | ((10 + d) << 3));
            out_byte(o, l->col);
            out_byte(o, l->endcol);
            *cur = l->line;
            return;
        }
    }
    out_byte(o, first | (14 << 3));
    lt_put_svarint(o, d);
    lt_put_varint(o, (unsigned)(l->endline - l->line));
    lt_put_varint(o, (unsigned)(l->col + 1));
    lt_put_varint(o, (unsigned)(l->endcol + 1));
    *cur = l->line;
}

HZ_NO_COV_HELPER static void et_put(Out *o, int v, int msb)
{
    for (int shift = 24; shift > 0; shift -= 6)
        if (v >= 1 << shift) {
            out_byte(o, ((v >> shift) & 63) | 64 | msb);
            msb = 0;
        }
    out_byte(o, (v & 63) | msb);
}

HZ_NO_COV_HELPER static int ext_units(int arg)
{
    return (arg > 0xff) + (arg > 0xffff) + (arg > 0xffffff);
}

HZ_NO_COVERAGE int hz_bc_encode(HzBytecode *b, int firstlineno, PyObject **code,
                                PyObject **linetable, PyObject **exctable)
{
    int rc = -1;
    Out c = {0}, lt = {0}, et = {0};
    int *size = malloc(((size_t)b->n + 1) * sizeof *size);
    int *off = malloc(((size_t)b->n + 1) * sizeof *off);
    if (size == NULL || off == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    /* sizes: jumps from one unit up to the fixed point, as assemble_jump_offsets */
    for (int i = 0; i < b->n; i++) {
        const HzInstr *in = &b->ins[i];
        size[i] = 1 + hz_bc_caches(in->op) + (hz_bc_is_jump(in->op) ? 0 : ext_units(in->arg));
    }
    for (bool changed = true; changed;) {
        changed = false;
        off[0] = 0;
        for (int i = 0; i < b->n; i++)
            off[i + 1] = off[i] + size[i];
        for (int i = 0; i < b->n; i++) {
            HzInstr *in = &b->ins[i];
            if (!hz_bc_is_jump(in->op))
                continue;
            in->arg = hz_bc_is_backward(in->op) ? off[i + 1] - off[in->target]
                                                : off[in->target] - off[i + 1];
            if (in->arg < 0) {
                PyErr_SetString(PyExc_SystemError, "hz_bc_encode: jump in the wrong direction");
                goto done;
            }
            int s = 1 + hz_bc_caches(in->op) + ext_units(in->arg);
            if (s != size[i]) {
                size[i] = s;
                changed = true;
            }
        }
    }
    int cur = firstlineno;
    for (int i = 0; i < b->n; i++) {
        const HzInstr *in = &b->ins[i];
        int ncache = hz_bc_caches(in->op);
        for (int shift = 8 * (size[i] - 1 - ncache); shift > 0; shift -= 8) {
            out_byte(&c, EXTENDED_ARG);
            out_byte(&c, (in->arg >> shift) & 0xff);
        }
        out_byte(&c, in->op);
        out_byte(&c, in->arg & 0xff);
        for (int k = 0; k < ncache; k++) {
            out_byte(&c, CACHE);
            out_byte(&c, 0);
        }
        for (int left = size[i]; left > 0; left -= 8)
            lt_entry(&lt, &in->loc, left > 8 ? 8 : left, &cur);
    }
    for (int k = 0; k < b->nexc; k++) {
        const HzExcEntry *e = &b->exc[k];
        et_put(&et, off[e->start], 128);
        et_put(&et, off[e->end] - off[e->start], 0);
        et_put(&et, off[e->target], 0);
        et_put(&et, (e->depth << 1) | e->lasti, 0);
    }
    if (c.failed || lt.failed || et.failed) {
        PyErr_NoMemory();
        goto done;
    }
    *code = PyBytes_FromStringAndSize((const char *)c.p, (Py_ssize_t)c.n);
    *linetable = PyBytes_FromStringAndSize((const char *)lt.p, (Py_ssize_t)lt.n);
    *exctable = PyBytes_FromStringAndSize((const char *)et.p, (Py_ssize_t)et.n);
    if (*code == NULL || *linetable == NULL || *exctable == NULL) {
        Py_CLEAR(*code);
        Py_CLEAR(*linetable);
        Py_CLEAR(*exctable);
        goto done;
    }
    rc = 0;
done:
    free(c.p);
    free(lt.p);
    free(et.p);
    free(size);
    free(off);
    return rc;
}
