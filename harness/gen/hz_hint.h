/* hz_hint.h: what in a generated program a divergence comes from, for the verdict's
 * signature (oracles/or_verdict.h, OrHintFunc).
 *
 * A generated program carries a legend in `# tf:` comments (harness/hz_emit.c):
 * every statement of program() is one `try:  # tf: access=A desc=D` block that
 * appends one item to the result (a loop appends up to its count, an exception
 * ends it with a ("raised", NAME) item), every class member says `# tf: desc=D`,
 * every mutation of between() `# tf: between=B`, and LOG events name attributes.
 * The hint maps a result item to its statement's kind and access family
 * ("prop_fresh/reread"; the report's detail keeps the exact access pattern), a LOG
 * event to the kind of the attribute it names and the event's tag
 * ("cached_prop/compute"), a state entry to its attribute's kind, a crash message
 * naming an attribute to that attribute's kind, and adds the between() mutation of
 * that attribute when the divergence is in step 2 ("+rebind_class_attr"). For the
 * signature, which leads with the divergence's shape, it answers a group: the
 * family (with the between() suffix) of a result item, the kind of a state entry,
 * only the between() mutation of a LOG event (its tag is in the shape); and says
 * whether the item is an identity test. A source
 * without a legend (hand-written) gets the hint it had before: the one descriptor
 * kind the program tags, if only one.
 *
 * The legend is parsed lazily, on the first question: the fuzz loop never pays
 * for it on inputs whose verdict is OK. */
#ifndef HZ_HINT_H
#define HZ_HINT_H

#include <stddef.h>

#include "or_verdict.h"

#define HZ_HINT_NAME 48

/* A class member: `Base.fresh_prop` is a prop_fresh. */
typedef struct {
    char cls[HZ_HINT_NAME];
    char name[HZ_HINT_NAME];
    char desc[24];
    const char *src;           /* its tagged line in the source (and the def under a
                                  tagged decorator), borrowed; src_len bytes */
    size_t src_len;
} HzHintMember;

/* A statement of program(). */
typedef struct {
    char access[24];
    char desc[24];
    char attr[HZ_HINT_NAME];   /* the attribute it reads ("" when not found) */
    char arg[16];              /* the argument it reads it on ("a", "Base") */
    int loop;                  /* items a loop appends at most; 0: exactly one */
    const char *src;           /* its `try:  # tf:` line and body up to its `except`,
                                  borrowed from the source; src_len bytes */
    size_t src_len;
} HzHintStmt;

/* A mutation of between(). */
typedef struct {
    char kind[24];
    char attr[HZ_HINT_NAME];   /* the attribute it changes; "" for class_swap, add_getattr */
    char obj[HZ_HINT_NAME];    /* what it changes it on ("a", "Base") */
} HzHintMutation;

typedef struct {
    int has_legend;            /* any `# tf:` statement or member tag */
    HzHintMember *members;
    size_t nmembers;
    HzHintStmt *stmts;
    size_t nstmts;
    HzHintMutation *muts;
    size_t nmuts;
    const char *single_kind;   /* the one descriptor kind used, or NULL (static) */
} HzLegend;

/* Parses the legend of a source (any source: no legend is not an error).
 * 0, or -1 on out-of-memory (nothing to free then). */
int hz_legend_parse(const char *source, HzLegend *out);
void hz_legend_clear(HzLegend *lg);

/* The statement that made item `index` of a result section's text ("r1 = tuple[3]"
 * ...), or -1 when the result is not a tuple of the program's items. */
int hz_legend_stmt_of(const HzLegend *lg, const char *r_text, size_t index);

/* The member an attribute-naming string denotes ("Base.fresh_prop", "fresh_prop",
 * "_named_attr", "counter_prop_hits"), or NULL. */
const HzHintMember *hz_legend_member(const HzLegend *lg, const char *text, size_t len);

/* The hook's context: one program's source, its legend once asked, the answer. */
typedef struct {
    const char *source;        /* borrowed */
    int parsed;
    HzLegend legend;
    char answer[128];
    char group[128];           /* OrHintAnswer.group */
    char detail[256];
    char statement[2048];      /* OrHintAnswer.statement */
} HzHint;

void hz_hint_init(HzHint *h, const char *source);
void hz_hint_clear(HzHint *h);
/* The OrHintFunc: ctx is an HzHint. */
void hz_hint_answer(void *ctx, const OrHintQuery *q, OrHintAnswer *ans);

/* Points in->hint at hz_hint_answer over `source` (borrowed: it must outlive the
 * verdict), with a context owned by this thread and reused by the next call, which
 * releases the previous program's legend: nothing to free per input. */
void hz_hint_bind(OrVerdictInput *in, const char *source);

#endif
