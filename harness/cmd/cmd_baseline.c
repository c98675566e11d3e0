/* cmd_baseline.c: a project's known signatures (--baseline FILE), so that it can
 * adopt tracefuzz in CI before fixing every bug found: failures whose signature is
 * listed are reported as known, not failing; --update-baseline appends the new ones.
 * One signature a line, exactly as a verdict line or a report's `signature:` prints
 * it; lines whose first non-blank character is `#` are comments (a signature may
 * itself contain '#', so there are no trailing comments). */
#include "cmd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    char *sig;
    bool met;
} Entry;

struct CmdBaseline {
    Entry *known;
    size_t nknown;
    char **fresh;       /* failing signatures not in the file, first-seen order */
    size_t nfresh;
};

static void push_known(CmdBaseline *b, const char *sig)
{
    b->known = realloc(b->known, (b->nknown + 1) * sizeof *b->known);
    if (b->known == NULL || (b->known[b->nknown].sig = strdup(sig)) == NULL)
        abort();
    b->known[b->nknown++].met = false;
}

CmdBaseline *cmd_baseline_load(const char *path, bool may_be_missing, char *err,
                               size_t errlen)
{
    CmdBaseline *b = calloc(1, sizeof *b);
    if (b == NULL)
        abort();
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        if (errno == ENOENT && may_be_missing)
            return b;
        snprintf(err, errlen, "cannot read the baseline %s: %s", path, strerror(errno));
        free(b);
        return NULL;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, f)) >= 0) {
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' ' ||
                         line[n - 1] == '\t'))
            line[--n] = 0;
        char *s = line + strspn(line, " \t");
        if (*s == 0 || *s == '#')
            continue;
        push_known(b, s);
    }
    free(line);
    fclose(f);
    return b;
}

bool cmd_baseline_known(CmdBaseline *b, const char *sig)
{
    if (b == NULL || sig == NULL)
        return false;
    for (size_t i = 0; i < b->nknown; i++)
        if (strcmp(b->known[i].sig, sig) == 0) {
            b->known[i].met = true;
            return true;
        }
    return false;
}

void cmd_baseline_note_new(CmdBaseline *b, const char *sig)
{
    if (b == NULL || sig == NULL || cmd_baseline_known(b, sig))
        return;
    for (size_t i = 0; i < b->nfresh; i++)
        if (strcmp(b->fresh[i], sig) == 0)
            return;
    b->fresh = realloc(b->fresh, (b->nfresh + 1) * sizeof *b->fresh);
    if (b->fresh == NULL || (b->fresh[b->nfresh++] = strdup(sig)) == NULL)
        abort();
}

long cmd_baseline_update(CmdBaseline *b, const char *path)
{
    if (b->nfresh == 0)
        return 0;
    FILE *f = fopen(path, "a");
    if (f == NULL) {
        fprintf(stderr, "tracefuzz: cannot update the baseline %s: %s\n", path,
                strerror(errno));
        return -1;
    }
    if (ftell(f) == 0)
        fputs("# tracefuzz baseline: known signatures, one a line (docs/CLI.md "
              "\"Baseline\")\n", f);
    time_t now = time(NULL);
    char when[64];
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    fprintf(f, "# added %s by: %s\n", when, cmd_command_line());
    for (size_t i = 0; i < b->nfresh; i++)
        fprintf(f, "%s\n", b->fresh[i]);
    if (fclose(f) != 0) {
        fprintf(stderr, "tracefuzz: cannot update the baseline %s: %s\n", path,
                strerror(errno));
        return -1;
    }
    for (size_t i = 0; i < b->nfresh; i++)
        push_known(b, b->fresh[i]);
    return (long)b->nfresh;
}

void cmd_baseline_print_unmet(const CmdBaseline *b, FILE *f, const char *command)
{
    if (b == NULL)
        return;
    for (size_t i = 0; i < b->nknown; i++)
        if (!b->known[i].met)
            fprintf(f, "tracefuzz %s: baseline signature not met in this run (fixed, or "
                    "not reached): %s\n", command, b->known[i].sig);
}

size_t cmd_baseline_size(const CmdBaseline *b)
{
    return b ? b->nknown : 0;
}

void cmd_baseline_free(CmdBaseline *b)
{
    if (b == NULL)
        return;
    for (size_t i = 0; i < b->nknown; i++)
        free(b->known[i].sig);
    for (size_t i = 0; i < b->nfresh; i++)
        free(b->fresh[i]);
    free(b->known);
    free(b->fresh);
    free(b);
}
