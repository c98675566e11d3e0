/* hz_codecache.c: compiled program code cached by top-level piece (see
 * hz_codecache.h).
 *
 * Two direct-mapped tables, keyed by FNV-1a hashes and confirmed by comparing the
 * full text: whole sources -> their tuple of piece codes (a rerun of a known input
 * costs one hash), and pieces -> code. Code objects are immutable as far as running
 * them goes (CPython 3.11 specialises a copy of the bytecode in place, which is
 * invisible to programs), so one code object serves every run of every input that
 * has the piece, as it already served the three runs of one input. */
#include "hz_codecache.h"
#include "hz_assemble.h"
#include "hz_assemble_int.h"   /* hz_asm_same */
#include "tr_lines.h"
#include "hz_template.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define HZ_SOURCE_SLOTS 64
/* libFuzzer mutates inputs from all over its corpus, so pieces are reused long
 * after they were compiled: 1,024 slots reused 66% of the loop's pieces, 8,192 75%
 * (10,000 loop runs; RSS 50 -> 84 MB, CPU -11% on average of three noisy runs). A
 * cached piece costs ~6.5 KiB (code objects, their nested code, the text), and the
 * cache is most of the fuzz target's RSS growth (issue 14: under 50 MiB over 100,000
 * execs): 40,000 loop runs from the seeds reused 74.8% / 72.1% / 69.2% of the pieces
 * with 8,192 / 4,096 / 2,048 slots, RSS 39 -> 102 / 75 / 63 MiB. */
#define HZ_PIECE_SLOTS 4096
#define HZ_MAX_PIECES 256     /* more top-level pieces than this: the rest is one */

typedef struct {
    uint64_t hash;
    /* pieces: the first line when stored for an exact lookup, 0 when stored for any
     * line (from its template, or compiled at the line it first came at); sources: 2
     * exact, 1 any. A lookup takes only an entry stored for its own kind of lookup, so
     * a text's code in the fast protocol never depends on whether an exact run
     * happened to compile it before (an input's coverage features are its own). */
    int line;
    char *text;            /* malloc'd (kept when the slot is replaced) */
    size_t len;            /* of text */
    size_t cap;            /* text's allocation: a replacing entry reuses it */
    char *filename;        /* malloc'd */
    PyObject *code;        /* owned: a code object (pieces) or a tuple (sources) */
} Entry;

struct HzCodeCache {
    Entry sources[HZ_SOURCE_SLOTS];
    Entry pieces[HZ_PIECE_SLOTS];
    HzCodeCacheStats stats;
    HzAssembler *assembler;   /* NULL: TRACEFUZZ_ASSEMBLE=0 */
    HzTemplates *templates;   /* NULL: TRACEFUZZ_TEMPLATES=0 */
    HzAssembler *tassembler;  /* def pieces from statement templates; NULL: off */
};

/* The key of a text: its line is not part of it (see entry_find), the kind of lookup
 * is (exact ones and the others keep apart entries, and slots). Hashed eight bytes a
 * step (hz_asm_fnv): byte by byte, the whole source and then each piece, it was ~1.7%
 * of a `tracefuzz fuzz` exec (perf annotate). Equal hashes are still compared by
 * text, so the hash only spreads entries over the slots. */
HZ_NO_COVERAGE static uint64_t key(const char *text, size_t n, const char *filename, bool exact)
{
    uint64_t h = hz_asm_fnv(text, n) ^ (exact ? 0x6a09e667f3bcc909ull : 0);
    h = (h ^ hz_asm_fnv(filename, strlen(filename))) * 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 32);
}

HZ_NO_COVERAGE static void entry_clear(Entry *e)
{
    free(e->text);
    free(e->filename);
    Py_CLEAR(e->code);
    memset(e, 0, sizeof *e);
}

/* Returns the cached object (borrowed) for (text[0..n), filename) stored with `line`
 * (see Entry), or NULL. */
HZ_NO_COVERAGE static PyObject *entry_find(const Entry *e, uint64_t h, int line, const char *text, size_t n,
                            const char *filename)
{
    if (e->code == NULL || e->hash != h || e->line != line || e->len != n ||
        !hz_asm_same(e->text, text, n) || strcmp(e->filename, filename) != 0)
        return NULL;
    return e->code;
}

/* Stores obj (a new reference is taken) in e; on out-of-memory leaves e empty. The
 * slot's text buffer and file name are kept when they serve: a malloc and a free of
 * a piece-sized buffer per store went through glibc's slow paths. */
HZ_NO_COVERAGE static void entry_store(Entry *e, uint64_t h, int line, const char *text, size_t n,
                        const char *filename, PyObject *obj)
{
    Py_CLEAR(e->code);
    if (e->filename == NULL || strcmp(e->filename, filename) != 0) {
        free(e->filename);
        e->filename = strdup(filename);
    }
    if (e->text == NULL || e->cap < n + 1 || e->cap > 2 * (n + 1)) {
        free(e->text);   /* nor kept much larger than needed: the cache is most of RSS */
        e->cap = n + 1;
        e->text = malloc(e->cap);
    }
    if (e->text == NULL || e->filename == NULL) {
        entry_clear(e);
        return;
    }
    memcpy(e->text, text, n);
    e->text[n] = '\0';
    e->len = n;
    e->hash = h;
    e->line = line;
    e->code = Py_NewRef(obj);
}

HZ_NO_COVERAGE HzCodeCache *hz_codecache_new(void)
{
    HzCodeCache *c = calloc(1, sizeof *c);
    if (c == NULL)
        abort();
    /* off by default until it pays in the fuzz loop (docs/PERFORMANCE.md) */
    const char *env = getenv("TRACEFUZZ_ASSEMBLE");
    if (env != NULL && (strcmp(env, "1") == 0 || strcmp(env, "2") == 0))
        c->assembler = hz_assembler_new();
    if (env != NULL && strcmp(env, "2") == 0)   /* small pieces too (for tests) */
        hz_assembler_set_gate(c->assembler, true, 0);
    const char *tenv = getenv("TRACEFUZZ_TEMPLATES");
    if (tenv == NULL || strcmp(tenv, "0") != 0)
        c->templates = hz_templates_new();
    /* TRACEFUZZ_TEMPLATES=2: class skeletons through their own templates, not linked */
    if (c->templates != NULL && tenv != NULL && strcmp(tenv, "2") == 0)
        hz_templates_link_classes(c->templates, false);
    /* TRACEFUZZ_TEMPLATES=1: whole-piece templates only (def pieces too) */
    if (c->templates != NULL && (tenv == NULL || strcmp(tenv, "1") != 0))
        c->tassembler = hz_assembler_new();
    return c;
}

HZ_NO_COVERAGE void hz_codecache_free(HzCodeCache *c)
{
    if (c == NULL)
        return;
    for (int i = 0; i < HZ_SOURCE_SLOTS; i++)
        entry_clear(&c->sources[i]);
    for (int i = 0; i < HZ_PIECE_SLOTS; i++)
        entry_clear(&c->pieces[i]);
    hz_assembler_free(c->assembler);
    hz_assembler_free(c->tassembler);
    hz_templates_free(c->templates);
    free(c);
}

HZ_NO_COVERAGE HzCodeCacheStats hz_codecache_stats(const HzCodeCache *c)
{
    HzCodeCacheStats s = c->stats;
    if (c->assembler != NULL)
        s.assembler = hz_assembler_stats(c->assembler);
    if (c->templates != NULL)
        s.templates = hz_templates_stats(c->templates);
    if (c->tassembler != NULL)
        s.statements = hz_assembler_stats(c->tassembler);
    return s;
}

/* ---- the cut ---- */

/* Length of word when s starts with it, else 0. Not strncmp: in the fuzz executables
 * libFuzzer's interceptor records every strncmp call that differs (~250
 * instructions; ~50 calls an input came from here, 0.7% of an exec). */
HZ_NO_COVERAGE static size_t prefix_len(const char *s, const char *word)
{
    size_t n = 0;
    for (; word[n] != '\0'; n++)
        if (s[n] != word[n])   /* also stops at s's terminating NUL */
            return 0;
    return n;
}

HZ_NO_COVERAGE static bool starts_word(const char *s, const char *word)
{
    size_t n = prefix_len(s, word);
    return n > 0 && (s[n] == ' ' || s[n] == '\t' || s[n] == ':' || s[n] == '(');
}

/* A column-0 line that continues the statement before it (else:, except E:, ...). */
HZ_NO_COVERAGE static bool continues_statement(const char *s)
{
    return starts_word(s, "else") || starts_word(s, "elif") || starts_word(s, "except") ||
           starts_word(s, "finally");
}

HZ_NO_COVERAGE static bool opens_piece(const char *s)
{
    return s[0] == '@' || starts_word(s, "def") || starts_word(s, "class") ||
           prefix_len(s, "async def ") > 0;
}

/* An encoding declaration (PEP 263): a comment naming "coding:" or "coding=" on
 * one of the first two lines. Only the piece holding it would be decoded by it. */
HZ_NO_COVERAGE static bool has_coding_cookie(const char *source)
{
    const char *p = source;
    for (int line = 0; line < 2 && *p != '\0'; line++) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        const char *hash = memchr(p, '#', n);
        if (hash != NULL) {
            size_t rest = n - (size_t)(hash - p);
            for (size_t i = 0; i + 7 <= rest; i++)
                if (memcmp(hash + i, "coding", 6) == 0 && (hash[i + 6] == ':' || hash[i + 6] == '='))
                    return true;
        }
        if (nl == NULL)
            break;
        p = nl + 1;
    }
    return false;
}

HZ_NO_COVERAGE int hz_codecache_cut(const char *source, size_t *starts, int cap)
{
    int n = 0;
    if (cap > 0)
        starts[0] = 0;
    n = 1;
    if (strstr(source, "__future__") != NULL)   /* a future import binds its piece only */
        return 1;
    if (has_coding_cookie(source))   /* so would an encoding declaration */
        return 1;
    bool in_def = false;          /* the current piece is a class or def statement */
    bool after_decorator = false; /* the last column-0 line was a decorator */
    for (const char *p = source; *p != '\0';) {
        const char *nl = strchr(p, '\n');
        char c = p[0];
        bool significant = c != ' ' && c != '\t' && c != '#' && c != '\n' && c != '\r';
        if (significant && (c == '@' || c == '_' || (c >= 'a' && c <= 'z') ||
                            (c >= 'A' && c <= 'Z'))) {
            bool opens = opens_piece(p);
            /* never before a string literal (with its prefix, r"", b'', f"""...)
             * starting the line: as the first statement of a piece it would become
             * a docstring and set __doc__ */
            bool cut = p != source && !after_decorator && !continues_statement(p) &&
                       hz_asm_string_start(p, nl != NULL ? nl : p + strlen(p)) == 0 &&
                       (opens || in_def);
            if (cut) {
                if (n < cap)
                    starts[n] = (size_t)(p - source);
                n++;
                if (n >= HZ_MAX_PIECES)
                    return n;
            }
            if (cut || p == source)
                in_def = opens;
            after_decorator = c == '@';
        }
        else if (significant) {
            after_decorator = false;
        }
        if (nl == NULL)
            break;
        p = nl + 1;
    }
    return n;
}

/* ---- compiling ---- */

/* Returns a new reference to the code of source[start..end) compiled as lines
 * `line`.. of filename (padded with newlines), or NULL with the error set. */
HZ_NO_COVERAGE static PyObject *compile_piece(const char *source, size_t start, size_t end, int line,
                               const char *filename)
{
    size_t pad = (size_t)(line - 1), n = end - start;
    char *buf = malloc(pad + n + 1);
    if (buf == NULL)
        return PyErr_NoMemory();
    memset(buf, '\n', pad);
    memcpy(buf + pad, source + start, n);
    buf[pad + n] = '\0';
    PyObject *code = Py_CompileStringExFlags(buf, filename, Py_file_input, NULL, 0);
    free(buf);
    return code;
}

/* A piece that is a top-level def (after its decorators): one for the assembler. */
HZ_NO_COVERAGE static bool is_def_piece(const char *s, const char *end)
{
    while (s < end && *s == '@') {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        if (nl == NULL)
            return false;
        s = nl + 1;
    }
    return end - s > 4 && memcmp(s, "def ", 4) == 0;
}

/* Returns a new reference to the 1-tuple of the whole source's code, or NULL. */
HZ_NO_COVERAGE static PyObject *compile_whole(const char *source, const char *filename)
{
    PyObject *code = Py_CompileStringExFlags(source, filename, Py_file_input, NULL, 0);
    if (code == NULL)
        return NULL;
    PyObject *t = PyTuple_Pack(1, code);
    Py_DECREF(code);
    return t;
}

/* Returns a new reference to the tuple of piece codes, or NULL with an exception
 * set (the whole source's compile error when a piece does not compile). */
HZ_NO_COVERAGE static PyObject *compile_pieces(HzCodeCache *c, const char *source, const char *filename,
                                bool exact)
{
    size_t starts[HZ_MAX_PIECES];
    int n = hz_codecache_cut(source, starts, HZ_MAX_PIECES);
    if (n > HZ_MAX_PIECES)
        n = HZ_MAX_PIECES;
    size_t len = strlen(source);
    if (n == 1)
        return compile_whole(source, filename);
    PyObject *tuple = PyTuple_New(n);
    if (tuple == NULL)
        return NULL;
    int line = 1;
    size_t counted = 0;   /* newlines counted up to here */
    for (int i = 0; i < n; i++) {
        size_t start = starts[i], end = i + 1 < n ? starts[i + 1] : len;
        for (; counted < start; counted++)
            line += source[counted] == '\n';
        const char *text = source + start;
        uint64_t h = key(text, end - start, filename, exact);
        Entry *e = &c->pieces[h % HZ_PIECE_SLOTS];
        c->stats.pieces++;
        PyObject *code = entry_find(e, h, exact ? line : 0, text, end - start, filename);
        if (code != NULL) {
            c->stats.piece_hits++;
            Py_INCREF(code);
        }
        else {
            code = NULL;
            bool def = is_def_piece(text, source + end);
            if (c->tassembler != NULL && def && !exact) {
                /* before the whole-piece template, never after it: the route is the text's */
                code = hz_assemble_piece_templated(c->tassembler, text, end - start, filename);
                if (code == NULL)
                    PyErr_Clear();   /* out of memory there: the compile may still do */
            }
            if (c->templates != NULL && !exact && code == NULL) {
                code = hz_templates_code(c->templates, text, end - start, filename);
                if (code == NULL)
                    PyErr_Clear();   /* out of memory there: the compile may still do */
            }
            if (c->assembler != NULL && def && code == NULL) {
                code = hz_assemble_piece(c->assembler, text, end - start, line, filename);
                if (code == NULL)
                    PyErr_Clear();   /* out of memory there: the compile may still do */
            }
            if (code == NULL) {
                double t0 = hz_asm_cpu_now();
                code = compile_piece(source, start, end, line, filename);
                if (def)
                    c->stats.cpu_def_compile += hz_asm_cpu_now() - t0;
            }
            if (code == NULL) {   /* not cuttable here, or not Python at all */
                Py_DECREF(tuple);
                PyErr_Clear();
                return compile_whole(source, filename);
            }
            entry_store(e, h, exact ? line : 0, text, end - start, filename, code);
            /* Its functions raise through tracebacks in this input already (the
             * mutated program() is new in most inputs), and in the next ones. */
            tr_lines_fill(code);
        }
        PyTuple_SET_ITEM(tuple, i, code);
    }
    return tuple;
}

HZ_NO_COVERAGE PyObject *hz_codecache_get(HzCodeCache *c, const char *source, const char *filename,
                           bool exact_lines)
{
    size_t len = strlen(source);
    uint64_t h = key(source, len, filename, exact_lines);
    Entry *e = &c->sources[h % HZ_SOURCE_SLOTS];
    c->stats.sources++;
    /* line 2 marks a source whose pieces are all at their own lines, 1 one that may
     * have pieces from templates or compiled at other lines */
    PyObject *found = entry_find(e, h, exact_lines ? 2 : 1, source, len, filename);
    if (found != NULL) {
        c->stats.source_hits++;
        return Py_NewRef(found);
    }
    PyObject *codes = compile_pieces(c, source, filename, exact_lines);
    if (codes != NULL)
        entry_store(e, h, exact_lines ? 2 : 1, source, len, filename, codes);
    return codes;
}
