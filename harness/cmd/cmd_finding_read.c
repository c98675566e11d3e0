/* cmd_finding_read.c: reading a finding back (triage, promote): the header of
 * STEM.report (cmd_findings.c writes it), and the program of STEM.min.py or
 * STEM.py without the repro footer, with its size. Runs no Python. */
#include "cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The line that ends the program in a finding's STEM.py (part "repro"): the
 * harness code below it is not the program. */
static const char repro_marker[] =
    "# ---- tracefuzz repro: below this line runs the program above eagerly and "
    "through the JIT ----";

void cmd_program_cut_footer(char *source)
{
    for (char *line = source; line != NULL && *line; ) {
        char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        while (len > 0 && line[len - 1] == '\r')
            len--;
        if (len == sizeof repro_marker - 1 && memcmp(line, repro_marker, len) == 0) {
            *line = 0;
            return;
        }
        line = eol ? eol + 1 : NULL;
    }
}

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* A copy of the value of `key: value` in the header (lines 3.. up to the first
 * blank line), or NULL. */
static char *header_value(const char *text, const char *key)
{
    const char *p = strchr(text, '\n');   /* line 1: the verdict line */
    if (p == NULL)
        return NULL;
    p++;
    if (*p == '\n')
        p++;   /* the blank line after it */
    size_t klen = strlen(key);
    while (*p && *p != '\n') {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        if (len > klen + 1 && memcmp(p, key, klen) == 0 && p[klen] == ':' && p[klen + 1] == ' ')
            return strndup(p + klen + 2, len - klen - 2);
        if (eol == NULL)
            break;
        p = eol + 1;
    }
    return NULL;
}

/* The body of the report: after the header's blank line. */
static const char *report_body(const char *text)
{
    const char *p = strchr(text, '\n');
    if (p == NULL)
        return "";
    p++;
    if (*p == '\n')
        p++;
    const char *end = strstr(p, "\n\n");
    return end ? end + 2 : "";
}

/* The first line of the body starting with `key: `, a copy, or NULL. Looks only
 * at the start of the report (before the observations). */
static char *body_line(const char *body, const char *key)
{
    size_t klen = strlen(key);
    for (const char *p = body; *p; ) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        if (len >= 5 && memcmp(p, "---- ", 5) == 0)
            break;   /* the observations */
        if (len > klen + 2 && memcmp(p, key, klen) == 0 && p[klen] == ':' && p[klen + 1] == ' ')
            return strndup(p + klen + 2, len - klen - 2);
        if (eol == NULL)
            break;
        p = eol + 1;
    }
    return NULL;
}

char *cmd_report_header_value(const char *report_path, const char *key)
{
    char *text = cmd_read_text(report_path, 8192);   /* the header is at the start */
    if (text == NULL)
        return NULL;
    char *v = header_value(text, key);
    free(text);
    return v;
}

int cmd_finding_read(const char *report_path, CmdFindingInfo *fi)
{
    memset(fi, 0, sizeof *fi);
    /* The header and the report's first lines are at the start; the
     * observations after them can be long. */
    char *text = cmd_read_text(report_path, 1 << 20);
    if (text == NULL)
        return -1;
    fi->report = strdup(report_path);
    fi->verdict = header_value(text, "verdict");
    fi->signature = header_value(text, "signature");
    fi->input = header_value(text, "input");
    fi->target = header_value(text, "target");
    fi->faults = header_value(text, "faults");
    fi->time = header_value(text, "time");
    const char *body = report_body(text);
    fi->divergence = body_line(body, "divergence");
    if (fi->divergence == NULL)
        fi->divergence = body_line(body, "why");
    free(text);
    if (fi->signature == NULL || fi->verdict == NULL) {
        cmd_finding_info_clear(fi);
        return -1;
    }
    /* The stem: the report's file name without ".report". */
    const char *slash = strrchr(report_path, '/');
    const char *name = slash ? slash + 1 : report_path;
    size_t n = strlen(name);
    fi->stem = strndup(name, n > 7 ? n - 7 : n);
    size_t dl = (size_t)(name - report_path);
    size_t plen = strlen(report_path) + 16;
    char *p = malloc(plen);
    if (p == NULL || fi->stem == NULL || fi->report == NULL)
        abort();
    /* The reproducer: the reduced program when there is one. */
    const char *exts[] = {".min.py", ".py"};
    for (int k = 0; k < 2 && fi->program == NULL; k++) {
        snprintf(p, plen, "%.*s%s%s", (int)dl, report_path, fi->stem, exts[k]);
        if (!is_file(p))
            continue;
        char *src = cmd_read_text(p, CMD_PROGRAM_MAX);
        if (src == NULL)
            continue;
        cmd_program_cut_footer(src);
        fi->program = src;
        fi->program_path = strdup(p);
        fi->reduced = k == 0;
        fi->size = hz_program_text_size(src);
    }
    free(p);
    return 0;
}

void cmd_finding_info_clear(CmdFindingInfo *fi)
{
    free(fi->report);
    free(fi->stem);
    free(fi->verdict);
    free(fi->signature);
    free(fi->input);
    free(fi->target);
    free(fi->faults);
    free(fi->time);
    free(fi->divergence);
    free(fi->program);
    free(fi->program_path);
    memset(fi, 0, sizeof *fi);
}
