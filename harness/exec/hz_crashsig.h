/* hz_crashsig.h: the crash state of a target's exception, computed from the
 * exception OBJECT (not from its text), for the verdict's signature
 * (docs/OBSERVATION.md, "Signatures").
 *
 * In the style of ClusterFuzz's crash state: a JIT that wraps its internal errors
 * (`raise InterpreterError(...) from e`) shows one type for many causes, so the
 * state names the innermost exception of the chain, where in the target's own code
 * it was raised, and its message with everything program-specific masked:
 *
 *   state   "InterpreterError<-KeyError@interp.py:Interp._call_native"
 *   message "'*'"   (spaces become '_'; "-" when empty)
 *
 * Stable across runs and machines: no paths (file basenames only), no line numbers,
 * no addresses, numbers or generated names. */
#ifndef HZ_CRASHSIG_H
#define HZ_CRASHSIG_H

#include <Python.h>
#include <stddef.h>

#define HZ_CRASH_STATE_MAX 160
#define HZ_CRASH_MSG_MAX 56

/* The innermost exception of exc's chain: __cause__, else __context__ unless
 * __suppress_context__, followed to the end (cycles guarded). Borrowed reference
 * (exc itself when it has no chain). Runs no Python code. */
PyObject *hz_crash_innermost(PyObject *exc);

/* Writes exc's crash state into state (HZ_CRASH_STATE_MAX) and the innermost
 * exception's message, normalised by or_message_norm (oracles/or_shape.h), into
 * msg (HZ_CRASH_MSG_MAX); both space-free.
 * State: "Outer<-Inner" (only "Inner" when exc has no chain or both have one type
 * name), then "@FRAME[,FRAME]" for the innermost one or two traceback frames of
 * the target's own code, innermost first, FRAME "file.py:qualname" (the second
 * frame's file left out when it is the first's: "f.py:inner,outer"); a frame is the
 * target's when its file is not program_file, not in the Python standard library
 * and not a frozen module. The innermost exception's traceback is searched first,
 * then the outer's. ns, the program's namespace (or NULL), adds the names the
 * program defines (its globals, its classes' own attributes) to the masked ones.
 * str() of the exception runs Python only when a built-in type's __str__ is its
 * own (else its first str argument is read); leaves no exception set. */
void hz_crash_state(PyObject *exc, const char *program_file, PyObject *ns, char *state,
                    char *msg);

#endif
