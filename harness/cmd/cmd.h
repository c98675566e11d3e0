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
#include <stdio.h>

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
int cmd_triage(int argc, char **argv);
int cmd_promote(int argc, char **argv);
int cmd_reduce(int argc, char **argv);
int cmd_repro(int argc, char **argv);
int cmd_corpus(int argc, char **argv);
int cmd_plot(int argc, char **argv);

/* cmd_util.c */
int cmd_usage_error(const char *usage, const char *fmt, const char *arg);  /* EXIT_USAGE */
bool cmd_is_help(const char *arg);
int cmd_parse_u64(const char *s, uint64_t *out);     /* 0, or -1 when not a number */
/* --memory-limit MB: 0, or -1 when not a number of MiB >= 64. */
int cmd_parse_memory_limit(const char *s, long *mb);
double cmd_now(void);                                 /* monotonic seconds */
uint64_t cmd_program_seed(uint64_t seed, uint64_t i); /* program i of a run of seed */
/* Splits "module:Class" into opts (pointing into *copy, malloc'd, the caller's). */
int cmd_parse_base(const char *spec, char **copy, HzEmitOptions *opts);
int cmd_mkdir_p(const char *path);                    /* 0, or -1 with errno */
int cmd_write_file(const char *path, const void *data, size_t n);
/* SIGINT/SIGTERM make waits return (hz_channel_interrupted) instead of killing. */
void cmd_on_signals_interrupt(void);
void cmd_remember_command_line(int argc, char **argv);
/* s with control bytes and backslashes escaped (\n, \t, \\, \xNN), for a file name in
 * a line of output: one input, one line. Returns out (cut to cap). */
const char *cmd_escape(const char *s, char *out, size_t cap);
const char *cmd_command_line(void);                   /* as remembered, for reports */
/* The first max bytes of a file as a string (malloc'd), or NULL when unreadable. */
char *cmd_read_text(const char *path, size_t max);

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

/* cmd_findings.c: a failing input's files in a findings directory. A report holds
 * at most CMD_REPORT_LINES lines of the verdict's report (the divergence leads, the
 * program comes last) and CMD_OBSERVATION_LINES of each observation. */
#define CMD_REPORT_LINES 200
#define CMD_OBSERVATION_LINES 200
typedef struct {
    const char *dir;           /* where they go */
    const char *target_name;   /* as the worker resolved it */
    const char *faults;        /* injected faults, or NULL */
    const char *command;       /* the command's name, for messages */
    /* the rest of the set-up, recorded in the repro script (NULL/0 when none) */
    const char *unsupported;   /* --unsupported MOD:EXC */
    const char *const *python_path;
    size_t n_python_path;
} CmdFindings;

/* The file name without extension of in's finding (signature slug + content hash);
 * malloc'd. */
char *cmd_finding_stem(const HzInput *in, const HzOutcome *oc);
/* Writes DIR/STEM.py (the repro script: the program, then the harness that runs
 * it eagerly and through the target, hz_repro.h), .report and (bytes inputs) .tf. The report starts with line
 * (the verdict line), then `key: value` lines, `verdict:` and `signature:` (as
 * given: fuzz's UNREPRODUCED ones too) first, for tools reading findings (triage).
 * Returns 0, or -1 (message printed) when a file could not be written. */
int cmd_finding_write(const CmdFindings *f, const HzInput *in, const HzOutcome *oc,
                      const char *signature, const char *line);

/* cmd_finding_read.c: a finding read back (triage, promote). */
typedef struct {
    char *report;        /* the .report's path */
    char *stem;          /* its file name without .report */
    char *verdict, *signature, *input, *target, *faults, *time;   /* header keys, or NULL */
    char *divergence;    /* the report's one-line divergence (or its why:), or NULL */
    char *program;       /* the program of STEM.min.py, else STEM.py (the text above
                            the repro footer), or NULL when neither reads */
    char *program_path;  /* which file that was */
    bool reduced;        /* it was STEM.min.py */
    size_t size;         /* its non-blank, non-comment lines */
} CmdFindingInfo;

/* Reads DIR/STEM.report's header and the reproducer beside it. 0, or -1 when the
 * report cannot be read or has no verdict:/signature: keys. */
int cmd_finding_read(const char *report_path, CmdFindingInfo *fi);
void cmd_finding_info_clear(CmdFindingInfo *fi);
/* One `key: value` of a report's header (malloc'd), or NULL (no file, no key). */
char *cmd_report_header_value(const char *report_path, const char *key);
/* The most of a program's file read back (a generated one is a few kB). */
#define CMD_PROGRAM_MAX ((size_t)16 << 20)
/* Ends source before the repro footer's marker line, when it has one. */
void cmd_program_cut_footer(char *source);

/* cmd_results.c: --json, --junit and --sarif files of a command's results. */
typedef struct CmdResults CmdResults;
typedef struct {
    const char *path;        /* the input (fuzz: the saved artifact) */
    const char *verdict;     /* verdict name */
    const char *signature;   /* NULL when passed */
    const char *expected;    /* an expectation header's verdict, or NULL */
    const char *finding;     /* DIR/STEM of the finding's files, or NULL */
    const char *report;      /* the report (borrowed; copied, capped) */
    bool passed;             /* counts as passed (known failures: false) */
    bool known;              /* failed with a baseline signature */
    unsigned long count;     /* inputs it stands for (0 means 1) */
    double seconds;          /* wall time of its run */
} CmdResult;
CmdResults *cmd_results_new(const char *command, const char *target, const char *faults);
void cmd_results_set_target(CmdResults *r, const char *target);
void cmd_results_add(CmdResults *r, const CmdResult *res);   /* r may be NULL: no-op */
void cmd_results_number(CmdResults *r, const char *key, double value);  /* summary */
void cmd_results_free(CmdResults *r);
/* s as a JSON string literal (NULL as null): valid UTF-8 passes through, control
 * and stray bytes are \u escapes, so the file is always valid JSON and UTF-8. */
void cmd_json_string(FILE *f, const char *s);
/* Each returns 0, or -1 with a message printed. */
int cmd_results_write_json(const CmdResults *r, const char *path, int exit_status);
int cmd_results_write_junit(const CmdResults *r, const char *path);
int cmd_results_write_sarif(const CmdResults *r, const char *path);

/* cmd_baseline.c: --baseline FILE, the signatures a project knows and has not fixed
 * yet (one a line, `#` starts a comment line); failures with them are reported as
 * known and do not fail the run. */
typedef struct CmdBaseline CmdBaseline;
/* Loads path; a missing file is an empty baseline when may_be_missing (for
 * --update-baseline), an error otherwise. Returns NULL with err set on error. */
CmdBaseline *cmd_baseline_load(const char *path, bool may_be_missing, char *err,
                               size_t errlen);
/* Whether sig is known (and remembers that it was met); b may be NULL. */
bool cmd_baseline_known(CmdBaseline *b, const char *sig);
/* Remembers a failing signature the baseline lacks (for --update-baseline). */
void cmd_baseline_note_new(CmdBaseline *b, const char *sig);
/* Appends the new signatures to the file, with a dated comment. Returns how many
 * were added, or -1 (message printed). */
long cmd_baseline_update(CmdBaseline *b, const char *path);
/* Prints, to f, the known signatures no input of this run met (fixed, or not reached). */
void cmd_baseline_print_unmet(const CmdBaseline *b, FILE *f, const char *command);
size_t cmd_baseline_size(const CmdBaseline *b);
void cmd_baseline_free(CmdBaseline *b);

#endif
