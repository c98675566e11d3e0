/* hz_bytecode.h: CPython 3.11 bytecode as an editable list of instructions.
 *
 * hz_assemble.c builds a function's code object from the code of its statements
 * compiled apart; this is its instruction layer. A code object is decoded into
 * instructions (EXTENDED_ARG folded into the oparg, CACHE entries dropped, jumps
 * turned into instruction indices, each instruction's location from the location
 * table, the exception table as instruction ranges) and encoded back the way
 * Python/compile.c's assembler writes them: jump opargs and EXTENDED_ARG prefixes
 * to a fixed point starting from one unit per jump, one location entry (or more, at
 * most 8 code units each) per instruction in the shortest form that fits
 * (Objects/locations.md), one exception-table entry per run of instructions with the
 * same handler (Objects/exception_handling_notes.txt). Decoding a compiled code
 * object and encoding it again gives back its co_code, co_linetable and
 * co_exceptiontable byte for byte (tests/cli/hz_assemble_test.c, "roundtrip"). */
#ifndef HZ_BYTECODE_H
#define HZ_BYTECODE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdbool.h>

/* A source location; line < 0: none (code 15 of the location table). col and
 * endcol are -1 when the entry has no columns. */
typedef struct {
    int line, endline, col, endcol;
} HzLoc;

typedef struct {
    int op;        /* an opcode of Include/opcode.h, never EXTENDED_ARG or CACHE */
    int arg;       /* the whole oparg (a jump's is recomputed by hz_bc_encode) */
    int target;    /* jumps: index of the target instruction (may be n: the end) */
    HzLoc loc;
} HzInstr;

/* Instructions [start, end) are covered by the handler at instruction target. */
typedef struct {
    int start, end, target, depth;
    bool lasti;
} HzExcEntry;

typedef struct {
    HzInstr *ins;
    int n, cap;
    HzExcEntry *exc;
    int nexc, capexc;
} HzBytecode;

/* Cache entries after an opcode (3.11's _PyOpcode_Caches, not exported). */
int hz_bc_caches(int op);
bool hz_bc_is_jump(int op);       /* a relative jump (dis.hasjrel) */
bool hz_bc_is_backward(int op);   /* ... whose offset counts backwards */

void hz_bc_clear(HzBytecode *b);   /* frees the arrays, leaves b empty */
/* Appends an instruction or entry; -1 with MemoryError set on out-of-memory. */
int hz_bc_push(HzBytecode *b, const HzInstr *in);
int hz_bc_push_exc(HzBytecode *b, const HzExcEntry *e);

/* Decodes co into b (which must be empty). Returns 0, or -1 without an exception
 * when co's tables are not as the 3.11 compiler writes them (a jump or handler into
 * the middle of an instruction, a truncated table), or -1 with MemoryError set
 * (PyErr_Occurred tells which). */
int hz_bc_decode(PyCodeObject *co, HzBytecode *b);

/* Encodes b: sets three new references (bytes: co_code, co_linetable with line
 * deltas from firstlineno, co_exceptiontable) and returns 0, or -1 with an
 * exception set and nothing set. Rewrites the jumps' args (b is otherwise kept). */
int hz_bc_encode(HzBytecode *b, int firstlineno, PyObject **code, PyObject **linetable,
                 PyObject **exctable);

#endif
