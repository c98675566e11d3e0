/* hz_assemble.h: a top-level function's code assembled from its statements.
 *
 * A mutated input differs from its parent in one statement of program(), and
 * compiling program() whole was most of the fuzzing loop's compile time (issue 14).
 * So a `def` piece (hz_codecache.h) is cut into its statements; each is compiled
 * alone, as the body of a wrapper function with the same parameters, and cached by
 * its wrapper's text, and the function's code object is put together from these
 * blocks in C: instructions concatenated (each statement's exits sent to the next
 * statement), constants, names and locals renumbered in the order the compiler
 * numbers them, jumps, line numbers and exception handlers relocated. An edited
 * statement costs the compile of that statement; the others are cache hits.
 *
 * CPython 3.11 compiles a function's statements into code that depends on the
 * statement alone (no cold-block reordering in 3.11: handlers stay after their
 * try), so on the generated programs and the hand-written cases of
 * tests/cli/hz_assemble_test.c the assembled code object is the whole compile's
 * byte for byte: co_code, co_consts, co_names, co_varnames, co_linetable,
 * co_exceptiontable, co_stacksize, flags and counts. Anything outside what was
 * checked (closures, generators, nested functions and classes, a statement that
 * does not compile alone, unusual layout) is refused: hz_assemble_piece returns
 * NULL without an exception and the caller compiles the piece whole.
 *
 * hz_assemble_piece_templated is the fast protocol's variant: its blocks come from
 * statement templates (hz_assemble_template.c), equal to the piece's compile up to
 * layout. */
#ifndef HZ_ASSEMBLE_H
#define HZ_ASSEMBLE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdbool.h>

typedef struct HzAssembler HzAssembler;

typedef struct {
    unsigned long pieces;      /* def pieces offered to hz_assemble_piece */
    unsigned long assembled;   /* of those, assembled (the others fell back) */
    unsigned long blocks;      /* statement (and header) compiles looked up */
    unsigned long block_hits;  /* of those, found in the statement cache */
    unsigned long compiles;    /* modules of statement wrappers compiled */
    unsigned long recompiles;  /* statements compiled again: their extras were guessed wrong */
    unsigned long whole;       /* pieces compiled whole (too much to compile apart) */
    unsigned long cut_out;     /* statement blocks cut out of those compiles */
    /* CPU seconds in hz_assemble_piece: pieces assembled, compiled whole here, refused
     * (these and the templates' are measured only when hz_asm_timings()) */
    double cpu_assembled, cpu_whole, cpu_refused;
    double cpu_whole_compile, cpu_cut_out;   /* of cpu_whole: the compile, the cutting out */
    double cpu_wrappers;       /* compiling statement wrappers (in cpu_assembled) */
    unsigned long wrappers;    /* statement wrappers compiled */
    unsigned long instances;   /* templated: blocks instantiated from a statement template */
} HzAssembleStats;

/* Whether the compile route's CPU seconds are measured: TRACEFUZZ_TIMINGS=1 (a
 * thread's CPU clock is a system call; read ~7 times an input it cost ~1%). */
bool hz_asm_timings(void);

/* Never returns NULL (aborts on out-of-memory). */
HzAssembler *hz_assembler_new(void);
void hz_assembler_free(HzAssembler *a);

/* The cost gate, on by default with min_bytes 1536: a piece smaller than min_bytes
 * is refused (compiled whole by the caller), and with gate one with more than a
 * third of its statements uncached is compiled whole here, its statements' blocks
 * cut out of that compile (hz_assemble.c, gather_blocks). The identity test turns
 * both off to assemble every piece from wrapper compiles. */
void hz_assembler_set_gate(HzAssembler *a, bool gate, size_t min_bytes);

/* Returns a new reference to the module-level code of the piece text[0..n) -- a
 * top-level `def` with its decorators, first line `line` of filename -- equal to
 * what compiling the piece alone (padded to its line) gives; or NULL without an
 * exception set when the assembler does not take this piece (the caller compiles
 * it), or NULL with an exception set on out-of-memory. */
PyObject *hz_assemble_piece(HzAssembler *a, const char *text, size_t n, int line,
                            const char *filename);

/* The same piece for a lookup that does not ask for exact lines: its statements'
 * blocks instantiated from statement templates (hz_assemble_template.c), so its
 * code is the piece's up to layout (lines counted from line 1 as in the abstract
 * text, as hz_template.h's are), and a function of the text alone. NULL without an
 * exception when the piece is not taken (fewer than 3 statements, a statement
 * without a template, what hz_assemble_piece refuses): the caller takes its
 * whole-piece template. Use an assembler of its own: the two kinds of blocks differ
 * in their lines and must not mix. */
PyObject *hz_assemble_piece_templated(HzAssembler *a, const char *text, size_t n,
                                      const char *filename);

HzAssembleStats hz_assembler_stats(const HzAssembler *a);

/* Why the last piece was not assembled ("" when it was); a static string. */
const char *hz_assembler_last_refusal(const HzAssembler *a);

#endif
