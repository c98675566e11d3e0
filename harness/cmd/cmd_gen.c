/* tracefuzz gen: random inputs into a directory. This comment is its manual (docs/CLI.md has the same with
 * examples).
 *
 *   Writes N random programs into DIR (created if missing): DIR/gen-S-000000.tf ...
 *   as bytes (hz_encode of the program generated from seed S and the index), or
 *   with --py as Python source (.py). --base MODULE:CLASS (e.g. torch.nn:Module)
 *   implies --py, so that `run` sees the base.
 * */
#include "cmd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_gen[] =
    "usage: tracefuzz gen --count N --seed S --out DIR [--base MODULE:CLASS] [--py]\n"
    "\n"
    "Writes N random programs into DIR as gen-S-NNNNNN.tf (bytes) or, with --py or\n"
    "--base, as gen-S-NNNNNN.py (Python source; --base sets the classes' base).\n";

int cmd_gen(int argc, char **argv)
{
    const char *count_s = NULL, *seed_s = NULL, *out = NULL, *base = NULL;
    bool py = false;
    for (int i = 0; i < argc; i++) {
        const char **slot = NULL;
        if (cmd_is_help(argv[i])) {
            fputs(usage_gen, stdout);
            return 0;
        }
        if (strcmp(argv[i], "--count") == 0)
            slot = &count_s;
        else if (strcmp(argv[i], "--seed") == 0)
            slot = &seed_s;
        else if (strcmp(argv[i], "--out") == 0)
            slot = &out;
        else if (strcmp(argv[i], "--base") == 0)
            slot = &base;
        else if (strcmp(argv[i], "--py") == 0)
            py = true;
        else
            return cmd_usage_error(usage_gen, "unexpected argument %s", argv[i]);
        if (slot != NULL) {
            if (++i >= argc)
                return cmd_usage_error(usage_gen, "%s needs a value", argv[i - 1]);
            *slot = argv[i];
        }
    }
    uint64_t count, seed;
    if (count_s == NULL || cmd_parse_u64(count_s, &count) < 0)
        return cmd_usage_error(usage_gen, "%s", "--count N (a non-negative integer) is required");
    if (seed_s == NULL || cmd_parse_u64(seed_s, &seed) < 0)
        return cmd_usage_error(usage_gen, "%s", "--seed S (a non-negative integer) is required");
    if (out == NULL)
        return cmd_usage_error(usage_gen, "%s", "--out DIR is required");
    HzEmitOptions opts = {0};
    char *base_copy = NULL;
    if (base != NULL) {
        if (cmd_parse_base(base, &base_copy, &opts) < 0)
            return cmd_usage_error(usage_gen, "--base %s: want MODULE:CLASS", base);
        py = true;
    }
    if (cmd_mkdir_p(out) < 0) {
        fprintf(stderr, "tracefuzz gen: cannot create %s: %s\n", out, strerror(errno));
        free(base_copy);
        return 1;
    }
    int rc = 0;
    size_t plen = strlen(out) + 64;
    char *path = malloc(plen);
    if (path == NULL)
        abort();
    for (uint64_t i = 0; i < count && rc == 0; i++) {
        HzProgram *p = hz_generate(cmd_program_seed(seed, i));
        snprintf(path, plen, "%s/gen-%llu-%06llu.%s", out, (unsigned long long)seed,
                 (unsigned long long)i, py ? "py" : "tf");
        if (py) {
            char *src = hz_emit(p, &opts);
            if (src == NULL || cmd_write_file(path, src, strlen(src)) < 0)
                rc = 1;
            free(src);
        }
        else {
            uint8_t *bytes = NULL;
            size_t n = 0;
            if (hz_encode(p, &bytes, &n) < 0 || cmd_write_file(path, bytes, n) < 0)
                rc = 1;
            free(bytes);
        }
        hz_program_free(p);
        if (rc != 0)
            fprintf(stderr, "tracefuzz gen: cannot write %s: %s\n", path, strerror(errno));
    }
    free(path);
    free(base_copy);
    if (rc == 0)
        fprintf(stderr, "tracefuzz gen: wrote %llu programs into %s\n",
                (unsigned long long)count, out);
    return rc;
}
