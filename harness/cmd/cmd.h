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
int cmd_repro(int argc, char **argv);

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

/* cmd_findings.c: a failing input's files in a findings directory. */
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

#endif
