/* cmd_findings.c: a failing input's files in a findings directory, named so that
 * nothing is ever overwritten by a different finding (docs/CLI.md "Findings"). */
#include "cmd.h"
#include "hz_repro.h"
#include "or_verdict.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A finding's file name: its signature made file-safe, then a hash of the input's
 * bytes. The same input failing the same way always gets the same name (a rerun
 * overwrites it with itself); two different inputs never share one, whatever their
 * own names (two crash-000 files of two runs stay two findings). malloc'd. */
static char *finding_name(const char *signature, const void *data, size_t size)
{
    uint64_t h = 1469598103934665603ULL;   /* FNV-1a 64 */
    for (size_t i = 0; i < size; i++) {
        h ^= ((const unsigned char *)data)[i];
        h *= 1099511628211ULL;
    }
    char slug[96];
    size_t o = 0;
    for (const char *p = signature ? signature : "finding"; *p && o < 80; p++) {
        char c = *p;
        bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    (c >= '0' && c <= '9') || c == '_' || c == '.';
        if (keep)
            slug[o++] = c;
        else if (o > 0 && slug[o - 1] != '-')
            slug[o++] = '-';
    }
    while (o > 0 && slug[o - 1] == '-')
        o--;
    slug[o] = 0;
    char *name = malloc(o + 24);
    if (name == NULL)
        abort();
    snprintf(name, o + 24, "%s-%012llx", o ? slug : "finding",
             (unsigned long long)(h & 0xffffffffffffULL));
    return name;
}

/* Writes at most cap lines of text, then says how many were cut and where the
 * whole is (a campaign against a slow JIT must not write millions of lines). */
static void put_capped(FILE *f, const char *text, size_t cap, const char *whole)
{
    const char *p = text;
    for (size_t n = 0; n < cap && *p; n++) {
        const char *nl = strchr(p, '\n');
        p = nl ? nl + 1 : p + strlen(p);
    }
    fwrite(text, 1, (size_t)(p - text), f);
    if (p > text && p[-1] != '\n')
        fputc('\n', f);
    if (*p == 0)
        return;
    size_t cut = 0;
    for (const char *q = p; *q; q++)
        cut += *q == '\n';
    cut += p[strlen(p) - 1] != '\n';
    fprintf(f, "... (%zu more lines cut: %s)\n", cut, whole);
}

/* The file name (without extension) of an input's finding. malloc'd. */
char *cmd_finding_stem(const HzInput *in, const HzOutcome *oc)
{
    return in->is_source ? finding_name(oc->signature, in->source, strlen(in->source))
                         : finding_name(oc->signature, in->data, in->size);
}

int cmd_finding_write(const CmdFindings *o, const HzInput *in, const HzOutcome *oc,
                      const char *signature, const char *line)
{
    char *stem = cmd_finding_stem(in, oc);
    size_t n = strlen(o->dir) + strlen(stem) + 16;
    char *path = malloc(n);
    if (path == NULL)
        abort();
    snprintf(path, n, "%s/%s.py", o->dir, stem);
    HzReproSetup setup = {o->target_name, o->faults, o->unsupported, o->python_path,
                          o->n_python_path};
    char *script = hz_repro_script(in->source, &setup);
    int rc = cmd_write_file(path, script, strlen(script));
    free(script);
    snprintf(path, n, "%s/%s.report", o->dir, stem);
    /* A rerun of the same finding keeps the time it was first found (triage's
     * first seen). */
    char *first = cmd_report_header_value(path, "time");
    FILE *f = fopen(path, "w");
    if (f != NULL) {
        time_t now = time(NULL);
        char when[64];
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
        if (first != NULL)
            snprintf(when, sizeof when, "%s", first);
        fprintf(f, "%s\n\nverdict: %s\nsignature: %s\ninput: %s\ntarget: %s\nfaults: %s\n",
                line, or_verdict_name(oc->kind), signature ? signature : "?", in->path,
                o->target_name ? o->target_name : "?", o->faults ? o->faults : "none");
        /* the rest of the set-up, when given: `tracefuzz repro` of the finding
         * reads them back */
        if (o->unsupported != NULL)
            fprintf(f, "unsupported: %s\n", o->unsupported);
        for (size_t i = 0; i < o->n_python_path; i++)
            fprintf(f, "python-path: %s\n", o->python_path[i]);
        fprintf(f, "tracefuzz: %s (decoder version %d, observation version %d)\ncommand: %s\n"
                "time: %s\n\n",
                TF_VERSION, HZ_DECODER_VERSION, OR_OBS_VERSION, cmd_command_line(), when);
        /* The report leads with the divergence; what the caps cut is the end of
         * the program (STEM.py has it whole) and of long observations (`tracefuzz
         * run` on the input prints them again). */
        put_capped(f, oc->report ? oc->report : "", CMD_REPORT_LINES,
                   "the program is whole in the .py beside this report");
        static const char *const names[3] = {"eager run 1", "eager run 2", "target run"};
        for (int i = 0; i < 3; i++)
            if (oc->obs_text[i] != NULL) {
                fprintf(f, "\n---- observation, %s\n", names[i]);
                put_capped(f, oc->obs_text[i], CMD_OBSERVATION_LINES,
                           "rerun the input with `tracefuzz run` to see it all");
            }
        if (fclose(f) != 0)
            rc = -1;
    }
    else {
        rc = -1;
    }
    if (!in->is_source) {
        snprintf(path, n, "%s/%s.tf", o->dir, stem);
        if (cmd_write_file(path, in->data, in->size) < 0)
            rc = -1;
    }
    if (rc < 0) {
        fprintf(stderr, "tracefuzz %s: cannot write findings for %s into %s: %s\n",
                o->command ? o->command : "run", in->path, o->dir, strerror(errno));
    }
    free(first);
    free(path);
    free(stem);
    return rc;
}

