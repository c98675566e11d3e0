/* cmd_fuzz.h: what `tracefuzz fuzz` (cmd_fuzz.c) shares with its libFuzzer job
 * supervisor (cmd_fuzz_jobs.c). Private to those two files. */
#ifndef CMD_FUZZ_H
#define CMD_FUZZ_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* --jobs is capped here: the supervisors keep at most this many engine processes. */
#define CMD_FUZZ_JOBS_MAX 64

/* An engine's numbers: one libFuzzer job's over its processes, or a run's (jobs
 * summed: execs, execs/s, crashes, nondet; the highest of cov, ft and corpus, since
 * the jobs share one corpus). */
typedef struct {
    unsigned long long execs;      /* total inputs run */
    unsigned long long base;       /* inputs run by earlier engine processes */
    double execs_per_s;
    long cov, ft, corpus;          /* libFuzzer: edges, features, corpus size */
    double map_pct;                /* AFL++: bitmap coverage */
    unsigned long crashes;         /* crashes the engine reported */
    unsigned long nondet;          /* NONDETERMINISTIC inputs (generator bugs) seen */
} FuzzStats;

/* A progress tick: one stats.csv row and one line on stderr (cmd_fuzz.c). */
void cmd_fuzz_progress(const FuzzStats *st, double elapsed, bool afl);

/* The libFuzzer side of a fuzz run (cmd_fuzz_jobs.c). */
typedef struct {
    const char *fuzzer;            /* tf_fuzz */
    const char *corpus;            /* the shared corpus directory (written, reloaded) */
    const char *seeds;             /* read at each start */
    const char *dict;              /* or NULL */
    const char *artifacts;         /* artifact prefix, ending in '/' */
    const char *out;               /* OUT: per-job logs OUT/fuzz-J.log when jobs > 1 */
    long rss_limit_mb;
    unsigned jobs;
    double time_s;
    bool first;                    /* stop every job at the first finding */
    uint32_t seed;                 /* job J's first process runs -seed=seed+J */
} CmdFuzzJobs;

/* What the jobs did. */
typedef struct {
    FuzzStats total;
    unsigned restarts;             /* processes started after a finding */
    unsigned fork_fallbacks;       /* jobs gone on in fork mode (a corpus input fails) */
    int last_status;               /* the last process's exit status (128+signal) */
    int interrupted;               /* SIGINT/SIGTERM that ended the run, or 0 */
} CmdFuzzJobsResult;

/* Runs c->jobs persistent libFuzzer processes on the shared corpus for c->time_s
 * seconds (each restarted on the grown corpus after a finding), every engine line
 * into log (prefixed "[J] " when jobs > 1) and OUT/fuzz-J.log, progress every few
 * seconds. Ends early on SIGINT/SIGTERM (cmd_on_signals_interrupt set by the caller):
 * every job's process group is killed and its temporary directory removed. Returns
 * 0, or -1 when no process could be started (r->last_status set). */
int cmd_fuzz_libfuzzer(const CmdFuzzJobs *c, FILE *log, double start, CmdFuzzJobsResult *r);

#endif
