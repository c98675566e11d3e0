/* cmd_statscsv.c: a fuzz campaign's time series, OUT/stats.csv: written by `fuzz`
 * (a row per progress tick, then a row per signature after the replay), read by
 * `plot`. The format lives here only (docs/CLI.md, "stats.csv"):
 *
 *   unix_time,elapsed_s,execs,execs_per_s,cov,ft,map_pct,corpus,crashes,signature,findings
 *
 * Tick rows leave signature and findings empty; cov/ft (libFuzzer's edges and
 * features) or map_pct (AFL++'s map coverage) are empty where the engine has none.
 * execs_per_s is the rate since the previous tick of the run. A signature row has
 * unix_time/elapsed_s of the first artifact of that signature (when the engine saved
 * it), the signature (quoted, RFC 4180) and its number of findings, the rest empty.
 * Each `fuzz` run appends; a run's elapsed_s starts again from 0. */
#include "cmd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define CSV_HEADER \
    "unix_time,elapsed_s,execs,execs_per_s,cov,ft,map_pct,corpus,crashes,signature,findings"
#define CSV_FIELDS 11

/* ---- writer: one run of `fuzz` per process ---- */

typedef struct {
    char *signature;
    double first;          /* unix time of its earliest artifact */
    unsigned long count;
} CsvSig;

static FILE *csv;
static double run_t0;      /* unix time of the run's elapsed 0 */
static bool have_tick;
static double prev_elapsed;
static unsigned long long prev_execs;
static CsvSig *sigs;
static size_t nsigs;

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int cmd_statscsv_open(const char *path)
{
    if (csv != NULL)
        return 0;
    csv = fopen(path, "a");
    if (csv == NULL)
        return -1;
    /* "a" positions at the end: an empty file is a new one, it gets the header. */
    if (ftell(csv) == 0)
        fprintf(csv, "%s\n", CSV_HEADER);
    fflush(csv);
    run_t0 = wall_now();
    have_tick = false;
    prev_elapsed = 0;
    prev_execs = 0;
    return 0;
}

/* A number, or nothing when it does not apply. */
static void put_long(long v)
{
    if (v >= 0)
        fprintf(csv, "%ld", v);
    fputc(',', csv);
}

void cmd_statscsv_tick(const CmdStatsTick *t)
{
    if (csv == NULL)
        return;
    double now = wall_now();
    if (!have_tick)
        run_t0 = now - t->elapsed;
    have_tick = true;
    /* The rate over the interval, as afl-plot draws it; the overall rate hides stalls. */
    double dt = t->elapsed - prev_elapsed;
    double rate = dt > 0.5 ? (double)(t->execs - prev_execs) / dt
                  : t->elapsed > 0 ? (double)t->execs / t->elapsed : 0.0;
    if (t->execs < prev_execs)
        rate = 0;
    fprintf(csv, "%.3f,%.3f,%llu,%.1f,", now, t->elapsed, t->execs, rate);
    put_long(t->cov);
    put_long(t->ft);
    if (t->map_pct >= 0)
        fprintf(csv, "%.2f", t->map_pct);
    fputc(',', csv);
    put_long(t->corpus);
    fprintf(csv, "%lu,,\n", t->crashes);
    fflush(csv);   /* an interrupted campaign keeps its rows */
    if (dt > 0.5) {
        prev_elapsed = t->elapsed;
        prev_execs = t->execs;
    }
}

void cmd_statscsv_finding(const char *artifact, const char *signature)
{
    if (csv == NULL)
        return;
    struct stat st;
    double when = stat(artifact, &st) == 0
                      ? (double)st.st_mtim.tv_sec + (double)st.st_mtim.tv_nsec / 1e9
                      : wall_now();
    size_t k = 0;
    while (k < nsigs && strcmp(sigs[k].signature, signature) != 0)
        k++;
    if (k == nsigs) {
        CsvSig *grown = realloc(sigs, (nsigs + 1) * sizeof *sigs);
        char *copy = strdup(signature);
        if (grown == NULL || copy == NULL)
            abort();
        sigs = grown;
        sigs[nsigs++] = (CsvSig){copy, when, 0};
    }
    if (when < sigs[k].first)
        sigs[k].first = when;
    sigs[k].count++;
}

void cmd_statscsv_close(void)
{
    if (csv == NULL)
        return;
    for (size_t k = 0; k < nsigs; k++) {
        double el = sigs[k].first - run_t0;
        fprintf(csv, "%.3f,%.3f,,,,,,,,\"", sigs[k].first, el > 0 ? el : 0.0);
        /* RFC 4180 quoting; a line break would end the row: a space instead. */
        for (const char *c = sigs[k].signature; *c; c++) {
            if (*c == '"')
                fputc('"', csv);
            fputc(*c == '\n' || *c == '\r' ? ' ' : *c, csv);
        }
        fprintf(csv, "\",%lu\n", sigs[k].count);
        free(sigs[k].signature);
    }
    free(sigs);
    sigs = NULL;
    nsigs = 0;
    fclose(csv);
    csv = NULL;
}

/* ---- reader ---- */

/* Splits line (modified in place) into at most max fields, unquoting RFC 4180
 * fields. Returns the number of fields, or -1 for an unterminated quote. */
static int split_fields(char *line, char **f, int max)
{
    int n = 0;
    char *p = line;
    for (;;) {
        if (n == max)
            return max + 1;   /* too many */
        if (*p == '"') {
            char *w = ++p;
            f[n++] = w;
            for (;;) {
                if (*p == 0)
                    return -1;
                if (*p == '"' && p[1] == '"') {
                    *w++ = '"';
                    p += 2;
                }
                else if (*p == '"') {
                    p++;
                    break;
                }
                else {
                    *w++ = *p++;
                }
            }
            *w = 0;
            if (*p == 0)
                return n;
            if (*p != ',')
                return -1;
            p++;
        }
        else {
            f[n++] = p;
            char *c = strchr(p, ',');
            if (c == NULL)
                return n;
            *c = 0;
            p = c + 1;
        }
    }
}

/* Field as a number: *v, or -1 when empty. 0, or -1 when not a number. */
static int field_num(const char *s, double *v)
{
    if (*s == 0) {
        *v = -1;
        return 0;
    }
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return errno == 0 && *end == 0 ? 0 : -1;
}

static const char *const field_names[CSV_FIELDS] = {
    "unix_time", "elapsed_s", "execs", "execs_per_s", "cov", "ft", "map_pct", "corpus",
    "crashes", "signature", "findings"};

int cmd_statscsv_read(const char *path, CmdStatsSeries *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    unsigned long lineno = 0;
    double offset = 0, last_el = -1;   /* runs follow each other on the time axis */
    int rc = 0;
    size_t rcap = 0, fcap = 0;
    while ((len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = 0;
        if (lineno == 1) {
            if (strcmp(line, CSV_HEADER) != 0) {
                snprintf(err, errlen, "%s:1: not a tracefuzz stats.csv (header is not '%s')",
                         path, CSV_HEADER);
                rc = -1;
                break;
            }
            continue;
        }
        if (len == 0)
            continue;
        char *fl[CSV_FIELDS];
        int n = split_fields(line, fl, CSV_FIELDS);
        if (n != CSV_FIELDS) {
            if (n < 0)
                snprintf(err, errlen, "%s:%lu: unterminated quoted field", path, lineno);
            else
                snprintf(err, errlen, "%s:%lu: %s%d fields, want %d", path, lineno,
                         n > CSV_FIELDS ? "more than " : "", n > CSV_FIELDS ? CSV_FIELDS : n,
                         CSV_FIELDS);
            rc = -1;
            break;
        }
        double v[CSV_FIELDS];
        int bad = -1;
        for (int i = 0; i < CSV_FIELDS && bad < 0; i++)
            if (i != 9 && field_num(fl[i], &v[i]) < 0)
                bad = i;
        bool finding = *fl[9] != 0;
        /* Required: the times, then execs for ticks, the count for findings. */
        if (bad < 0 && (v[0] < 0 || v[1] < 0))
            bad = v[0] < 0 ? 0 : 1;
        if (bad < 0 && !finding && v[2] < 0)
            bad = 2;
        if (bad < 0 && finding && v[10] < 1)
            bad = 10;
        if (bad >= 0) {
            snprintf(err, errlen, "%s:%lu: bad %s '%s'", path, lineno, field_names[bad],
                     fl[bad]);
            rc = -1;
            break;
        }
        if (finding) {
            if (s->nfinds == fcap) {
                fcap = fcap ? 2 * fcap : 16;
                s->finds = realloc(s->finds, fcap * sizeof *s->finds);
                if (s->finds == NULL)
                    abort();
            }
            CmdStatsFinding *d = &s->finds[s->nfinds++];
            d->signature = strdup(fl[9]);
            if (d->signature == NULL)
                abort();
            d->t = offset + v[1];
            d->count = (unsigned long)v[10];
            continue;
        }
        if (last_el >= 0 && v[1] < last_el)
            offset += last_el;   /* a new run: it starts where the last one ended */
        last_el = v[1];
        if (s->nrows == rcap) {
            rcap = rcap ? 2 * rcap : 64;
            s->rows = realloc(s->rows, rcap * sizeof *s->rows);
            if (s->rows == NULL)
                abort();
        }
        CmdStatsRow *r = &s->rows[s->nrows++];
        r->t = offset + v[1];
        r->execs = v[2];
        r->execs_per_s = v[3];
        r->cov = v[4];
        r->ft = v[5];
        r->map_pct = v[6];
        r->corpus = v[7];
        r->crashes = v[8];
    }
    if (rc == 0 && lineno == 0) {
        snprintf(err, errlen, "%s: empty (no header)", path);
        rc = -1;
    }
    if (rc == 0 && s->nrows == 0) {
        snprintf(err, errlen, "%s: no progress rows", path);
        rc = -1;
    }
    free(line);
    fclose(f);
    if (rc < 0)
        cmd_statscsv_free(s);
    return rc;
}

void cmd_statscsv_free(CmdStatsSeries *s)
{
    for (size_t i = 0; i < s->nfinds; i++)
        free(s->finds[i].signature);
    free(s->finds);
    free(s->rows);
    memset(s, 0, sizeof *s);
}
