/* tracefuzz show: the program of an input. This comment is its manual (docs/CLI.md has the same with
 * examples).
 *
 *   Prints the program of an input on stdout: bytes are decoded and emitted, source
 *   is printed as is. --base MODULE:CLASS makes generated classes derive from it.
 * */
#include "cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_show[] =
    "usage: tracefuzz show [--base MODULE:CLASS] FILE\n"
    "\n"
    "Prints the program of an input: bytes are decoded and emitted as Python, a .py\n"
    "or `#tracefuzz-py` file is printed as is.\n";

int cmd_show(int argc, char **argv)
{
    const char *file = NULL, *base = NULL;
    for (int i = 0; i < argc; i++) {
        if (cmd_is_help(argv[i])) {
            fputs(usage_show, stdout);
            return 0;
        }
        if (strcmp(argv[i], "--base") == 0) {
            if (++i >= argc)
                return cmd_usage_error(usage_show, "%s needs a value", "--base");
            base = argv[i];
        }
        else if (argv[i][0] == '-' && argv[i][1] != 0)
            return cmd_usage_error(usage_show, "unknown option %s", argv[i]);
        else if (file != NULL)
            return cmd_usage_error(usage_show, "show takes one FILE (got also %s)", argv[i]);
        else
            file = argv[i];
    }
    if (file == NULL)
        return cmd_usage_error(usage_show, "%s", "show needs a FILE");
    HzEmitOptions opts = {0};
    char *base_copy = NULL;
    if (base != NULL && cmd_parse_base(base, &base_copy, &opts) < 0)
        return cmd_usage_error(usage_show, "--base %s: want MODULE:CLASS", base);
    HzInput in;
    char err[1024];
    int rc = hz_input_load(file, &opts, &in, err, sizeof err);
    free(base_copy);
    if (rc < 0) {
        fprintf(stderr, "tracefuzz show: %s\n", err);
        return 1;
    }
    fputs(in.source, stdout);
    size_t n = strlen(in.source);
    if (n == 0 || in.source[n - 1] != '\n')
        fputc('\n', stdout);
    hz_input_clear(&in);
    return 0;
}
