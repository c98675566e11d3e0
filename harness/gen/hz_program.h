/* hz_program.h: the program model (IR) and its three faces.
 *
 *   bytes --hz_decode--> HzProgram --hz_emit--> Python source (the program contract)
 *   HzProgram --hz_encode--> bytes, with hz_decode(hz_encode(p)) equal to p
 *
 * The IR itself (classes, members of each descriptor kind, between(), make_other(),
 * program() statements) is declared in hz_ir.h; this header is what the rest of
 * tracefuzz uses. Owner: the program-model part (hz_program.c, hz_decode.c,
 * hz_encode.c, hz_emit.c, hz_stats.c). */
#ifndef HZ_PROGRAM_H
#define HZ_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct HzProgram HzProgram;

/* The decoder's format version; written to corpus/VERSION, bumped whenever a change
 * alters what existing byte inputs decode to. */
#define HZ_DECODER_VERSION 2

/* The first line that makes a file Python source whatever its name (hz_input.h). */
#define HZ_PY_MARKER "#tracefuzz-py"

/* Total and deterministic: every byte string (empty, 1 MiB, anything) yields a valid
 * program. Choices come from the end of the buffer, payload from the front; running
 * out yields defaults (FuzzedDataProvider's discipline). Never returns NULL (aborts
 * on out-of-memory). The caller owns the result: hz_program_free. */
HzProgram *hz_decode(const uint8_t *data, size_t size);

/* Bytes that decode to a program equal to p. *out is malloc'd (caller frees).
 * Returns 0, or -1 on out-of-memory. */
int hz_encode(const HzProgram *p, uint8_t **out, size_t *out_size);

bool hz_program_equal(const HzProgram *a, const HzProgram *b);
HzProgram *hz_program_clone(const HzProgram *p);
void hz_program_free(HzProgram *p);

/* A random program from a seed (deterministic per seed). */
HzProgram *hz_generate(uint64_t seed);

typedef struct {
    /* --base module:Class: generated classes derive from this user class
     * (e.g. torch.nn:Module); NULL for plain classes. */
    const char *base_module;
    const char *base_class;
    /* Added by the speed part (backward compatible: false by default): leave out the
     * __main__ block that runs the protocol standalone and the module docstring that
     * describes the program to a reader. The fuzz target never runs the one nor shows
     * the other; compiling the block was ~15% of an input's compile time, and the
     * docstring (counts, kinds) made the first top-level piece differ between
     * inputs that share it otherwise (hz_codecache.h). */
    bool no_main;
} HzEmitOptions;

/* Python source following the program contract (DESIGN.md), readable as a bug
 * report. malloc'd NUL-terminated string; caller frees. opts may be NULL. */
char *hz_emit(const HzProgram *p, const HzEmitOptions *opts);

/* Statistics by the IDs of DESIGN.md (descriptor kinds, access patterns, between
 * kinds). Tables of names are static. */
typedef enum {
#define HZ_DESC_KINDS(X) \
    X(inst_attr) X(class_attr) X(class_attr_mut) X(prop_fresh) X(prop_stable) \
    X(prop_counter) X(prop_attrerror) X(prop_raises) X(prop_setdel) X(cached_prop) \
    X(method) X(classmethod) X(staticmethod) X(data_desc) X(nondata_desc) X(set_name) \
    X(slot) X(getattr_hook) X(getattribute_hook) X(mro_override) X(meta_prop) \
    X(meta_data_desc) X(callable_attr) X(partialmethod) X(module_like)
#define HZ_ENUM_DESC(n) HZ_DESC_##n,
    HZ_DESC_KINDS(HZ_ENUM_DESC)
#undef HZ_ENUM_DESC
    HZ_DESC__COUNT
} HzDescKind;

typedef enum {
#define HZ_ACCESS_PATTERNS(X) \
    X(repeat_read) X(read_in_container) X(identity) X(write_read) X(delete_read) \
    X(getattr_default) X(hasattr) X(super_read) X(class_read) X(method_call) \
    X(try_attrerror) X(loop) X(branch) X(alias) X(dict_write_read) X(shadow_read) \
    X(class_write_read) X(class_del_read) X(class_swap_read) X(side_effect_read)
#define HZ_ENUM_ACCESS(n) HZ_ACCESS_##n,
    HZ_ACCESS_PATTERNS(HZ_ENUM_ACCESS)
#undef HZ_ENUM_ACCESS
    HZ_ACCESS__COUNT
} HzAccessPattern;

typedef enum {
#define HZ_BETWEEN_KINDS(X) \
    X(rebind_class_attr) X(delete_class_attr) X(shadow_in_dict) X(slot_toggle) \
    X(class_swap) X(add_getattr) X(prop_to_value) X(mro_middle_change)
#define HZ_ENUM_BETWEEN(n) HZ_BETWEEN_##n,
    HZ_BETWEEN_KINDS(HZ_ENUM_BETWEEN)
#undef HZ_ENUM_BETWEEN
    HZ_BETWEEN__COUNT
} HzBetweenKind;

const char *hz_desc_kind_name(HzDescKind k);
const char *hz_access_name(HzAccessPattern a);
const char *hz_between_name(HzBetweenKind b);

/* How program() keeps what its statements read (added for issue 10):
 *   appended: `out.append(...)` ends every statement, a call a tracer treats as an
 *             escape (it resets a per-call attribute cache);
 *   stored:   `out = [None] * N` and `out[i] = ...` (a subscript store, no call), with
 *             loops accumulating into a tuple, so a value a tracer cached in statement
 *             i is still cached when statement j re-reads it. Item i is statement i. */
typedef enum {
#define HZ_COLLECT_MODES(X) X(appended) X(stored)
#define HZ_ENUM_COLLECT(n) HZ_COLLECT_##n,
    HZ_COLLECT_MODES(HZ_ENUM_COLLECT)
#undef HZ_ENUM_COLLECT
    HZ_COLLECT__COUNT
} HzCollectMode;
const char *hz_collect_name(HzCollectMode c);

/* Which IDs a program uses (presence flags, one program). */
typedef struct {
    bool desc[HZ_DESC__COUNT];
    bool access[HZ_ACCESS__COUNT];
    bool between[HZ_BETWEEN__COUNT];
    bool collect[HZ_COLLECT__COUNT];   /* exactly one is set for a program */
} HzFeatures;
void hz_program_features(const HzProgram *p, HzFeatures *out);

/* The emitter tags what it generates with comments ("# tf: desc=prop_fresh",
 * "# tf: access=identity", "# tf: between=slot_toggle", "# tf: collect=stored"), so features can be read back
 * from a .py input too. Unknown or missing tags are ignored. */
void hz_source_features(const char *source, HzFeatures *out);

/* The value of `key` ("desc", "access", "between") among the key=value words of a
 * `# tf:` tag on [s, end) (s just after "# tf:"; words of identifier characters,
 * separated by blanks): its length, *val pointing at it; 0 when absent. The one
 * reader of tags: hz_source_features, hz_source_pairs and the signature legend. */
size_t hz_tf_tag_value(const char *s, const char *end, const char *key, const char **val);

/* Added by the program-model part: which (descriptor kind, access pattern) pairs
 * the statements exercise, the kind being that of the member a statement reads
 * (semantic feedback counters, stats). The emitter's statement tags carry both
 * ("# tf: access=identity desc=prop_fresh"), so a source gives the same pairs. */
typedef struct {
    bool pair[HZ_DESC__COUNT][HZ_ACCESS__COUNT];
} HzPairs;
void hz_program_pairs(const HzProgram *p, HzPairs *out);
void hz_source_pairs(const char *source, HzPairs *out);

/* A program's size (issue 11): its lines that are not blank and do not start,
 * after indentation, with `#` (hz_stats.c). src may be NULL (0). */
size_t hz_program_text_size(const char *src);

#endif
