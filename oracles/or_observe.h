/* or_observe.h: the canonical observation of one run (DESIGN.md, "The observation").
 *
 * The harness runs the protocol (make, r1, between, r2, make_other, r3) and hands
 * the raw material here; this part turns it into a canonical, versioned text that
 * is equal across two runs exactly when the runs are observably the same: objects
 * numbered by first appearance (aliasing survives, addresses do not), instance
 * state read without running user code, sets canonicalised, exceptions as
 * (type name, args), depth and size capped; the program's module globals and the
 * data in its classes' dicts too. Owner: the oracles part. */
#ifndef OR_OBSERVE_H
#define OR_OBSERVE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define OR_OBS_VERSION 2
#define OR_STEPS 3

/* Raw material of one run. All references borrowed; NULL where absent. */
typedef struct {
    int steps_done;                 /* how many of r1..r3 ran (0..3) */
    PyObject *result[OR_STEPS];     /* step i returned this (NULL if it raised) */
    PyObject *exc[OR_STEPS];        /* step i raised this exception instance */
    PyObject *log_after[OR_STEPS];  /* shallow copy of LOG taken right after step i */
    PyObject *args;                 /* tuple from make() */
    PyObject *args2;                /* tuple from make_other() or the second make() */
    PyObject *log;                  /* the LOG list at the end of the run */
    PyObject *ns;                   /* the run's module namespace (the program's globals):
                                       its data globals and the class-level state of the
                                       program's classes are observed; NULL: neither */
} OrRunRaw;

/* One observation: sections in protocol order, each a canonical text. Equality of
 * two observations is equality of their sections. */
typedef enum {
    OR_SEC_R1, OR_SEC_LOG1, OR_SEC_R2, OR_SEC_LOG2, OR_SEC_R3, OR_SEC_LOG3,
    OR_SEC_STATE, OR_SEC__COUNT
} OrSection;

typedef struct {
    char *section[OR_SEC__COUNT];   /* malloc'd, NUL-terminated */
} OrObservation;

/* Builds the observation. Runs no user code. Returns 0, or -1 with a Python
 * exception set (MemoryError only). The caller frees with or_observation_clear. */
int or_observe(const OrRunRaw *raw, OrObservation *out);
void or_observation_clear(OrObservation *obs);

/* The versioned text form: "tfobs 2" then one "[section]" block per section.
 * malloc'd; caller frees. */
char *or_observation_text(const OrObservation *obs);
const char *or_section_name(OrSection s);    /* "r1", "log1", ..., "state" */

/* Added by the oracles part (backward compatible): the first section, in protocol
 * order, where a and b differ; OR_SEC__COUNT when they are equal. A NULL section
 * equals only a NULL section. */
OrSection or_observation_diff(const OrObservation *a, const OrObservation *b);

#endif
