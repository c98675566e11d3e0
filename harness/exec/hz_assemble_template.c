/* hz_assemble_template.c: a def piece's statement blocks from statement templates,
 * for lookups that do not ask for exact lines (hz_assemble.h,
 * hz_assemble_piece_templated).
 *
 * program() is a new combination of statements nearly every time, so its whole-piece
 * template rarely repeats (about one time in five in the fuzz loop); but its
 * statements fall into a few hundred shapes. So each statement is abstracted alone
 * (hz_template.h), and its wrapper -- the function hz_assemble_blocks.c compiles
 * around a statement -- is written from the abstract statement (abstract_wrapper:
 * the parameters, extras and globals it spells, as its placeholders), compiled once
 * per shape into an abstract block, and the statement's block instantiated from it:
 * its constants, names, locals and the facts the assembly asks (g0, bound, extras)
 * mapped back to the piece's values. The instructions, jumps, handlers and stack
 * depth are the template's; the lines are those of the abstract text (a string over
 * several lines is one there), counted from the statement's first line in the piece.
 *
 * A piece's code must be a function of its text, not of what the caches hold (an
 * input's behaviour and coverage would depend on the inputs before it): every block
 * is the instantiation of the template made for exactly the extras its statement
 * needs (a function of the piece's text, hz_asm_needed_extras). A block found in the
 * front cache (keyed by the statement's exact wrapper text without extras, `out[N]`
 * masked) or made for guessed extras is remade when its extras are not those;
 * nothing is ever taken from an exact compile, and no cost gate depends on hits
 * (harness.template.statements compares every 8th piece with a cold assembler's). */
#include "hz_assemble.h"
#include "hz_assemble_int.h"
#include "hz_codecache.h"   /* HZ_NO_COVERAGE */
#include "hz_template.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FRONT_TAG "\x02"      /* front cache: a statement's front key -> its block */
#define TEMPLATE_TAG "\x03"   /* abstract wrapper text -> abstract block, or Py_None */

#define DOC_SRC "'\\x00tf-doc'"   /* the wrapper's docstring, when the function has one */

/* How the abstract statement ab spells the name s[0..n): its placeholder's number
 * (>= 0), -1 as written (an f-string's name, a kept one), -2 not at all. */
HZ_NO_COVERAGE static int spelled(const HzAbstract *ab, const char *s, size_t n)
{
    for (int i = 0; i < ab->nph; i++)
        if (ab->ph[i].kind == HZ_PH_NAME && ab->ph[i].len == n && hz_asm_same(ab->ph[i].text, s, n))
            return ab->ph[i].num;
    for (const char *p = ab->text, *end = ab->text + ab->len;
         (p = hz_asm_find(p, (size_t)(end - p), s, n)) != NULL; p++) {
        bool before = p > ab->text && (p[-1] == '_' || p[-1] == '.' || isalnum((unsigned char)p[-1]));
        bool after = p + n < end && (p[n] == '_' || isalnum((unsigned char)p[n]));
        if (!before && !after)
            return -1;
    }
    return -2;
}

typedef struct {
    int num;            /* placeholder number, or 2^24 + order for a name as written */
    const char *s;
    size_t n;
} Spelled;

HZ_NO_COVERAGE static int by_num(const void *x, const void *y)
{
    const Spelled *a = x, *b = y;
    return a->num < b->num ? -1 : a->num > b->num;
}

/* Appends to w the names s[0..k) the statement spells, in the order of its
 * placeholders (those as written after), each followed by ", "; returns how many. */
HZ_NO_COVERAGE static int put_names(Buf *w, const HzAbstract *ab, Spelled *sp, int k)
{
    int m = 0;
    for (int i = 0; i < k; i++) {
        int num = spelled(ab, sp[i].s, sp[i].n);
        if (num == -2)
            continue;
        sp[m] = sp[i];
        sp[m].num = num >= 0 ? num : (1 << 24) + i;
        m++;
    }
    qsort(sp, (size_t)m, sizeof *sp, by_num);
    for (int i = 0; i < m; i++) {
        if (sp[i].num < (1 << 24)) {
            char b[32];
            snprintf(b, sizeof b, "_tfN%d_, ", sp[i].num);
            hz_asm_buf_str(w, b);
        }
        else {
            hz_asm_buf_add(w, sp[i].s, sp[i].n);
            hz_asm_buf_str(w, ", ");
        }
    }
    return m;
}

/* The names of a tuple or list of str into sp[0..); their count, or -1 with an
 * exception. */
HZ_NO_COVERAGE static int py_names(PyObject *seq, Spelled *sp)
{
    Py_ssize_t k = PySequence_Fast_GET_SIZE(seq);
    for (Py_ssize_t i = 0; i < k; i++) {
        Py_ssize_t n;
        const char *u = PyUnicode_AsUTF8AndSize(PySequence_Fast_GET_ITEM(seq, i), &n);
        if (u == NULL)
            return -1;
        sp[i] = (Spelled){0, u, (size_t)n};
    }
    return (int)k;
}

/* The abstract wrapper of statement k (abstracted alone as ab) into w: a function
 * whose parameters are the piece's parameters the statement spells, then the extras
 * ex (NULL: none) it spells, each as the statement's placeholder, in placeholder
 * order; the docstring marker when the piece has a docstring (co_consts[0] stays the
 * function's); the piece's globals it spells and the sentinel declared global; the
 * abstract statement; the sentinel line when `sentinel`. So statements that differ
 * only in names and literals have one wrapper, whichever parameters they read.
 * *np, *ne: the parameters and extras written. 0, or -1 with an exception. */
HZ_NO_COVERAGE static int abstract_wrapper(const Piece *pc, const HzAbstract *ab, PyObject *ex,
                                           bool sentinel, Buf *w, int *np, int *ne)
{
    const Cut *cut = pc->cut;
    Py_ssize_t nparams = PyTuple_GET_SIZE(pc->params);
    Py_ssize_t nex = ex != NULL ? PyList_GET_SIZE(ex) : 0;
    size_t cap = (size_t)(nparams + nex) + cut->globals.n / 2 + 1;
    Spelled *sp = malloc(cap * sizeof *sp);
    if (sp == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    char ind[64];
    int iw = cut->indent < 60 ? cut->indent : 60;
    memset(ind, ' ', (size_t)iw);
    ind[iw] = '\0';
    hz_asm_buf_str(w, "def __tf_stmt__(");
    int k = py_names(pc->params, sp);
    if (k < 0)
        goto fail;
    *np = put_names(w, ab, sp, k);
    k = ex != NULL ? py_names(ex, sp) : 0;
    if (k < 0)
        goto fail;
    *ne = put_names(w, ab, sp, k);
    hz_asm_buf_str(w, "):\n");
    if (cut->doc.end > cut->doc.start) {
        hz_asm_buf_str(w, ind);
        hz_asm_buf_str(w, DOC_SRC "\n");
    }
    hz_asm_buf_str(w, ind);
    hz_asm_buf_str(w, "global ");
    k = 0;
    for (size_t at = 0; at + 2 <= cut->globals.n;) {   /* "a, b, " */
        const char *g = cut->globals.p + at, *comma = memchr(g, ',', cut->globals.n - at);
        size_t len = comma != NULL ? (size_t)(comma - g) : cut->globals.n - at;
        sp[k++] = (Spelled){0, g, len};
        at += len + 2;
    }
    put_names(w, ab, sp, k);
    hz_asm_buf_str(w, SENTINEL "\n");
    hz_asm_buf_add(w, ab->text, ab->len);
    if (sentinel) {
        hz_asm_buf_str(w, ind);
        hz_asm_buf_str(w, SENTINEL " = " MARK_SRC "; " SENTINEL " = " MARK_SRC "\n");
    }
    free(sp);
    if (w->failed) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
fail:
    free(sp);
    return -1;
}

/* The function code of an abstract wrapper's module (a new reference), or NULL:
 * without an exception when it does not compile. */
HZ_NO_COVERAGE static PyCodeObject *compile_wrapper(HzAssembler *a, const char *text,
                                                    const char *filename)
{
    double t0 = hz_asm_cpu_now();
    PyObject *mod = Py_CompileStringExFlags(text, filename, Py_file_input, NULL, 0);
    a->stats.cpu_wrappers += hz_asm_cpu_now() - t0;
    a->stats.wrappers++;
    if (mod == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_MemoryError))
            PyErr_Clear();
        return NULL;
    }
    PyObject *consts = ((PyCodeObject *)mod)->co_consts, *fn = NULL;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(consts); i++)
        if (PyCode_Check(PyTuple_GET_ITEM(consts, i)))
            fn = PyTuple_GET_ITEM(consts, i);
    Py_XINCREF(fn);
    Py_DECREF(mod);
    return (PyCodeObject *)fn;
}

/* A new reference to the abstract block of statement k of pc (abstracted alone as
 * ab) made for the extras ex (NULL: none), compiled and cached when new; NULL with
 * a->refusal set when the shape makes no block (remembered as Py_None), or with an
 * exception. */
HZ_NO_COVERAGE static PyObject *abstract_block(HzAssembler *a, const Piece *pc, int k,
                                               PyObject *ex, const HzAbstract *ab)
{
    Buf key = {0}, w2 = {0};
    PyCodeObject *co = NULL, *co2 = NULL;
    PyObject *cap = NULL, *params = NULL, *aextras = NULL;
    bool last = k == pc->cut->nstmts - 1;
    int np = 0, ne = 0;
    hz_asm_buf_str(&key, TEMPLATE_TAG);
    if (abstract_wrapper(pc, ab, ex, !last, &key, &np, &ne) < 0)
        goto done;
    const char *text = key.p + sizeof TEMPLATE_TAG - 1;
    uint64_t h = hz_asm_fnv(key.p, key.n);
    Slot *s = hz_asm_tslot_find(a, key.p, key.n, h);
    if (s != NULL) {
        if (s->code == Py_None)
            a->refusal = "the statement's template makes no block";
        else
            cap = Py_NewRef(s->code);
        goto done;
    }
    a->stats.compiles++;
    /* the statement's first line: after the header, the docstring, the globals */
    int wline = 3 + (pc->cut->doc.end > pc->cut->doc.start);
    int nlines = (int)hz_asm_count_lines(ab->text, ab->len);
    co = compile_wrapper(a, text, pc->filename);
    if (co == NULL) {
        if (!PyErr_Occurred())
            a->refusal = "a statement's template does not compile";
    }
    else if (co->co_argcount != np + ne || co->co_kwonlyargcount != 0 ||
             (co->co_flags & (CO_VARARGS | CO_VARKEYWORDS)) != 0)
        a->refusal = "the abstract wrapper's parameters are not the wrapper's";
    else {
        Py_ssize_t cg_end = 0;
        if (last && hz_asm_has_tuples(co)) {
            /* where its own constants end: the same wrapper with the sentinel */
            int np2, ne2;
            if (abstract_wrapper(pc, ab, ex, true, &w2, &np2, &ne2) < 0)
                goto done;
            if ((co2 = compile_wrapper(a, w2.p, pc->filename)) == NULL) {
                if (!PyErr_Occurred())
                    a->refusal = "the last statement's template with a sentinel does not compile";
            }
            else
                cg_end = hz_asm_cg_end(&a->refusal, co, co2);
            if (PyErr_Occurred())
                goto done;
            if (co2 == NULL || cg_end < 0)
                goto refused;
        }
        else if (last)
            cg_end = PyTuple_GET_SIZE(co->co_consts);
        params = PyTuple_GetSlice(co->co_localsplusnames, 0, np);
        PyObject *exs = params ? PyTuple_GetSlice(co->co_localsplusnames, np, np + ne) : NULL;
        aextras = exs ? PySequence_List(exs) : NULL;
        Py_XDECREF(exs);
        if (aextras == NULL)
            goto done;
        cap = hz_asm_block_from_wrapper(&a->refusal, co, wline, nlines, aextras, last, cg_end,
                                        params);
        if (cap == NULL && PyErr_Occurred())
            goto done;
    }
refused:
    if (PyErr_Occurred())
        goto done;
    s = hz_asm_tslot_put(a, key.p, key.n, h);
    if (s != NULL)   /* else used, not cached */
        s->code = Py_NewRef(cap != NULL ? cap : Py_None);
done:
    free(key.p);
    free(w2.p);
    Py_XDECREF(co);
    Py_XDECREF(co2);
    Py_XDECREF(params);
    Py_XDECREF(aextras);
    return cap;
}

/* A new set of set's str items mapped (m), or NULL with an exception. */
HZ_NO_COVERAGE static PyObject *map_set(HzPlaceholderMap *m, PyObject *set)
{
    PyObject *r = PySet_New(NULL), *it = r ? PyObject_GetIter(set) : NULL, *x;
    if (it == NULL) {
        Py_XDECREF(r);
        return NULL;
    }
    while ((x = PyIter_Next(it)) != NULL) {
        PyObject *v = hz_placeholders_map(m, x);
        Py_DECREF(x);
        if (v == NULL || PySet_Add(r, v) < 0) {
            Py_XDECREF(v);
            Py_CLEAR(r);
            break;
        }
        Py_DECREF(v);
    }
    Py_DECREF(it);
    if (r != NULL && PyErr_Occurred())
        Py_CLEAR(r);
    return r;
}

/* A new tuple of the distinct items of the tuple names mapped by m (two names could
 * map to one), or NULL with an exception. */
HZ_NO_COVERAGE static PyObject *map_tuple(HzPlaceholderMap *m, PyObject *names)
{
    PyObject *set = map_set(m, names);
    PyObject *t = hz_asm_set_tuple(set);
    Py_XDECREF(set);
    return t;
}

/* A new capsule of the abstract block t instantiated with m, or NULL with an
 * exception. */
HZ_NO_COVERAGE static PyObject *instantiate_block(HzPlaceholderMap *m, const HzBlock *t)
{
    HzBlock *b = calloc(1, sizeof *b);
    if (b == NULL)
        return PyErr_NoMemory();
    b->bc.ins = malloc((size_t)(t->bc.n > 0 ? t->bc.n : 1) * sizeof *b->bc.ins);
    b->bc.exc = malloc((size_t)(t->bc.nexc > 0 ? t->bc.nexc : 1) * sizeof *b->bc.exc);
    if (b->bc.ins == NULL || b->bc.exc == NULL) {
        PyObject *cap = hz_asm_block_capsule(b);   /* frees b */
        Py_XDECREF(cap);
        return PyErr_NoMemory();
    }
    if (t->bc.n > 0)
        memcpy(b->bc.ins, t->bc.ins, (size_t)t->bc.n * sizeof *b->bc.ins);
    if (t->bc.nexc > 0)
        memcpy(b->bc.exc, t->bc.exc, (size_t)t->bc.nexc * sizeof *b->bc.exc);
    b->bc.n = b->bc.cap = t->bc.n;
    b->bc.nexc = b->bc.capexc = t->bc.nexc;
    b->nconsts = t->nconsts;
    b->stacksize = t->stacksize;
    b->nlines = t->nlines;
    PyObject *ex = NULL;
    if ((b->consts = hz_placeholders_map(m, t->consts)) == NULL ||
        (b->names = hz_placeholders_map(m, t->names)) == NULL ||
        (b->lnames = hz_placeholders_map(m, t->lnames)) == NULL ||
        (b->g0 = map_tuple(m, t->g0)) == NULL || (b->bound = map_tuple(m, t->bound)) == NULL ||
        (ex = map_set(m, t->extras)) == NULL || (b->extras = hz_asm_sorted_list(ex)) == NULL) {
        Py_XDECREF(ex);
        PyObject *cap = hz_asm_block_capsule(b);   /* frees b */
        Py_XDECREF(cap);
        return NULL;
    }
    Py_DECREF(ex);
    return hz_asm_block_capsule(b);
}

/* The extras statement k is likely to need, a new sorted list: the names it spells
 * (m's) that the blocks found bind (known). */
HZ_NO_COVERAGE static PyObject *guess_extras(const HzPlaceholderMap *m, PyObject *known)
{
    PyObject *l = PyList_New(0);
    for (int i = 0; l != NULL && i < m->n[HZ_PH_NAME]; i++) {
        int in = PySet_Contains(known, m->obj[HZ_PH_NAME][i]);
        if (in < 0 || (in == 1 && PyList_Append(l, m->obj[HZ_PH_NAME][i]) < 0))
            Py_CLEAR(l);
    }
    if (l != NULL && PyList_Sort(l) < 0)
        Py_CLEAR(l);
    return l;
}

/* A new reference to statement k's block instantiated from its template: made for
 * exactly the extras ex (a sorted list), or with ex NULL for a guess from known (a
 * set of the names the piece's found blocks bind); NULL with a->refusal set when it
 * has none, or with an exception. */
HZ_NO_COVERAGE static PyObject *templated_block(HzAssembler *a, const Piece *pc, int k,
                                                PyObject *ex, PyObject *known)
{
    HzAbstract ab = {0};
    HzPlaceholderMap m;
    memset(&m, 0, sizeof m);
    PyObject *tcap = NULL, *cap = NULL, *guess = NULL;
    const Span *st = &pc->cut->stmts[k];
    if (hz_abstract(pc->text + st->start, st->end - st->start, &ab, &a->refusal) < 0)
        goto done;
    if (hz_placeholders_init(&m, &ab) < 0) {
        if (!PyErr_Occurred())
            a->refusal = "a string that is not UTF-8";
        goto done;
    }
    if (ex == NULL && (ex = guess = guess_extras(&m, known)) == NULL)
        goto done;
    tcap = abstract_block(a, pc, k, PyList_GET_SIZE(ex) > 0 ? ex : NULL, &ab);
    if (tcap == NULL)
        goto done;
    cap = instantiate_block(&m, hz_asm_block(tcap));
    a->stats.instances++;
    if (cap != NULL && m.failed) {
        Py_CLEAR(cap);
        a->refusal = "a placeholder the compiler changed";
    }
done:
    hz_abstract_clear(&ab);
    hz_placeholders_clear(&m);
    Py_XDECREF(tcap);
    Py_XDECREF(guess);
    return cap;
}

/* Statement k's block b->cap replaced by its block for extras ex (NULL: a guess from
 * known), and the front cache's entry with it. 0, 1 to refuse, -1 on error. */
HZ_NO_COVERAGE static int make_block(HzAssembler *a, const Piece *pc, int k, Blk *b, PyObject *ex,
                                     PyObject *known)
{
    PyObject *cap = templated_block(a, pc, k, ex, known);
    if (cap == NULL)
        return PyErr_Occurred() ? -1 : 1;
    Py_XSETREF(b->cap, cap);
    hz_asm_store_block(a, b);   /* made for this text: its out_value goes */
    return 0;
}

/* Adds to known the extras block b was made for and the names it binds that no
 * block before it bound (those go to many, and out of known unless needed as
 * extras). 0, or -1 with an exception. */
HZ_NO_COVERAGE static int add_known(PyObject *known, PyObject *many, const HzBlock *b)
{
    PyObject *it = PyObject_GetIter(b->bound), *x;
    if (it == NULL)
        return -1;
    int rc = 0;
    while (rc == 0 && (x = PyIter_Next(it)) != NULL) {
        int in_many = PySet_Contains(many, x), in_known = in_many == 0 ? PySet_Contains(known, x) : 0;
        if (in_many < 0 || in_known < 0)
            rc = -1;
        else if (in_known == 1)
            rc = PySet_Add(many, x) < 0 || PySet_Discard(known, x) < 0 ? -1 : 0;
        else if (in_many == 0)
            rc = PySet_Add(known, x);
        Py_DECREF(x);
    }
    Py_DECREF(it);
    if (rc == 0 && PyErr_Occurred())
        rc = -1;
    return rc < 0 ? -1 : _PySet_Update(known, b->extras);
}

/* Whether text[0..n) holds name[0..m) as a whole identifier run anywhere, strings
 * and comments included: a superset of the names its abstraction spells. */
HZ_NO_COVERAGE static bool may_spell(const char *text, size_t n, const char *name, size_t m)
{
    for (const char *p = text, *end = text + n; (p = hz_asm_find(p, (size_t)(end - p), name, m)) != NULL;
         p++) {
        bool before = p > text && (p[-1] == '_' || isalnum((unsigned char)p[-1]));
        bool after = p + m < end && (p[m] == '_' || isalnum((unsigned char)p[m]));
        if (!before && !after)
            return true;
    }
    return false;
}

/* Statement k's front key: what its templated block is made from (abstract_wrapper,
 * instantiate_block) -- the piece's parameters and globals it may spell, in their
 * order, whether the piece has a docstring, whether a statement follows, and its
 * text -- rather than the whole wrapper: the same statement under another docstring
 * (make() and make_other()) or with parameters it does not use finds its block (a
 * third of the misses of a 2,000-run loop). */
HZ_NO_COVERAGE static void front_key(const Piece *pc, int k, bool sentinel, Buf *b)
{
    const Cut *cut = pc->cut;
    const char *s = pc->text + cut->stmts[k].start;
    size_t n = cut->stmts[k].end - cut->stmts[k].start;
    hz_asm_buf_str(b, FRONT_TAG "(");
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(pc->params); i++) {
        Py_ssize_t m;
        const char *p = PyUnicode_AsUTF8AndSize(PyTuple_GET_ITEM(pc->params, i), &m);
        if (p == NULL) {   /* not UTF-8: the parameter goes in, which only splits keys */
            PyErr_Clear();
            hz_asm_buf_pyname(b, PyTuple_GET_ITEM(pc->params, i));
        }
        else if (may_spell(s, n, p, (size_t)m))
            hz_asm_buf_add(b, p, (size_t)m);
        else
            continue;
        hz_asm_buf_str(b, ", ");
    }
    hz_asm_buf_str(b, cut->doc.end > cut->doc.start ? ") doc\n" : ")\n");
    for (size_t at = 0; at + 2 <= cut->globals.n;) {   /* "a, b, " */
        const char *g = cut->globals.p + at, *comma = memchr(g, ',', cut->globals.n - at);
        size_t len = comma != NULL ? (size_t)(comma - g) : cut->globals.n - at;
        if (may_spell(s, n, g, len)) {
            hz_asm_buf_add(b, g, len);
            hz_asm_buf_str(b, ", ");
        }
        at += len + 2;
    }
    hz_asm_buf_str(b, sentinel ? "\nmore\n" : "\nlast\n");
    hz_asm_buf_add(b, s, n);
}

HZ_NO_COVERAGE int hz_asm_gather_templated(HzAssembler *a, const Piece *pc, int N, Blk *blk)
{
    int rc = -1;
    PyObject **want = calloc((size_t)N, sizeof *want);
    PyObject *known = PySet_New(NULL), *many = PySet_New(NULL);
    if (want == NULL || known == NULL || many == NULL) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        goto done;
    }
    int nmiss = 0;
    for (int k = 0; k < N; k++) {
        front_key(pc, k, k < N - 1, &blk[k].key);
        if (hz_asm_blk_keys(&blk[k]) < 0)
            goto done;
        /* out[0]'s 0 stays in the abstraction (truthiness), so its template is not
         * that of out[1], out[2], ... (whose placeholders have one width): only
         * those share a block through the masked key */
        if (blk[k].out_num == 0)
            blk[k].out_num = -1;
        nmiss += !hz_asm_find_block(a, &blk[k]);
    }
    for (int k = 0; nmiss > 0 && k < N; k++)   /* what the guess reads: only for misses */
        if (blk[k].cap != NULL && add_known(known, many, hz_asm_block(blk[k].cap)) < 0)
            goto done;
    /* the missing ones made for a guess of their extras: the names they spell that
     * the found ones need as extras, or that one of them alone binds (`out = []`;
     * not an `except ... as e` that many bind for themselves). hz_asm_guess_extras'
     * reading of the text costs more than the second instantiation it saves; a
     * wrong guess is corrected below. */
    for (int k = 0; nmiss > 0 && k < N; k++)
        if (blk[k].cap == NULL && (rc = make_block(a, pc, k, &blk[k], NULL, known)) != 0)
            goto done;
    rc = -1;
    /* every block for the extras its statement needs: twice at most, as a block's
     * g0 and bound do not depend on the extras it was made for */
    for (int round = 0;; round++) {
        int again = hz_asm_needed_extras(N, blk, want);
        if (again < 0)
            goto done;
        if (again == 0)
            break;
        if (round == 1) {
            a->refusal = "the extras do not settle";
            rc = 1;
            goto done;
        }
        a->stats.recompiles += (unsigned long)again;
        for (int k = 0; k < N; k++)
            if (want[k] != NULL && (rc = make_block(a, pc, k, &blk[k], want[k], NULL)) != 0)
                goto done;
        rc = -1;
    }
    rc = 0;
done:
    for (int k = 0; want != NULL && k < N; k++)
        Py_XDECREF(want[k]);
    free(want);
    Py_XDECREF(known);
    Py_XDECREF(many);
    return rc;
}
