/* or_shape.h: the shape of a divergence, read from the two observation texts of
 * the divergent section (docs/OBSERVATION.md, "Signatures"). The shape says what
 * kind of wrong the target did, whatever the program: one root cause (a tracer
 * memoising every read) makes one shape over all descriptor kinds, where the
 * divergent path or the kind would spread it. Runs no Python. */
#ifndef OR_SHAPE_H
#define OR_SHAPE_H

#include "or_observe.h"
#include <stdbool.h>
#include <stddef.h>

#define OR_SHAPE_MAX 48

/* Writes the shape of the divergence at `path` (the first divergent path, refined
 * to an item) between eager's and the target's text of section sec into out
 * (OR_SHAPE_MAX, space-free):
 *   result items and state entries, compared as a whole item ("r1[3]..."):
 *     reused      the target has an object seen before where eager has a new one,
 *                 or repeats its previous sibling's plain value where eager does not
 *     fresh       the target has a new object where eager has one seen before
 *     stale       OR_SHAPE_WRITE (the statement wrote or deleted the attribute it
 *                 reads) and the target's item is an object seen before or repeats
 *                 an earlier item of the result (the value before the write); or, in
 *                 step 2 (eager_r1, target_r1: the step 1 texts), the target's
 *                 item repeats its step 1 item where eager's changed
 *     exc-type    both raised ("raised", NAME) with another NAME
 *     raises      the target raised where eager did not
 *     no-raise    eager raised where the target did not
 *     missing / extra   the item is on eager's / the target's side only
 *     value       anything else
 *   LOG events (logN, the state's LOG), with TAG the event's first string (a
 *   string event: its first word; an event without a string: its type name, "int"
 *   for a number), "*" when it holds digits (a generated name):
 *     log-missing:TAG   the target's LOG has fewer events: TAG is eager's event
 *     log-extra:TAG     the target's LOG has more: TAG is the target's event
 *     log-diff:TAG      as many events, another one at that place
 * flags, from the hint: OR_SHAPE_WRITE, the item comes from a statement that wrote
 * or deleted the attribute before reading it; OR_SHAPE_IDENTITY, the item is an
 * `a.x is a.x` test (True where eager has False: reused; the reverse: fresh). */
#define OR_SHAPE_WRITE 1u
#define OR_SHAPE_IDENTITY 2u
void or_shape(OrSection sec, const char *eager_text, const char *target_text,
              const char *path, unsigned flags, const char *eager_r1,
              const char *target_r1, char *out, size_t cap);

/* An exception message normalised for a signature, space-free: its first line, up
 * to a "summary: details" colon (the details are values), quoted text -> '*',
 * <reprs> -> <*>, 0x... -> 0x*, numbers -> N, identifiers holding a digit or an
 * inner '_' (generated names: attr_3, Child2, fresh_prop) or that is_name (may be
 * NULL) calls a name of the program -> *, spaces -> _, capped at cap with a final
 * '~'; "-" when empty. */
void or_message_norm(const char *text, int (*is_name)(void *ctx, const char *s, size_t n),
                     void *ctx, char *out, size_t cap);

#endif
