/* cmd.h: what the subcommands of `tracefuzz` share (harness/cmd/, one file per
 * command as git's builtin/ has it; tracefuzz.c dispatches). */
#ifndef CMD_H
#define CMD_H

#include "hz_input.h"
#include "hz_program.h"
#include "hz_worker.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Exit statuses, the same for every command (docs/CLI.md "Exit status"): 0 clean,
 * 1 findings, 2 usage or configuration, 3 internal error, 128+N ended by signal N. */
#define EXIT_FINDINGS 1
#define EXIT_USAGE 2
#define EXIT_INTERNAL 3
#define PROGRESS_EVERY_S 5.0

/* One subcommand: its name, a one-line summary for `tracefuzz --help`, its entry
 * point (argv after the command's name; returns the exit status). */
typedef struct {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv);
} CmdCommand;

int cmd_run(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_fuzz(int argc, char **argv);
int cmd_corpus(int argc, char **argv);
int cmd_plot(int argc, char **argv);

/* cmd_util.c */
int cmd_usage_error(const char *usage, const char *fmt, const char *arg);  /* EXIT_USAGE */
bool cmd_is_help(const char *arg);
int cmd_parse_u64(const char *s, uint64_t *out);     /* 0, or -1 when not a number */
double cmd_now(void);                                 /* monotonic seconds */
uint64_t cmd_program_seed(uint64_t seed, uint64_t i); /* program i of a run of seed */
/* Splits "module:Class" into opts (pointing into *copy, malloc'd, the caller's). */
int cmd_parse_base(const char *spec, char **copy, HzEmitOptions *opts);
int cmd_mkdir_p(const char *path);                    /* 0, or -1 with errno */
int cmd_write_file(const char *path, const void *data, size_t n);
/* SIGINT/SIGTERM make waits return (hz_channel_interrupted) instead of killing. */
void cmd_on_signals_interrupt(void);
void cmd_remember_command_line(int argc, char **argv);
const char *cmd_command_line(void);                   /* as remembered, for reports */

/* cmd_locate.c: the prebuilt pieces next to this binary, the fuzz target's environment. */
char *cmd_exe_dir(void);                              /* malloc'd, or NULL */
bool cmd_is_file(const char *path, bool exec);
bool cmd_is_dir(const char *path);
/* The first dir/REL of rels (NULL-terminated) that exists (an executable file when
 * exec, a directory when want_dir): malloc'd real path, or NULL. */
char *cmd_find_near(const char *dir, const char *const *rels, bool exec, bool want_dir);
/* The fuzz target binary: override when given, else tf_fuzz next to this binary (or
 * in ../fuzz-fast, ../fuzz; for afl ../afl/tf_fuzz). Malloc'd real path, or NULL
 * with a message naming command and how to build it. */
char *cmd_find_fuzzer(const char *override, bool afl, const char *command);
/* What the fuzz target reads from the environment (hz_fuzz.c's header). */
typedef struct {
    const char *target, *faults, *unsupported;
    const char *const *pypath;
    size_t npypath;
    bool strict;
} CmdFuzzerEnv;
void cmd_fuzzer_env(const CmdFuzzerEnv *e);          /* setenv()s them for children */

/* cmd_statscsv.c: fuzz's time series, OUT/stats.csv (docs/CLI.md "stats.csv"). One
 * progress tick of the engine; cov/ft are -1 and map_pct < 0 where the engine has
 * none (AFL++ / libFuzzer). */
typedef struct {
    double elapsed;
    unsigned long long execs;
    long cov, ft, corpus;
    double map_pct;
    unsigned long crashes;
} CmdStatsTick;
/* Opens path for appending (the header when the file is new); 0, or -1 with errno. */
int cmd_statscsv_open(const char *path);
void cmd_statscsv_tick(const CmdStatsTick *t);       /* one row; no-op when not open */
/* A replayed artifact's signature: counted per signature, first seen at the
 * artifact's modification time. */
void cmd_statscsv_finding(const char *artifact, const char *signature);
void cmd_statscsv_close(void);                        /* the signature rows, then close */
/* Reading it back (plot): t is the campaign's time, runs one after another; a
 * number a row does not have is -1. */
typedef struct {
    double t, execs, execs_per_s, cov, ft, map_pct, corpus, crashes;
} CmdStatsRow;
typedef struct {
    char *signature;
    double t;                  /* when its first artifact was saved */
    unsigned long count;
} CmdStatsFinding;
typedef struct {
    CmdStatsRow *rows;
    size_t nrows;
    CmdStatsFinding *finds;
    size_t nfinds;
} CmdStatsSeries;
/* 0, or -1 with one line in err (missing file, wrong header, a malformed row, no
 * rows). */
int cmd_statscsv_read(const char *path, CmdStatsSeries *s, char *err, size_t errlen);
void cmd_statscsv_free(CmdStatsSeries *s);

/* cmd_findings.c: a failing input's files in a findings directory. */
typedef struct {
    const char *dir;           /* where they go */
    const char *target_name;   /* as the worker resolved it */
    const char *faults;        /* injected faults, or NULL */
    const char *command;       /* the command's name, for messages */
} CmdFindings;

/* The file name without extension of in's finding (signature slug + content hash);
 * malloc'd. */
char *cmd_finding_stem(const HzInput *in, const HzOutcome *oc);
/* Writes DIR/STEM.py, .report and (bytes inputs) .tf. The report starts with line
 * (the verdict line), then `key: value` lines, `verdict:` and `signature:` (as
 * given: fuzz's UNREPRODUCED ones too) first, for tools reading findings (triage).
 * Returns 0, or -1 (message printed) when a file could not be written. */
int cmd_finding_write(const CmdFindings *f, const HzInput *in, const HzOutcome *oc,
                      const char *signature, const char *line);

#endif
