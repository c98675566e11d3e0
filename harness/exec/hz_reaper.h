/* hz_reaper.h: no process of an input outlives it (the worker's side, hz_zygote.c).
 *
 * An input's child leads its own process group, and killing the group ends what it
 * forked. A process that called setsid() (or setpgid) has left the group: the worker
 * is a child subreaper (PR_SET_CHILD_SUBREAPER), so such orphans become its own
 * children when their parent dies, and hz_reap_orphans kills every child of the
 * worker that it did not have before the first input (a target's own helpers, started
 * when it was loaded, are left alone). Processes are counted from /proc, so a fork
 * bomb is bounded without cgroups and also for root (RLIMIT_NPROC does not apply to
 * uid 0). Linux only; elsewhere the group kill is all there is. */
#ifndef HZ_REAPER_H
#define HZ_REAPER_H

#include <stdbool.h>
#include <sys/types.h>

/* Most processes an input may have alive at once (its own included). */
#define HZ_PROCS_LIMIT 256

/* Makes this process a child subreaper and remembers its current children as its
 * own. Returns 0, or -1 when the kernel has no subreapers. */
int hz_reaper_init(void);

/* Kills and reaps every child of this process that hz_reaper_init did not see and
 * that is not keep (> 0: a child still wanted), until none is left (a bounded number
 * of rounds). Returns how many it killed. */
int hz_reap_orphans(pid_t keep);

/* Waits for child pid to end, every slice_ms counting the processes of its process
 * group and this process's foreign children; over limit, kills the group and the
 * orphans and sets *over. Returns pid's wait status. */
int hz_wait_limited(pid_t pid, int limit, int slice_ms, bool *over);

#endif
