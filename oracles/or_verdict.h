/* or_verdict.h: differential verdicts with DESIGN.md's precedence, the human report
 * and the grouping signature. Owner: the oracles part. */
#ifndef OR_VERDICT_H
#define OR_VERDICT_H

#include "or_observe.h"
#include <stdbool.h>

#define OR_VERDICTS(X) \
    X(OK) X(INVALID) X(NONDETERMINISTIC) X(PROVENANCE) X(UNSUPPORTED) X(TIMEOUT) \
    X(OOM) X(TARGET_CRASH) X(MISMATCH_EXCEPTION) X(MISMATCH_RESULT) X(MISMATCH_EVENTS) \
    X(MISMATCH_STATE)

typedef enum {
#define OR_ENUM_VERDICT(n) OR_##n,
    OR_VERDICTS(OR_ENUM_VERDICT)
#undef OR_ENUM_VERDICT
    OR_VERDICT__COUNT
} OrVerdictKind;

const char *or_verdict_name(OrVerdictKind k);              /* "MISMATCH_RESULT" */
int or_verdict_parse(const char *name, OrVerdictKind *out); /* 0 or -1 */

/* How the target run ended, as classified by the harness (which alone sees the
 * process, the exceptions' types and tracebacks). */
typedef enum {
    OR_TARGET_FINISHED,        /* the protocol ran to the end (results may be exceptions) */
    OR_TARGET_PROVENANCE,      /* raised tfjit.ProvenanceError (or a provenance check failed) */
    OR_TARGET_UNSUPPORTED,     /* raised the declared "unsupported" exception */
    OR_TARGET_TIMEOUT,         /* time or instruction limit */
    OR_TARGET_OOM,             /* out of memory (MemoryError, or the harness saw it) */
    OR_TARGET_DIED,            /* the process died: signal in `signal` */
    OR_TARGET_OWN_EXCEPTION,   /* raised from its own frames, not the program's */
    OR_TARGET_SETUP_FAILED,    /* target(program) itself raised */
} OrTargetEnd;

/* A question the verdict asks the harness, which alone knows the program's format:
 * what in the program the first divergence comes from. Asked only for a failing
 * verdict, once, after the observations decided (so an OK input costs nothing). */
typedef struct {
    OrVerdictKind kind;
    OrSection section;         /* the divergent section; OR_SEC__COUNT when no
                                  observation decided (crash, provenance, timeout) */
    const char *path;          /* the first divergent path (a length-only change of a
                                  list or tuple refined to its first differing item),
                                  or NULL */
    const char *eager_text;    /* that section's text on the eager side, or NULL */
    const char *target_text;   /* and on the target side, or NULL */
    const char *target_message;/* the target's exception text, or NULL */
    int step;                  /* 1..3, or 0 when unknown */
} OrHintQuery;

typedef struct {
    const char *hint;          /* borrowed (valid until the next question): a short
                                  space-free name of the bug's place, e.g.
                                  "prop_fresh/reread"; NULL: no idea, then
                                  hint_desc_kind is used as before */
    const char *detail;        /* borrowed, optional: a longer phrase for the report
                                  ("involved: ..."), spaces allowed */
    const char *group;         /* borrowed, optional: the signature's last field for a
                               mismatch (after its shape): the access family of a
                               result's statement ("reread", "write+rebind_class_attr"),
                               the kind of a state entry's attribute; NULL: "-" */
    bool identity;             /* the divergent result item is an identity test
                                  (`a.x is a.x`): or_shape reads True/False so */
    const char *statement;     /* borrowed, optional: the program's lines involved
                                  (the statement of a result item, the member an
                                  event, state entry or crash names), each line
                                  "NUMBER | text", for the report */
} OrHintAnswer;

typedef void (*OrHintFunc)(void *ctx, const OrHintQuery *q, OrHintAnswer *ans);

typedef struct {
    bool invalid;              /* the input is not a program (compile, make, contract) */
    const char *invalid_why;   /* borrowed message for the report */
    const OrObservation *eager1, *eager2, *target;   /* NULL where not available */
    OrTargetEnd target_end;
    int step;                  /* protocol step (1..3) where the target ended early */
    int signal;                /* OR_TARGET_DIED: the signal, or 0 when it exited */
    int exit_status;           /* OR_TARGET_DIED with signal 0: its exit status, or
                                  -1 when its report was corrupted instead */
    const char *target_message;/* borrowed: exception text / traceback of the target */
    const char *program_source;/* borrowed: for the report */
    const char *hint_desc_kind;/* borrowed: descriptor kind involved, for the signature */
    /* Borrowed, optional, from the harness, which alone sees the exception objects
     * (harness/exec/hz_crashsig.h): the crash state ("InterpreterError<-KeyError@
     * interp.py:run") and normalised message ("'*'") of the exception that ended the
     * target run, and of the exception each step of the target run raised as its
     * result. Space-free; NULL when none (then the type is read from the text). */
    const char *crash_state, *crash_message;
    const char *step_exc_state[OR_STEPS], *step_exc_message[OR_STEPS];
    OrHintFunc hint;           /* optional: asked for a failing verdict (above); its
                                  answer, when not NULL, replaces hint_desc_kind */
    void *hint_ctx;
    bool ok_report_empty;      /* an OK verdict's report is "" (callers that read only
                                  failures' reports: the fuzz loop, where building
                                  it was ~3% of an exec) */
} OrVerdictInput;

typedef struct {
    OrVerdictKind kind;
    char *signature;   /* malloc'd: "VERDICT STEP WHAT WHERE", stable across runs and
                          machines (docs/OBSERVATION.md, "Signatures") */
    char *report;      /* malloc'd: human report, first divergence side by side */
} OrVerdict;

/* Decides the verdict by DESIGN.md's precedence. Runs no Python. 0, or -1 on OOM. */
int or_verdict_decide(const OrVerdictInput *in, OrVerdict *out);
void or_verdict_clear(OrVerdict *v);

#endif
