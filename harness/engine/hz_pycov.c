/* hz_pycov.c: extra coverage counters and the Python-level trace function (see
 * hz_pycov.h). The trace function mirrors what AFL's instrumentation does for
 * basic blocks: a location key per (code object, line), an edge key per (previous
 * location, location), one saturating 8-bit counter per edge key. A small stack
 * keeps the previous location of each active frame, so returning from a callee
 * continues the caller's edge chain instead of inventing a callee->caller edge. */
#include "hz_pycov.h"

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <frameobject.h>

#include <string.h>

/* libFuzzer finds this section through the linker's __start_/__stop_ symbols and
 * treats each byte like an edge counter (clearing them before every input). */
__attribute__((section("__libfuzzer_extra_counters"), used, aligned(64)))
static uint8_t hz_counters[HZ_COV_COUNTERS];

#if defined(__AFL_COMPILER) || defined(HZ_AFL_MAP)
/* afl-clang-fast's runtime: the shared-memory map and its size. The instrumentation
 * pass adds its own __afl_area_ptr to every module it instruments and renames any
 * existing one into an undefined `__afl_area_ptr.1`: this file is compiled with
 * --afl-noopt in AFL++ builds (fuzz/CMakeLists.txt), so the pass never sees it. */
extern uint8_t *__afl_area_ptr;
extern uint32_t __afl_map_size;
#endif

uint32_t hz_cov_key(uint32_t a, uint32_t b)
{
    uint32_t h = a * 0x9E3779B1u ^ (b + 0x7F4A7C15u + (a << 6) + (a >> 2));
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    h *= 0xC2B2AE35u;
    return h ^ (h >> 16);
}

void hz_cov_hit(uint32_t key)
{
    uint8_t *c = &hz_counters[key & (HZ_COV_COUNTERS - 1)];
    if (*c != 0xFF)
        (*c)++;
#if defined(__AFL_COMPILER) || defined(HZ_AFL_MAP)
    if (__afl_area_ptr != NULL) {
        uint32_t size = __afl_map_size ? __afl_map_size : 65536;
        /* Edges of the C code hash below size as well: a collision only loses a
         * little precision, as any two colliding edges do in AFL. */
        __afl_area_ptr[(key >> 3) % size]++;
    }
#endif
}

size_t hz_cov_nonzero(void)
{
    size_t n = 0;
    for (size_t i = 0; i < HZ_COV_COUNTERS; i++)
        n += hz_counters[i] != 0;
    return n;
}

void hz_cov_clear(void)
{
    memset(hz_counters, 0, sizeof hz_counters);
}

/* ---- the trace function ---------------------------------------------------- */

#define STACK_MAX 512          /* deeper frames share the last slot: still counted */
#define SEEN_BITS (1u << 16)

static PyObject *skip_name;    /* owned: the program's filename (str) */
static PyObject *last_file;    /* owned: the last co_filename seen, for a quick check */
static int last_file_skipped;
static uint32_t stack[STACK_MAX];
static int depth;
static uint8_t seen[SEEN_BITS / 8];
static size_t nseen;

static int file_skipped(PyObject *filename)
{
    if (filename == last_file)
        return last_file_skipped;
    /* Holding a reference keeps the address from being reused by another string. */
    Py_XSETREF(last_file, Py_NewRef(filename));
    last_file_skipped = skip_name != NULL && PyUnicode_Check(filename) &&
                        PyUnicode_Compare(filename, skip_name) == 0;
    return last_file_skipped;
}

/* The location key of a code object at a line; no Python error can escape. */
static uint32_t location(PyCodeObject *co, int line)
{
    Py_hash_t h = PyObject_Hash(co->co_filename);   /* cached in the str after once */
    if (h == -1) {
        PyErr_Clear();
        h = 0;
    }
    return hz_cov_key((uint32_t)h ^ (uint32_t)((uint64_t)h >> 32),
                      (uint32_t)co->co_firstlineno * 65599u + (uint32_t)line);
}

static void edge(uint32_t to)
{
    uint32_t *prev = &stack[depth < STACK_MAX ? depth : STACK_MAX - 1];
    uint32_t key = to ^ (*prev >> 1);
    hz_cov_hit(key);
    uint32_t bit = key & (SEEN_BITS - 1);
    if (!(seen[bit / 8] & (1u << (bit % 8)))) {
        seen[bit / 8] |= (uint8_t)(1u << (bit % 8));
        nseen++;
    }
    *prev = to;
}

static int trace(PyObject *unused, PyFrameObject *frame, int what, PyObject *arg)
{
    PyCodeObject *co = PyFrame_GetCode(frame);   /* new reference */
    if (file_skipped(co->co_filename)) {
        Py_DECREF(co);
        return 0;
    }
    switch (what) {
    case PyTrace_CALL:
        depth++;
        if (depth < STACK_MAX)
            stack[depth] = 0;
        edge(location(co, 0));
        break;
    case PyTrace_RETURN:
        if (depth > 0)
            depth--;
        break;
    case PyTrace_LINE:
        edge(location(co, PyFrame_GetLineNumber(frame)));
        break;
    case PyTrace_EXCEPTION:
        /* Which line raised is already a location; mark the raise as a branch. */
        edge(location(co, -PyFrame_GetLineNumber(frame)));
        break;
    default:
        break;
    }
    Py_DECREF(co);
    return 0;
}

int hz_pycov_start(const char *skip_filename)
{
    PyObject *s = PyUnicode_DecodeFSDefault(skip_filename ? skip_filename : "");
    if (s == NULL)
        return -1;
    Py_XSETREF(skip_name, s);
    Py_CLEAR(last_file);
    depth = 0;
    stack[0] = 0;
    PyEval_SetTrace(trace, NULL);
    return 0;
}

void hz_pycov_stop(void)
{
    PyEval_SetTrace(NULL, NULL);
    Py_CLEAR(last_file);
}

size_t hz_pycov_edges(void)
{
    return nseen;
}
