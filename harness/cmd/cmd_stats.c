/* tracefuzz stats: feature coverage of random programs or of inputs. This comment is its manual (docs/CLI.md has the same with
 * examples).
 *
 *   For each descriptor kind, access pattern and between kind (the IDs of
 *   DESIGN.md), how many programs use it and the percentage: of N programs
 *   generated from seed S (default 1), or of the inputs under PATHs.
 * */
#include "cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_stats[] =
    "usage: tracefuzz stats (--random N [--seed S] | PATH...)\n"
    "\n"
    "Counts, for each descriptor kind, access pattern, between kind and result\n"
    "collection mode (appended: out.append ends each statement; stored: out[i] = ...,\n"
    "no call between statements), how many programs use it (random programs from\n"
    "seed S, default 1, or the inputs under PATHs), with percentages.\n";

static void stats_table(const char *title, int nkinds, const char *(*name)(int),
                        const unsigned long *counts, unsigned long total)
{
    printf("%-20s %8s %7s\n", title, "programs", "%");
    for (int k = 0; k < nkinds; k++)
        printf("%-20s %8lu %6.1f%%\n", name(k), counts[k],
               total ? 100.0 * (double)counts[k] / (double)total : 0.0);
    printf("\n");
}

static const char *desc_name(int k) { return hz_desc_kind_name((HzDescKind)k); }
static const char *access_name(int k) { return hz_access_name((HzAccessPattern)k); }
static const char *between_name(int k) { return hz_between_name((HzBetweenKind)k); }
static const char *collect_name(int k) { return hz_collect_name((HzCollectMode)k); }

int cmd_stats(int argc, char **argv)
{
    const char *random_s = NULL, *seed_s = NULL;
    char **paths = calloc((size_t)argc + 1, sizeof *paths);
    size_t npaths = 0;
    if (paths == NULL)
        abort();
    int rc = 0;
    for (int i = 0; i < argc; i++) {
        if (cmd_is_help(argv[i])) {
            fputs(usage_stats, stdout);
            goto done;
        }
        if (strcmp(argv[i], "--random") == 0 || strcmp(argv[i], "--seed") == 0) {
            if (i + 1 >= argc) {
                rc = cmd_usage_error(usage_stats, "%s needs a value", argv[i]);
                goto done;
            }
            *(argv[i][2] == 'r' ? &random_s : &seed_s) = argv[i + 1];
            i++;
        }
        else if (argv[i][0] == '-' && argv[i][1] != 0) {
            rc = cmd_usage_error(usage_stats, "unknown option %s", argv[i]);
            goto done;
        }
        else {
            paths[npaths++] = argv[i];
        }
    }
    if ((random_s == NULL) == (npaths == 0)) {
        rc = cmd_usage_error(usage_stats, "%s", "give either --random N or PATHs");
        goto done;
    }
    uint64_t n = 0, seed = 1;
    if (random_s != NULL && cmd_parse_u64(random_s, &n) < 0) {
        rc = cmd_usage_error(usage_stats, "--random %s: want a non-negative integer", random_s);
        goto done;
    }
    if (seed_s != NULL && cmd_parse_u64(seed_s, &seed) < 0) {
        rc = cmd_usage_error(usage_stats, "--seed %s: want a non-negative integer", seed_s);
        goto done;
    }
    unsigned long desc[HZ_DESC__COUNT] = {0}, access[HZ_ACCESS__COUNT] = {0},
                  between[HZ_BETWEEN__COUNT] = {0}, collect[HZ_COLLECT__COUNT] = {0},
                  total = 0;
    char **files = NULL;
    size_t nfiles = 0;
    if (random_s == NULL) {
        char err[1024];
        if (hz_input_collect(paths, npaths, &files, &nfiles, err, sizeof err) < 0) {
            fprintf(stderr, "tracefuzz stats: %s\n", err);
            rc = EXIT_USAGE;
            goto done;
        }
        n = nfiles;
    }
    for (uint64_t i = 0; i < n; i++) {
        HzFeatures f;
        memset(&f, 0, sizeof f);
        if (files == NULL) {
            HzProgram *p = hz_generate(cmd_program_seed(seed, i));
            hz_program_features(p, &f);
            hz_program_free(p);
        }
        else {
            HzInput in;
            char err[1024];
            if (hz_input_load(files[i], NULL, &in, err, sizeof err) < 0) {
                fprintf(stderr, "tracefuzz stats: %s\n", err);
                rc = 1;
                continue;
            }
            if (in.is_source) {
                hz_source_features(in.source, &f);
            }
            else {
                HzProgram *p = hz_decode(in.data, in.size);
                hz_program_features(p, &f);
                hz_program_free(p);
            }
            hz_input_clear(&in);
        }
        total++;
        for (int k = 0; k < HZ_DESC__COUNT; k++)
            desc[k] += f.desc[k];
        for (int k = 0; k < HZ_ACCESS__COUNT; k++)
            access[k] += f.access[k];
        for (int k = 0; k < HZ_BETWEEN__COUNT; k++)
            between[k] += f.between[k];
        for (int k = 0; k < HZ_COLLECT__COUNT; k++)
            collect[k] += f.collect[k];
    }
    hz_paths_free(files, nfiles);
    printf("%lu programs\n\n", total);
    stats_table("descriptor kind", HZ_DESC__COUNT, desc_name, desc, total);
    stats_table("access pattern", HZ_ACCESS__COUNT, access_name, access, total);
    stats_table("between kind", HZ_BETWEEN__COUNT, between_name, between, total);
    stats_table("result collection", HZ_COLLECT__COUNT, collect_name, collect, total);
done:
    free(paths);
    return rc;
}
