/* hz_assemble_int.h: what hz_assemble.c, hz_assemble_cut.c and hz_assemble_link.c
 * share (private to them; the promise is hz_assemble.h); the templates
 * (hz_template*.c) write their texts into its byte buffer too. */
#ifndef HZ_ASSEMBLE_INT_H
#define HZ_ASSEMBLE_INT_H

#include "hz_assemble.h"
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
/* Length of a string prefix + opening quote at s, before end (0: no string starts
 * there). For the code cache's cut too (hz_codecache.c). */
int hz_asm_string_start(const char *s, const char *end);
/* Cuts the def piece text[0..n); returns 0, or -1 with *refusal set to why not.
 * cut->stmts and cut->globals.p are malloc'd either way (the caller frees them). */
int hz_asm_cut(const char **refusal, const char *text, size_t n, Cut *cut);

/* Cuts the class piece text[0..n) (a top-level `class` statement, decorated or not,
 * whose header is one logical line and whose body is on the lines below) into its
 * header, text[0..*header_end), and the statements of its body, stmts[0..count): a run
 * of decorators and the statement they decorate is one; a string statement is taken
 * only first (the docstring), `global` and `nonlocal` never. Returns count, or -1 with
 * *refusal set. For hz_template_class.c. */
int hz_asm_class_cut(const char **refusal, const char *text, size_t n, size_t *header_end,
                     Span *stmts, int cap);

/* Adds to idents the names text[0..n) uses (not attributes, not in strings or
 * comments) and to assigned those it visibly binds (NAME =, NAME +=, NAME :=, as
 * NAME, for NAME, del NAME, import NAME): a guess of a statement's locals from its
 * text, checked against its compile. Returns 0, or -1 with an exception. */
int hz_asm_names(const char *text, size_t n, PyObject *idents, PyObject *assigned);

/* The result slot a generated statement writes, `out[N]`, is numbered by position:
 * a statement inserted above renumbers every later one and their texts no longer
 * match the cache. So a block is also cached under its text with those digits
 * masked, and linked with its index constant replaced (hz_asm_link).
 * Masks in place, with '#', the digits of every `out[DIGITS]` of text[0..n) outside
 * strings and comments (`out` a whole name, not an attribute) when there is one or
 * more and all spell the same number; returns that number, or -1 with text as it
 * was. The digit count stays, so columns in the line table do not move. */
long hz_asm_mask_out(char *text, size_t n);

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
    /* tuples, not sets: a block is kept ~8,000 times over, and two small sets were
     * ~500 of its ~2,400 bytes; their ~3 names each are looked up in sets built
     * per piece (hz_asm_sorted_common), never in these */
    PyObject *g0;        /* tuple: the names it would use as globals compiled alone */
    PyObject *bound;     /* tuple: the locals it binds */
    PyObject *extras;    /* sorted list: the locals it reads that others bind */
    /* when its statement's `out[N]` index can be another number (hz_asm_mask_out):
     * the constant (consts[out_const - 1], the int out_num) that only `out[...]`
     * subscripts load; 0 when it cannot (none, or the constant has other uses) */
    int out_const;
    long out_num;
} HzBlock;

HzBlock *hz_asm_block(PyObject *capsule);   /* borrowed from the capsule */
/* A new capsule owning b (its arrays cut to size; b freed with it), or NULL (b
 * freed) with an exception. */
PyObject *hz_asm_block_capsule(HzBlock *b);

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

/* Appends block b, its statement at file line fline, to s; out_value (borrowed, or
 * NULL) replaces its out-index constant (b->out_const). 0, or -1 with an exception. */
int hz_asm_link(Asm *s, const HzBlock *b, int fline, PyObject *out_value);
/* Sets b->out_const for a block whose statement spells out[num] (see HzBlock). */
void hz_asm_find_out_const(HzBlock *b, long num);

/* ---- hz_assemble.c and hz_assemble_blocks.c: the assembler, its cache ---- */

/* Statement blocks kept: program() has ~15-35 statements, and the fuzz loop's inputs
 * come from all over its corpus (see docs/PERFORMANCE.md for the hit rates and RSS).
 * A block is ~2.0 KiB (41 instructions of 28 bytes, its key text, its tuples): 8,192
 * of them took the fuzz target's RSS growth over 100,000 execs from 39 to 45 MiB
 * (the budget: 50) and 20,000-run loops from a grown corpus ran in 1-5% fewer
 * CPU seconds than with 4,096 (docs/PERFORMANCE.md, session 17). */
#define HZ_BLOCK_SLOTS 8192
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
    unsigned long used;   /* template slots: the lookup count when last found or stored */
} Slot;

/* Statement templates kept (hz_assemble_template.c), in sets of two, least recently
 * used out: apart from the blocks, whose one-per-statement-text entries would evict
 * them (a 3,000-exec loop compiled 2,018 templates of 800 shapes that way). */
#define HZ_TEMPLATE_BLOCK_SETS 4096

struct HzAssembler {
    Slot slots[HZ_BLOCK_SLOTS];
    Slot tslots[2 * HZ_TEMPLATE_BLOCK_SETS];
    uint64_t seen[HZ_SEEN_SLOTS];
    HzAssembleStats stats;
    const char *refusal;
    bool no_gate;
    size_t min_bytes;   /* smaller pieces are refused */
    bool cut_seen_only; /* cut blocks out of whole compiles only when mostly seen */
};

uint64_t hz_asm_fnv(const char *s, size_t n);
bool hz_asm_same(const char *a, const char *b, size_t n);   /* memcmp == 0, not intercepted */
const char *hz_asm_find(const char *hay, size_t n, const char *needle, size_t m);   /* memmem */
/* The slot holding key (counted as a lookup), or NULL. */
Slot *hz_asm_slot_find(HzAssembler *a, const char *key, size_t len, uint64_t h);
/* The same for the template slots: the slot holding key, or NULL; and the slot to
 * store key in (the less recently used of its set, emptied and keyed), or NULL. */
Slot *hz_asm_tslot_find(HzAssembler *a, const char *key, size_t len, uint64_t h);
Slot *hz_asm_tslot_put(HzAssembler *a, const char *key, size_t len, uint64_t h);
/* key's slot emptied and keyed (its former entry evicted), or NULL on out-of-memory. */
Slot *hz_asm_slot_put(HzAssembler *a, const char *key, size_t len, uint64_t h);
/* A new reference to the code of src (padded with pad newlines) cached by key: a
 * module, or with function its one code constant; NULL without an exception when it
 * does not compile, with one on out-of-memory. */
PyObject *hz_asm_cached_compile(HzAssembler *a, const char *key, size_t len, const char *src,
                                int pad, const char *filename, bool function);
double hz_asm_cpu_now(void);   /* this thread's CPU seconds; 0 unless hz_asm_timings() */

/* A piece being assembled: its text, cut, file and parameters. */
typedef struct {
    const char *text;
    size_t n;
    const Cut *cut;
    const char *filename;   /* for the compiler's warnings only: not in the block key */
    PyObject *params;   /* borrowed: the stub's parameter names (a tuple) */
} Piece;

/* Statement k's block while a piece is assembled (references owned). */
typedef struct {
    PyObject *cap;       /* its block (a capsule) */
    Buf key;             /* the cache key: the wrapper's text without extras */
    uint64_t hash;
    Buf mkey;            /* the key with its out[N] digits masked (when out_num >= 0) */
    uint64_t mhash;
    long out_num;        /* N of the statement's out[N], or -1 */
    PyObject *out_value; /* owned: N as an int when cap was made for another N, or NULL */
} Blk;

void hz_asm_blk_clear(Blk *b);
/* b's hash, masked key, its hash and out_num from b->key (hz_asm_mask_out); 0, or
 * -1 with an exception. */
int hz_asm_blk_keys(Blk *b);
/* b->cap from the cache: under the masked key (b->out_value set when the block was
 * made for another out[N]) or the exact one; false when neither is there. */
bool hz_asm_find_block(HzAssembler *a, Blk *b);
/* b->cap, made for this statement's own text, into the cache (under the masked key
 * when its out[N] constant can be replaced). */
void hz_asm_store_block(HzAssembler *a, Blk *b);
/* Fills blk[0..N) (see hz_assemble_blocks.c); 0, 1 to refuse (a->refusal set), 2 to
 * compile the piece whole (hz_asm_compile_whole), -1 with an exception. */
int hz_asm_gather(HzAssembler *a, const Piece *pc, int N, Blk *blk);
/* Writes the wrapper of statement k (extras: a list of str, or NULL; sentinel: all
 * but the last) into b; *wline = the statement's first line there. */
void hz_asm_block_text(const Piece *pc, int k, PyObject *extras, bool sentinel, Buf *b,
                       int *wline);
PyObject *hz_asm_sorted_list(PyObject *set);   /* a new sorted list of set's items, or NULL */
/* A new sorted list of the items of the tuple names that are in set, or NULL with an
 * exception. */
PyObject *hz_asm_sorted_common(PyObject *names, PyObject *set);
/* A new tuple of the items of set (any order: only looked through), or NULL. */
PyObject *hz_asm_set_tuple(PyObject *set);
/* The guess of the extras of the statements without a block, and the extras each
 * needs once all blocks are in (hz_assemble_blocks.c says how). */
int hz_asm_guess_extras(const Piece *pc, int N, const Blk *blk, PyObject *known, PyObject **want);
int hz_asm_needed_extras(int N, const Blk *blk, PyObject **want);
bool hz_asm_has_tuples(PyCodeObject *co);
Py_ssize_t hz_asm_cg_end(const char **refusal, PyCodeObject *co, PyCodeObject *co2);
/* Fills blk[0..N) from statement templates (hz_assemble_template.c); 0, 1 to
 * refuse (a->refusal set), -1 with an exception. */
int hz_asm_gather_templated(HzAssembler *a, const Piece *pc, int N, Blk *blk);
/* Fewer statements: the templated route refuses the piece (its whole-piece template
 * serves it). A function of the text, as the route must be. */
#define HZ_TEMPLATED_MIN_STMTS 3
/* The piece compiled whole at line, a new reference, its blocks cut out into the
 * cache (fn_at: the function's index in the module's constants); NULL with the
 * compile's exception. */
PyObject *hz_asm_compile_whole(HzAssembler *a, const Piece *pc, int N, Blk *blk, int line,
                               Py_ssize_t fn_at);

#endif
