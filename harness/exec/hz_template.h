/* hz_template.h: a piece's code instantiated from a template shared by every piece
 * that differs from it only in identifiers and literals.
 *
 * Most of what the fuzz loop compiles is new text made of old shapes: a mutated
 * class differs from classes compiled before in its names, its docstring and its
 * numbers (in a 6,000-exec loop, 59% of the class pieces compiled and 77% of the
 * make/between pieces had the shape of an earlier one). So a piece is abstracted --
 * each identifier replaced by `_tfN<k>_`, each plain string literal by `_tfS<k>_`
 * and each plain decimal integer by 7e17 + k (numbered by first occurrence of a
 * distinct spelling or value), comments, blank lines and the spacing inside a line
 * normalised -- and the abstract text, compiled once, is the template of every
 * piece with that shape. A piece's code is the template's with its constants, names,
 * locals, cells, function names and qualified names mapped back to the piece's own
 * (code.replace, recursively over nested code).
 *
 * What the compiler decides from the values themselves is kept out of the abstraction
 * (the literal stays in the key): constant folding (a literal next to an arithmetic
 * operator, a unary sign, another literal, or a constant subscript), truthiness (0 and
 * "" stay), private-name mangling (a piece with `__name` is refused), the names the
 * compiler treats specially (keywords, soft keywords, `super`, dunder names), string
 * prefixes (r, b, f: kept as written; the names an f-string spells are kept as
 * written throughout the piece, its expressions use them), escapes, and identifiers outside ASCII (refused: their
 * spelling is normalised). The code is the piece's up to layout: its line numbers
 * and columns are the template's, and a NOP kept for a line may differ. So templates
 * serve only lookups that do not ask for exact lines (hz_codecache.h): the fuzz
 * loop's fast protocol, whose every disagreement is run again with each piece
 * compiled as written; a template that ran different code could only hide a
 * disagreement, never report one. tests/cli/hz_template_test.c checks the code
 * instruction by instruction against the piece's own compile. */
#ifndef HZ_TEMPLATE_H
#define HZ_TEMPLATE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdbool.h>
#include <stddef.h>

/* ---- the abstraction (hz_template_abstract.c; no Python) ---- */

typedef enum { HZ_PH_NAME, HZ_PH_STR, HZ_PH_INT } HzPlaceholderKind;

typedef struct {
    HzPlaceholderKind kind;
    const char *text;   /* into the piece: the identifier, the string's content, the digits */
    size_t len;
    int num;            /* its number within its kind */
} HzPlaceholder;

typedef struct {
    char *text;             /* malloc'd, NUL-terminated: the abstract piece */
    size_t len;
    HzPlaceholder *ph;      /* malloc'd, in order of first occurrence */
    int nph;
    int nnames, nstrs, nints;
} HzAbstract;

/* Abstracts the piece text[0..n). Returns 0, or -1 with *refusal set to why the
 * piece has no template (out-of-memory included); a is filled on success only and
 * freed by hz_abstract_clear either way. */
int hz_abstract(const char *text, size_t n, HzAbstract *a, const char **refusal);
void hz_abstract_clear(HzAbstract *a);

/* Whether s[0..n) spells the start of a placeholder (`_tfN` or `_tfS` and a digit):
 * such a piece is refused, and a string holding one after mapping means the
 * compiler cut or joined a placeholder. The assembler's own `__tf_stmt__` names do
 * not: its statement wrappers are abstracted too (hz_assemble_template.c). */
bool hz_spells_placeholder(const char *s, size_t n);

/* A def member of a class piece: what the skeleton route (hz_template.c) cuts. */
typedef struct {
    size_t line;   /* offset of its def line (from the line's start, indentation included) */
    size_t body;   /* offset just after the colon ending its header */
    size_t end;    /* offset of the next line at the class body's indentation or less, or the piece's end */
    bool cell;     /* it spells `super` or `__class__`: it closes over the class's cell */
} HzClassMember;

/* The def members of a class piece text[0..n) (a top-level class, decorated or not,
 * whose body is indented with spaces on its own lines) in order, at most cap; 0 when
 * the piece is not such a class, has no def member, or spells `super` or `__class__`
 * outside its def members (members that do close over the class's cell: `cell`). */
int hz_class_members(const char *text, size_t n, HzClassMember *m, int cap);

/* ---- the templates (hz_template.c) ---- */

/* The values of a piece's placeholders, to map a template's objects back to them. */
typedef struct {
    PyObject **obj[3];   /* per HzPlaceholderKind, by number: owned */
    int n[3];
    bool failed;         /* a string held a placeholder that does not map */
} HzPlaceholderMap;

/* Fills m with a's values; 0, or -1 (an exception set, or none when a string is not
 * UTF-8: no template then). m is to be cleared either way. */
int hz_placeholders_init(HzPlaceholderMap *m, const HzAbstract *a);
void hz_placeholders_clear(HzPlaceholderMap *m);
/* A new reference to v mapped: a placeholder string or integer to its value, the
 * negation of an integer placeholder to the negated value, tuples, frozensets and
 * code objects recursively (names, qualified names), anything else as it is (see
 * hz_template.c); m->failed when a string still spells a placeholder. NULL with an
 * exception on error. */
PyObject *hz_placeholders_map(HzPlaceholderMap *m, PyObject *v);

typedef struct HzTemplates HzTemplates;

/* Class skeletons' bodies linked from their statements (hz_template_class.c). */
typedef struct {
    unsigned long linked;    /* skeletons whose body was linked from statements */
    unsigned long refused;   /* skeletons with a statement or header that cannot be */
    unsigned long made;      /* statements made (through the templates) */
    unsigned long found;     /* statements found made */
} HzClassStats;

typedef struct {
    unsigned long lookups;     /* pieces asked for */
    unsigned long refused;     /* of those, not abstracted (or their template does not compile) */
    unsigned long classes;     /* of those, classes taken by the skeleton route (their
                                * skeleton and members count as more lookups below) */
    unsigned long skeletons;   /* of those, served by it (the others: the whole piece's) */
    unsigned long member_hits; /* their members found by their text, made before */
    unsigned long hits;        /* templates found compiled (whole pieces, skeletons, members) */
    unsigned long compiles;    /* templates compiled */
    double cpu_compile;        /* CPU seconds compiling templates */
    double cpu_instantiate;    /* CPU seconds abstracting and instantiating */
    HzClassStats link;
} HzTemplateStats;

/* Never returns NULL (aborts on out-of-memory). Class skeletons' bodies are linked
 * from their statements unless turned off (TRACEFUZZ_TEMPLATES=2 does, to compare). */
HzTemplates *hz_templates_new(void);
void hz_templates_free(HzTemplates *t);
void hz_templates_link_classes(HzTemplates *t, bool on);

/* Returns a new reference to the module code of the piece text[0..n) (a top-level
 * statement or a run of them) as filename, instantiated from its template; or NULL
 * without an exception when the piece has no template (the caller compiles it);
 * or NULL with an exception on out-of-memory. */
PyObject *hz_templates_code(HzTemplates *t, const char *text, size_t n, const char *filename);

HzTemplateStats hz_templates_stats(const HzTemplates *t);

/* The whole-piece route alone (no skeleton): what hz_templates_code does for a piece
 * that is not a class. For hz_template_class.c. */
PyObject *hz_templates_piece(HzTemplates *t, const char *text, size_t n, const char *filename);

/* The one code object among code co's constants (borrowed) and its index in *at, or
 * NULL when there are none or several. */
PyCodeObject *hz_only_code(PyObject *co, Py_ssize_t *at);

/* ---- class bodies linked from their statements (hz_template_class.c) ---- */

typedef struct HzClassBlocks HzClassBlocks;

HzClassBlocks *hz_class_blocks_new(void);   /* aborts on out-of-memory */
void hz_class_blocks_free(HzClassBlocks *cb);
HzClassStats hz_class_blocks_stats(const HzClassBlocks *cb);

/* The skeleton text[0..n) (a class piece, its methods' bodies cut out) with its body
 * linked from its statements' blocks: returns a new reference to the module code of
 * its header (the class over `pass`) and sets *body to a new reference to the linked
 * class body, which replaces the header's at constant *body_at; or returns NULL
 * without an exception when the skeleton is refused, or with one on out-of-memory. */
PyObject *hz_class_linked(HzClassBlocks *cb, HzTemplates *t, const char *text, size_t n,
                          const char *filename, PyObject **body, Py_ssize_t *body_at);

/* Why the last piece had no template ("" when it had one); a static string. */
const char *hz_templates_last_refusal(const HzTemplates *t);

#endif
