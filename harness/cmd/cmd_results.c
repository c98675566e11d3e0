/* cmd_results.c: a command's results as files for CI (docs/CLI.md "Machine-readable
 * results"): --json (tracefuzz's own versioned schema), --junit (a testcase per
 * input) and --sarif (SARIF 2.1.0, a result per signature). The command adds one
 * record per input (or per finding, for fuzz) and a few summary numbers; the writers
 * run once at the end. Every string written is escaped here, so paths and messages
 * with quotes, control bytes or '<' cannot break the files. */
#include "cmd.h"
#include "or_verdict.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RESULTS_JSON_VERSION 1
#define REPORT_CAP 16384    /* bytes of a report kept for JUnit's <failure> */

typedef struct {
    char *path, *verdict, *signature, *expected, *finding, *why, *report;
    bool passed, known;
    unsigned long count;    /* fuzz: findings of this signature; run: 1 */
    double seconds;
} Record;

typedef struct {
    char *key;
    double value;
} Number;

struct CmdResults {
    char *command, *target, *faults;
    Record *recs;
    size_t n, cap;
    Number nums[16];
    size_t nnums;
    time_t started;
};

static char *dup_or_null(const char *s)
{
    if (s == NULL)
        return NULL;
    char *d = strdup(s);
    if (d == NULL)
        abort();
    return d;
}

/* New results (owned by the caller, cmd_results_free). The strings are copied. */
CmdResults *cmd_results_new(const char *command, const char *target, const char *faults)
{
    CmdResults *r = calloc(1, sizeof *r);
    if (r == NULL)
        abort();
    r->command = dup_or_null(command);
    r->target = dup_or_null(target);
    r->faults = dup_or_null(faults);
    r->started = time(NULL);
    return r;
}

void cmd_results_set_target(CmdResults *r, const char *target)
{
    if (r == NULL)
        return;
    free(r->target);
    r->target = dup_or_null(target);
}

/* The report's `why:` line (what the verdict means for this input), or NULL. */
static char *why_of(const char *report)
{
    const char *p = report ? strstr(report, "why: ") : NULL;
    if (p == NULL || (p != report && p[-1] != '\n'))
        return NULL;
    p += 5;
    size_t n = strcspn(p, "\n");
    char *w = malloc(n + 1);
    if (w == NULL)
        abort();
    memcpy(w, p, n);
    w[n] = 0;
    return w;
}

void cmd_results_add(CmdResults *r, const CmdResult *in)
{
    if (r == NULL)
        return;
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->recs = realloc(r->recs, r->cap * sizeof *r->recs);
        if (r->recs == NULL)
            abort();
    }
    Record *c = &r->recs[r->n++];
    memset(c, 0, sizeof *c);
    c->path = dup_or_null(in->path);
    c->verdict = dup_or_null(in->verdict);
    c->signature = dup_or_null(in->signature);
    c->expected = dup_or_null(in->expected);
    c->finding = dup_or_null(in->finding);
    c->why = why_of(in->report);
    if (in->report != NULL) {
        size_t n = strlen(in->report);
        c->report = malloc((n > REPORT_CAP ? REPORT_CAP : n) + 64);
        if (c->report == NULL)
            abort();
        memcpy(c->report, in->report, n > REPORT_CAP ? REPORT_CAP : n);
        if (n > REPORT_CAP)
            sprintf(c->report + REPORT_CAP, "\n[... %zu more bytes]\n", n - REPORT_CAP);
        else
            c->report[n] = 0;
    }
    c->passed = in->passed;
    c->known = in->known;
    c->count = in->count ? in->count : 1;
    c->seconds = in->seconds;
}

void cmd_results_number(CmdResults *r, const char *key, double value)
{
    if (r == NULL || r->nnums == sizeof r->nums / sizeof r->nums[0])
        return;
    r->nums[r->nnums].key = dup_or_null(key);
    r->nums[r->nnums++].value = value;
}

void cmd_results_free(CmdResults *r)
{
    if (r == NULL)
        return;
    for (size_t i = 0; i < r->n; i++) {
        Record *c = &r->recs[i];
        free(c->path);
        free(c->verdict);
        free(c->signature);
        free(c->expected);
        free(c->finding);
        free(c->why);
        free(c->report);
    }
    for (size_t i = 0; i < r->nnums; i++)
        free(r->nums[i].key);
    free(r->recs);
    free(r->command);
    free(r->target);
    free(r->faults);
    free(r);
}

/* ---- escaping ---------------------------------------------------------------- */

/* The length of the valid UTF-8 sequence at p (1-4), or 0 when the bytes there are
 * not one (overlong forms, surrogates and code points past U+10FFFF included). */
static size_t utf8_len(const unsigned char *p)
{
    unsigned c = p[0];
    size_t n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3
             : (c & 0xf8) == 0xf0 ? 4 : 0;
    if (n == 0)
        return 0;
    unsigned cp = n == 1 ? c : c & (0x7f >> n);
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3f);
    }
    static const unsigned min[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

void cmd_json_string(FILE *f, const char *s)
{
    if (s == NULL) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = utf8_len(p);
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", f);
        else if (*p == '\t')
            fputs("\\t", f);
        else if (*p < 0x20 || *p == 0x7f || n == 0)
            fprintf(f, "\\u%04x", *p);   /* a stray byte stands for its Latin-1 code point */
        else
            fwrite(p, 1, n, f);
        p += n ? n : 1;
    }
    fputc('"', f);
}

/* s as XML character data or attribute value; control bytes XML 1.0 forbids become
 * '?', bytes >= 0x80 numeric references (Latin-1 reading: never invalid UTF-8). */
static void xml_str(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\n': fputs("&#10;", f); break;
        case '\t': fputs("&#9;", f); break;
        default:
            if (*p < 0x20 || *p == 0x7f)
                fputc('?', f);
            else if (*p >= 0x80)
                fprintf(f, "&#%u;", *p);
            else
                fputc(*p, f);
        }
    }
}

/* ---- the writers ------------------------------------------------------------- */

static FILE *open_out(const char *path, const char *what)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        fprintf(stderr, "tracefuzz: cannot write the %s file %s: %m\n", what, path);
    return f;
}

static int close_out(FILE *f, const char *path, const char *what)
{
    if (fclose(f) != 0) {
        fprintf(stderr, "tracefuzz: cannot write the %s file %s: %m\n", what, path);
        return -1;
    }
    return 0;
}

/* Distinct failing signatures, in first-seen order: indexes of their first record
 * and counts. Returns how many; *first and *counts malloc'd. */
static size_t signatures(const CmdResults *r, size_t **first, unsigned long **counts)
{
    *first = calloc(r->n + 1, sizeof **first);
    *counts = calloc(r->n + 1, sizeof **counts);
    if (*first == NULL || *counts == NULL)
        abort();
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++) {
        const Record *c = &r->recs[i];
        if (c->passed && !c->known)
            continue;
        size_t k = 0;
        while (k < n && strcmp(r->recs[(*first)[k]].signature ? r->recs[(*first)[k]].signature
                                                               : "",
                               c->signature ? c->signature : "") != 0)
            k++;
        if (k == n)
            (*first)[n++] = i;
        (*counts)[k] += c->count;
    }
    return n;
}

int cmd_results_write_json(const CmdResults *r, const char *path, int exit_status)
{
    FILE *f = open_out(path, "JSON");
    if (f == NULL)
        return -1;
    char when[64];
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&r->started));
    fprintf(f, "{\n  \"schema\": \"tracefuzz-results\",\n  \"version\": %d,\n",
            RESULTS_JSON_VERSION);
    fputs("  \"tracefuzz\": ", f);
    cmd_json_string(f, TF_VERSION);
    fprintf(f, ",\n  \"decoder_version\": %d,\n  \"observation_version\": %d,\n",
            HZ_DECODER_VERSION, OR_OBS_VERSION);
    fputs("  \"command\": ", f);
    cmd_json_string(f, r->command);
    fputs(",\n  \"command_line\": ", f);
    cmd_json_string(f, cmd_command_line());
    fputs(",\n  \"started\": ", f);
    cmd_json_string(f, when);
    fputs(",\n  \"target\": ", f);
    cmd_json_string(f, r->target);
    fputs(",\n  \"faults\": ", f);
    cmd_json_string(f, r->faults);
    fprintf(f, ",\n  \"exit_status\": %d,\n  \"summary\": {", exit_status);
    unsigned long passed = 0, failed = 0, known = 0;
    for (size_t i = 0; i < r->n; i++) {
        if (r->recs[i].known)
            known += r->recs[i].count;
        else if (r->recs[i].passed)
            passed += r->recs[i].count;
        else
            failed += r->recs[i].count;
    }
    fprintf(f, "\"passed\": %lu, \"failed\": %lu, \"known\": %lu", passed, failed, known);
    for (size_t i = 0; i < r->nnums; i++) {
        fputs(", ", f);
        cmd_json_string(f, r->nums[i].key);
        fprintf(f, ": %.17g", r->nums[i].value);
    }
    fputs("},\n  \"results\": [", f);
    for (size_t i = 0; i < r->n; i++) {
        const Record *c = &r->recs[i];
        fputs(i ? ",\n    {" : "\n    {", f);
        fputs("\"input\": ", f);
        cmd_json_string(f, c->path);
        fputs(", \"verdict\": ", f);
        cmd_json_string(f, c->verdict);
        fputs(", \"signature\": ", f);
        cmd_json_string(f, c->signature);
        fprintf(f, ", \"passed\": %s, \"known\": %s, \"count\": %lu, \"seconds\": %.3f",
                c->passed ? "true" : "false", c->known ? "true" : "false", c->count,
                c->seconds);
        fputs(", \"expected\": ", f);
        cmd_json_string(f, c->expected);
        fputs(", \"finding\": ", f);
        cmd_json_string(f, c->finding);
        fputs(", \"why\": ", f);
        cmd_json_string(f, c->why);
        fputc('}', f);
    }
    fputs(r->n ? "\n  ],\n  \"signatures\": [" : "],\n  \"signatures\": [", f);
    size_t *first;
    unsigned long *counts;
    size_t ns = signatures(r, &first, &counts);
    for (size_t k = 0; k < ns; k++) {
        const Record *c = &r->recs[first[k]];
        fputs(k ? ",\n    {" : "\n    {", f);
        fputs("\"signature\": ", f);
        cmd_json_string(f, c->signature);
        fputs(", \"verdict\": ", f);
        cmd_json_string(f, c->verdict);
        fprintf(f, ", \"count\": %lu, \"known\": %s, \"example\": ", counts[k],
                c->known ? "true" : "false");
        cmd_json_string(f, c->finding ? c->finding : c->path);
        fputc('}', f);
    }
    fputs(ns ? "\n  ]\n}\n" : "]\n}\n", f);
    free(first);
    free(counts);
    return close_out(f, path, "JSON");
}

int cmd_results_write_junit(const CmdResults *r, const char *path)
{
    FILE *f = open_out(path, "JUnit");
    if (f == NULL)
        return -1;
    unsigned long failures = 0, skipped = 0;
    double total = 0;
    for (size_t i = 0; i < r->n; i++) {
        failures += !r->recs[i].passed;
        skipped += r->recs[i].known;
        total += r->recs[i].seconds;
    }
    char when[64];
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", gmtime(&r->started));
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<testsuites name=\"tracefuzz\" tests=\"%zu\" failures=\"%lu\" errors=\"0\" "
            "skipped=\"%lu\" time=\"%.3f\">\n", r->n, failures, skipped, total);
    fputs("  <testsuite name=\"tracefuzz ", f);
    xml_str(f, r->command);
    fprintf(f, "\" tests=\"%zu\" failures=\"%lu\" errors=\"0\" skipped=\"%lu\" "
            "time=\"%.3f\" timestamp=\"%s\">\n", r->n, failures, skipped, total, when);
    fputs("    <properties>\n      <property name=\"target\" value=\"", f);
    xml_str(f, r->target);
    fputs("\"/>\n      <property name=\"faults\" value=\"", f);
    xml_str(f, r->faults ? r->faults : "none");
    fputs("\"/>\n      <property name=\"tracefuzz\" value=\"" TF_VERSION "\"/>\n"
          "    </properties>\n", f);
    for (size_t i = 0; i < r->n; i++) {
        const Record *c = &r->recs[i];
        fputs("    <testcase classname=\"tracefuzz.", f);
        xml_str(f, r->command);
        fputs("\" name=\"", f);
        xml_str(f, c->path);
        fprintf(f, "\" time=\"%.3f\"", c->seconds);
        if (c->passed && !c->known) {
            fputs("/>\n", f);
            continue;
        }
        fputs(">\n", f);
        if (c->known) {
            fputs("      <skipped message=\"known (baseline): ", f);
            xml_str(f, c->signature);
            fputs("\"/>\n", f);
        }
        else {
            fputs("      <failure type=\"", f);
            xml_str(f, c->verdict);
            fputs("\" message=\"", f);
            xml_str(f, c->signature);
            if (c->expected != NULL) {
                fputs(" (expected ", f);
                xml_str(f, c->expected);
                fputc(')', f);
            }
            fputs("\">", f);
            if (c->finding != NULL) {
                fputs("finding: ", f);
                xml_str(f, c->finding);
                fputs("&#10;", f);
            }
            xml_str(f, c->report);
            fputs("</failure>\n", f);
        }
        fputs("    </testcase>\n", f);
    }
    fputs("  </testsuite>\n</testsuites>\n", f);
    return close_out(f, path, "JUnit");
}

/* What a verdict means, for SARIF's rules. */
static const char *verdict_description(const char *v)
{
    static const char *const d[][2] = {
        {"PROVENANCE", "the target's provenance check failed: a value's recorded origin does "
                       "not match where it came from"},
        {"TARGET_CRASH", "the target crashed or raised an error of its own that eager "
                         "CPython did not"},
        {"TIMEOUT", "the target ran over the time limit"},
        {"OOM", "the target ran out of memory (--memory-limit)"},
        {"MISMATCH_EXCEPTION", "an exception differs between eager CPython and the target"},
        {"MISMATCH_RESULT", "a result of program() differs between eager CPython and the target"},
        {"MISMATCH_EVENTS", "the descriptor events (LOG) differ between eager CPython and the "
                            "target"},
        {"MISMATCH_STATE", "the final state of the objects differs between eager CPython and "
                           "the target"},
        {"UNSUPPORTED", "the target declined to trace the program (--strict)"},
        {"INVALID", "the input is not a valid program (a corpus error)"},
        {"NONDETERMINISTIC", "two eager runs differ (a generator or corpus error)"},
    };
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
        if (strcmp(d[i][0], v) == 0)
            return d[i][1];
    return "the input failed";
}

/* A path as a URI reference: absolute paths as file:// URIs, characters outside
 * RFC 3986's unreserved set and '/' percent-encoded. */
static void uri_str(FILE *f, const char *path)
{
    fputc('"', f);
    if (path[0] == '/')
        fputs("file://", f);
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            *p == '-' || *p == '.' || *p == '_' || *p == '~' || *p == '/')
            fputc(*p, f);
        else
            fprintf(f, "%%%02X", *p);
    }
    fputc('"', f);
}

/* The line of `def program(` in a reproducer (the statement every finding runs
 * through the target), or 1. */
static int program_line(const char *file)
{
    FILE *f = file ? fopen(file, "r") : NULL;
    if (f == NULL)
        return 1;
    char line[4096];
    int n = 0, found = 1;
    while (fgets(line, sizeof line, f) != NULL) {
        n++;
        if (strncmp(line, "def program(", 12) == 0) {
            found = n;
            break;
        }
    }
    fclose(f);
    return found;
}

int cmd_results_write_sarif(const CmdResults *r, const char *path)
{
    FILE *f = open_out(path, "SARIF");
    if (f == NULL)
        return -1;
    size_t *first;
    unsigned long *counts;
    size_t ns = signatures(r, &first, &counts);
    fputs("{\n  \"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\",\n"
          "  \"version\": \"2.1.0\",\n  \"runs\": [{\n    \"tool\": {\"driver\": {"
          "\"name\": \"tracefuzz\", \"version\": \"" TF_VERSION "\", "
          "\"informationUri\": \"https://github.com/tracefuzz/tracefuzz\", \"rules\": [", f);
    /* One rule per verdict met (the signature is the result's fingerprint). */
    size_t nrules = 0;
    const char *rules[64];
    for (size_t k = 0; k < ns; k++) {
        const char *v = r->recs[first[k]].verdict ? r->recs[first[k]].verdict : "FAILED";
        size_t j = 0;
        while (j < nrules && strcmp(rules[j], v) != 0)
            j++;
        if (j == nrules && nrules < 64) {
            rules[nrules++] = v;
            fputs(nrules > 1 ? ",\n      {\"id\": " : "\n      {\"id\": ", f);
            cmd_json_string(f, v);
            fputs(", \"shortDescription\": {\"text\": ", f);
            cmd_json_string(f, verdict_description(v));
            fputs("}}", f);
        }
    }
    fputs(nrules ? "\n    ]}},\n" : "]}},\n", f);
    fputs("    \"invocations\": [{\"executionSuccessful\": true, \"commandLine\": ", f);
    cmd_json_string(f, cmd_command_line());
    fputs("}],\n    \"results\": [", f);
    for (size_t k = 0; k < ns; k++) {
        const Record *c = &r->recs[first[k]];
        const char *where = c->finding ? c->finding : c->path;
        char *py = NULL;
        if (c->finding != NULL) {   /* the reproducer: STEM.py */
            py = malloc(strlen(c->finding) + 4);
            if (py == NULL)
                abort();
            sprintf(py, "%s.py", c->finding);
            where = py;
        }
        fputs(k ? ",\n      {\"ruleId\": " : "\n      {\"ruleId\": ", f);
        cmd_json_string(f, c->verdict ? c->verdict : "FAILED");
        fprintf(f, ", \"level\": \"%s\", \"message\": {\"text\": ",
                c->known ? "note" : "error");
        char msg[2048];
        snprintf(msg, sizeof msg, "%s%s (%lu input%s)%s%s", c->known ? "known: " : "",
                 c->signature ? c->signature : "?", counts[k], counts[k] == 1 ? "" : "s",
                 c->why ? ": " : "", c->why ? c->why : "");
        cmd_json_string(f, msg);
        fputs("},\n       \"locations\": [{\"physicalLocation\": {\"artifactLocation\": "
              "{\"uri\": ", f);
        uri_str(f, where);
        fprintf(f, "}, \"region\": {\"startLine\": %d}}}],\n", program_line(where));
        fputs("       \"partialFingerprints\": {\"tracefuzzSignature/v1\": ", f);
        cmd_json_string(f, c->signature);
        fprintf(f, "}, \"properties\": {\"count\": %lu}}", counts[k]);
        free(py);
    }
    fputs(ns ? "\n    ]\n  }]\n}\n" : "]\n  }]\n}\n", f);
    free(first);
    free(counts);
    return close_out(f, path, "SARIF");
}
