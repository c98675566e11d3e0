/* hz_fuzz_decoder.c: the second fuzz target, the program model alone (no target, no
 * run protocol), checking the invariants every other part builds on:
 *
 *   1. hz_decode is total: any bytes give a program;
 *   2. hz_encode is its inverse on IR: hz_decode(hz_encode(p)) == p;
 *   3. normalising a decoded program changes nothing;
 *   4. hz_emit gives source CPython compiles (and that defines make and program);
 *   5. the structure-aware mutator's output is a valid program: after an edit and
 *      normalisation, the encoding round-trips as in 2 and the emission compiles.
 *
 * A violated invariant prints what broke, with the program, and aborts (SQLite's
 * fuzzinvariants habit: an invariant is checked, never assumed). Compiling needs
 * CPython, initialised once; nothing is executed. */
#include "hz_embed.h"
#include "hz_ir.h"
#include "hz_mutate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void violated(const char *what, const HzProgram *p)
{
    char *src = hz_emit(p, NULL);
    fprintf(stderr, "\n==== decoder invariant violated: %s\n==== program\n%s\n", what,
            src ? src : "(cannot emit)");
    free(src);
    abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    char err[1024];
    if (hz_embed_init(NULL, err, sizeof err) < 0) {
        fprintf(stderr, "hz_fuzz_decoder: %s\n", err);
        exit(2);
    }
    return 0;
}

/* Encodes p, decodes the bytes and checks the result equals p. */
static void check_roundtrip(const HzProgram *p, const char *what)
{
    uint8_t *bytes = NULL;
    size_t n = 0;
    if (hz_encode(p, &bytes, &n) < 0)
        abort();
    HzProgram *q = hz_decode(bytes, n);
    if (!hz_program_equal(p, q)) {
        fprintf(stderr, "(%s: %zu encoded bytes decode to another program)\n", what, n);
        violated("hz_decode(hz_encode(p)) != p", p);
    }
    hz_program_free(q);
    free(bytes);
}

/* Compiles p's source; a program must also define make and program. */
static void check_compiles(const HzProgram *p)
{
    char *src = hz_emit(p, NULL);
    if (src == NULL)
        abort();
    PyObject *code = Py_CompileString(src, "<tfprog>", Py_file_input);
    if (code == NULL) {
        PyErr_Print();
        free(src);
        violated("the emitted source does not compile", p);
    }
    PyObject *names = PyObject_GetAttrString(code, "co_names");   /* new */
    if (names == NULL)
        abort();
    PyObject *make = PyUnicode_FromString("make");
    PyObject *program = PyUnicode_FromString("program");
    int has_make = PySequence_Contains(names, make);
    int has_program = PySequence_Contains(names, program);
    Py_XDECREF(make);
    Py_XDECREF(program);
    Py_DECREF(names);
    Py_DECREF(code);
    free(src);
    if (has_make != 1 || has_program != 1)
        violated("the emitted module does not define make() and program()", p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    HzProgram *p = hz_decode(data, size);
    check_roundtrip(p, "decoded");

    HzProgram *q = hz_program_clone(p);
    hz_program_normalize(q);
    if (!hz_program_equal(p, q))
        violated("normalising a decoded program changed it", p);
    hz_program_free(q);

    check_compiles(p);

    /* One mutation and one splice (with the program's own reversed bytes as the
     * other parent), seeded by the input so a crash reproduces. */
    uint64_t seed = 0x7466;
    for (size_t i = 0; i < size && i < 16; i++)
        seed = seed * 131 + data[i];
    HzRng rng = {seed};
    HzProgram *m = hz_program_clone(p);
    hz_mutate_program(m, &rng);
    check_roundtrip(m, "mutated");
    uint8_t rev[64];
    size_t nrev = size < sizeof rev ? size : sizeof rev;
    for (size_t i = 0; i < nrev; i++)
        rev[i] = data[size - 1 - i];
    HzProgram *other = hz_decode(rev, nrev);
    hz_splice_programs(m, other, &rng);
    check_roundtrip(m, "spliced");
    check_compiles(m);
    hz_program_free(other);
    hz_program_free(m);
    hz_program_free(p);
    if (PyErr_Occurred()) {
        fprintf(stderr, "hz_fuzz_decoder: exception left set\n");
        abort();
    }
    return 0;
}
