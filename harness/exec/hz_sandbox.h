/* hz_sandbox.h: --sandbox, a worker with no network and a read-only file system but
 * for its own directory (hz_sandbox.c says how, docs/SECURITY.md what it is for). */
#ifndef HZ_SANDBOX_H
#define HZ_SANDBOX_H

#include <stddef.h>

/* Enters the namespaces; call single-threaded, before CPython starts. Returns 0, or
 * -1 with in err what could not be had (the rest is kept: the caller warns and
 * goes on). workdir stays writable. */
int hz_sandbox_enter(const char *workdir, char *err, size_t errlen);

#endif
