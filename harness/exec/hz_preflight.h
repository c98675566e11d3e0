/* hz_preflight.h: the target's set-up checked once before any input (a target
 * problem is reported once, with the usage exit status, never as N findings).
 *
 * The check runs one trivial program (a call and arithmetic; no class, no
 * attribute) through the worker under the normal protocol and limits: jit(fn)
 * raising, returning a non-callable, crashing, hanging or answering wrongly there
 * is a broken target, not a finding. */
#ifndef HZ_PREFLIGHT_H
#define HZ_PREFLIGHT_H

#include "hz_worker.h"

#include <stdbool.h>
#include <stddef.h>

#define HZ_PREFLIGHT_FILENAME "<tracefuzz-preflight>"

/* Runs the trivial program through w. Returns 0 when the target passes it, or -1
 * with a message in err (what failed, the verdict, the target's own message). */
int hz_preflight(HzWorker *w, char *err, size_t errlen);

/* The trivial program (static text). */
const char *hz_preflight_source(void);


/* The second half of the check, over a run's first inputs: when every one of the
 * first HZ_SAMEFAIL_WINDOW inputs (or every input of a shorter run of at least
 * HZ_SAMEFAIL_MIN) fails with one and the same crash or timeout signature, the
 * target is broken for this corpus (an import it lacks, a limit too short for it),
 * and the run reports that once instead of N findings. The caller holds back the
 * findings of inputs while hz_samefail_add says "held". */
#define HZ_SAMEFAIL_WINDOW 10
#define HZ_SAMEFAIL_MIN 3

typedef struct {
    unsigned long held;      /* failing inputs held back so far */
    bool broken;             /* the streak ended: nothing is held any more */
    OrVerdictKind kind;
    char *signature;         /* malloc'd: the shared signature */
} HzSameFail;

typedef enum {
    HZ_SAMEFAIL_PASS,        /* not part of a streak: handle the outcome as usual */
    HZ_SAMEFAIL_HOLD,        /* part of the streak: hold its finding back */
    HZ_SAMEFAIL_FLUSH,       /* ended the streak: release the held findings, then
                                handle this outcome as usual */
} HzSameFailStep;

/* Feeds one input's outcome (failed: it counts as a failure of the run). */
HzSameFailStep hz_samefail_add(HzSameFail *s, bool failed, OrVerdictKind kind,
                               const char *signature);

/* After inputs_done inputs: whether the streak proves a target problem (all of the
 * window, or all of a run of at least HZ_SAMEFAIL_MIN inputs that ended). */
bool hz_samefail_decided(const HzSameFail *s, unsigned long inputs_done, bool run_ended);

void hz_samefail_clear(HzSameFail *s);

#endif
