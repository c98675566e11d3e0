/* or_report_log.c: an event log's divergence as a diff of events, for the report.
 * Two LOG sections that differ by one call have different lengths and, from there
 * on, every line shifted: a line-by-line view says only "list[10] vs list[9]".
 * Here each side's top-level items (`log1[i]` and the lines under it) are events;
 * they are aligned (common prefix and suffix, then a longest common subsequence of
 * the rest) and the first hunk is printed with a few events of context, eager's
 * event marked `-` when the target lacks it and the target's `+` when extra. */
#include "or_internal.h"

#include <stdlib.h>
#include <string.h>

#define LOG_CONTEXT 3     /* events shown before and after the first change */
#define LOG_HUNK_MAX 12   /* changed events shown at most */
#define LOG_LCS_MAX 400   /* middle parts longer than this are not aligned */
#define EVENT_COLUMN 100  /* an event's one-line form is cut here */

typedef struct {
    const OrLine *lines;   /* its lines, the first is `ROOT[i] = ...` */
    size_t n;
} Event;

/* The events of a section text whose root is `root` (lines "root[i]..."); other
 * lines (the root's own, cap notes) are not events. malloc'd; -1 on OOM. */
static int events_of(const OrLine *l, size_t nl, const char *root, Event **out, size_t *n)
{
    size_t rl = strlen(root);
    Event *ev = malloc((nl + 1) * sizeof *ev);
    if (ev == NULL)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < nl; i++) {
        const char *s = l[i].start;
        if (l[i].len <= rl + 2 || memcmp(s, root, rl) != 0 || s[rl] != '[')
            continue;
        /* A new event when this line is "root[i] = ..." (the item itself). */
        const char *close = memchr(s + rl, ']', l[i].len - rl);
        bool head = close != NULL && (size_t)(close - s) + 1 < l[i].len && close[1] == ' ';
        if (head || k == 0) {
            ev[k].lines = &l[i];
            ev[k].n = 1;
            k++;
        }
        else {
            ev[k - 1].n++;
        }
    }
    *out = ev;
    *n = k;
    return 0;
}

/* The path of a line without its event's index: "log1[3][0] = 'x'" -> "[0] = 'x'". */
static const char *after_index(const OrLine *l, size_t *len)
{
    const char *close = memchr(l->start, ']', l->len);
    if (close == NULL) {
        *len = l->len;
        return l->start;
    }
    *len = l->len - (size_t)(close + 1 - l->start);
    return close + 1;
}

static bool same_event(const Event *a, const Event *b)
{
    if (a->n != b->n)
        return false;
    for (size_t i = 0; i < a->n; i++) {
        size_t la, lb;
        const char *sa = after_index(&a->lines[i], &la), *sb = after_index(&b->lines[i], &lb);
        if (la != lb || memcmp(sa, sb, la) != 0)
            return false;
    }
    return true;
}

/* One line for an event: its value, and its direct items' values in parentheses
 * ("('call', 'Base.smeth')"); cut at EVENT_COLUMN with "~". */
static void put_event(OrBuf *b, const Event *e)
{
    size_t start = b->len;
    size_t vlen;
    const char *v = or_line_value(&e->lines[0], &vlen);
    if (e->n == 1) {
        or_buf_putn(b, v, vlen);
    }
    else {
        /* Direct items: one index step below the event ("[0] = ..."). */
        or_buf_putc(b, '(');
        int first = 1;
        for (size_t i = 1; i < e->n; i++) {
            size_t pl;
            const char *p = after_index(&e->lines[i], &pl);
            const char *close = memchr(p, ']', pl);
            if (p[0] != '[' || close == NULL || close + 3 > p + pl || close[1] != ' ')
                continue;   /* deeper: shown by its parent's value */
            size_t il;
            const char *iv = or_line_value(&e->lines[i], &il);
            if (!first)
                or_buf_puts(b, ", ");
            or_buf_putn(b, iv, il);
            first = 0;
        }
        or_buf_putc(b, ')');
    }
    if (!b->oom && b->len - start > EVENT_COLUMN) {
        or_buf_truncate(b, start + EVENT_COLUMN - 1);
        or_buf_putc(b, '~');
    }
}

typedef struct {
    char op;          /* '=', '-' (eager only), '+' (target only) */
    size_t a, b;      /* indices into each side (the one that applies) */
} Edit;

/* The edit script from events a to events b. malloc'd, -1 on OOM. */
static int edit_script(const Event *a, size_t na, const Event *b, size_t nb, Edit **out,
                       size_t *nout)
{
    Edit *ed = malloc((na + nb + 1) * sizeof *ed);
    if (ed == NULL)
        return -1;
    size_t k = 0, p = 0, s = 0;
    while (p < na && p < nb && same_event(&a[p], &b[p]))
        p++;
    while (s < na - p && s < nb - p && same_event(&a[na - 1 - s], &b[nb - 1 - s]))
        s++;
    for (size_t i = 0; i < p; i++)
        ed[k++] = (Edit){'=', i, i};
    size_t ma = na - p - s, mb = nb - p - s;
    unsigned short *t = NULL;
    if (ma > 0 && mb > 0 && ma <= LOG_LCS_MAX && mb <= LOG_LCS_MAX)
        t = calloc((ma + 1) * (mb + 1), sizeof *t);
    if (t != NULL) {
        /* t[i][j]: the LCS length of a[p+i..] and b[p+j..] (middle parts). */
#define T(i, j) t[(i) * (mb + 1) + (j)]
        for (size_t i = ma; i-- > 0;)
            for (size_t j = mb; j-- > 0;)
                T(i, j) = same_event(&a[p + i], &b[p + j]) ? T(i + 1, j + 1) + 1
                          : T(i + 1, j) > T(i, j + 1) ? T(i + 1, j) : T(i, j + 1);
        size_t i = 0, j = 0;
        while (i < ma || j < mb) {
            if (i < ma && j < mb && same_event(&a[p + i], &b[p + j])) {
                ed[k++] = (Edit){'=', p + i++, p + j++};
            }
            else if (j >= mb || (i < ma && T(i + 1, j) >= T(i, j + 1))) {
                ed[k++] = (Edit){'-', p + i++, 0};
            }
            else {
                ed[k++] = (Edit){'+', 0, p + j++};
            }
        }
#undef T
        free(t);
    }
    else {
        /* Unaligned (too long, or one side empty): all of eager's, then the target's. */
        for (size_t i = 0; i < ma; i++)
            ed[k++] = (Edit){'-', p + i, 0};
        for (size_t j = 0; j < mb; j++)
            ed[k++] = (Edit){'+', 0, p + j};
    }
    for (size_t i = 0; i < s; i++)
        ed[k++] = (Edit){'=', na - s + i, nb - s + i};
    *out = ed;
    *nout = k;
    return 0;
}

int or_report_log_diff(OrBuf *b, const char *text_a, const char *text_b, const char *root,
                       const char *label_a, const char *label_b, OrBuf *one_line)
{
    OrLine *la = NULL, *lb = NULL;
    size_t nla = 0, nlb = 0, na = 0, nb = 0, ned = 0;
    Event *ea = NULL, *eb = NULL;
    Edit *ed = NULL;
    int rc = -1;
    if (or_lines_split(text_a ? text_a : "", &la, &nla) < 0
        || or_lines_split(text_b ? text_b : "", &lb, &nlb) < 0
        || events_of(la, nla, root, &ea, &na) < 0 || events_of(lb, nlb, root, &eb, &nb) < 0
        || edit_script(ea, na, eb, nb, &ed, &ned) < 0)
        goto done;
    size_t first = 0;
    while (first < ned && ed[first].op == '=')
        first++;
    rc = 0;
    if (first == ned)
        goto done;   /* the events agree: the difference is elsewhere */
    size_t removed = 0, added = 0, end = first;
    while (end < ned && ed[end].op != '=') {
        removed += ed[end].op == '-';
        added += ed[end].op == '+';
        end++;
    }
    /* The one line: what the first change is. */
    const Edit *e0 = &ed[first];
    if (added == 0) {
        or_buf_printf(one_line, "%s: %s lacks %s event %zu of %zu, ", root, label_b,
                      removed > 1 ? "events from" : "the", e0->a, na);
        put_event(one_line, &ea[e0->a]);
    }
    else if (removed == 0) {
        or_buf_printf(one_line, "%s: %s has %s event %zu, ", root, label_b,
                      added > 1 ? "extra events from" : "an extra", e0->b);
        put_event(one_line, &eb[e0->b]);
    }
    else {
        size_t i = first;
        while (ed[i].op != '+')
            i++;
        or_buf_printf(one_line, "%s: event %zu differs: %s ", root, e0->a, label_a);
        put_event(one_line, &ea[e0->a]);
        or_buf_printf(one_line, ", %s ", label_b);
        put_event(one_line, &eb[ed[i].b]);
    }
    or_buf_printf(b, "\nfirst divergence: %s, the event log (%zu events %s, %zu %s): %zu "
                  "missing and %zu extra on the %s side here\n", root, na, label_a, nb,
                  label_b, removed, added, label_b);
    or_buf_printf(b, "  (- %s's event the %s lacks, + the %s's extra one; each numbered "
                  "on its own side)\n", label_a, label_b, label_b);
    size_t from = first > LOG_CONTEXT ? first - LOG_CONTEXT : 0;
    size_t to = end + LOG_CONTEXT < ned ? end + LOG_CONTEXT : ned;
    if (from > 0)
        or_buf_printf(b, "    ... %zu events before\n", ed[from].a);
    size_t shown = 0;
    for (size_t i = from; i < to; i++) {
        if (ed[i].op != '=' && shown++ == LOG_HUNK_MAX) {
            or_buf_printf(b, "    ... %zu more changed events\n", (end - first) - LOG_HUNK_MAX);
            i = end - 1;
            continue;
        }
        if (ed[i].op == '+')
            or_buf_printf(b, "  + %s[%zu] ", root, ed[i].b);
        else
            or_buf_printf(b, "  %c %s[%zu] ", ed[i].op == '-' ? '-' : ' ', root, ed[i].a);
        put_event(b, ed[i].op == '+' ? &eb[ed[i].b] : &ea[ed[i].a]);
        or_buf_putc(b, '\n');
    }
    if (to < ned)
        or_buf_printf(b, "    ... %zu more events\n", ned - to);
    rc = 1;
done:
    free(la);
    free(lb);
    free(ea);
    free(eb);
    free(ed);
    return rc;
}
