/* tracefuzz: the command-line tool's dispatch. This comment and the header of each
 * cmd_*.c are its manual (docs/CLI.md has the same with examples).
 *
 * SYNOPSIS
 *   tracefuzz run   [options] PATH...
 *   tracefuzz show  [--base MODULE:CLASS] FILE
 *   tracefuzz gen   --count N --seed S --out DIR [--base MODULE:CLASS] [--py]
 *   tracefuzz stats (--random N [--seed S] | PATH...)
 *   tracefuzz fuzz  [--engine libfuzzer|afl] [--target T] [--faults F] [--time S]
 *                   [--jobs N] [--out DIR] [--corpus DIR] [options]
 *   tracefuzz corpus merge [options] OUT IN... | corpus prune [options] DIR
 *   tracefuzz plot  OUT [-o FILE.svg]
 *   tracefuzz triage DIR... [--json FILE]
 *   tracefuzz promote FINDING... --to DIR [--target T] [--faults F] [--name N]
 *   tracefuzz reduce INPUT -o OUT [--target T] [--faults F] [--jobs N] [options]
 *   tracefuzz repro INPUT [--target T] [--faults F] [--unsupported M:E]
 *                   [--python-path D]... [-o OUT.py]
 *   tracefuzz COMMAND --help | tracefuzz --help | tracefuzz --version
 *
 * INPUTS
 *   An input file is either bytes, decoded into a program (every byte string is a
 *   valid program; the decoder's version is corpus/VERSION), or Python source: a
 *   file named *.py or any file whose first line is `#tracefuzz-py`. A program
 *   defines make(), program(*args), optionally between(*args) and make_other()
 *   (docs/ARCHITECTURE.md, DESIGN.md "The program contract"). Of a source input
 *   holding the repro marker line (a finding's NAME.py, `tracefuzz repro`), the
 *   program is the text above that line.
 *
 * COMMANDS
 *   Each command lives in its own file, cmd_NAME.c, whose header comment is its
 *   manual and whose usage text `tracefuzz NAME --help` prints.
 *
 * EXIT STATUS (every command)
 *   0 clean; 1 findings (an input failed); 2 usage or configuration error (unknown
 *   option or fault, a target that does not load or fails the preflight, a path that
 *   cannot be read or written, a run of 0 execs); 3 internal error; 128+N when
 *   signal N ended it.
 *
 * ENVIRONMENT
 *   TRACEFUZZ_FAULTS   default for --faults
 *   TRACEFUZZ_MALLOC=1 Python objects through malloc (sanitizer runs; always so in
 *                      ASan builds)
 *   VIRTUAL_ENV        its site-packages is searched for targets
 *   TRACEFUZZ_PYTHONHOME  the embedded CPython's home (default: python-home/ next
 *                      to the executable if there, else libpython's prefix)
 */
#include "cmd.h"
#include "or_verdict.h"

#include <stdio.h>
#include <string.h>

static const CmdCommand commands[] = {
    {"run", "run inputs (files or directories) and print one verdict per input", cmd_run},
    {"show", "print the Python program of an input", cmd_show},
    {"gen", "write random inputs into a directory", cmd_gen},
    {"stats", "feature coverage of random programs or of inputs", cmd_stats},
    {"fuzz", "coverage-guided fuzzing with libFuzzer or AFL++ (the main job)", cmd_fuzz},
    {"triage", "group the findings of any number of runs by signature", cmd_triage},
    {"promote", "turn a finding into a regression case (checked before written)", cmd_promote},
    {"reduce", "make a failing input small, keeping its signature", cmd_reduce},
    {"repro", "write a standalone Python script that reproduces a finding", cmd_repro},
    {"corpus", "merge corpora or prune one, keeping its coverage (libFuzzer -merge=1)",
     cmd_corpus},
    {"plot", "draw a fuzz campaign's OUT/stats.csv as an SVG", cmd_plot},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *out)
{
    fputs("usage: tracefuzz COMMAND [options]\n"
          "\n"
          "Fuzzes Python tracing JITs on attribute access: runs programs eagerly and\n"
          "through a target jit(fn) and compares results, event logs and final state.\n"
          "\n"
          "commands:\n", out);
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fputs("\n`tracefuzz COMMAND --help` describes each command; `tracefuzz --version`\n"
          "prints the versions a finding's report records.\n", out);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    cmd_remember_command_line(argc, argv);
    if (cmd_is_help(cmd) || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("tracefuzz " TF_VERSION " (decoder version %d, observation version %d)\n",
               HZ_DECODER_VERSION, OR_OBS_VERSION);
        return 0;
    }
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(cmd, commands[i].name) == 0)
            return commands[i].run(argc - 2, argv + 2);
    fprintf(stderr, "tracefuzz: unknown command '%s'\n\n", cmd);
    usage(stderr);
    return EXIT_USAGE;
}
