/* hz_assemble.c: a def piece's code from per-statement blocks (see hz_assemble.h).
 *
 * The cut (cut_piece): the piece's logical lines (brackets, strings, backslash
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
 * The assembly (assemble): RESUME of the stub (the real header with body `pass`),
 * then each block's instructions without its RESUME and sentinel; jumps to the
 * sentinel go to the next statement's first instruction; constants, names and
 * locals renumbered in first-use order by statement (constants by
 * _PyCode_ConstantKey; folded constants after all others; trailing unused ones
 * trimmed as trim_unused_consts does); line numbers shifted from the wrapper's to
 * the file's; hz_bc_encode writes the tables. The module code is the stub's with
 * its function constant replaced. */
#include "hz_assemble.h"
#include "hz_bytecode.h"
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
#define HZ_MAX_STMTS 1024   /* more statements than this: compiled whole */
#define SENTINEL "__tf_stmt_end__"
#define MARK "\x00tf-end"
#define MARK_SRC "'\\x00tf-end'"

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

/* ---- a small byte buffer (the emitter's hz_sbuf is instrumented code) ---- */

typedef struct {
    char *p;
    size_t n, cap;
    bool failed;
} Buf;

HZ_NO_COVERAGE static void buf_add(Buf *b, const char *s, size_t n)
{
    if (b->failed)
        return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        while (cap < b->n + n + 1)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (p == NULL) {
            b->failed = true;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

HZ_NO_COVERAGE static void buf_str(Buf *b, const char *s)
{
    buf_add(b, s, strlen(s));
}

HZ_NO_COVERAGE static void buf_pyname(Buf *b, PyObject *name)
{
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(name, &n);
    if (s == NULL) {
        PyErr_Clear();
        b->failed = true;
        return;
    }
    buf_add(b, s, (size_t)n);
}

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

/* ---- the cut ---- */

typedef struct {
    size_t start;     /* offset in the piece */
    int line;         /* 0-based physical line of the piece it starts on */
    int indent;
    size_t last;      /* offset of its last significant character */
    bool nonstring;   /* holds something else than string literals */
} LLine;

typedef struct {
    size_t start, end;   /* a span of the piece */
    int line;            /* 0-based line of start in the piece */
} Span;

typedef struct {
    size_t header_end;   /* the header: text[0..header_end) */
    int body_line;       /* 0-based line of the first body line */
    int indent;          /* of the body */
    Span doc;            /* doc.end == doc.start: none */
    Buf globals;         /* "a, b, " (each name followed by ", ") */
    Span *stmts;         /* malloc'd */
    int nstmts;
    int end_line;        /* 0-based line of the body's last character ... */
    int end_col;         /* ... and its column + 1: where the def statement ends */
} Cut;

HZ_NO_COVERAGE static bool ident_char(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (unsigned char)c >= 0x80;
}

HZ_NO_COVERAGE static bool starts_word(const char *s, const char *end, const char *word)
{
    size_t n = strlen(word);
    return (size_t)(end - s) > n && memcmp(s, word, n) == 0 && !ident_char(s[n]);
}

/* Length of a string prefix + opening quote at s (0: no string starts there). */
HZ_NO_COVERAGE static int string_start(const char *s, const char *end)
{
    int i = 0;
    while (i < 3 && s + i < end && strchr("rRbBuUfF", s[i]) != NULL && s[i] != '\0')
        i++;
    return s + i < end && (s[i] == '"' || s[i] == '\'') ? i + 1 : 0;
}

/* Splits text[0..n) into its non-blank logical lines; returns how many (up to
 * cap), or -1 for what the scanner does not follow (tabs, form feeds, unbalanced
 * brackets, an unterminated string). */
HZ_NO_COVERAGE static int logical_lines(const char *text, size_t n, LLine *out, int cap)
{
    int count = 0, line = 0, depth = 0;
    bool line_start = true, cont = false;
    LLine *cur = NULL;
    size_t i = 0;
    while (i < n) {
        if (line_start && depth == 0 && !cont) {
            size_t j = i;
            while (j < n && text[j] == ' ')
                j++;
            if (j < n && (text[j] == '\t' || text[j] == '\f'))
                return -1;
            if (j == n || text[j] == '\n' || text[j] == '\r' || text[j] == '#') {
                while (j < n && text[j] != '\n')
                    j++;
                i = j + 1;
                line++;
                continue;
            }
            if (count == cap)
                return -1;
            cur = &out[count++];
            *cur = (LLine){i, line, (int)(j - i), j, false};
            i = j;
        }
        line_start = false;
        cont = false;
        char c = text[i];
        if (c == '#') {
            while (i < n && text[i] != '\n')
                i++;
            continue;
        }
        if (c == '\n') {
            line++;
            i++;
            line_start = true;
            continue;
        }
        if (c == '\\' && i + 1 < n && text[i + 1] == '\n') {
            cont = true;
            line_start = true;
            line++;
            i += 2;
            continue;
        }
        int q = (i == 0 || !ident_char(text[i - 1])) ? string_start(text + i, text + n) : 0;
        if (q > 0) {
            char quote = text[i + q - 1];
            bool triple = i + q + 1 < n && text[i + q] == quote && text[i + q + 1] == quote;
            size_t j = i + q + (triple ? 2 : 0);
            for (;;) {
                if (j >= n)
                    return -1;
                if (text[j] == '\\') {
                    if (j + 1 < n && text[j + 1] == '\n')
                        line++;
                    j += 2;
                    continue;
                }
                if (text[j] == '\n') {
                    if (!triple)
                        return -1;
                    line++;
                }
                if (text[j] == quote &&
                    (!triple || (j + 2 < n && text[j + 1] == quote && text[j + 2] == quote))) {
                    j += triple ? 3 : 1;
                    break;
                }
                j++;
            }
            cur->last = j - 1;
            i = j;
            continue;
        }
        if (ident_char(c)) {
            while (i < n && ident_char(text[i]))
                i++;
            cur->last = i - 1;
            cur->nonstring = true;
            continue;
        }
        if (c == '(' || c == '[' || c == '{')
            depth++;
        else if (c == ')' || c == ']' || c == '}') {
            if (--depth < 0)
                return -1;
        }
        if (c != ' ' && c != '\r') {
            cur->last = i;
            cur->nonstring = true;
        }
        i++;
    }
    return depth == 0 && !cont ? count : -1;
}

HZ_NO_COVERAGE static size_t count_lines(const char *s, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += s[i] == '\n';
    return k;
}

/* Cuts the piece; returns 0, or -1 with a->refusal set. cut->stmts is malloc'd
 * either way (free it, and cut->globals.p). */
HZ_NO_COVERAGE static int cut_piece(HzAssembler *a, const char *text, size_t n, Cut *cut)
{
    int cap = (int)count_lines(text, n) + 2;   /* logical lines <= physical lines */
    LLine *ll = malloc((size_t)cap * sizeof *ll);
    cut->stmts = malloc((size_t)HZ_MAX_STMTS * sizeof *cut->stmts);
    int rc = -1;
    if (ll == NULL || cut->stmts == NULL) {
        a->refusal = "out of memory";
        goto done;
    }
    int nl = logical_lines(text, n, ll, cap);
    if (nl < 0) {
        a->refusal = "the scanner does not follow the piece";
        goto done;
    }
    int k = 0;
    while (k < nl && ll[k].indent == 0 && text[ll[k].start] == '@')
        k++;
    if (k >= nl || ll[k].indent != 0 || !starts_word(text + ll[k].start, text + n, "def")) {
        a->refusal = "not a def";
        goto done;
    }
    if (text[ll[k].last] != ':') {
        a->refusal = "body on the def line";
        goto done;
    }
    k++;
    if (k >= nl || ll[k].indent == 0) {
        a->refusal = "no body";
        goto done;
    }
    cut->header_end = ll[k].start;
    cut->body_line = ll[k].line;
    cut->indent = ll[k].indent;
    cut->doc = (Span){0, 0, 0};
    cut->nstmts = 0;
    int first = k;
    bool seen_stmt = false;
    for (; k < nl; k++) {
        const LLine *l = &ll[k];
        const char *s = text + l->start + l->indent, *end = text + n;
        size_t next = k + 1 < nl ? ll[k + 1].start : n;
        if (l->indent > cut->indent)
            continue;   /* inside the statement before */
        if (l->indent < cut->indent) {
            a->refusal = "dedent inside the body";
            goto done;
        }
        if (starts_word(s, end, "else") || starts_word(s, end, "elif") ||
            starts_word(s, end, "except") || starts_word(s, end, "finally")) {
            if (cut->nstmts == 0) {
                a->refusal = "a clause without its statement";
                goto done;
            }
            continue;
        }
        if (string_start(s, end) > 0 && !l->nonstring) {
            /* a string statement: the docstring when first (and not bytes or an
             * f-string); elsewhere it would become a wrapper's docstring */
            bool plain = true;
            for (const char *p = s; *p != '"' && *p != '\''; p++)
                plain = plain && strchr("bBfF", *p) == NULL;
            if (k != first || !plain) {
                a->refusal = "a string statement";
                goto done;
            }
            cut->doc = (Span){l->start, next, l->line};
            continue;
        }
        if (starts_word(s, end, "global")) {
            if (seen_stmt) {
                a->refusal = "global after a statement";
                goto done;
            }
            const char *p = s + 6, *e = text + next;
            while (p < e && *p != '#' && *p != '\n') {
                if (*p == '\\' || *p == '(' || *p == ';') {
                    a->refusal = "global spelled unusually";
                    goto done;
                }
                const char *q = p;
                while (q < e && ident_char(*q))
                    q++;
                if (q > p) {
                    buf_add(&cut->globals, p, (size_t)(q - p));
                    buf_str(&cut->globals, ", ");
                    p = q;
                }
                else
                    p++;
            }
            continue;
        }
        if (cut->nstmts >= HZ_MAX_STMTS) {
            a->refusal = "too many statements";
            goto done;
        }
        if (cut->nstmts > 0)
            cut->stmts[cut->nstmts - 1].end = l->start;
        cut->stmts[cut->nstmts++] = (Span){l->start, n, l->line};
        seen_stmt = true;
    }
    if (cut->nstmts == 0) {
        a->refusal = "no statements";
        goto done;
    }
    size_t last = ll[nl - 1].last, bol = last;
    while (bol > 0 && text[bol - 1] != '\n')
        bol--;
    cut->end_line = (int)count_lines(text, last);
    cut->end_col = (int)(last - bol) + 1;
    if (cut->globals.failed) {
        a->refusal = "out of memory";
        goto done;
    }
    rc = 0;
done:
    free(ll);
    return rc;
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
    buf_str(b, "def __tf_stmt__(");
    Py_ssize_t np = PyTuple_GET_SIZE(pc->params);
    for (Py_ssize_t i = 0; i < np; i++) {
        buf_pyname(b, PyTuple_GET_ITEM(pc->params, i));
        buf_str(b, ", ");
    }
    for (Py_ssize_t i = 0; extras != NULL && i < PyList_GET_SIZE(extras); i++) {
        buf_pyname(b, PyList_GET_ITEM(extras, i));
        buf_str(b, ", ");
    }
    buf_str(b, "):\n");
    *wline = 2;
    if (cut->doc.end > cut->doc.start) {
        buf_add(b, pc->text + cut->doc.start, cut->doc.end - cut->doc.start);
        *wline += (int)count_lines(pc->text + cut->doc.start, cut->doc.end - cut->doc.start);
    }
    buf_str(b, ind);
    buf_str(b, "global ");
    if (cut->globals.n > 0)
        buf_add(b, cut->globals.p, cut->globals.n);
    buf_str(b, SENTINEL "\n");
    (*wline)++;
    buf_add(b, pc->text + st->start, st->end - st->start);
    if (st->end == st->start || pc->text[st->end - 1] != '\n')
        buf_str(b, "\n");
    if (sentinel) {
        buf_str(b, ind);
        buf_str(b, SENTINEL " = " MARK_SRC "; " SENTINEL " = " MARK_SRC "\n");
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


/* ---- the assembly ---- */

/* Values in order with their index by key. */
typedef struct {
    PyObject *list;    /* owned */
    PyObject *index;   /* owned: key -> int */
} Table;

HZ_NO_COVERAGE static int table_init(Table *t)
{
    t->list = PyList_New(0);
    t->index = PyDict_New();
    return t->list != NULL && t->index != NULL ? 0 : -1;
}

HZ_NO_COVERAGE static void table_clear(Table *t)
{
    Py_CLEAR(t->list);
    Py_CLEAR(t->index);
}

/* Returns value's index (appended when its key is new), or -1 with an exception.
 * key: borrowed; NULL for the constant key of value. */
HZ_NO_COVERAGE static int table_add(Table *t, PyObject *value, PyObject *key)
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
HZ_NO_COVERAGE static Py_ssize_t mark_index(PyCodeObject *co)
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

/* What the assembly keeps while it walks the blocks. */
typedef struct {
    HzBytecode out;
    PyObject **cobj;     /* per instruction of out: its constant (borrowed) or NULL */
    int cobj_cap;
    Table consts, names, varnames;
    PyObject *folded;    /* owned list: constants numbered after all others */
    int stacksize;
} Asm;

/* Appends block co (statement k, first line wline in its wrapper, at file line
 * fline; extras or NULL; last: no sentinel) to s. Returns 0, 1 to refuse
 * (a->refusal set), -1 on error. cg_end: where co's code-generation constants end
 * (-1: find the marker). */
HZ_NO_COVERAGE static int add_block(HzAssembler *a, Asm *s, PyCodeObject *co, int wline,
                                    int wlines, int fline, PyObject *extras, bool last,
                                    Py_ssize_t cg_end, int nparams)
{
    HzBytecode b = {0};
    PyObject **first = NULL, **order = NULL;
    int rc = -1;
    if (hz_bc_decode(co, &b) < 0) {
        if (PyErr_Occurred())
            goto done;
        a->refusal = "a block's tables do not decode";
        rc = 1;
        goto done;
    }
    if (b.n < 2 || b.ins[0].op != RESUME) {
        a->refusal = "a block does not start with RESUME";
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
            a->refusal = "the statement does not end in its sentinel";
            rc = 1;
            goto done;
        }
        cg_end = mark_index(co);
        if (cg_end < 0 || b.ins[end].arg != cg_end) {
            a->refusal = "the sentinel's constant is not the marker";
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
        if (table_add(&s->consts, PyTuple_GET_ITEM(consts, i), NULL) < 0)
            goto done;
    Py_ssize_t post = last ? cg_end : cg_end + 1;
    if (post < nc && PyTuple_GET_ITEM(consts, post) == Py_None) {
        /* the `return None` of the sentinel (dropped) or of the function's end
         * (numbered right after the code-generation constants) */
        if (last && table_add(&s->consts, Py_None, NULL) < 0)
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
        if (table_add(&s->varnames, order[i], order[i]) < 0)
            goto done;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(names); i++) {
        PyObject *nm = PyTuple_GET_ITEM(names, i);
        if (PyUnicode_CompareWithASCIIString(nm, SENTINEL) != 0 &&
            table_add(&s->names, nm, nm) < 0)
            goto done;
    }
    /* the instructions */
    int base = s->out.n - 1;   /* block instruction i (>= 1) -> out.ins[base + i] */
    int delta = fline - wline;
    for (int i = 1; i < end; i++) {
        HzInstr in = b.ins[i];
        PyObject *cobj = NULL;
        if (bad_opcode(in.op)) {
            a->refusal = "an opcode the assembler does not take";
            rc = 1;
            goto done;
        }
        if (in.loc.line >= 0) {
            if (in.loc.line < wline || in.loc.line >= wline + wlines) {
                a->refusal = "a location outside the statement";
                rc = 1;
                goto done;
            }
            in.loc.line += delta;
            in.loc.endline += delta;
        }
        if (in.op == LOAD_CONST || in.op == KW_NAMES) {
            if (in.arg >= nc || (!last && in.arg == cg_end)) {
                a->refusal = "a constant out of range";
                rc = 1;
                goto done;
            }
            cobj = PyTuple_GET_ITEM(consts, in.arg);
        }
        else if (is_name_op(in.op)) {
            int ni = in.op == LOAD_GLOBAL ? in.arg >> 1 : in.arg;
            if (ni >= PyTuple_GET_SIZE(names)) {
                a->refusal = "a name out of range";
                rc = 1;
                goto done;
            }
            PyObject *nm = PyTuple_GET_ITEM(names, ni);
            int j = table_add(&s->names, nm, nm);
            if (j < 0)
                goto done;
            in.arg = in.op == LOAD_GLOBAL ? (j << 1) | (in.arg & 1) : j;
        }
        else if (in.op == LOAD_FAST || in.op == STORE_FAST || in.op == DELETE_FAST) {
            if (in.arg >= nv) {
                a->refusal = "a local out of range";
                rc = 1;
                goto done;
            }
            PyObject *v = PyTuple_GET_ITEM(vn, in.arg);
            int j = table_add(&s->varnames, v, v);
            if (j < 0)
                goto done;
            in.arg = j;
        }
        if (hz_bc_is_jump(in.op)) {
            if (in.target <= 0 || in.target > end || (last && in.target == end)) {
                a->refusal = "a jump into the sentinel";
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
            a->refusal = "a handler covering the sentinel";
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
    if (cut_piece(a, text, n, &cut) < 0)
        goto done;
    N = cut.nstmts;
    /* the stub: the header, docstring and globals over `pass`, at the piece's line */
    char ind[64];
    int w = cut.indent < 60 ? cut.indent : 60;
    memset(ind, ' ', (size_t)w);
    ind[w] = '\0';
    buf_add(&stub, text, cut.header_end);
    if (cut.doc.end > cut.doc.start)
        buf_add(&stub, text + cut.doc.start, cut.doc.end - cut.doc.start);
    if (cut.globals.n > 2) {
        buf_str(&stub, ind);
        buf_str(&stub, "global ");
        buf_add(&stub, cut.globals.p, cut.globals.n - 2);
        buf_str(&stub, "\n");
    }
    /* the def statement's end position is part of the module code's locations:
     * the stub's body, a name, ends where the real body ends */
    int stub_lines = (int)count_lines(stub.p != NULL ? stub.p : "", stub.n);
    if (stub_lines > cut.end_line || cut.end_col <= w) {
        a->refusal = "the body ends where the stub cannot";
        goto done;
    }
    for (int i = stub_lines; i < cut.end_line; i++)
        buf_str(&stub, "\n");
    buf_str(&stub, ind);
    for (int i = w; i < cut.end_col; i++)
        buf_str(&stub, "_");
    buf_str(&stub, "\n");
    char lbuf[32];
    snprintf(lbuf, sizeof lbuf, "\x01%d\x01", line);
    buf_str(&key, "\x01stub\x01");
    buf_str(&key, filename);
    buf_str(&key, lbuf);
    if (stub.p != NULL)
        buf_str(&key, stub.p);
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
    if (table_init(&s.consts) < 0 || table_init(&s.names) < 0 || table_init(&s.varnames) < 0 ||
        (s.folded = PyList_New(0)) == NULL)
        goto done;
    if (table_add(&s.consts, doc, NULL) < 0)
        goto done;
    for (int i = 0; i < nparams; i++)
        if (table_add(&s.varnames, PyTuple_GET_ITEM(params, i), PyTuple_GET_ITEM(params, i)) < 0)
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
                Py_ssize_t m = mark_index(co2);
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
        size_t nlines = count_lines(text + st->start, len) +
                        (len > 0 && text[st->end - 1] != '\n');
        int r = add_block(a, &s, codes[k], wlines[k], (int)nlines, line + st->line, extras[k],
                          last, cg_end, nparams);
        if (r != 0)
            goto done;
        /* jumps to this block's end (the sentinel) already point at out.n: the
         * next block's first instruction */
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(s.folded); i++)
        if (table_add(&s.consts, PyList_GET_ITEM(s.folded, i), NULL) < 0)
            goto done;
    /* constant numbers, then trailing unused constants trimmed (trim_unused_consts) */
    int maxc = 0;
    for (int i = 0; i < s.out.n; i++) {
        if (s.cobj[i] == NULL)
            continue;
        int j = table_add(&s.consts, s.cobj[i], NULL);
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
    table_clear(&s.consts);
    table_clear(&s.names);
    table_clear(&s.varnames);
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
