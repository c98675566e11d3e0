/* or_report.c: the human report of a verdict: what was decided and why, the first
 * divergence side by side (a few lines of context, the differing line marked,
 * then both differing lines in full), whether only an exception message differs,
 * the target's own message, and the program at the end, so that a report read
 * alone is enough to reproduce and understand the finding. */
#include "or_internal.h"

#include <stdlib.h>
#include <string.h>

#define CONTEXT 3     /* lines shown before and after the first differing line */
#define COLUMN  56    /* width of one side in the side-by-side view */

/* One side's cell: the line cut to COLUMN characters ("~" marks a cut), padded. */
static void
put_cell(OrBuf *b, const OrLine *l, int pad)
{
    size_t n = 0;
    if (l != NULL) {
        n = l->len;
        if (n > COLUMN) {
            or_buf_putn(b, l->start, COLUMN - 1);
            or_buf_putc(b, '~');
            n = COLUMN;
        }
        else {
            or_buf_putn(b, l->start, n);
        }
    }
    for (; pad && n < COLUMN; n++) {
        or_buf_putc(b, ' ');
    }
}

/* Text from the input (the program, the target's messages) as the report echoes it:
 * control bytes escaped (\xNN; a terminal must not obey them), lines cut at
 * OR_REPORT_LINE_MAX bytes, and only the first and last OR_REPORT_EDGE_LINES lines of
 * a longer text (a 5 MB program must not flood stderr). */
#define OR_REPORT_EDGE_LINES 200
#define OR_REPORT_LINE_MAX 1000

static void
put_escaped_line(OrBuf *b, const char *p, size_t len, const char *indent)
{
    or_buf_puts(b, indent);
    size_t shown = len < OR_REPORT_LINE_MAX ? len : OR_REPORT_LINE_MAX;
    for (size_t i = 0; i < shown; i++) {
        unsigned char c = (unsigned char)p[i];
        if ((c < 0x20 && c != '\t') || c == 0x7f) {
            or_buf_printf(b, "\\x%02x", c);
        } else {
            or_buf_putc(b, (char)c);
        }
    }
    if (shown < len) {
        or_buf_printf(b, " ... (%zu more bytes)", len - shown);
    }
    or_buf_putc(b, '\n');
}

static void
put_capped(OrBuf *b, const char *text, const char *indent)
{
    size_t lines = 0;
    for (const char *p = text; *p; lines++) {
        const char *nl = strchr(p, '\n');
        p = nl ? nl + 1 : p + strlen(p);
    }
    size_t i = 0;
    for (const char *p = text; *p; i++) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (lines > 2 * OR_REPORT_EDGE_LINES && i == OR_REPORT_EDGE_LINES) {
            or_buf_printf(b, "%s... (%zu lines left out)\n", indent,
                          lines - 2 * OR_REPORT_EDGE_LINES);
        }
        if (lines <= 2 * OR_REPORT_EDGE_LINES || i < OR_REPORT_EDGE_LINES
            || i >= lines - OR_REPORT_EDGE_LINES) {
            put_escaped_line(b, p, len, indent);
        }
        p += len + (nl ? 1 : 0);
    }
}

/* One sentence classifying the first differing lines, for a human reader. */
static void
put_difference(OrBuf *b, const OrReportCtx *ctx, const OrLine *x, const OrLine *y)
{
    const char *la = ctx->label_a, *lb = ctx->label_b;
    or_buf_puts(b, "difference: ");
    if (x == NULL || y == NULL) {
        or_buf_printf(b, "%s has more lines here (more contents, or a longer structure)\n",
                      x == NULL ? lb : la);
        return;
    }
    size_t px = or_line_path_len(x), py = or_line_path_len(y);
    if (px != py || memcmp(x->start, y->start, px) != 0 || px + 3 > x->len
        || py + 3 > y->len) {
        const char *path = ctx->div->path;
        if (strlen(path) == py && memcmp(path, y->start, py) == 0) {
            or_buf_printf(b, "structure: %s has an entry here that %s lacks (%s)\n", lb, la,
                          path);
        }
        else {
            or_buf_puts(b, "structure: the two sides reach different paths here "
                        "(an entry on one side only, or contents in another order)\n");
        }
        return;
    }
    const char *vx = x->start + px + 3, *vy = y->start + py + 3;
    size_t nx = x->len - px - 3, ny = y->len - py - 3;
    int rx = nx >= 6 && memcmp(vx, "raise ", 6) == 0;
    int ry = ny >= 6 && memcmp(vy, "raise ", 6) == 0;
    if (rx != ry) {
        or_buf_printf(b, "exception: %s raises where %s returns\n", rx ? la : lb,
                      rx ? lb : la);
    }
    else if (or_value_is_backref(vx, nx) && or_value_is_new_object(vy, ny)) {
        or_buf_printf(b, "identity: %s has an object seen before (%.*s) where %s has a new "
                      "one\n", la, (int)nx, vx, lb);
    }
    else if (or_value_is_new_object(vx, nx) && or_value_is_backref(vy, ny)) {
        or_buf_printf(b, "identity: %s has a new object where %s has one seen before (%.*s)"
                      "\n", la, lb, (int)ny, vy);
    }
    else if (or_value_is_backref(vx, nx) && or_value_is_backref(vy, ny)) {
        or_buf_puts(b, "identity: the two sides refer to different objects seen before\n");
    }
    else {
        or_buf_puts(b, "value: the same path holds different values\n");
    }
}

/* "PATH: eager VALUE, target VALUE" (each cut at COLUMN), for the one-line
 * divergence. */
static void
put_one_line(OrBuf *o, const OrReportCtx *ctx, const OrLine *x, const OrLine *y)
{
    or_buf_printf(o, "%s: ", ctx->div->path);
    const OrLine *side[2] = {x, y};
    const char *label[2] = {ctx->label_a, ctx->label_b};
    for (int i = 0; i < 2; i++) {
        or_buf_printf(o, "%s%s ", i ? ", " : "", label[i]);
        if (side[i] == NULL) {
            or_buf_puts(o, "(nothing)");
            continue;
        }
        size_t n;
        const char *v = or_line_value(side[i], &n);
        if (n == 0) {
            v = side[i]->start;
            n = side[i]->len;
        }
        or_buf_putn(o, v, n > COLUMN ? COLUMN - 1 : n);
        if (n > COLUMN) {
            or_buf_putc(o, '~');
        }
    }
}

static int
put_side_by_side(OrBuf *b, const OrReportCtx *ctx, OrBuf *one_line)
{
    const OrDivergence *d = ctx->div;
    OrLine *la = NULL, *lb = NULL;
    size_t na = 0, nb = 0;
    if (or_lines_split(ctx->a->section[d->section], &la, &na) < 0
        || or_lines_split(ctx->b->section[d->section], &lb, &nb) < 0) {
        free(la);
        return -1;
    }
    put_one_line(one_line, ctx, d->line < na ? &la[d->line] : NULL,
                 d->line < nb ? &lb[d->line] : NULL);
    or_buf_printf(b, "\nfirst divergence: section [%s], line %zu, path %s\n",
                  or_section_name(d->section), d->line + 1, d->path);
    put_difference(b, ctx, d->line < na ? &la[d->line] : NULL,
                   d->line < nb ? &lb[d->line] : NULL);
    if (d->only_message) {
        or_buf_puts(b, "note: only the exception message differs (same type)\n");
    }
    or_buf_puts(b, "\n  ");
    OrLine ha = {ctx->label_a, strlen(ctx->label_a)};
    OrLine hb = {ctx->label_b, strlen(ctx->label_b)};
    put_cell(b, &ha, 1);
    or_buf_puts(b, " | ");
    put_cell(b, &hb, 0);
    or_buf_putc(b, '\n');
    size_t from = d->line > CONTEXT ? d->line - CONTEXT : 0;
    size_t to = d->line + CONTEXT + 1;
    for (size_t i = from; i < to && (i < na || i < nb); i++) {
        const OrLine *x = i < na ? &la[i] : NULL, *y = i < nb ? &lb[i] : NULL;
        int same = x && y && x->len == y->len && memcmp(x->start, y->start, x->len) == 0;
        or_buf_puts(b, same ? "  " : "> ");
        put_cell(b, x, 1);
        or_buf_puts(b, same ? " | " : " ! ");
        put_cell(b, y, 0);
        or_buf_putc(b, '\n');
    }
    or_buf_printf(b, "\n%s: ", ctx->label_a);
    if (d->line < na) {
        or_buf_putn(b, la[d->line].start, la[d->line].len);
    }
    else {
        or_buf_puts(b, "(no line: the section ends here)");
    }
    or_buf_printf(b, "\n%s: ", ctx->label_b);
    if (d->line < nb) {
        or_buf_putn(b, lb[d->line].start, lb[d->line].len);
    }
    else {
        or_buf_puts(b, "(no line: the section ends here)");
    }
    or_buf_putc(b, '\n');
    free(la);
    free(lb);
    return 0;
}

/* The line after the one p is in, or NULL. */
static const char *
next_line(const char *p)
{
    const char *nl = strchr(p, '\n');
    return nl && nl[1] ? nl + 1 : NULL;
}

/* The target's message, its innermost part: a traceback's first line, then its
 * last TARGET_LINES lines (innermost frames and the exception), saying how many
 * were cut in between. */
#define TARGET_LINES 16
static void
put_target_message(OrBuf *b, const char *msg)
{
    size_t lines = 0;
    for (const char *p = msg; *p; p++) {
        lines += *p == '\n';
    }
    lines += msg[0] && msg[strlen(msg) - 1] != '\n';
    if (lines <= TARGET_LINES + 2) {
        put_capped(b, msg, "  ");
        return;
    }
    /* The first kept line, moved forward (at most 3 lines) to a frame's first
     * line ("  File ..."), so that no frame is cut in half. */
    size_t from = lines - TARGET_LINES;
    const char *p = msg;
    for (size_t i = 0; i < from && p != NULL; i++) {
        p = next_line(p);
    }
    const char *q = p;
    for (size_t k = from; q != NULL && k < from + 3; k++, q = next_line(q)) {
        if (strncmp(q, "  File ", 7) == 0) {
            p = q;
            from = k;
            break;
        }
    }
    or_buf_puts(b, "  ");
    or_buf_putn(b, msg, strcspn(msg, "\n"));
    or_buf_printf(b, "\n  ... (%zu lines of outer frames cut)\n", from - 1);
    if (p != NULL) {
        put_capped(b, p, "  ");
    }
}

/* The one-line divergence of a verdict no observation decided: the target's
 * exception line (the last line of its message), else why. */
static void
put_one_line_message(OrBuf *o, const OrVerdictInput *in, const OrReportCtx *ctx)
{
    const char *m = in->invalid && in->invalid_why ? in->invalid_why : in->target_message;
    if (m == NULL || *m == '\0') {
        or_buf_puts(o, ctx->what ? ctx->what : "-");
        return;
    }
    /* The last non-empty line (an exception's "Type: message" ends a traceback). */
    const char *last = m, *end = m + strlen(m);
    while (end > m && (end[-1] == '\n' || end[-1] == ' ')) {
        end--;
    }
    for (const char *p = m; p < end; p++) {
        if (*p == '\n') {
            last = p + 1;
        }
    }
    if (in->invalid && in->invalid_why) {
        last = m;   /* why it is invalid: its first line */
        const char *nl = memchr(m, '\n', (size_t)(end - m));
        end = nl ? nl : end;
    }
    while (last < end && *last == ' ') {
        last++;
    }
    size_t n = (size_t)(end - last);
    or_buf_putn(o, last, n > 2 * COLUMN ? 2 * COLUMN - 1 : n);
    if (n > 2 * COLUMN) {
        or_buf_putc(o, '~');
    }
}

char *
or_report_build(const OrVerdictInput *in, OrVerdictKind kind, const char *signature,
                const OrReportCtx *ctx)
{
    /* The divergence comes first; its one-line form is known once it is built. */
    OrBuf dv, one;
    or_buf_init(&dv);
    or_buf_init(&one);
    if (ctx->div != NULL && ctx->div->section != OR_SEC__COUNT
        && ctx->a != NULL && ctx->b != NULL) {
        OrSection sec = ctx->div->section;
        int logged = 0;
        if (sec == OR_SEC_LOG1 || sec == OR_SEC_LOG2 || sec == OR_SEC_LOG3) {
            logged = or_report_log_diff(&dv, ctx->a->section[sec], ctx->b->section[sec],
                                        or_section_name(sec), ctx->label_a, ctx->label_b,
                                        &one);
        }
        if (logged < 0 || (logged == 0 && put_side_by_side(&dv, ctx, &one) < 0)) {
            or_buf_free(&dv);
            or_buf_free(&one);
            return NULL;
        }
    }
    else {
        put_one_line_message(&one, in, ctx);
    }
    char *one_line = or_buf_finish(&one);
    OrBuf b;
    or_buf_init(&b);
    or_buf_printf(&b, "tracefuzz verdict: %s\n", or_verdict_name(kind));
    or_buf_printf(&b, "signature: %s\n", signature ? signature : "?");
    if (one_line != NULL && *one_line) {
        or_buf_printf(&b, "divergence: %s\n", one_line);
    }
    free(one_line);
    if (ctx->what != NULL && *ctx->what) {
        or_buf_printf(&b, "why: %s\n", ctx->what);
    }
    if (in->hint_desc_kind != NULL) {
        or_buf_printf(&b, "involved: %s\n", in->hint_desc_kind);
    }
    if (kind == OR_TARGET_CRASH && in->crash_state != NULL) {
        /* What the signature says, spelled out; the step it leaves out. */
        or_buf_printf(&b, "crash state: %s (the innermost exception of the chain @ the "
                          "target's innermost frames), message %s",
                      in->crash_state, in->crash_message ? in->crash_message : "-");
        if (in->step >= 1 && in->step <= OR_STEPS) {
            or_buf_printf(&b, ", in step %d", in->step);
        }
        or_buf_puts(&b, "\n");
    }
    char *div_text = or_buf_finish(&dv);
    if (div_text == NULL) {
        or_buf_free(&b);
        return NULL;
    }
    or_buf_puts(&b, div_text);
    free(div_text);
    if (ctx->statement != NULL && *ctx->statement) {
        or_buf_puts(&b, "\nthe program's lines involved:\n");
        put_capped(&b, ctx->statement, "  ");
    }
    if (in->target_message != NULL && *in->target_message) {
        or_buf_puts(&b, "\ntarget message:\n");
        put_target_message(&b, in->target_message);
    }
    if (in->program_source != NULL) {
        or_buf_puts(&b, "\nprogram:\n");
        put_capped(&b, in->program_source, "    ");
    }
    return or_buf_finish(&b);
}
