/* or_shape.c: the shape of a divergence (or_shape.h), from the observation text
 * alone (docs/OBSERVATION.md, "Lines" and "Values"). */
#define _GNU_SOURCE   /* memrchr */
#include "or_shape.h"
#include "or_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The lines of one item: those whose path is `item` or continues it with a step
 * ("[", ".", "{"). */
typedef struct {
    const OrLine *l;
    size_t n;
} Item;

static Item
item_lines(const OrLine *lines, size_t n, const char *item)
{
    size_t il = strlen(item);
    Item it = {NULL, 0};
    for (size_t i = 0; i < n; i++) {
        size_t pl = or_line_path_len(&lines[i]);
        const char *s = lines[i].start;
        int in = pl >= il && memcmp(s, item, il) == 0
                 && (pl == il || s[il] == '[' || s[il] == '.' || s[il] == '{');
        if (in && it.l == NULL) {
            it.l = &lines[i];
        }
        if (in) {
            it.n = (size_t)(&lines[i] - it.l) + 1;
        }
        else if (it.l != NULL) {
            break;   /* an item's lines are contiguous */
        }
    }
    return it;
}

/* Whether the item is a ("raised", NAME) tuple; NAME's value into name. */
static int
raised_item(Item it, const char **name, size_t *nlen)
{
    size_t n;
    if (it.n < 3) {
        return 0;
    }
    const char *v = or_line_value(&it.l[0], &n);
    if (n != 8 || memcmp(v, "tuple[2]", 8) != 0) {
        return 0;
    }
    v = or_line_value(&it.l[1], &n);
    if (n != 8 || memcmp(v, "'raised'", 8) != 0) {
        return 0;
    }
    *name = or_line_value(&it.l[2], nlen);
    return 1;
}

/* The item path of a divergent path: its root and first index ("r1[3]" of
 * "r1[3][0]"); the whole path when it has no index or for the state. */
static void
item_of(OrSection sec, const char *path, char *out, size_t cap)
{
    size_t n = strcspn(path, "[.{");
    if (sec != OR_SEC_STATE && path[n] == '[') {
        const char *e = strchr(path + n, ']');
        if (e != NULL) {
            n = (size_t)(e - path) + 1;
        }
    }
    else {
        n = strlen(path);
    }
    snprintf(out, cap, "%.*s", (int)n, path);
}

/* Whether two values are one: equal text, or the same object number ("#5" and
 * "#5 list[1]": the first appearance was in another section). */
static int
same_value(const char *x, size_t nx, const char *y, size_t ny)
{
    if (nx == ny && memcmp(x, y, nx) == 0) {
        return 1;
    }
    if (nx == 0 || ny == 0 || x[0] != '#' || y[0] != '#') {
        return 0;
    }
    size_t i = 1, j = 1;
    while (i < nx && x[i] >= '0' && x[i] <= '9') {
        i++;
    }
    while (j < ny && y[j] >= '0' && y[j] <= '9') {
        j++;
    }
    return i == j && memcmp(x, y, i) == 0 && (i == nx || j == ny);
}

/* Whether item `item` of text a is, value by value, item `pitem` of text p (the
 * previous step's result): the lines after the item's own path compared. A
 * back-reference stops the comparison (the rest of the object was printed once). */
static int
repeats_step(const char *a, const char *p, const char *item, const char *pitem)
{
    OrLine *la = NULL, *lp = NULL;
    size_t na = 0, np = 0;
    int same = 0;
    if (a == NULL || p == NULL || or_lines_split(a, &la, &na) < 0
        || or_lines_split(p, &lp, &np) < 0) {
        free(la);
        return 0;
    }
    Item x = item_lines(la, na, item), y = item_lines(lp, np, pitem);
    size_t il = strlen(item), pl = strlen(pitem);
    if (x.n > 0 && y.n > 0) {
        size_t vx, vy;
        const char *v0 = or_line_value(&x.l[0], &vx), *w0 = or_line_value(&y.l[0], &vy);
        same = same_value(v0, vx, w0, vy);
        if (same && !or_value_is_backref(v0, vx) && !or_value_is_backref(w0, vy)) {
            same = x.n == y.n;
            for (size_t i = 1; same && i < x.n; i++) {
                size_t a1 = or_line_path_len(&x.l[i]) - il, b1 = or_line_path_len(&y.l[i]) - pl;
                const char *v = or_line_value(&x.l[i], &vx), *w = or_line_value(&y.l[i], &vy);
                same = a1 == b1 && memcmp(x.l[i].start + il, y.l[i].start + pl, a1) == 0
                       && same_value(v, vx, w, vy);
            }
        }
    }
    free(la);
    free(lp);
    return same;
}

static void
shape_item(const OrLine *la, size_t na, const OrLine *lb, size_t nb, OrSection sec,
           const char *path, unsigned flags, const char *ta, const char *tb,
           const char *pa, const char *pb, char *out, size_t cap)
{
    bool write_family = flags & OR_SHAPE_WRITE, identity = flags & OR_SHAPE_IDENTITY;
    char item[OR_PATH_MAX];
    item_of(sec, path, item, sizeof item);
    Item a = item_lines(la, na, item), b = item_lines(lb, nb, item);
    if (a.n == 0 || b.n == 0) {
        snprintf(out, cap, "%s", a.n == 0 ? "extra" : "missing");
        return;
    }
    const char *ra, *rb;
    size_t rna, rnb;
    int xa = raised_item(a, &ra, &rna), xb = raised_item(b, &rb, &rnb);
    if (xa && xb) {
        snprintf(out, cap, "%s", rna == rnb && memcmp(ra, rb, rna) == 0 ? "value" : "exc-type");
        return;
    }
    if (xa || xb) {
        snprintf(out, cap, "%s", xa ? "no-raise" : "raises");
        return;
    }
    if (write_family) {
        /* After its own write or del, a read that gives back a value an earlier
         * item of the result had (the value before the write): stale. */
        const char *lb_end = strchr(item, '[');
        long idx = lb_end ? strtol(lb_end + 1, NULL, 10) : -1;
        for (long j = 0; j < idx; j++) {
            char other[OR_PATH_MAX];
            snprintf(other, sizeof other, "%.*s[%ld]", (int)(lb_end - item), item, j);
            if (repeats_step(tb, tb, item, other)) {
                snprintf(out, cap, "stale");
                return;
            }
        }
    }
    /* Step 2 after between(): the target's item is its step 1 item where eager's
     * changed (a guard that missed between()'s write or del). */
    if (pa != NULL && pb != NULL && (sec == OR_SEC_R2)) {
        char pitem[OR_PATH_MAX];
        snprintf(pitem, sizeof pitem, "r1%s", item + 2);
        if (repeats_step(tb, pb, item, pitem) && !repeats_step(ta, pa, item, pitem)) {
            snprintf(out, cap, "stale");
            return;
        }
    }
    /* The first line that differs inside the item. */
    size_t i = 0;
    while (i < a.n && i < b.n && a.l[i].len == b.l[i].len
           && memcmp(a.l[i].start, b.l[i].start, a.l[i].len) == 0) {
        i++;
    }
    if (i < a.n && i < b.n) {
        size_t va, vb;
        const char *x = or_line_value(&a.l[i], &va), *y = or_line_value(&b.l[i], &vb);
        if (or_value_is_new_object(x, va) && or_value_is_backref(y, vb)) {
            /* After a write, an object seen before is the one from before it. */
            snprintf(out, cap, "%s", write_family ? "stale" : "reused");
            return;
        }
        if (or_value_is_backref(x, va) && or_value_is_new_object(y, vb)) {
            snprintf(out, cap, "fresh");
            return;
        }
        /* A plain value the target repeats from its previous sibling (same parent
         * path, anywhere before it in the section) where eager has another: a
         * counter read twice reads 1, 1; a loop's items read 1, 1. */
        const OrLine *bi = &b.l[i];
        size_t pl = or_line_path_len(bi);
        const char *br = memrchr(bi->start, '[', pl);
        size_t parent = br ? (size_t)(br - bi->start) : 0;
        for (const OrLine *k = bi; parent > 0 && y[0] != '#' && k-- > lb;) {
            size_t kl = or_line_path_len(k), vk;
            if (kl <= parent || memcmp(k->start, bi->start, parent) != 0 || k->start[parent] != '['
                || memchr(k->start + parent + 1, '[', kl - parent - 1) != NULL) {
                continue;   /* not a sibling: deeper, or another parent */
            }
            const char *z = or_line_value(k, &vk);
            if (vk == vb && memcmp(z, y, vb) == 0 && (va != vb || memcmp(x, y, va) != 0)) {
                snprintf(out, cap, "%s", write_family ? "stale" : "reused");
                return;
            }
            break;   /* only the nearest sibling */
        }
        /* `a.x is a.x` read True where eager read False: one object served twice. */
        if (identity && va == 5 && vb == 4 && memcmp(x, "False", 5) == 0
            && memcmp(y, "True", 4) == 0) {
            snprintf(out, cap, "reused");
            return;
        }
        if (identity && va == 4 && vb == 5 && memcmp(x, "True", 4) == 0
            && memcmp(y, "False", 5) == 0) {
            snprintf(out, cap, "fresh");
            return;
        }
    }
    snprintf(out, cap, "value");
}

/* ---- LOG events ---- */

/* The count of a container line's value "list[n]" / "#3 list[n]"; -1 if none. */
static long
count_of(const OrLine *l)
{
    size_t n;
    const char *v = or_line_value(l, &n);
    const char *b = memchr(v, '[', n);
    return b != NULL && n > 0 && v[n - 1] == ']' ? strtol(b + 1, NULL, 10) : -1;
}

/* The event's tag (or_shape.h), as a space-free name; "?" when none. */
static void
event_tag(Item ev, size_t ilen, char *out, size_t cap)
{
    const char *v = NULL;
    size_t n = 0;
    for (size_t i = 0; i < ev.n && v == NULL; i++) {
        size_t pl = or_line_path_len(&ev.l[i]);
        size_t vn;
        const char *val = or_line_value(&ev.l[i], &vn);
        int top = pl == ilen, first = pl == ilen + 3 && memcmp(ev.l[i].start + ilen, "[0]", 3) == 0;
        if ((top || first) && vn >= 2 && val[0] == '\'') {
            v = val + 1;
            n = vn - 2;
        }
    }
    size_t o = 0;
    int digit = 0;
    for (size_t i = 0; v != NULL && i < n && o + 1 < cap && o < 24; i++) {
        char c = v[i];
        if (c == ' ' || c == ':' || c == '(' || (c == '\\' && i + 1 < n && v[i + 1] == 'x')) {
            break;
        }
        digit |= c >= '0' && c <= '9';
        out[o++] = c;
    }
    out[o] = '\0';
    if (v == NULL && ev.n > 0) {   /* no string: the event's type ("#3 Event", "5") */
        size_t vn;
        const char *val = or_line_value(&ev.l[0], &vn), *e = val + vn;
        if (vn > 0 && val[0] == '#') {
            val = memchr(val, ' ', vn);
            val = val ? val + 1 : e;
        }
        else if (vn > 0 && ((val[0] >= '0' && val[0] <= '9') || val[0] == '-')) {
            val = "int";
            e = val + 3;
        }
        while (val < e && o + 1 < cap && o < 24 && *val != ' ' && *val != '[') {
            out[o++] = *val++;
        }
        out[o] = '\0';
    }
    if (o == 0 || digit) {
        snprintf(out, cap, "%s", o == 0 ? "?" : "*");
    }
}

static void
shape_log(const OrLine *la, size_t na, const OrLine *lb, size_t nb, const char *path,
          char *out, size_t cap)
{
    char root[16], item[OR_PATH_MAX], tag[32];
    size_t rl = strcspn(path, "[.{");
    snprintf(root, sizeof root, "%.*s", (int)(rl < 15 ? rl : 15), path);
    item_of(OR_SEC_LOG1, path, item, sizeof item);
    Item ra = item_lines(la, na, root), rb = item_lines(lb, nb, root);
    long ca = ra.n ? count_of(&ra.l[0]) : -1, cb = rb.n ? count_of(&rb.l[0]) : -1;
    const char *what = ca > cb ? "log-missing" : ca < cb ? "log-extra" : "log-diff";
    /* The event: on the side with more events (a missing one is eager's). */
    Item ev = ca < cb ? item_lines(lb, nb, item) : item_lines(la, na, item);
    if (ev.n == 0) {
        ev = ca < cb ? item_lines(la, na, item) : item_lines(lb, nb, item);
    }
    event_tag(ev, strlen(item), tag, sizeof tag);
    snprintf(out, cap, "%s:%s", what, tag);
}

void
or_shape(OrSection sec, const char *eager_text, const char *target_text, const char *path,
         unsigned flags, const char *eager_r1, const char *target_r1, char *out, size_t cap)
{
    OrLine *la = NULL, *lb = NULL;
    size_t na = 0, nb = 0;
    snprintf(out, cap, "value");
    if (eager_text == NULL || target_text == NULL || path == NULL
        || or_lines_split(eager_text, &la, &na) < 0 || or_lines_split(target_text, &lb, &nb) < 0) {
        free(la);
        return;
    }
    int is_log = sec == OR_SEC_LOG1 || sec == OR_SEC_LOG2 || sec == OR_SEC_LOG3
                 || (sec == OR_SEC_STATE && strncmp(path, "LOG[", 4) == 0);
    if (is_log && strchr(path, '[') != NULL) {
        shape_log(la, na, lb, nb, path, out, cap);
    }
    else {
        shape_item(la, na, lb, nb, sec, path, flags, eager_text, target_text,
                   sec == OR_SEC_R2 ? eager_r1 : NULL, sec == OR_SEC_R2 ? target_r1 : NULL,
                   out, cap);
    }
    free(la);
    free(lb);
}

/* ---- messages ---- */

static int
is_ident(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
           || (c >= '0' && c <= '9') || (unsigned char)c >= 0x80;
}

void
or_message_norm(const char *text, int (*is_name)(void *ctx, const char *s, size_t n),
                void *ctx, char *out, size_t cap)
{
    size_t o = 0;
    int truncated = 0;
#define PUT(c)                                                                           \
    do {                                                                                 \
        if (o + 2 < cap) {                                                               \
            out[o++] = (c);                                                              \
        }                                                                                \
        else {                                                                           \
            truncated = 1;                                                               \
        }                                                                                \
    } while (0)
    int space = 0;
    for (const char *p = text ? text : ""; *p && *p != '\n' && !truncated;) {
        char c = *p;
        if (c == ':' && (p[1] == ' ' || p[1] == '\0') && o > 0) {
            break;   /* "summary: details": the details are data (values, reprs) */
        }
        if (space && c != ' ' && c != '\t' && c != '\r') {
            PUT('_');
            space = 0;
        }
        if (c == '\'' || c == '"') {   /* quoted text: a name, a repr, a key */
            const char *e = strchr(p + 1, c);
            const char *nl = strchr(p + 1, '\n');
            if (e != NULL && (nl == NULL || e < nl)) {
                PUT(c);
                PUT('*');
                PUT(c);
                p = e + 1;
                continue;
            }
        }
        if (c == '<') {   /* <function f at 0x7f...>, <Base object at ...> */
            const char *e = strchr(p + 1, '>');
            const char *nl = strchr(p + 1, '\n');
            if (e != NULL && (nl == NULL || e < nl)) {
                PUT('<');
                PUT('*');
                PUT('>');
                p = e + 1;
                continue;
            }
        }
        if (c == '0' && (p[1] == 'x' || p[1] == 'X')) {
            PUT('0');
            PUT('x');
            PUT('*');
            p += 2;
            while (is_ident(*p)) {
                p++;
            }
            continue;
        }
        if (c >= '0' && c <= '9') {
            PUT('N');
            while ((*p >= '0' && *p <= '9') || (*p == '.' && p[1] >= '0' && p[1] <= '9')) {
                p++;
            }
            continue;
        }
        if (is_ident(c)) {
            const char *s = p;
            int digit = 0, inner_us = 0;
            while (is_ident(*p)) {
                if (*p >= '0' && *p <= '9') {
                    digit = 1;
                }
                p++;
            }
            size_t n = (size_t)(p - s);
            int dunder = n > 4 && s[0] == '_' && s[1] == '_' && s[n - 1] == '_' && s[n - 2] == '_';
            for (size_t i = 1; i + 1 < n; i++) {
                if (s[i] == '_') {
                    inner_us = 1;
                }
            }
            if (!dunder && (digit || inner_us || (is_name != NULL && is_name(ctx, s, n)))) {
                PUT('*');
            }
            else {
                for (size_t i = 0; i < n; i++) {
                    PUT(s[i]);
                }
            }
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r') {
            space = o > 0;   /* a run of spaces is one '_' before the next word */
            p++;
            continue;
        }
        PUT((unsigned char)c < 0x20 ? '?' : c);
        p++;
    }
#undef PUT
    if (truncated && o > 0 && out[o - 1] == '_') {
        o--;
    }
    if (truncated && o + 1 < cap) {
        out[o++] = '~';
    }
    if (o == 0) {
        out[o++] = '-';
    }
    out[o] = '\0';
}
