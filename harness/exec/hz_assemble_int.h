/* hz_assemble_int.h: what hz_assemble.c, hz_assemble_cut.c and hz_assemble_link.c
 * share (private to them; the promise is hz_assemble.h). */
#ifndef HZ_ASSEMBLE_INT_H
#define HZ_ASSEMBLE_INT_H

#include "hz_bytecode.h"

#include <stdbool.h>
#include <stddef.h>

#define HZ_MAX_STMTS 1024   /* more statements than this: compiled whole */
#define SENTINEL "__tf_stmt_end__"
#define MARK "\x00tf-end"
#define MARK_SRC "'\\x00tf-end'"

/* A small byte buffer, NUL-terminated (the emitter's hz_sbuf is instrumented code);
 * failed: out of memory, the content is incomplete. */
typedef struct {
    char *p;
    size_t n, cap;
    bool failed;
} Buf;

void hz_asm_buf_add(Buf *b, const char *s, size_t n);
void hz_asm_buf_str(Buf *b, const char *s);
void hz_asm_buf_pyname(Buf *b, PyObject *name);   /* a str's UTF-8 */

/* ---- hz_assemble_cut.c: the cut ---- */

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

size_t hz_asm_count_lines(const char *s, size_t n);   /* newlines in s[0..n) */
/* Cuts the def piece text[0..n); returns 0, or -1 with *refusal set to why not.
 * cut->stmts and cut->globals.p are malloc'd either way (the caller frees them). */
int hz_asm_cut(const char **refusal, const char *text, size_t n, Cut *cut);

/* Adds to idents the names text[0..n) uses (not attributes, not in strings or
 * comments) and to assigned those it visibly binds (NAME =, NAME +=, NAME :=, as
 * NAME, for NAME, del NAME, import NAME): a guess of a statement's locals from its
 * text, checked against its compile. Returns 0, or -1 with an exception. */
int hz_asm_names(const char *text, size_t n, PyObject *idents, PyObject *assigned);

/* ---- hz_assemble_link.c: the blocks put together ---- */

/* Values in order with their index by key. */
typedef struct {
    PyObject *list;    /* owned */
    PyObject *index;   /* owned: key -> int */
} Table;

int hz_asm_table_init(Table *t);   /* 0, or -1 with an exception */
void hz_asm_table_clear(Table *t);
/* Returns value's index (appended when its key is new), or -1 with an exception.
 * key: borrowed; NULL for the constant key of value (_PyCode_ConstantKey). */
int hz_asm_table_add(Table *t, PyObject *value, PyObject *key);
/* Index of the sentinel's marker constant in co_consts, or -1. */
Py_ssize_t hz_asm_mark_index(PyCodeObject *co);

/* What the assembly keeps while it walks the blocks. */
typedef struct {
    HzBytecode out;
    PyObject **cobj;     /* per instruction of out: its constant (borrowed) or NULL */
    int cobj_cap;
    Table consts, names, varnames;
    PyObject *folded;    /* owned list: constants numbered after all others */
    int stacksize;
} Asm;

/* A statement's block (held by a capsule "tf.block"; see hz_assemble_link.c). */
typedef struct {
    HzBytecode bc;       /* targets in [0, n]: n is the next statement's first */
    PyObject *consts;    /* tuple: constants numbered where the block is (the first
                          * nconsts), then folded ones numbered after all blocks'.
                          * LOAD_CONST/KW_NAMES args: 0 the function's co_consts[0],
                          * i >= 1 consts[i - 1] */
    int nconsts;
    PyObject *names;     /* tuple, in numbering order; name op args index it */
    PyObject *lnames;    /* tuple of the locals in numbering order; FAST args index it */
    int stacksize;
    int nlines;          /* the statement's lines; instruction lines count from 0 */
    PyObject *g0;        /* set: the names it would use as globals compiled alone */
    PyObject *bound;     /* set: the locals it binds */
    PyObject *extras;    /* sorted list: the locals it reads that others bind */
} HzBlock;

HzBlock *hz_asm_block(PyObject *capsule);   /* borrowed from the capsule */

/* The block of a wrapper's code co (its statement at line wline, nlines lines; extras
 * it was compiled with, or NULL; last: without sentinel, cg_end then where its
 * code-generation constants end; params: the function's parameters), as a new
 * capsule; NULL with *refusal set when the block is not one the assembler takes,
 * or NULL with an exception. */
PyObject *hz_asm_block_from_wrapper(const char **refusal, PyCodeObject *co, int wline,
                                    int nlines, PyObject *extras, bool last, Py_ssize_t cg_end,
                                    PyObject *params);

/* The blocks of the statements of a whole function's compile fn (statement k at file
 * line lines[k], nlines[k] lines): out[k] a new capsule, or NULL where the statement
 * cannot be cut out. Returns 0, or -1 with an exception (out all NULL). */
int hz_asm_blocks_from_whole(PyCodeObject *fn, const int *lines, const int *nlines, int N,
                             PyObject *params, PyObject **out);

/* Appends block b, its statement at file line fline, to s. 0, or -1 with an exception. */
int hz_asm_link(Asm *s, const HzBlock *b, int fline);

#endif
