/* hz_ir.h: the program IR behind hz_program.h, and the derived layout.
 *
 * A program is plain data: fixed-size arrays of small integers, no pointers, so
 * cloning is a memcpy and a structure-aware mutator can edit fields in place and
 * hand the result to hz_encode (hz_program_normalize repairs what an edit broke).
 * Every field is a *choice* of the decoder (see
 * hz_decode.c): the decoder and the encoder run the same walk over these fields,
 * one reading choices from bytes, the other writing the choices it finds here.
 *
 * What the IR can express (docs/PROGRAMS.md has the long form):
 *   - up to HZ_MAX_METAS metaclasses in a chain (Meta(type), SubMeta(Meta)), each
 *     holding meta_prop / meta_data_desc members;
 *   - up to HZ_MAX_CLASSES classes; class i derives from `object` (or the --base
 *     class) or from an earlier class, optionally from a second earlier root class
 *     (multiple inheritance), optionally names a metaclass; its members are of the
 *     23 non-meta descriptor kinds, each with a behaviour variant and a payload value;
 *   - make(): 1..HZ_MAX_ARGS instances of chosen classes;
 *   - program(a, b, c): statements of the 20 access patterns on (argument, member),
 *     their results appended to a list or stored into a preallocated one (collect);
 *   - between(a, b, c): 0..HZ_MAX_BETWEEN mutations of the 8 between kinds;
 *   - make_other(): optional, make() with one twist (a dict shadow or a subclass).
 *
 * Member references in statements and mutations are indices into a candidate list
 * computed from the layout (what the argument's class can see), so that every
 * combination of values names something that exists. Owner: the program-model part. */
#ifndef HZ_IR_H
#define HZ_IR_H

#include "hz_program.h"

/* Size caps. Each defeats a fuzzer trick and keeps one execution cheap:
 *   - HZ_MAX_CLASSES: deep or wide hierarchies make MRO lookups and class creation
 *     dominate the run time without new attribute semantics past a few levels;
 *   - HZ_MAX_MEMBERS: a class body that grows with the input would let a fuzzer
 *     "find" coverage by sheer size; 8 leaves room for the interactions that matter
 *     (a property, a __getattr__, a __getattribute__, an override, slots) together;
 *   - HZ_MAX_STMTS: program() length bounds the trace the tracer records (and its
 *     memory); the decoder reads at most this many statements from any input;
 *   - HZ_MAX_BETWEEN: a long between() only piles mutations on the same few names;
 *   - HZ_MAX_ARGS / HZ_MAX_METAS / HZ_MAX_META_MEMBERS: same reasoning, smaller.
 * Together they bound a decode to a few hundred bytes of input, whatever its size,
 * so a 1 MiB input costs what a 1 KiB one does. */
#define HZ_MAX_CLASSES 6
#define HZ_MAX_MEMBERS 8
#define HZ_MAX_METAS 2
#define HZ_MAX_META_MEMBERS 3
#define HZ_MAX_ARGS 3
#define HZ_MAX_STMTS 32
#define HZ_MAX_BETWEEN 5

/* One member of a class (or of a metaclass). */
typedef struct {
    uint8_t kind;     /* HzDescKind */
    uint8_t variant;  /* behaviour variant (< hz_variant_count), or for mro_override
                         the index of the overridden member among the candidates */
    uint8_t value;    /* payload: the small constant this member's code uses */
} HzMember;

typedef struct {
    uint8_t base1;    /* 0: object (or --base), k: classes[k-1] */
    uint8_t base2;    /* 0: none, k: classes[k-1], a root class without slots */
    uint8_t meta;     /* 0: inherited (type), k: metas[k-1] */
    uint8_t nmembers; /* 1..HZ_MAX_MEMBERS */
    HzMember members[HZ_MAX_MEMBERS];
} HzClass;

/* metas[k] derives from metas[k-1] (metas[0] from type), so any two are comparable
 * and no choice of metaclasses can conflict. */
typedef struct {
    uint8_t nmembers; /* 0..HZ_MAX_META_MEMBERS; kinds meta_prop / meta_data_desc */
    HzMember members[HZ_MAX_META_MEMBERS];
} HzMeta;

typedef struct {
    uint8_t pattern;  /* HzAccessPattern */
    uint8_t arg;      /* which argument of program() */
    uint8_t member;   /* index into hz_stmt_candidates() */
    uint8_t param;    /* 0..3: loop count, written value, missing-name switch */
} HzStmt;

typedef struct {
    uint8_t kind;     /* HzBetweenKind */
    uint8_t arg;
    uint8_t target;   /* index into the kind's candidate list */
    uint8_t value;    /* payload constant */
} HzMutation;

/* make_other(): make() with one twist. */
enum { HZ_OTHER_NONE, HZ_OTHER_SHADOW, HZ_OTHER_SUBCLASS, HZ_OTHER__COUNT };

struct HzProgram {
    uint8_t nmetas, nclasses, nargs, nstmts, nbetween;
    HzMeta metas[HZ_MAX_METAS];
    HzClass classes[HZ_MAX_CLASSES];
    uint8_t arg_class[HZ_MAX_ARGS];
    HzStmt stmts[HZ_MAX_STMTS];
    HzMutation between[HZ_MAX_BETWEEN];
    uint8_t other_kind;   /* HZ_OTHER_* */
    uint8_t other_arg;
    uint8_t other_target;
    uint8_t collect;      /* HzCollectMode: the walk's last choice */
};

/* ---- The layout: what follows from the IR (MROs, visibility, names). ---- */

/* A member reference: cls >= 0 is classes[cls].members[idx]; cls < 0 is
 * metas[-1 - cls].members[idx]. */
typedef struct {
    int8_t cls;
    uint8_t idx;
} HzRef;

#define HZ_MAX_VISIBLE (HZ_MAX_CLASSES * HZ_MAX_MEMBERS + HZ_MAX_METAS * HZ_MAX_META_MEMBERS)

typedef struct {
    uint8_t nmro;
    uint8_t mro[HZ_MAX_CLASSES];   /* generated classes in MRO order, self first */
    uint8_t eff_meta;              /* 0: type, k: metas[k-1] */
    bool own_slots;                /* has slot members */
    bool slot_lineage;             /* some class of its MRO has slots */
    uint8_t nvisible;              /* names an instance can reach, MRO order, metas last */
    HzRef visible[HZ_MAX_VISIBLE];
} HzClassInfo;

typedef struct {
    /* key[c][m]: the member whose name classes[c].members[m] carries (itself, or
     * for mro_override the member it overrides, resolved to the original). */
    HzRef key[HZ_MAX_CLASSES][HZ_MAX_MEMBERS];
    uint8_t name_no[HZ_MAX_CLASSES][HZ_MAX_MEMBERS];     /* 1-based occurrence number */
    uint8_t meta_name_no[HZ_MAX_METAS][HZ_MAX_META_MEMBERS];
    uint8_t nclasses;                                    /* classes laid out so far */
    uint8_t counters[HZ_DESC__COUNT + 1];                /* names handed out per base name */
    HzClassInfo cls[HZ_MAX_CLASSES];
} HzLayout;

/* Laying out class i needs classes < i laid out; the walk does it class by class. */
void hz_layout_init(HzLayout *lay);
void hz_layout_metas(const HzProgram *p, HzLayout *lay);
void hz_layout_class(const HzProgram *p, HzLayout *lay, int i);
void hz_layout(const HzProgram *p, HzLayout *lay);

/* Member kinds a class may hold (the meta kinds live on metaclasses). */
extern const uint8_t hz_class_kinds[];
extern const int hz_nclass_kinds;
int hz_variant_count(HzDescKind k);

static inline const HzMember *
hz_ref_member(const HzProgram *p, HzRef r)
{
    return r.cls >= 0 ? &p->classes[r.cls].members[r.idx]
                      : &p->metas[-1 - r.cls].members[r.idx];
}

/* The member whose name r carries (r itself unless it is an mro_override). */
HzRef hz_ref_key(const HzLayout *lay, HzRef r);
/* The Python attribute name of r, e.g. "fresh_prop" or "fresh_prop_2". Writes into
 * buf (>= 32 bytes) and returns it. */
const char *hz_ref_name(const HzProgram *p, const HzLayout *lay, HzRef r, char *buf);

/* Kinds whose name is a class-dict entry a subclass may shadow with a plain value
 * or a property without breaking make() (which writes inst/slot/module names). */
bool hz_kind_overridable(HzDescKind k);
/* Kinds that put their own name into their class's dict. */
bool hz_kind_in_class_dict(HzDescKind k);
bool hz_kind_callable(HzDescKind k);
bool hz_kind_propertyish(HzDescKind k);

/* Candidate lists (out has HZ_MAX_VISIBLE room); each returns the count. */
int hz_override_candidates(const HzProgram *p, const HzLayout *lay, int cls, HzRef *out);
int hz_stmt_candidates(const HzProgram *p, const HzLayout *lay, int cls,
                       HzAccessPattern pat, HzRef *out);

/* between(): which class-dict entries the mutations so far deleted (bit m of
 * deleted[c]: classes[c].members[m]), so a later delete never hits a missing name. */
typedef struct {
    uint16_t deleted[HZ_MAX_CLASSES];
} HzBetweenState;

/* Targets of a mutation of kind k on an instance of class cls; 0 means the kind
 * is impossible there (the walk remaps it, see hz_between_fallback), except for
 * class_swap and add_getattr, which need no target. */
int hz_between_candidates(const HzProgram *p, const HzLayout *lay, const HzBetweenState *st,
                          HzBetweenKind k, int cls, HzRef *out);
bool hz_between_needs_target(HzBetweenKind k);
HzBetweenKind hz_between_fallback(HzBetweenKind k);
void hz_between_apply(HzBetweenState *st, const HzProgram *p, HzBetweenKind k, HzRef target,
                      int cls);
/* Candidates for make_other()'s twist on an instance of class cls. */
int hz_other_candidates(const HzProgram *p, const HzLayout *lay, int kind, int cls, HzRef *out);

/* The walk shared by the decoder and the encoder (hz_decode.c). Each field of the
 * program is one call of choose(n): decoding takes it from the end of the input
 * (one byte, value % n; 0 once the input is used up), encoding records the value
 * the program already holds. Payload constants come from the front. Choices the
 * walk finds impossible in context are remapped to possible ones, and a possible
 * one maps to itself, so hz_decode(hz_encode(p)) == p for every decoded p. */
#define HZ_WALK_MAX 1024
typedef struct {
    bool encoding;
    const uint8_t *data;      /* decoding: the input, remaining [front, back) */
    size_t front, back;
    uint8_t choices[HZ_WALK_MAX];   /* encoding: choices in walk order */
    size_t nchoices;
    uint8_t payload[HZ_WALK_MAX];   /* encoding: payload bytes in walk order */
    size_t npayload;
} HzWalker;
void hz_walk(HzWalker *w, HzProgram *p);

/* Rewrites p in place into the nearest valid program: hz_decode(hz_encode(p)).
 * The identity on valid programs; out-of-range or contradictory fields (a mutator's
 * edits) are clamped and remapped. hz_emit normalises a copy before emitting. */
void hz_program_normalize(HzProgram *p);

/* The class of the middle of cls's MRO that mro_middle_change writes to: its first
 * generated base, or -1 if it has none. */
int hz_middle_class(const HzProgram *p, int cls);

#endif
