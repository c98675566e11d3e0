/* tracefuzz plot: a fuzz campaign as a picture. This comment is its manual (docs/CLI.md
 * has the same with an example).
 *
 *   Reads OUT/stats.csv, the time series `tracefuzz fuzz --out OUT` appends to (a row
 *   per progress line, findings per signature after the replay; cmd_statscsv.c), and
 *   writes one self-contained SVG, as afl-plot draws AFL's plot_data: one panel per
 *   series over the campaign's time (runs appended to one file follow each other):
 *   execs/s, coverage (libFuzzer's edges and features, or AFL++'s map coverage) and
 *   corpus size, each a polyline with labelled axes; each signature's first finding
 *   is a red mark at the time its input was saved, in every panel, listed with its
 *   count under the panels. Written in C: no Python, no gnuplot; CI keeps the file as
 *   an artifact. -o FILE (default OUT/stats.svg); OUT may also be the CSV itself.
 *   Exit status: 0, or 2 (one line on stderr) when the CSV is missing, is not a
 *   tracefuzz stats.csv, has a malformed row or no rows, or FILE cannot be written.
 */
#include "cmd.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_plot[] =
    "usage: tracefuzz plot OUT [-o FILE.svg]\n"
    "\n"
    "Renders OUT/stats.csv (written by `tracefuzz fuzz --out OUT`) as an SVG: execs/s,\n"
    "coverage and corpus size over time, findings as marks. OUT may be the CSV file.\n"
    "Exit 0, or 2 when the CSV is missing or malformed.\n"
    "\n"
    "  -o FILE     where the SVG goes (default OUT/stats.svg)\n";

#define PLOT_W 960.0
#define PLOT_LEFT 90.0
#define PLOT_RIGHT 30.0
#define PANEL_H 150.0
#define PANEL_GAP 55.0
#define PLOT_TOP 60.0

typedef struct {
    const char *title;
    const char *color;
    size_t field;   /* offset of the double in CmdStatsRow */
} PlotPanel;

#define FIELD(name) offsetof(CmdStatsRow, name)

static double row_value(const CmdStatsRow *r, size_t field)
{
    return *(const double *)((const char *)r + field);
}

/* A step of 1, 2 or 5 times a power of ten giving about n ticks over [0, max]. */
static double nice_step(double max, int n)
{
    if (max <= 0)
        return 1;
    double raw = max / n;
    double p = pow(10, floor(log10(raw)));
    double m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

/* A tick label: 1200 -> 1.2k, 3000000 -> 3M. */
static void tick_label(double v, char *buf, size_t n)
{
    if (fabs(v) >= 1e6)
        snprintf(buf, n, "%gM", v / 1e6);
    else if (fabs(v) >= 1e4)
        snprintf(buf, n, "%gk", v / 1e3);
    else
        snprintf(buf, n, "%g", v);
}

static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default:
            /* Control characters are not allowed in XML 1.0. */
            fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
        }
    }
}

static void draw_panel(FILE *f, const CmdStatsSeries *s, const PlotPanel *p, double top,
                       double tmax)
{
    double w = PLOT_W - PLOT_LEFT - PLOT_RIGHT;
    double ymax = 0, ymin = -1;
    for (size_t i = 0; i < s->nrows; i++) {
        double v = row_value(&s->rows[i], p->field);
        if (v > ymax)
            ymax = v;
        if (v >= 0 && (ymin < 0 || v < ymin))
            ymin = v;
    }
    /* From 0, unless the series stays in its upper half (edges grow from 3,000 to
     * 3,136): then from a round number below it, so that growth shows. */
    double ystep = nice_step(ymax, 4), ybase = 0;
    if (ymin > ymax / 2 && ymax > ymin) {
        ystep = nice_step(ymax - ymin, 4);
        ybase = ystep * floor(ymin / ystep);
    }
    double ytop = ystep * ceil(ymax / ystep);
    if (ytop <= ybase)
        ytop = ybase + ystep;
    double bottom = top + PANEL_H;
#define X(t) (PLOT_LEFT + (t) / tmax * w)
#define Y(v) (bottom - ((v) - ybase) / (ytop - ybase) * PANEL_H)
    fprintf(f, "<g class=\"panel\">\n<text x=\"%.1f\" y=\"%.1f\" class=\"title\">", PLOT_LEFT,
            top - 8);
    xml_text(f, p->title);
    fputs("</text>\n", f);
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" class=\"frame\"/>\n",
            PLOT_LEFT, top, w, PANEL_H);
    char lab[32];
    for (double v = ybase; v <= ytop + ystep / 2; v += ystep) {
        tick_label(v, lab, sizeof lab);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>"
                "<text x=\"%.1f\" y=\"%.1f\" class=\"ylab\">%s</text>\n", PLOT_LEFT, Y(v),
                PLOT_LEFT + w, Y(v), PLOT_LEFT - 6, Y(v) + 4, lab);
    }
    double xstep = nice_step(tmax, 8);
    for (double t = 0; t <= tmax + xstep / 100; t += xstep) {
        tick_label(t, lab, sizeof lab);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"tick\"/>"
                "<text x=\"%.1f\" y=\"%.1f\" class=\"xlab\">%s</text>\n", X(t), bottom, X(t),
                bottom + 4, X(t), bottom + 16, lab);
    }
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"axis\">time (s)</text>\n",
            PLOT_LEFT + w, bottom + 30);
    fprintf(f, "<polyline class=\"series\" stroke=\"%s\" points=\"", p->color);
    size_t npts = 0;
    double lx = 0, ly = 0;
    for (size_t i = 0; i < s->nrows; i++) {
        double v = row_value(&s->rows[i], p->field);
        if (v >= 0) {
            lx = X(s->rows[i].t);
            ly = Y(v);
            fprintf(f, "%.1f,%.1f ", lx, ly);
            npts++;
        }
    }
    if (npts == 1)   /* a run shorter than a progress tick: a dot (round caps) */
        fprintf(f, "%.1f,%.1f ", lx, ly);
    fputs("\"/>\n", f);
    for (size_t i = 0; i < s->nfinds; i++) {
        fprintf(f, "<circle class=\"finding\" cx=\"%.1f\" cy=\"%.1f\" r=\"5\"><title>",
                X(s->finds[i].t), bottom);
        xml_text(f, s->finds[i].signature);
        fprintf(f, " (%lu)</title></circle>\n", s->finds[i].count);
    }
    fputs("</g>\n", f);
#undef X
#undef Y
}

static int write_svg(FILE *f, const CmdStatsSeries *s, const char *name)
{
    static const PlotPanel all[] = {
        {"execs/s (since the previous row)", "#1f77b4", FIELD(execs_per_s)},
        {"coverage: edges (libFuzzer cov)", "#2ca02c", FIELD(cov)},
        {"coverage: features (libFuzzer ft)", "#17becf", FIELD(ft)},
        {"coverage: AFL++ map (%)", "#2ca02c", FIELD(map_pct)},
        {"corpus (inputs)", "#9467bd", FIELD(corpus)},
    };
    PlotPanel panels[sizeof all / sizeof all[0]];
    size_t np = 0;
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
        bool any = false;
        for (size_t i = 0; i < s->nrows && !any; i++)
            any = row_value(&s->rows[i], all[k].field) >= 0;
        /* execs/s and the corpus are always drawn; coverage as the engine has it. */
        if (any || all[k].field == FIELD(execs_per_s) || all[k].field == FIELD(corpus))
            panels[np++] = all[k];
    }
    double tmax = 0;
    for (size_t i = 0; i < s->nrows; i++)
        tmax = fmax(tmax, s->rows[i].t);
    for (size_t i = 0; i < s->nfinds; i++)
        tmax = fmax(tmax, s->finds[i].t);
    if (tmax <= 0)
        tmax = 1;
    double legend = PLOT_TOP + np * (PANEL_H + PANEL_GAP);
    double h = legend + 20 + 18.0 * (s->nfinds ? s->nfinds : 1) + 10;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n"
            "<style>.frame{fill:none;stroke:#444}.grid{stroke:#ddd}.tick{stroke:#444}"
            ".series{fill:none;stroke-width:1.5;stroke-linecap:round}.finding{fill:#d62728;stroke:#fff}"
            ".ylab{text-anchor:end}.xlab{text-anchor:middle}.axis{text-anchor:end;"
            "fill:#444}.title{font-weight:bold}</style>\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n", PLOT_W, h, PLOT_W, h);
    const CmdStatsRow *last = &s->rows[s->nrows - 1];
    fprintf(f, "<text x=\"%.1f\" y=\"24\" font-size=\"15\" class=\"title\">tracefuzz "
            "campaign: ", PLOT_LEFT);
    xml_text(f, name);
    fprintf(f, "</text>\n<text x=\"%.1f\" y=\"42\">%.0f s, %.0f execs in the last run, "
            "%zu signature%s found</text>\n", PLOT_LEFT, tmax, last->execs, s->nfinds,
            s->nfinds == 1 ? "" : "s");
    for (size_t k = 0; k < np; k++)
        draw_panel(f, s, &panels[k], PLOT_TOP + 14 + k * (PANEL_H + PANEL_GAP), tmax);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"title\">findings (first at, count, "
            "signature)</text>\n", PLOT_LEFT, legend + 14);
    if (s->nfinds == 0)
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">none</text>\n", PLOT_LEFT, legend + 32);
    for (size_t i = 0; i < s->nfinds; i++) {
        double y = legend + 32 + 18.0 * i;
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"#d62728\"/>"
                "<text x=\"%.1f\" y=\"%.1f\">%.0f s  %lu  ", PLOT_LEFT + 5, y - 4,
                PLOT_LEFT + 16, y, s->finds[i].t, s->finds[i].count);
        xml_text(f, s->finds[i].signature);
        fputs("</text>\n", f);
    }
    fputs("</svg>\n", f);
    return ferror(f) ? -1 : 0;
}

int cmd_plot(int argc, char **argv)
{
    const char *out = NULL, *svg = NULL;
    for (int i = 0; i < argc; i++) {
        if (cmd_is_help(argv[i])) {
            fputs(usage_plot, stdout);
            return 0;
        }
        if (strcmp(argv[i], "-o") == 0) {
            if (i + 1 >= argc)
                return cmd_usage_error(usage_plot, "%s needs a value", argv[i]);
            svg = argv[++i];
        }
        else if (argv[i][0] == '-' && argv[i][1] != 0) {
            return cmd_usage_error(usage_plot, "unknown option %s", argv[i]);
        }
        else if (out == NULL) {
            out = argv[i];
        }
        else {
            return cmd_usage_error(usage_plot, "unexpected argument %s", argv[i]);
        }
    }
    if (out == NULL)
        return cmd_usage_error(usage_plot, "%s", "no OUT directory given");
    char csv[4096], defsvg[4096];
    if (cmd_is_dir(out)) {
        snprintf(csv, sizeof csv, "%s/stats.csv", out);
        snprintf(defsvg, sizeof defsvg, "%s/stats.svg", out);
    }
    else {
        snprintf(csv, sizeof csv, "%s", out);
        size_t n = strlen(out);
        snprintf(defsvg, sizeof defsvg, "%.*s.svg",
                 (int)(n > 4 && strcmp(out + n - 4, ".csv") == 0 ? n - 4 : n), out);
    }
    if (svg == NULL)
        svg = defsvg;
    CmdStatsSeries s;
    char err[4200];
    if (cmd_statscsv_read(csv, &s, err, sizeof err) < 0) {
        fprintf(stderr, "tracefuzz plot: %s\n", err);
        return EXIT_USAGE;
    }
    FILE *f = fopen(svg, "w");
    if (f == NULL) {
        fprintf(stderr, "tracefuzz plot: cannot write %s: %s\n", svg, strerror(errno));
        cmd_statscsv_free(&s);
        return EXIT_USAGE;
    }
    int rc = write_svg(f, &s, out);
    if (fclose(f) != 0 || rc < 0) {
        fprintf(stderr, "tracefuzz plot: cannot write %s: %s\n", svg, strerror(errno));
        cmd_statscsv_free(&s);
        return EXIT_USAGE;
    }
    printf("tracefuzz plot: %s (%zu rows, %zu signature%s)\n", svg, s.nrows, s.nfinds,
           s.nfinds == 1 ? "" : "s");
    cmd_statscsv_free(&s);
    return 0;
}
