/* tracefuzz triage: the findings of any number of runs, grouped by signature. This
 * comment is its manual (docs/CLI.md has the same with examples).
 *
 *   tracefuzz triage DIR... [--json FILE]
 *
 *   Reads every finding under the DIRs (walked recursively; hidden entries and
 *   links to directories skipped; a .report file may be named directly):
 *   STEM.report's header
 *   (verdict:, signature:, time:) and its one-line divergence, and the reproducer
 *   beside it, STEM.min.py (reduced) when present, else STEM.py (the text above the
 *   repro footer). Findings are grouped by signature; the same STEM in two
 *   directories (the same input failing the same way, found by two runs or copied)
 *   counts once. Prints per group, most frequent first: the count, when it was
 *   first seen (the earliest time:), the size of its smallest reproducer
 *   (non-blank, non-comment lines; reduced ones preferred) and that file, the
 *   signature and the divergence; last `N findings in M signatures`.
 *     --json FILE   also write the groups as JSON (schema version 1, docs/CLI.md);
 *                   "-" for stdout (then the table is not printed)
 *   Exit status: 0 when the findings were read (whatever they say), 2 on usage
 *   errors, a DIR that cannot be read or a FILE that cannot be written, 3 on an
 *   internal error. A .report without verdict:/signature: is skipped with a
 *   warning. Runs no Python and no target.
 */
#include "cmd.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage_triage[] =
    "usage: tracefuzz triage DIR... [--json FILE]\n"
    "\n"
    "Groups the findings (STEM.report) of any number of runs by signature: per group\n"
    "the count (the same STEM in two directories counts once), first seen, the\n"
    "smallest reproducer (STEM.min.py preferred) and its size in non-blank,\n"
    "non-comment lines, and the first divergence; most frequent first, then\n"
    "`N findings in M signatures`.\n"
    "\n"
    "  --json FILE   also write the groups as JSON (schema tracefuzz-triage, version 1);\n"
    "                \"-\": to stdout instead of the table\n";

typedef struct {
    CmdFindingInfo *items;
    size_t n, cap;
} Findings;

typedef struct {
    const char *signature;      /* borrowed from its findings */
    size_t *members;            /* indices into Findings */
    size_t n, cap;
    const CmdFindingInfo *smallest, *first;
} Group;

static unsigned long skipped_reports;

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_report(Findings *fs, const char *path)
{
    CmdFindingInfo fi;
    if (cmd_finding_read(path, &fi) < 0) {
        fprintf(stderr, "tracefuzz triage: %s: not a finding's report (no verdict:/signature:), "
                "skipped\n", path);
        skipped_reports++;
        return;
    }
    if (fs->n == fs->cap) {
        fs->cap = fs->cap ? fs->cap * 2 : 64;
        CmdFindingInfo *ni = realloc(fs->items, fs->cap * sizeof *ni);
        if (ni == NULL)
            abort();
        fs->items = ni;
    }
    fs->items[fs->n++] = fi;
}

/* Every .report under path (sorted, so that ties break the same way each time).
 * 0, or -1 (message printed) when a directory cannot be read. */
static int walk(Findings *fs, const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0) {
        fprintf(stderr, "tracefuzz triage: %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        if (ends_with(path, ".report"))
            add_report(fs, path);
        else
            fprintf(stderr, "tracefuzz triage: %s: not a directory nor a .report, "
                    "skipped\n", path);
        return 0;
    }
    DIR *d = opendir(path);
    if (d == NULL) {
        fprintf(stderr, "tracefuzz triage: %s: %s\n", path, strerror(errno));
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **nn = realloc(names, cap * sizeof *nn);
            if (nn == NULL)
                abort();
            names = nn;
        }
        names[n] = strdup(e->d_name);
        if (names[n++] == NULL)
            abort();
    }
    closedir(d);
    if (n > 0)
        qsort(names, n, sizeof *names, cmp_str);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(path) + strlen(names[i]) + 2;
        char *child = malloc(len);
        if (child == NULL)
            abort();
        snprintf(child, len, "%s/%s", path, names[i]);
        struct stat cs;   /* lstat: a symbolic link to a directory is not walked (no loops) */
        if (lstat(child, &cs) == 0 && S_ISDIR(cs.st_mode)) {
            if (walk(fs, child) < 0)
                rc = -1;
        }
        else if (ends_with(names[i], ".report")) {
            add_report(fs, child);
        }
        free(child);
        free(names[i]);
    }
    free(names);
    return rc;
}

/* A better reproducer: reduced first, then fewer lines, then the path. */
static bool smaller(const CmdFindingInfo *a, const CmdFindingInfo *b)
{
    if (b == NULL || b->program == NULL)
        return a->program != NULL;
    if (a->program == NULL)
        return false;
    if (a->reduced != b->reduced)
        return a->reduced;
    if (a->size != b->size)
        return a->size < b->size;
    return strcmp(a->program_path, b->program_path) < 0;
}

static bool earlier(const CmdFindingInfo *a, const CmdFindingInfo *b)
{
    if (b == NULL)
        return true;
    if (a->time == NULL || b->time == NULL)
        return a->time != NULL;
    return strcmp(a->time, b->time) < 0;   /* ISO 8601 UTC: text order is time order */
}

static int cmp_group(const void *x, const void *y)
{
    const Group *a = x, *b = y;
    if (a->n != b->n)
        return a->n > b->n ? -1 : 1;
    const char *ta = a->first->time ? a->first->time : "~";
    const char *tb = b->first->time ? b->first->time : "~";
    int c = strcmp(ta, tb);
    return c ? c : strcmp(a->signature, b->signature);
}

static int cmp_finding_stem(const void *x, const void *y)
{
    const CmdFindingInfo *a = x, *b = y;
    int c = strcmp(a->signature, b->signature);
    if (c == 0)
        c = strcmp(a->stem, b->stem);
    return c ? c : strcmp(a->report, b->report);
}

static void write_json(FILE *f, const Findings *fs, const Group *gs, size_t ng)
{
    fprintf(f, "{\"schema\": \"tracefuzz-triage\", \"version\": 1, \"findings\": %zu, "
            "\"signatures\": %zu, \"groups\": [", fs->n, ng);
    for (size_t g = 0; g < ng; g++) {
        const Group *gr = &gs[g];
        fputs(g ? ",\n  {" : "\n  {", f);
        fputs("\"signature\": ", f);
        cmd_json_string(f, gr->signature);
        fputs(", \"verdict\": ", f);
        cmd_json_string(f, fs->items[gr->members[0]].verdict);
        fprintf(f, ", \"count\": %zu, \"first_seen\": ", gr->n);
        cmd_json_string(f, gr->first->time);
        fputs(", \"divergence\": ", f);
        cmd_json_string(f, gr->first->divergence);
        fputs(", \"smallest\": ", f);
        if (gr->smallest != NULL && gr->smallest->program != NULL) {
            fputs("{\"path\": ", f);
            cmd_json_string(f, gr->smallest->program_path);
            fprintf(f, ", \"size\": %zu, \"reduced\": %s, \"report\": ", gr->smallest->size,
                    gr->smallest->reduced ? "true" : "false");
            cmd_json_string(f, gr->smallest->report);
            fputs("}", f);
        }
        else {
            fputs("null", f);
        }
        fputs(", \"findings\": [", f);
        for (size_t i = 0; i < gr->n; i++) {
            const CmdFindingInfo *fi = &fs->items[gr->members[i]];
            fputs(i ? ", {" : "{", f);
            fputs("\"stem\": ", f);
            cmd_json_string(f, fi->stem);
            fputs(", \"report\": ", f);
            cmd_json_string(f, fi->report);
            fputs(", \"time\": ", f);
            cmd_json_string(f, fi->time);
            fputs(", \"target\": ", f);
            cmd_json_string(f, fi->target);
            fputs(", \"faults\": ", f);
            cmd_json_string(f, fi->faults);
            fputs("}", f);
        }
        fputs("]}", f);
    }
    fputs(ng ? "\n]}\n" : "]}\n", f);
}

static void print_table(const Findings *fs, const Group *gs, size_t ng)
{
    if (ng > 0)
        printf("%5s  %-20s  %5s  %s\n", "count", "first seen", "lines",
               "signature / smallest reproducer / divergence");
    for (size_t g = 0; g < ng; g++) {
        const Group *gr = &gs[g];
        char size[24] = "?";
        if (gr->smallest != NULL && gr->smallest->program != NULL)
            snprintf(size, sizeof size, "%zu%s", gr->smallest->size,
                     gr->smallest->reduced ? "" : "*");
        printf("%5zu  %-20s  %5s  %s\n", gr->n, gr->first->time ? gr->first->time : "?",
               size, gr->signature);
        printf("%35s%s\n", "",
               gr->smallest && gr->smallest->program_path ? gr->smallest->program_path
                                                          : "(no reproducer beside the report)");
        if (gr->first->divergence != NULL) {
            /* One line: cut long values (the JSON has it whole). */
            const char *d = gr->first->divergence;
            printf("%35s%.*s%s\n", "", 100, d, strlen(d) > 100 ? "~" : "");
        }
    }
    bool unreduced = false;
    for (size_t g = 0; g < ng; g++)
        unreduced |= gs[g].smallest && gs[g].smallest->program && !gs[g].smallest->reduced;
    if (unreduced)
        printf("(* not reduced: STEM.py; `tracefuzz reduce` makes STEM.min.py)\n");
    printf("%zu findings in %zu signatures\n", fs->n, ng);
}

int cmd_triage(int argc, char **argv)
{
    const char *json = NULL;
    char **dirs = calloc((size_t)argc + 1, sizeof *dirs);
    size_t ndirs = 0;
    if (dirs == NULL)
        abort();
    for (int i = 0; i < argc; i++) {
        if (cmd_is_help(argv[i])) {
            fputs(usage_triage, stdout);
            free(dirs);
            return 0;
        }
        if (strcmp(argv[i], "--json") == 0) {
            if (i + 1 >= argc) {
                free(dirs);
                return cmd_usage_error(usage_triage, "%s needs a file", argv[i]);
            }
            json = argv[++i];
        }
        else if (argv[i][0] == '-' && argv[i][1] != 0) {
            free(dirs);
            return cmd_usage_error(usage_triage, "unknown option %s", argv[i]);
        }
        else {
            dirs[ndirs++] = argv[i];
        }
    }
    if (ndirs == 0) {
        free(dirs);
        return cmd_usage_error(usage_triage, "%s", "no findings directory given");
    }
    Findings fs = {0};
    int rc = 0;
    for (size_t i = 0; i < ndirs; i++)
        if (walk(&fs, dirs[i]) < 0)
            rc = EXIT_USAGE;
    free(dirs);
    /* The same STEM twice (two directories, one input failing one way): once. */
    if (fs.n > 0)
        qsort(fs.items, fs.n, sizeof *fs.items, cmp_finding_stem);
    size_t kept = 0;
    for (size_t i = 0; i < fs.n; i++) {
        CmdFindingInfo *prev = kept ? &fs.items[kept - 1] : NULL;
        if (prev != NULL && strcmp(prev->stem, fs.items[i].stem) == 0
            && strcmp(prev->signature, fs.items[i].signature) == 0) {
            /* One finding: the better reproducer, the earliest sighting. */
            CmdFindingInfo *cur = &fs.items[i];
            char *first = earlier(cur, prev) ? cur->time : prev->time;
            if (first == cur->time)
                cur->time = NULL;
            else
                prev->time = NULL;
            if (smaller(cur, prev)) {
                CmdFindingInfo t = *prev;
                *prev = *cur;
                *cur = t;
            }
            free(prev->time);
            prev->time = first;
            cmd_finding_info_clear(&fs.items[i]);
            continue;
        }
        if (kept != i)
            fs.items[kept] = fs.items[i];
        kept++;
    }
    fs.n = kept;
    /* Groups: the items are sorted by signature, so each group is a run. */
    Group *gs = calloc(fs.n + 1, sizeof *gs);
    if (gs == NULL)
        abort();
    size_t ng = 0;
    for (size_t i = 0; i < fs.n; i++) {
        const CmdFindingInfo *fi = &fs.items[i];
        if (ng == 0 || strcmp(gs[ng - 1].signature, fi->signature) != 0) {
            gs[ng].signature = fi->signature;
            gs[ng].members = malloc(8 * sizeof *gs[ng].members);
            gs[ng].cap = 8;
            if (gs[ng].members == NULL)
                abort();
            ng++;
        }
        Group *g = &gs[ng - 1];
        if (g->n == g->cap) {
            g->cap *= 2;
            size_t *nm = realloc(g->members, g->cap * sizeof *nm);
            if (nm == NULL)
                abort();
            g->members = nm;
        }
        g->members[g->n++] = i;
        if (smaller(fi, g->smallest))
            g->smallest = fi;
        if (earlier(fi, g->first))
            g->first = fi;
    }
    if (ng > 0)
        qsort(gs, ng, sizeof *gs, cmp_group);
    if (json == NULL || strcmp(json, "-") != 0)
        print_table(&fs, gs, ng);
    if (json != NULL) {
        FILE *f = strcmp(json, "-") == 0 ? stdout : fopen(json, "w");
        if (f == NULL) {
            fprintf(stderr, "tracefuzz triage: cannot write %s: %s\n", json, strerror(errno));
            rc = EXIT_USAGE;
        }
        else {
            write_json(f, &fs, gs, ng);
            if (f != stdout && fclose(f) != 0) {
                fprintf(stderr, "tracefuzz triage: cannot write %s: %s\n", json,
                        strerror(errno));
                rc = EXIT_USAGE;
            }
        }
    }
    if (skipped_reports > 0)
        fprintf(stderr, "tracefuzz triage: %lu reports skipped (not findings)\n",
                skipped_reports);
    for (size_t g = 0; g < ng; g++)
        free(gs[g].members);
    free(gs);
    for (size_t i = 0; i < fs.n; i++)
        cmd_finding_info_clear(&fs.items[i]);
    free(fs.items);
    return rc;
}
