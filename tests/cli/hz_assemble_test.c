/* hz_assemble_test.c: functions assembled from their statements (hz_assemble.h).
 * One case per argv[1]:
 *   roundtrip  decoding and encoding a compiled code object gives back its co_code,
 *              co_linetable and co_exceptiontable (hz_bytecode.h); the cache counts
 *              and jump opcodes agree with Python's `opcode` module
 *   identity   every def piece of COUNT generated programs (argv[2], default 3000)
 *              and of the hand-written tricky functions below, assembled, equals the
 *              piece compiled alone: module code and function code field by field
 *              (co_code, co_consts recursively by constant key, co_names,
 *              co_varnames, co_linetable, co_exceptiontable, co_stacksize, co_flags,
 *              counts, names, first line); no difference is allowed (none is known)
 *   identity_cut  the same over a mutation chain with the cache's gate on (blocks
 *              also cut out of whole compiles): byte-identical or equal up to the
 *              numbering of constants, names and locals
 *   fallback   pieces the assembler must refuse do fall back (NULL, no exception)
 *   no_leak    rounds of assembling leak no Python objects
 *   semantic   generated programs run through the protocol (identity target) with
 *              and without the assembler: the same verdicts and observations */
#include "hz_assemble.h"
#include "hz_bytecode.h"
#include "hz_codecache.h"
#include "hz_embed.h"
#include "hz_mutate.h"
#include "hz_program.h"
#include "hz_protocol.h"
#include "hz_target.h"
#include "../tf_check.h"

#include <opcode.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- comparison ---- */

static int code_diff(PyObject *a, PyObject *b, char *why, size_t cap);

/* 0 when two constants are equal (code objects field by field, tuples and
 * frozensets element-wise through the constant key). */
static int const_diff(PyObject *a, PyObject *b, char *why, size_t cap)
{
    if (PyCode_Check(a) && PyCode_Check(b))
        return code_diff(a, b, why, cap);
    if (PyTuple_CheckExact(a) && PyTuple_CheckExact(b)) {
        if (PyTuple_GET_SIZE(a) != PyTuple_GET_SIZE(b)) {
            snprintf(why, cap, "tuple sizes");
            return 1;
        }
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(a); i++)
            if (const_diff(PyTuple_GET_ITEM(a, i), PyTuple_GET_ITEM(b, i), why, cap))
                return 1;
        return 0;
    }
    PyObject *ka = _PyCode_ConstantKey(a), *kb = _PyCode_ConstantKey(b);
    int eq = ka && kb ? PyObject_RichCompareBool(ka, kb, Py_EQ) : -1;
    Py_XDECREF(ka);
    Py_XDECREF(kb);
    if (eq != 1) {
        PyErr_Clear();
        snprintf(why, cap, "constant %s vs %s", Py_TYPE(a)->tp_name, Py_TYPE(b)->tp_name);
        return 1;
    }
    return 0;
}

static int obj_diff(const char *what, PyObject *a, PyObject *b, char *why, size_t cap)
{
    int eq = PyObject_RichCompareBool(a, b, Py_EQ);
    if (eq != 1) {
        PyErr_Clear();
        snprintf(why, cap, "%s", what);
        return 1;
    }
    return 0;
}

/* 0 when code objects a and b are the same compile; else 1 with why filled. */
static int code_diff(PyObject *oa, PyObject *ob, char *why, size_t cap)
{
    PyCodeObject *a = (PyCodeObject *)oa, *b = (PyCodeObject *)ob;
#define INT_FIELD(f) \
    if (a->f != b->f) { snprintf(why, cap, #f " %d vs %d", a->f, b->f); return 1; }
    INT_FIELD(co_argcount)
    INT_FIELD(co_posonlyargcount)
    INT_FIELD(co_kwonlyargcount)
    INT_FIELD(co_stacksize)
    INT_FIELD(co_flags)
    INT_FIELD(co_firstlineno)
    INT_FIELD(co_nlocals)
    INT_FIELD(co_ncellvars)
    INT_FIELD(co_nfreevars)
#undef INT_FIELD
    PyObject *ca = PyCode_GetCode(a), *cb = PyCode_GetCode(b);
    int d = obj_diff("co_code", ca, cb, why, cap);
    Py_XDECREF(ca);
    Py_XDECREF(cb);
    if (d || obj_diff("co_names", a->co_names, b->co_names, why, cap) ||
        obj_diff("co_varnames", a->co_localsplusnames, b->co_localsplusnames, why, cap) ||
        obj_diff("co_linetable", a->co_linetable, b->co_linetable, why, cap) ||
        obj_diff("co_exceptiontable", a->co_exceptiontable, b->co_exceptiontable, why, cap) ||
        obj_diff("co_name", a->co_name, b->co_name, why, cap) ||
        obj_diff("co_qualname", a->co_qualname, b->co_qualname, why, cap) ||
        obj_diff("co_filename", a->co_filename, b->co_filename, why, cap))
        return 1;
    if (PyTuple_GET_SIZE(a->co_consts) != PyTuple_GET_SIZE(b->co_consts)) {
        snprintf(why, cap, "co_consts sizes %zd vs %zd", PyTuple_GET_SIZE(a->co_consts),
                 PyTuple_GET_SIZE(b->co_consts));
        return 1;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(a->co_consts); i++)
        if (const_diff(PyTuple_GET_ITEM(a->co_consts, i), PyTuple_GET_ITEM(b->co_consts, i),
                       why, cap)) {
            size_t l = strlen(why);
            snprintf(why + l, cap - l, " (co_consts[%zd])", i);
            return 1;
        }
    return 0;
}

/* 0 when a and b are the same code up to the numbering of constants, names and
 * locals (instructions, their objects, targets, locations and handlers alike) and
 * a's stack size is no smaller; else 1 with why filled. */
static int code_equiv(PyObject *oa, PyObject *ob, char *why, size_t cap)
{
    PyCodeObject *a = (PyCodeObject *)oa, *b = (PyCodeObject *)ob;
    HzBytecode da = {0}, db = {0};
    int rc = 1;
    if (a->co_argcount != b->co_argcount || a->co_kwonlyargcount != b->co_kwonlyargcount ||
        a->co_flags != b->co_flags || a->co_firstlineno != b->co_firstlineno ||
        a->co_stacksize < b->co_stacksize || a->co_nlocals != b->co_nlocals) {
        snprintf(why, cap, "counts, flags or stack size");
        return 1;
    }
    if (hz_bc_decode(a, &da) < 0 || hz_bc_decode(b, &db) < 0 || da.n != db.n ||
        da.nexc != db.nexc) {
        snprintf(why, cap, "instruction or handler counts");
        goto done;
    }
    for (int i = 0; i < da.n; i++) {
        HzInstr x = da.ins[i], y = db.ins[i];
        if (x.op != y.op || memcmp(&x.loc, &y.loc, sizeof x.loc) != 0 ||
            (hz_bc_is_jump(x.op) && x.target != y.target)) {
            snprintf(why, cap, "instruction %d: op, location or target", i);
            goto done;
        }
        PyObject *ox = NULL, *oy = NULL;
        if (x.op == LOAD_CONST || x.op == KW_NAMES) {
            ox = _PyCode_ConstantKey(PyTuple_GET_ITEM(a->co_consts, x.arg));
            oy = _PyCode_ConstantKey(PyTuple_GET_ITEM(b->co_consts, y.arg));
        }
        else if (x.op == LOAD_GLOBAL || x.op == LOAD_ATTR || x.op == LOAD_METHOD ||
                 x.op == STORE_ATTR || x.op == DELETE_ATTR || x.op == STORE_GLOBAL ||
                 x.op == DELETE_GLOBAL || x.op == IMPORT_NAME || x.op == IMPORT_FROM) {
            int sx = x.op == LOAD_GLOBAL, ix = x.arg >> sx, iy = y.arg >> sx;
            if (sx && (x.arg & 1) != (y.arg & 1)) {
                snprintf(why, cap, "instruction %d: NULL bit", i);
                goto done;
            }
            ox = Py_NewRef(PyTuple_GET_ITEM(a->co_names, ix));
            oy = Py_NewRef(PyTuple_GET_ITEM(b->co_names, iy));
        }
        else if (x.op == LOAD_FAST || x.op == STORE_FAST || x.op == DELETE_FAST) {
            ox = Py_NewRef(PyTuple_GET_ITEM(a->co_localsplusnames, x.arg));
            oy = Py_NewRef(PyTuple_GET_ITEM(b->co_localsplusnames, y.arg));
        }
        else if (!hz_bc_is_jump(x.op) && x.arg != y.arg) {
            snprintf(why, cap, "instruction %d: arg", i);
            goto done;
        }
        if (ox != NULL || oy != NULL) {
            int eq = ox && oy ? PyObject_RichCompareBool(ox, oy, Py_EQ) : -1;
            Py_XDECREF(ox);
            Py_XDECREF(oy);
            if (eq != 1) {
                PyErr_Clear();
                snprintf(why, cap, "instruction %d: its object", i);
                goto done;
            }
        }
    }
    for (int i = 0; i < da.nexc; i++)
        if (memcmp(&da.exc[i], &db.exc[i], sizeof da.exc[i]) != 0) {
            snprintf(why, cap, "handler %d", i);
            goto done;
        }
    rc = 0;
done:
    hz_bc_clear(&da);
    hz_bc_clear(&db);
    return rc;
}

/* ---- pieces ---- */

typedef struct {
    unsigned long defs, identical, fallback, differ;
    unsigned long renumbered;   /* equal up to the numbering (code_equiv) */
    bool allow_renumbered;      /* blocks cut out of whole compiles are in play */
} Counts;

/* Returns a new reference to piece [start, end) of source compiled alone at line. */
static PyObject *compile_alone(const char *source, size_t start, size_t end, int line)
{
    size_t n = end - start;
    char *buf = malloc((size_t)line + n);
    memset(buf, '\n', (size_t)line - 1);
    memcpy(buf + line - 1, source + start, n);
    buf[line - 1 + n] = '\0';
    PyObject *code = Py_CompileStringExFlags(buf, "<tfprog>", Py_file_input, NULL, 0);
    free(buf);
    return code;
}

/* Assembles each def piece of source and compares it with its compile. */
static void check_source(HzAssembler *as, const char *label, const char *source, Counts *c,
                         bool verbose)
{
    size_t starts[256];
    int n = hz_codecache_cut(source, starts, 256);
    if (n > 256)
        n = 256;
    size_t len = strlen(source);
    int line = 1;
    size_t counted = 0;
    for (int i = 0; i < n; i++) {
        size_t start = starts[i], end = i + 1 < n ? starts[i + 1] : len;
        for (; counted < start; counted++)
            line += source[counted] == '\n';
        const char *p = source + start;
        while (*p == '@') {   /* skip decorators to see the def */
            p = strchr(p, '\n');
            p = p ? p + 1 : source + len;
        }
        if (strncmp(p, "def ", 4) != 0)
            continue;
        c->defs++;
        PyObject *want = compile_alone(source, start, end, line);
        REQUIRE(want != NULL, "%s: piece %d does not compile", label, i);
        PyObject *got = hz_assemble_piece(as, source + start, end - start, line, "<tfprog>");
        if (got == NULL) {
            REQUIRE(!PyErr_Occurred(), "%s: piece %d: assembler error", label, i);
            c->fallback++;
            if (verbose)
                fprintf(stderr, "%s: piece %d (line %d) falls back: %s\n", label, i, line,
                        hz_assembler_last_refusal(as));
        }
        else {
            char why[256] = "", why2[256] = "";
            PyObject *gf = NULL, *wf = NULL;   /* the function codes */
            for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(((PyCodeObject *)got)->co_consts); j++)
                if (PyCode_Check(PyTuple_GET_ITEM(((PyCodeObject *)got)->co_consts, j))) {
                    gf = PyTuple_GET_ITEM(((PyCodeObject *)got)->co_consts, j);
                    wf = PyTuple_GET_ITEM(((PyCodeObject *)want)->co_consts, j);
                }
            if (code_diff(got, want, why, sizeof why) == 0) {
                c->identical++;
            }
            else if (c->allow_renumbered && gf != NULL && PyCode_Check(wf) &&
                     code_equiv(gf, wf, why2, sizeof why2) == 0) {
                c->renumbered++;
                if (getenv("TF_ASM_WHY")) {
                    PyCodeObject *x = (PyCodeObject *)gf, *y = (PyCodeObject *)wf;
                    PyObject *kx = _PyCode_ConstantKey(x->co_consts), *ky = _PyCode_ConstantKey(y->co_consts);
                    fprintf(stderr, "%s: piece %d renumbered: consts %d names %d varnames %d stack %d/%d lines %d\n",
                            label, i, PyObject_RichCompareBool(kx, ky, Py_EQ),
                            PyObject_RichCompareBool(x->co_names, y->co_names, Py_EQ),
                            PyObject_RichCompareBool(x->co_localsplusnames, y->co_localsplusnames, Py_EQ),
                            x->co_stacksize, y->co_stacksize,
                            PyObject_RichCompareBool(x->co_linetable, y->co_linetable, Py_EQ));
                    PyObject *r1 = PyObject_Repr(x->co_consts), *r2 = PyObject_Repr(y->co_consts);
                    fprintf(stderr, "  %s\n  %s\n", PyUnicode_AsUTF8(r1), PyUnicode_AsUTF8(r2));
                    Py_XDECREF(r1); Py_XDECREF(r2); Py_XDECREF(kx); Py_XDECREF(ky);
                    FILE *f = fopen("/tmp/renum.py", "w");
                    fprintf(f, "%.*s", (int)(end - start), source + start);
                    fclose(f);
                }
            }
            else {
                c->differ++;
                fprintf(stderr, "%s: piece %d (line %d) differs: %s%s%s\n", label, i, line, why,
                        *why2 ? "; up to numbering: " : "", why2);
                if (c->differ <= 3)
                    fprintf(stderr, "%.*s\n", (int)(end - start), source + start);
            }
            Py_DECREF(got);
        }
        Py_DECREF(want);
    }
}

/* Hand-written functions the generator does not write. */
static const char tricky[] =
    "import functools\n"
    "G = 1\n"
    "\n"
    "def simple(a, b=2, *args, c, d=4, **kw):\n"
    "    x = a + b\n"
    "    y = x * 2\n"
    "    return x, y\n"
    "\n"
    "def doc_only(a):\n"
    "    \"\"\"doc\n"
    "    on two lines\"\"\"\n"
    "    return a\n"
    "\n"
    "def doc_none(a, /, b):\n"
    "    'doc'\n"
    "    x = None\n"
    "    return x\n"
    "\n"
    "def read_before_bind(a):\n"
    "    if a:\n"
    "        print(v)\n"
    "    v = 1\n"
    "    w = v + 1\n"
    "    return w\n"
    "\n"
    "def loops(n):\n"
    "    total = 0\n"
    "    for i in range(n):\n"
    "        if i % 2:\n"
    "            continue\n"
    "        if i > 10:\n"
    "            break\n"
    "        total += i\n"
    "    else:\n"
    "        total = -1\n"
    "    while n > 0:\n"
    "        n -= 1\n"
    "        if n == 3:\n"
    "            break\n"
    "    else:\n"
    "        total += 100\n"
    "    k = 0\n"
    "    while True:\n"
    "        k += 1\n"
    "        if k > 3:\n"
    "            break\n"
    "    return total, k\n"
    "\n"
    "def tries(a):\n"
    "    out = []\n"
    "    try:\n"
    "        try:\n"
    "            out.append(1 / a)\n"
    "        finally:\n"
    "            out.append('f')\n"
    "    except ZeroDivisionError as e:\n"
    "        out.append(str(e))\n"
    "    except (TypeError, ValueError):\n"
    "        out.append('tv')\n"
    "    else:\n"
    "        out.append('else')\n"
    "    finally:\n"
    "        out.append('final')\n"
    "    try:\n"
    "        return out\n"
    "    finally:\n"
    "        out.append('late')\n"
    "\n"
    "def withs(path):\n"
    "    import contextlib\n"
    "    with contextlib.nullcontext(path) as p:\n"
    "        x = p\n"
    "    with contextlib.nullcontext(1), contextlib.nullcontext(2) as q:\n"
    "        y = q\n"
    "    return x, y\n"
    "\n"
    "def early(a):\n"
    "    if a:\n"
    "        return 1\n"
    "    b = a + 1\n"
    "    if b:\n"
    "        return 2\n"
    "    return 3\n"
    "\n"
    "def ends_with_if(a):\n"
    "    x = a\n"
    "    if x:\n"
    "        x = 2\n"
    "\n"
    "def ends_small_return(a):\n"
    "    x = [a]\n"
    "    try:\n"
    "        x.append(1)\n"
    "    except ValueError:\n"
    "        pass\n"
    "    return x\n"
    "\n"
    "def ends_pass(a):\n"
    "    x = a\n"
    "    pass\n"
    "\n"
    "@functools.lru_cache(maxsize=None)\n"
    "def decorated(\n"
    "        a,\n"
    "        b):  # a comment\n"
    "    c = a\n"
    "    return c + b\n"
    "\n"
    "def globals_first(a):\n"
    "    global G, H\n"
    "    global K  # another\n"
    "    x = 1\n"
    "    G = x\n"
    "    del K\n"
    "    return G\n"
    "\n"
    "def folds(a):\n"
    "    x = (1, 2) + (a,)\n"
    "    y = -1\n"
    "    z = (-1, -2)\n"
    "    t = a in (1, 2, 3)\n"
    "    s = a in {1, 2, 3}\n"
    "    w = [1, 2, 3, 4]\n"
    "    return (x, y, z, t, s, w, (1, 2))\n"
    "\n"
    "def asserts(a):\n"
    "    assert a, 'message'\n"
    "    assert a > 0\n"
    "    del a\n"
    "    return 1\n"
    "\n"
    "def imports():\n"
    "    import os\n"
    "    from os import path, sep\n"
    "    import os.path as op\n"
    "    return os, path, sep, op\n"
    "\n"
    "def strings(a):\n"
    "    s = f'{a!r:>10} and {a}'\n"
    "    t = 'x' 'y'\n"
    "    u = b'bytes'\n"
    "    v = '''a\n"
    "b''' + \"\\\"q\"\n"
    "    return s, t, u, v, 1.5, 2j, ..., True, None, -0.0, 0.0\n"
    "\n"
    "def matchy(a):\n"
    "    match a:\n"
    "        case {'k': 1, 'j': b}:\n"
    "            r = b\n"
    "        case (1, 2, *rest):\n"
    "            r = rest\n"
    "        case str() | bytes():\n"
    "            r = 's'\n"
    "        case _:\n"
    "            r = None\n"
    "    return r\n"
    "\n"
    "def multiline_stmt(a):\n"
    "    x = (a +\n"
    "         1)\n"
    "    y = [\n"
    "        x,\n"
    "        a,\n"
    "    ]\n"
    "    z = x + \\\n"
    "        y[0]\n"
    "    return x, y, z\n"
    "\n"
    "def semis(a):\n"
    "    x = 1; y = 2\n"
    "    return x + y\n"
    "\n"
    "def aug(a):\n"
    "    a.x += 1\n"
    "    a[0] += 1\n"
    "    a.y, a.z = a.z, a.y\n"
    "    x, *y = a\n"
    "    return x, y\n"
    "\n"
    "def kwcalls(a):\n"
    "    r = dict(a=1, b=a)\n"
    "    s = sorted(a, key=len, reverse=True)\n"
    "    return r, s, print(*a, **r)\n"
    "\n"
    "def with_in_try(a):\n"
    "    try:\n"
    "        with open(a) as f:\n"
    "            return f.read()\n"
    "    except OSError:\n"
    "        return None\n"
    "\n"
    "def bool_ops(a, b):\n"
    "    x = a and b or not a\n"
    "    if a and b:\n"
    "        y = 1\n"
    "    elif a or b:\n"
    "        y = 2\n"
    "    else:\n"
    "        y = 3\n"
    "    z = 1 if a else 2\n"
    "    return x, y, z, a < b < 3\n"
    "\n"
    "def loop_in_try(a):\n"
    "    try:\n"
    "        for x in a:\n"
    "            if x:\n"
    "                break\n"
    "        else:\n"
    "            return 0\n"
    "    except TypeError:\n"
    "        return -1\n"
    "    for y in a:\n"
    "        try:\n"
    "            continue\n"
    "        finally:\n"
    "            pass\n"
    "    return x\n"
    "\n"
    "def super_user(self):\n"
    "    return super().x\n"
    "\n"
    "def raise_last(a):\n"
    "    x = a\n"
    "    raise ValueError(x)\n"
    "\n"
    "def return_none(a):\n"
    "    x = a\n"
    "    return\n"
    "\n"
    "def while_else_last(a):\n"
    "    x = a\n"
    "    while x:\n"
    "        x -= 1\n"
    "    else:\n"
    "        x = 5\n"
    "\n"
    "def comments_between(a):\n"
    "    # a comment\n"
    "    x = a  # tf: tag\n"
    "\n"
    "# column-0 comment inside the body\n"
    "    y = x\n"
    "    return y\n"
    "\n"
    "def dead_code(a):\n"
    "    x = 1\n"
    "    return x\n"
    "    y = 'dead'\n"
    "    return y\n"
    "\n"
    "def unbound_only(a):\n"
    "    print(zz)\n"
    "    zz = 2\n"
    "\n"
    "def annotated(a: int, *, b: 'str' = 'x') -> list:\n"
    "    x: int = a\n"
    "    y: str\n"
    "    return [x, b]\n"
    "\n"
    "def walrus(a):\n"
    "    if (n := len(a)) > 2:\n"
    "        m = n\n"
    "    return n\n";

/* A function with a long body: jumps over more than 255 code units need
 * EXTENDED_ARG, and more than 256 constants and names need it for their opargs. */
static char *long_function(void)
{
    size_t cap = 1 << 18, n = 0;
    char *s = malloc(cap);
    n += (size_t)snprintf(s + n, cap - n, "def long_one(a):\n    out = []\n");
    n += (size_t)snprintf(s + n, cap - n, "    for i in range(3):\n");
    for (int i = 0; i < 150; i++)
        n += (size_t)snprintf(s + n, cap - n, "        out.append(a.attr_%d + %d)\n", i, i);
    n += (size_t)snprintf(s + n, cap - n, "    if a:\n");
    for (int i = 0; i < 150; i++)
        n += (size_t)snprintf(s + n, cap - n, "        v%d = 'c%d'\n", i, i);
    for (int i = 0; i < 300; i++)
        n += (size_t)snprintf(s + n, cap - n,
                              "    try:\n        out.append(g%d.x%d * %d.5)\n"
                              "    except Exception as e:\n        out.append(('raised', %d))\n",
                              i, i, i, i);
    n += (size_t)snprintf(s + n, cap - n, "    return out, v1\n");
    return s;
}

static int test_identity(unsigned long count)
{
    HzAssembler *as = hz_assembler_new();
    hz_assembler_set_gate(as, false, 0);
    Counts c = {0};
    check_source(as, "tricky", tricky, &c, true);
    char *lf = long_function();
    check_source(as, "long", lf, &c, true);
    free(lf);
    Counts hand = c;
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (unsigned long k = 0; k < count; k++) {
        uint8_t buf[512];
        size_t len = 64 + (size_t)(k % 448);
        for (size_t i = 0; i < len; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            buf[i] = (uint8_t)x;
        }
        HzProgram *p = hz_decode(buf, len);
        HzEmitOptions eo = {.no_main = k % 2 == 0};
        char *src = hz_emit(p, &eo);
        hz_program_free(p);
        char label[32];
        snprintf(label, sizeof label, "program %lu", k);
        check_source(as, label, src, &c, false);
        free(src);
    }
    HzAssembleStats st = hz_assembler_stats(as);
    printf("hand-written: %lu defs, %lu identical, %lu fell back, %lu differ\n", hand.defs,
           hand.identical, hand.fallback, hand.differ);
    printf("all: %lu programs, %lu defs, %lu identical, %lu fell back, %lu differ; "
           "statement cache %lu/%lu hits, %lu wrapper modules compiled, %lu statements "
           "compiled again for their extras\n",
           count, c.defs, c.identical, c.fallback, c.differ, st.block_hits, st.blocks,
           st.compiles, st.recompiles);
    CHECK(c.differ == 0, "%lu assembled functions differ from their compile", c.differ);
    CHECK(c.identical >= c.defs * 9 / 10, "only %lu of %lu defs assembled", c.identical, c.defs);
    hz_assembler_free(as);
    return 0;
}

/* The assembler as the code cache runs it (gate on: pieces with many uncached
 * statements compiled whole and their blocks cut out of that compile) over a
 * mutation chain, as the fuzz loop makes inputs: every def piece equals its compile,
 * byte for byte or up to the numbering of constants, names and locals (blocks cut
 * out of a whole compile number what they use in first-use order; see
 * docs/PERFORMANCE.md for why that may differ from the compiler's order). */
static int test_identity_cut(unsigned long count)
{
    HzAssembler *as = hz_assembler_new();
    hz_assembler_set_gate(as, true, 0);   /* the chain's programs are small */
    Counts c = {.allow_renumbered = true};
    uint8_t cur[4096], next[4096];
    size_t n = 96;
    for (size_t i = 0; i < n; i++)
        cur[i] = (uint8_t)(i * 53 + 5);
    for (unsigned long k = 0; k < count; k++) {
        size_t m = hz_mutate_bytes(cur, n, next, sizeof next, 7000 + k);
        if (m > 0 && m < 400) {
            memcpy(cur, next, m);
            n = m;
        }
        HzProgram *p = hz_decode(cur, n);
        HzEmitOptions eo = {.no_main = true};
        char *src = hz_emit(p, &eo);
        hz_program_free(p);
        char label[32];
        snprintf(label, sizeof label, "input %lu", k);
        check_source(as, label, src, &c, false);
        free(src);
    }
    HzAssembleStats st = hz_assembler_stats(as);
    printf("%lu inputs: %lu defs, %lu byte-identical, %lu equal up to numbering, %lu fell "
           "back, %lu differ; %lu compiled whole (%lu blocks cut out), statement cache "
           "%lu/%lu hits, %lu wrapper modules\n",
           count, c.defs, c.identical, c.renumbered, c.fallback, c.differ, st.whole, st.cut_out,
           st.block_hits, st.blocks, st.compiles);
    CHECK(c.differ == 0, "%lu assembled functions differ from their compile", c.differ);
    CHECK(st.cut_out > 0 && st.whole > 0 && st.assembled > st.whole,
          "the cut-out path was hardly taken");
    hz_assembler_free(as);
    return 0;
}

/* ---- decode/encode round trip ---- */

static void roundtrip_code(PyCodeObject *co, unsigned long *n)
{
    HzBytecode b = {0};
    REQUIRE(hz_bc_decode(co, &b) == 0, "%s does not decode", PyUnicode_AsUTF8(co->co_name));
    PyObject *code, *lt, *et;
    REQUIRE(hz_bc_encode(&b, co->co_firstlineno, &code, &lt, &et) == 0, "encode");
    PyObject *orig = PyCode_GetCode(co);
    CHECK(PyObject_RichCompareBool(code, orig, Py_EQ) == 1, "%s: co_code",
          PyUnicode_AsUTF8(co->co_name));
    CHECK(PyObject_RichCompareBool(lt, co->co_linetable, Py_EQ) == 1, "%s: co_linetable",
          PyUnicode_AsUTF8(co->co_name));
    CHECK(PyObject_RichCompareBool(et, co->co_exceptiontable, Py_EQ) == 1,
          "%s: co_exceptiontable", PyUnicode_AsUTF8(co->co_name));
    Py_DECREF(orig);
    Py_DECREF(code);
    Py_DECREF(lt);
    Py_DECREF(et);
    hz_bc_clear(&b);
    (*n)++;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(co->co_consts); i++)
        if (PyCode_Check(PyTuple_GET_ITEM(co->co_consts, i)))
            roundtrip_code((PyCodeObject *)PyTuple_GET_ITEM(co->co_consts, i), n);
}

static int test_roundtrip(void)
{
    /* the tables against the opcode module */
    PyObject *opcode = PyImport_ImportModule("opcode");
    REQUIRE(opcode != NULL, "import opcode");
    PyObject *caches = PyObject_GetAttrString(opcode, "_inline_cache_entries");
    PyObject *jrel = PyObject_GetAttrString(opcode, "hasjrel");
    REQUIRE(caches != NULL && jrel != NULL, "opcode tables");
    for (int op = 0; op < 256; op++) {
        PyObject *i = PyLong_FromLong(op);
        int in_jrel = PySequence_Contains(jrel, i);
        Py_DECREF(i);
        CHECK(PyLong_AsLong(PyList_GET_ITEM(caches, op)) == hz_bc_caches(op),
              "opcode %d: %ld caches, hz_bc_caches says %d", op,
              PyLong_AsLong(PyList_GET_ITEM(caches, op)), hz_bc_caches(op));
        CHECK(in_jrel == hz_bc_is_jump(op), "opcode %d: jump %d vs %d", op, in_jrel,
              hz_bc_is_jump(op));
    }
    Py_DECREF(caches);
    Py_DECREF(jrel);
    Py_DECREF(opcode);
    unsigned long n = 0;
    PyObject *co = Py_CompileStringExFlags(tricky, "<t>", Py_file_input, NULL, 0);
    REQUIRE(co != NULL, "tricky compiles");
    roundtrip_code((PyCodeObject *)co, &n);
    Py_DECREF(co);
    char *lf = long_function();
    co = Py_CompileStringExFlags(lf, "<t>", Py_file_input, NULL, 0);
    free(lf);
    REQUIRE(co != NULL, "long compiles");
    roundtrip_code((PyCodeObject *)co, &n);
    Py_DECREF(co);
    /* and the stdlib modules already imported */
    PyObject *mods = PyImport_GetModuleDict();
    PyObject *vals = PyDict_Values(mods);
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(vals); i++) {
        PyObject *d = PyModule_Check(PyList_GET_ITEM(vals, i))
                          ? PyModule_GetDict(PyList_GET_ITEM(vals, i)) : NULL;
        PyObject *k, *v;
        Py_ssize_t pos = 0;
        while (d != NULL && PyDict_Next(d, &pos, &k, &v))
            if (PyFunction_Check(v))
                roundtrip_code((PyCodeObject *)PyFunction_GET_CODE(v), &n);
    }
    Py_DECREF(vals);
    printf("%lu code objects round-tripped\n", n);
    CHECK(n > 200, "only %lu code objects", n);
    return 0;
}

/* ---- fallbacks ---- */

static int test_fallback(void)
{
    static const char *const refused[] = {
        "def f(a):\n    def g():\n        return a\n    return g\n",            /* closure */
        "def f(a):\n    x = 1\n    yield x\n",                                 /* generator */
        "def f(a):\n    g = lambda: 1\n    return g\n",                        /* lambda */
        "def f(a):\n    return [x for x in a]\n",                              /* comprehension */
        "def f(a):\n    class C:\n        pass\n    return C\n",               /* class */
        "def f(a):\n    nonlocal b\n    return a\n",                           /* nonlocal */
        "def f(a): return a\n",                                                /* body on def line */
        "def f(a):\n    x = 1\n    'not a docstring'\n    return x\n",          /* string stmt */
        "def f(a):\n    x = 1\n    global G\n    G = x\n",                      /* late global */
        "async def f(a):\n    await a\n",                                       /* async */
        "def f(a):\n\tx = 1\n\treturn x\n",                                    /* tabs */
        "def f(a):\n    x = 1\n    return __tf_stmt_end__\n",                  /* our names */
        "def f(a):\n    x = 1\n    return y(\n",                               /* no compile */
        "def f(a):\n    f'doc'\n    return a\n",                               /* f-string first */
        "class C:\n    pass\n",                                                /* not a def */
    };
    HzAssembler *as = hz_assembler_new();
    hz_assembler_set_gate(as, false, 0);
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        PyObject *r = hz_assemble_piece(as, refused[i], strlen(refused[i]), 1, "<t>");
        CHECK(r == NULL && !PyErr_Occurred(), "case %zu was not refused: %s", i, refused[i]);
        printf("case %zu refused: %s\n", i, hz_assembler_last_refusal(as));
        Py_XDECREF(r);
        PyErr_Clear();
    }
    /* and a plain function is taken */
    const char ok[] = "def f(a):\n    x = a\n    return x\n";
    PyObject *r = hz_assemble_piece(as, ok, strlen(ok), 3, "<t>");
    CHECK(r != NULL, "a plain function was refused: %s", hz_assembler_last_refusal(as));
    Py_XDECREF(r);
    hz_assembler_free(as);
    return 0;
}

/* ---- the protocol with and without the assembler ---- */

/* Equal texts up to object addresses (`<tuple object at 0x7f...>` in a tracer
 * message differs between any two runs). */
static bool same_str(const char *a, const char *b)
{
    if (a == NULL || b == NULL)
        return a == b;
    while (*a != '\0' && *a == *b) {
        if (a[0] == '0' && a[1] == 'x') {
            a += 2;
            b += 2;
            while (strchr("0123456789abcdef", *a) != NULL && *a != '\0')
                a++;
            while (strchr("0123456789abcdef", *b) != NULL && *b != '\0')
                b++;
            continue;
        }
        a++;
        b++;
    }
    return *a == *b;
}

/* The line events of make() and program() (sys.settrace: call, line, exception,
 * return with f_lineno) run from the module codes (a tuple), as a new reference
 * to a list; the result itself only by type name (its repr may hold addresses). */
static PyObject *line_events(PyObject *codes)
{
    static PyObject *fn;
    if (fn == NULL) {
        PyObject *ns = PyDict_New();
        PyDict_SetItemString(ns, "__builtins__", PyEval_GetBuiltins());
        PyObject *r = PyRun_String(
            "import sys\n"
            "def tf_line_events(codes):\n"
            "    ns = {'__name__': 'tfprog', '__builtins__': __builtins__}\n"
            "    for c in codes:\n"
            "        exec(c, ns)\n"
            "    ev = []\n"
            "    def tr(frame, event, arg):\n"
            "        if frame.f_code.co_filename != '<tfprog>':\n"
            "            return None\n"
            "        ev.append((frame.f_code.co_name, event, frame.f_lineno))\n"
            "        return tr\n"
            "    sys.settrace(tr)\n"
            "    try:\n"
            "        r = ns['program'](*ns['make']())\n"
            "        ev.append(type(r).__name__)\n"
            "    except Exception as e:\n"
            "        ev.append(type(e).__name__)\n"
            "    finally:\n"
            "        sys.settrace(None)\n"
            "    return ev\n",
            Py_file_input, ns, ns);
        REQUIRE(r != NULL, "line_events helper");
        Py_DECREF(r);
        fn = PyDict_GetItemString(ns, "tf_line_events");
        Py_INCREF(fn);
        Py_DECREF(ns);
    }
    return PyObject_CallOneArg(fn, codes);
}

/* COUNT inputs of a mutation chain (each the mutation of the one before, as the
 * fuzz loop makes them: most differ from their parent in one statement) through
 * the full protocol on target spec, compiled whole and assembled. */
static void semantic_target(const char *spec, unsigned long count)
{
    char err[1024];
    HzTarget t;
    REQUIRE(hz_target_load(spec, NULL, &t, err, sizeof err) == 0, "target %s: %s", spec, err);
    setenv("TRACEFUZZ_ASSEMBLE", "0", 1);
    HzProtocol *whole = hz_protocol_new(&t);
    HzCodeCache *cw = hz_codecache_new();
    setenv("TRACEFUZZ_ASSEMBLE", "2", 1);   /* the chain's programs are small */
    HzProtocol *asm_ = hz_protocol_new(&t);
    HzCodeCache *ca = hz_codecache_new();
    unsetenv("TRACEFUZZ_ASSEMBLE");
    unsigned long lines_same = 0;
    uint8_t cur[4096], next[4096];
    size_t n = 96;
    for (size_t i = 0; i < n; i++)
        cur[i] = (uint8_t)(i * 37 + 11);
    unsigned long same = 0, ok = 0;
    for (unsigned long k = 0; k < count; k++) {
        size_t m = hz_mutate_bytes(cur, n, next, sizeof next, 1000 + k);
        if (m > 0 && m < 400) {
            memcpy(cur, next, m);
            n = m;
        }
        HzProgram *p = hz_decode(cur, n);
        HzEmitOptions eo = {.no_main = true};
        char *src = hz_emit(p, &eo);
        hz_program_free(p);
        HzOutcome a = {0}, b = {0};
        REQUIRE(hz_protocol_run(whole, src, "<tfprog>", NULL, &a) == 0, "run");
        REQUIRE(hz_protocol_run(asm_, src, "<tfprog>", NULL, &b) == 0, "run");
        bool eq = a.kind == b.kind && same_str(a.signature, b.signature) &&
                  same_str(a.report, b.report);
        for (int i = 0; i < 3; i++)
            eq = eq && same_str(a.obs_text[i], b.obs_text[i]);
        same += eq;
        ok += a.kind == OR_OK;
        CHECK(eq, "%s: input %lu: verdict/report/observations differ (%s vs %s)", spec, k,
              a.signature ? a.signature : "-", b.signature ? b.signature : "-");
        PyObject *codes_w = hz_codecache_get(cw, src, "<tfprog>", true);
        PyObject *codes_a = hz_codecache_get(ca, src, "<tfprog>", true);
        REQUIRE(codes_w != NULL && codes_a != NULL, "codes");
        PyObject *ev_w = line_events(codes_w), *ev_a = line_events(codes_a);
        REQUIRE(ev_w != NULL && ev_a != NULL, "line events");
        int leq = PyObject_RichCompareBool(ev_w, ev_a, Py_EQ);
        lines_same += leq == 1;
        CHECK(leq == 1, "%s: input %lu: line events differ", spec, k);
        Py_DECREF(codes_w);
        Py_DECREF(codes_a);
        Py_DECREF(ev_w);
        Py_DECREF(ev_a);
        if (!eq && getenv("TF_ASM_DEBUG") != NULL)
            fprintf(stderr, "--- whole:\n%s\n--- assembled:\n%s\n", a.report, b.report);
        hz_outcome_clear(&a);
        hz_outcome_clear(&b);
        free(src);
    }
    HzCodeCacheStats cs = hz_protocol_code_stats(asm_);
    printf("%s: %lu inputs, %lu alike (%lu OK), %lu with the same line events; assembled %lu of %lu def pieces, "
           "statement compiles %lu of %lu reused\n", spec, count, same, ok, lines_same, cs.assembler.assembled,
           cs.assembler.pieces, cs.assembler.block_hits, cs.assembler.blocks);
    CHECK(cs.assembler.assembled > count / 2, "the assembler was hardly used");
    hz_protocol_free(whole);
    hz_protocol_free(asm_);
    hz_codecache_free(cw);
    hz_codecache_free(ca);
    hz_target_clear(&t);
}

/* sys.getallocatedblocks() (pymalloc's count of live blocks; 0 under malloc). */
static Py_ssize_t allocated_blocks(void)
{
    PyObject *sys = PyImport_ImportModule("sys");
    PyObject *r = sys ? PyObject_CallMethod(sys, "getallocatedblocks", NULL) : NULL;
    Py_XDECREF(sys);
    Py_ssize_t n = r ? PyLong_AsSsize_t(r) : -1;
    Py_XDECREF(r);
    return n;
}

/* Assembling (with misses and hits, refusals included) leaks no references: the
 * live block count stays flat over rounds of a fresh assembler each. */
static int test_no_leak(void)
{
    Py_ssize_t before = 0;
    for (int round = 0; round < 150; round++) {
        if (round == 50) {
            PyGC_Collect();
            before = allocated_blocks();
        }
        HzAssembler *as = hz_assembler_new();
        hz_assembler_set_gate(as, false, 0);
        Counts c = {0};
        check_source(as, "tricky", tricky, &c, false);
        check_source(as, "tricky", tricky, &c, false);   /* from the statement cache */
        HzAssembleStats st = hz_assembler_stats(as);
        REQUIRE(c.differ == 0 && st.block_hits > 0, "round %d", round);
        hz_assembler_free(as);
    }
    PyGC_Collect();
    Py_ssize_t after = allocated_blocks();
    printf("allocated blocks %zd -> %zd over 100 rounds\n", before, after);
    CHECK(after - before < 200, "%zd blocks more after 100 rounds", after - before);
    return 0;
}

/* Not a test: the CPU cost of assembling program() from cached blocks against
 * compiling it (docs/PERFORMANCE.md quotes it). */
static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int bench(unsigned long count)
{
    HzAssembler *as = hz_assembler_new();
    hz_assembler_set_gate(as, false, 0);
    HzAssembler *gated = hz_assembler_new();
    double whole = 0, cold = 0, warm = 0, moved = 0, cut = 0;
    unsigned long n = 0;
    for (unsigned long k = 0; k < count; k++) {
        uint8_t buf[256];
        for (size_t i = 0; i < sizeof buf; i++)
            buf[i] = (uint8_t)(k * 131 + i * 7 + (i * i) % 13);
        HzProgram *p = hz_decode(buf, sizeof buf);
        HzEmitOptions eo = {.no_main = true};
        char *src = hz_emit(p, &eo);
        hz_program_free(p);
        char *at = strstr(src, "\ndef program(");
        REQUIRE(at != NULL, "no program()");
        at++;
        char *end = strstr(at, "\ndef ");
        size_t len = end ? (size_t)(end - at) + 1 : strlen(at);
        int line = 1;
        for (char *q = src; q < at; q++)
            line += *q == '\n';
        double t0 = now_us();
        PyObject *w = compile_alone(src, (size_t)(at - src), (size_t)(at - src) + len, line);
        double t1 = now_us();
        PyObject *a1 = hz_assemble_piece(as, at, len, line, "<tfprog>");
        double t2 = now_us();
        PyObject *a2 = hz_assemble_piece(as, at, len, line, "<tfprog>");
        double t3 = now_us();
        PyObject *a3 = hz_assemble_piece(as, at, len, line + 1, "<tfprog>");
        double t4 = now_us();
        PyObject *a4 = hz_assemble_piece(gated, at, len, line, "<tfprog>");
        double t5 = now_us();
        cut += t5 - t4;
        Py_XDECREF(a4);
        if (w && a1 && a2 && a3) {
            whole += t1 - t0;
            cold += t2 - t1;
            warm += t3 - t2;
            moved += t4 - t3;
            n++;
        }
        Py_XDECREF(w);
        Py_XDECREF(a1);
        Py_XDECREF(a2);
        Py_XDECREF(a3);
        PyErr_Clear();
        free(src);
    }
    printf("program() of %lu programs, CPU us each: compiled whole %.0f; assembled: all "
           "statements new %.0f, all cached %.0f, all cached but the header moved %.0f; "
           "first seen with the gate (compiled whole, blocks cut out) %.0f\n",
           n, whole / n, cold / n, warm / n, moved / n, cut / n);
    hz_assembler_free(as);
    hz_assembler_free(gated);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: hz_assemble_test roundtrip|identity [COUNT]|fallback|no_leak|semantic [COUNT]\n");
        return 2;
    }
    char err[512];
    /* The mutation chains that make the test programs keep session 9's milder cut
     * (several classes, eight statements), the programs these cases were written for. */
    HzSizeDimension small = HZ_SIZE_SMALL;
    hz_size = small;
    HzEmbedConfig ec = {0};
    REQUIRE(hz_embed_init(&ec, err, sizeof err) == 0, "embed: %s", err);
    if (strcmp(argv[1], "roundtrip") == 0)
        test_roundtrip();
    else if (strcmp(argv[1], "identity") == 0)
        test_identity(argc > 2 ? strtoul(argv[2], NULL, 10) : 3000);
    else if (strcmp(argv[1], "fallback") == 0)
        test_fallback();
    else if (strcmp(argv[1], "identity_cut") == 0)
        test_identity_cut(argc > 2 ? strtoul(argv[2], NULL, 10) : 3000);
    else if (strcmp(argv[1], "file") == 0 && argc > 2) {   /* a debugging aid */
        FILE *f = fopen(argv[2], "rb");
        REQUIRE(f != NULL, "cannot open %s", argv[2]);
        static char buf[1 << 20];
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = '\0';
        HzAssembler *as = hz_assembler_new();
        Counts c = {0};
        for (int round = 0; round < 2; round++)   /* compiled whole + cut, then assembled */
            check_source(as, argv[2], buf, &c, true);
        printf("%lu defs, %lu identical, %lu fell back, %lu differ\n", c.defs, c.identical,
               c.fallback, c.differ);
        hz_assembler_free(as);
    }
    else if (strcmp(argv[1], "bench") == 0)
        bench(argc > 2 ? strtoul(argv[2], NULL, 10) : 200);
    else if (strcmp(argv[1], "no_leak") == 0)
        test_no_leak();
    else if (strcmp(argv[1], "semantic") == 0) {
        unsigned long count = argc > 2 ? strtoul(argv[2], NULL, 10) : 300;
        semantic_target("identity", count);
        semantic_target("builtin", count);
        /* and with faults, for findings whose reports hold tracebacks and lines */
        REQUIRE(PyRun_SimpleString("import tfjit\n"
                                   "tfjit.set_faults('dict_before_data_desc,stale_class_attr,"
                                   "no_getattr_after_getter_error,getattribute_ignored')\n") == 0,
                "set_faults");
        semantic_target("builtin", count);
    }
    else {
        fprintf(stderr, "unknown case %s\n", argv[1]);
        return 2;
    }
    return tf_failures != 0;
}
