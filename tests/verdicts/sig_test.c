/* sig_test.c: the legend parser (harness/gen/hz_hint.c) and the signatures the verdict
 * builds with its hint (oracles/or_verdict.c), on generated programs and on
 * hand-made observations. One binary, one ctest per case: `sig_test NAME`.
 * Runs no Python (the parser and the verdict run none). */
#include "hz_hint.h"
#include "../tf_check.h"
#include "hz_ir.h"
#include "hz_program.h"
#include "or_verdict.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>




/* A small program in the generator's format (the shapes of hz_emit.c). */
static const char *PROG =
    "import functools\n"
    "LOG = []\n"
    "\n"
    "class Base:\n"
    "    \"\"\"A root class.\"\"\"\n"
    "\n"
    "    @property  # tf: desc=prop_fresh\n"
    "    def fresh_prop(self):\n"
    "        LOG.append((\"get\", \"Base.fresh_prop\"))\n"
    "        return {\"fresh\": 1}\n"
    "\n"
    "    @functools.cached_property  # tf: desc=cached_prop\n"
    "    def cached(self):\n"
    "        LOG.append((\"compute\", \"Base.cached\"))\n"
    "        return [2]\n"
    "\n"
    "    class_val = 3  # tf: desc=class_attr\n"
    "\n"
    "    # inst_val: a plain instance attribute, set in make()  # tf: desc=inst_attr\n"
    "\n"
    "    def __getattr__(self, name):  # tf: desc=getattr_hook\n"
    "        LOG.append((\"getattr\", \"Base\", name))\n"
    "        return [name, 4]\n"
    "\n"
    "\n"
    "def make():\n"
    "    a = Base()\n"
    "    a.inst_val = [5]\n"
    "    return (a,)\n"
    "\n"
    "\n"
    "def between(a):\n"
    "    Base.class_val = (\"rebound\", 6)  # tf: between=rebind_class_attr\n"
    "    a.__dict__[\"fresh_prop\"] = (\"shadow\", 7)  # tf: between=shadow_in_dict\n"
    "\n"
    "\n"
    "def program(a):\n"
    "    out = []\n"
    "    try:  # tf: access=loop desc=class_attr\n"
    "        for i in range(3):\n"
    "            out.append(a.class_val)\n"
    "    except EXPECTED as e:\n"
    "        out.append((\"raised\", type(e).__name__))\n"
    "    try:  # tf: access=repeat_read desc=prop_fresh\n"
    "        out.append((a.fresh_prop, a.fresh_prop))\n"
    "    except EXPECTED as e:\n"
    "        out.append((\"raised\", type(e).__name__))\n"
    "    try:  # tf: access=getattr_default desc=cached_prop\n"
    "        out.append(getattr(a, \"cached\", None))\n"
    "    except EXPECTED as e:\n"
    "        out.append((\"raised\", type(e).__name__))\n"
    "    return tuple(out)\n";

/* ---- the legend ---- */

static void
legend_handmade(void)
{
    HzLegend lg;
    CHECK(hz_legend_parse(PROG, &lg) == 0, "parse");
    CHECK(lg.has_legend, "a legend");
    CHECK(lg.nmembers == 5, "%zu members", lg.nmembers);
    const char *names[] = {"fresh_prop", "cached", "class_val", "inst_val", "__getattr__"};
    const char *descs[] = {"prop_fresh", "cached_prop", "class_attr", "inst_attr",
                           "getattr_hook"};
    for (size_t i = 0; i < 5 && i < lg.nmembers; i++) {
        CHECK_STREQ(lg.members[i].name, names[i]);
        CHECK_STREQ(lg.members[i].desc, descs[i]);
        CHECK_STREQ(lg.members[i].cls, "Base");
    }
    CHECK(lg.nstmts == 3, "%zu statements", lg.nstmts);
    if (lg.nstmts == 3) {
        CHECK_STREQ(lg.stmts[0].access, "loop");
        CHECK(lg.stmts[0].loop == 3, "loop %d", lg.stmts[0].loop);
        CHECK_STREQ(lg.stmts[0].attr, "class_val");
        CHECK_STREQ(lg.stmts[1].desc, "prop_fresh");
        CHECK_STREQ(lg.stmts[1].attr, "fresh_prop");
        CHECK_STREQ(lg.stmts[1].arg, "a");
        CHECK(lg.stmts[1].loop == 0, "not a loop");
        CHECK_STREQ(lg.stmts[2].attr, "cached");
    }
    CHECK(lg.nmuts == 2, "%zu mutations", lg.nmuts);
    if (lg.nmuts == 2) {
        CHECK_STREQ(lg.muts[0].kind, "rebind_class_attr");
        CHECK_STREQ(lg.muts[0].attr, "class_val");
        CHECK_STREQ(lg.muts[1].kind, "shadow_in_dict");
        CHECK_STREQ(lg.muts[1].attr, "fresh_prop");
        CHECK_STREQ(lg.muts[1].obj, "a");
    }
    CHECK(lg.single_kind == NULL, "five kinds, not one");
    hz_legend_clear(&lg);
}

static void
legend_member(void)
{
    HzLegend lg;
    CHECK(hz_legend_parse(PROG, &lg) == 0, "parse");
    struct { const char *text, *desc; } cases[] = {
        {"Base.fresh_prop", "prop_fresh"}, {"Other.fresh_prop", "prop_fresh"},
        {"cached", "cached_prop"}, {"_cached", "cached_prop"},
        {"class_val_hits", "class_attr"}, {"nothing", NULL}, {"Base.nothing", NULL},
        {"__getattr__", "getattr_hook"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const HzHintMember *m = hz_legend_member(&lg, cases[i].text, strlen(cases[i].text));
        if (cases[i].desc == NULL) {
            CHECK(m == NULL, "%s -> %s", cases[i].text, m ? m->desc : "");
        }
        else {
            CHECK(m != NULL && strcmp(m->desc, cases[i].desc) == 0, "%s -> %s",
                  cases[i].text, m ? m->desc : "(none)");
        }
    }
    hz_legend_clear(&lg);
}

/* Items to statements: a loop appends up to its count; an exception ends it. */
static void
legend_stmt_of(void)
{
    HzLegend lg;
    CHECK(hz_legend_parse(PROG, &lg) == 0, "parse");
    /* The loop ran 3 times: items 0-2, then 3, then 4. */
    const char *full = "r1 = tuple[5]\nr1[0] = 3\nr1[1] = 3\nr1[2] = 3\nr1[3] = tuple[2]\n"
                       "r1[3][0] = #1 dict[1]\nr1[3][1] = #2 dict[1]\nr1[4] = #3 list[1]\n";
    int want_full[] = {0, 0, 0, 1, 2, -1};
    for (size_t i = 0; i < 6; i++) {
        CHECK(hz_legend_stmt_of(&lg, full, i) == want_full[i], "item %zu -> %d", i,
              hz_legend_stmt_of(&lg, full, i));
    }
    /* The loop raised in its second round: items 0-1, then 2, then 3. */
    const char *raised = "r1 = tuple[4]\nr1[0] = 3\nr1[1] = tuple[2]\nr1[1][0] = 'raised'\n"
                         "r1[1][1] = 'TypeError'\nr1[2] = tuple[2]\nr1[2][0] = #1 dict[1]\n"
                         "r1[2][1] = #2 dict[1]\nr1[3] = #3 list[1]\n";
    int want_raised[] = {0, 0, 1, 2};
    for (size_t i = 0; i < 4; i++) {
        CHECK(hz_legend_stmt_of(&lg, raised, i) == want_raised[i], "item %zu -> %d", i,
              hz_legend_stmt_of(&lg, raised, i));
    }
    CHECK(hz_legend_stmt_of(&lg, "r1 = raise #1 KeyError\n", 0) == -1, "not a tuple");
    hz_legend_clear(&lg);
}

/* A hand-written program has no legend: nothing is named. */
static void
legend_none(void)
{
    HzLegend lg;
    const char *src = "class T:\n    @property\n    def x(self):\n        return object()\n"
                      "def make():\n    return (T(),)\n"
                      "def program(t):\n    return (t.x, t.x)\n";
    CHECK(hz_legend_parse(src, &lg) == 0, "parse");
    CHECK(!lg.has_legend && lg.nstmts == 0 && lg.nmembers == 0, "no legend");
    CHECK(hz_legend_stmt_of(&lg, "r1 = tuple[2]\nr1[0] = #1 object\n", 0) == -1, "no map");
    hz_legend_clear(&lg);
}

/* The legend of generated programs agrees with their IR, statement by statement. */
static void
legend_generated(void)
{
    for (uint64_t seed = 1; seed <= 300; seed++) {
        HzProgram *p = hz_generate(seed);
        char *src = hz_emit(p, NULL);
        HzLegend lg;
        CHECK(hz_legend_parse(src, &lg) == 0, "parse");
        CHECK(lg.has_legend, "seed %llu: a legend", (unsigned long long)seed);
        CHECK(lg.nstmts == p->nstmts, "seed %llu: %zu statements, IR %d",
              (unsigned long long)seed, lg.nstmts, p->nstmts);
        for (size_t i = 0; i < lg.nstmts && i < p->nstmts; i++) {
            const HzStmt *st = &p->stmts[i];
            CHECK_STREQ(lg.stmts[i].access, hz_access_name((HzAccessPattern)st->pattern));
            CHECK(lg.stmts[i].desc[0] != '\0', "seed %llu stmt %zu: a kind",
                  (unsigned long long)seed, i);
            CHECK(lg.stmts[i].attr[0] != '\0', "seed %llu stmt %zu: an attribute",
                  (unsigned long long)seed, i);
            /* A loop adds one item per iteration only when it appends (collect
             * stored: out[i] = the tuple of its reads, one item). */
            if (st->pattern == HZ_ACCESS_loop && p->collect == HZ_COLLECT_appended) {
                CHECK(lg.stmts[i].loop >= 2 && lg.stmts[i].loop <= 4,
                      "seed %llu stmt %zu: loop %d", (unsigned long long)seed, i,
                      lg.stmts[i].loop);
            }
            else {
                CHECK(lg.stmts[i].loop == 0, "seed %llu stmt %zu: no loop",
                      (unsigned long long)seed, i);
            }
            /* The statement's attribute is a member of that kind, unless it reads a
             * name nothing defines (a missing name, a __getattr__ name). */
            const HzHintMember *m = hz_legend_member(&lg, lg.stmts[i].attr,
                                                     strlen(lg.stmts[i].attr));
            CHECK(m == NULL || strcmp(m->desc, lg.stmts[i].desc) == 0
                      || strcmp(lg.stmts[i].desc, "mro_override") == 0
                      || strcmp(m->desc, "mro_override") == 0,
                  "seed %llu stmt %zu: %s is %s, tagged %s", (unsigned long long)seed, i,
                  lg.stmts[i].attr, m ? m->desc : "", lg.stmts[i].desc);
        }
        CHECK(lg.nmuts == p->nbetween, "seed %llu: %zu mutations, IR %d",
              (unsigned long long)seed, lg.nmuts, p->nbetween);
        for (size_t i = 0; i < lg.nmuts && i < p->nbetween; i++) {
            CHECK_STREQ(lg.muts[i].kind, hz_between_name((HzBetweenKind)p->between[i].kind));
        }
        for (size_t i = 0; i < lg.nmembers; i++) {
            CHECK(lg.members[i].name[0] != '\0' && lg.members[i].cls[0] != '\0',
                  "seed %llu member %zu (%s) named", (unsigned long long)seed, i,
                  lg.members[i].desc);
        }
        hz_legend_clear(&lg);
        free(src);
        hz_program_free(p);
        if (tf_failures > 20) {
            return;
        }
    }
}

/* ---- signatures ---- */

static const char *STATE = "args = tuple[1]\nargs[0] = #9 Base\nargs2 = tuple[1]\n"
                           "args2[0] = #10 Base\nLOG = #11 list[0]\n";

static void
synth(OrObservation *o, const char *r1, const char *log1, const char *r2, const char *log2,
      const char *state)
{
    const char *s[OR_SEC__COUNT] = {
        r1, log1 ? log1 : "log1 = list[0]\n", r2 ? r2 : "r2 = None\n",
        log2 ? log2 : "log2 = list[0]\n", "r3 = None\n", "log3 = list[0]\n",
        state ? state : STATE,
    };
    for (int i = 0; i < OR_SEC__COUNT; i++) {
        o->section[i] = strdup(s[i]);
    }
}

/* The signature of eager e against target t for the program src (NULL: no hook). */
static char *last_report;   /* the report of the last signature_of, malloc'd */

static char *
signature_of(const OrObservation *e, const OrObservation *t, const char *src,
             OrTargetEnd end, const char *message)
{
    OrVerdictInput in;
    memset(&in, 0, sizeof in);
    in.eager1 = in.eager2 = e;
    in.target = t;
    in.program_source = src;
    in.target_end = end;
    in.step = end == OR_TARGET_FINISHED ? 0 : 1;
    in.target_message = message;
    HzHint h;
    hz_hint_init(&h, src);
    if (src != NULL) {
        in.hint = hz_hint_answer;
        in.hint_ctx = &h;
    }
    OrVerdict v;
    memset(&v, 0, sizeof v);
    CHECK(or_verdict_decide(&in, &v) == 0, "decide");
    char *sig = v.signature;
    v.signature = NULL;
    free(last_report);
    last_report = v.report;
    v.report = NULL;
    or_verdict_clear(&v);
    hz_hint_clear(&h);
    return sig;
}

static void
check_sig(const char *r1e, const char *r1t, const char *want)
{
    OrObservation e, t;
    synth(&e, r1e, NULL, NULL, NULL, NULL);
    synth(&t, r1t, NULL, NULL, NULL, NULL);
    char *sig = signature_of(&e, &t, PROG, OR_TARGET_FINISHED, NULL);
    CHECK_STREQ(sig, want);
    free(sig);
    or_observation_clear(&e);
    or_observation_clear(&t);
}

static const char *R_EAGER = "r1 = tuple[5]\nr1[0] = 3\nr1[1] = 3\nr1[2] = 3\nr1[3] = tuple[2]\n"
                             "r1[3][0] = #1 dict[1]\nr1[3][1] = #2 dict[1]\nr1[4] = #3 list[1]\n";

/* The item of a result names its statement; its index leaves the signature. */
static void
sig_result_item(void)
{
    check_sig(R_EAGER,
              "r1 = tuple[5]\nr1[0] = 3\nr1[1] = 3\nr1[2] = 3\nr1[3] = tuple[2]\n"
              "r1[3][0] = #1 dict[1]\nr1[3][1] = #1\nr1[4] = #3 list[1]\n",
              "MISMATCH_RESULT 1 reused reread");
    /* Another item, another statement, another signature. */
    check_sig(R_EAGER,
              "r1 = tuple[5]\nr1[0] = 3\nr1[1] = 3\nr1[2] = 3\nr1[3] = tuple[2]\n"
              "r1[3][0] = #1 dict[1]\nr1[3][1] = #2 dict[1]\nr1[4] = None\n",
              "MISMATCH_RESULT 1 value cached_prop/probe");
    check_sig(R_EAGER,
              "r1 = tuple[5]\nr1[0] = 3\nr1[1] = 4\nr1[2] = 3\nr1[3] = tuple[2]\n"
              "r1[3][0] = #1 dict[1]\nr1[3][1] = #2 dict[1]\nr1[4] = #3 list[1]\n",
              "MISMATCH_RESULT 1 value class_attr/reread");
}

/* A result that is only shorter is refined to its first differing item. */
static void
sig_length_refined(void)
{
    check_sig(R_EAGER,
              "r1 = tuple[4]\nr1[0] = 3\nr1[1] = 3\nr1[2] = 3\nr1[3] = tuple[2]\n"
              "r1[3][0] = #1 dict[1]\nr1[3][1] = #1\n",
              "MISMATCH_RESULT 1 reused reread");
    /* Without a hint: the shape alone. */
    OrObservation e, t;
    synth(&e, "r1 = tuple[2]\nr1[0] = 1\nr1[1] = #1 object\n", NULL, NULL, NULL, NULL);
    synth(&t, "r1 = tuple[1]\nr1[0] = 2\n", NULL, NULL, NULL, NULL);
    char *sig = signature_of(&e, &t, NULL, OR_TARGET_FINISHED, NULL);
    CHECK_STREQ(sig, "MISMATCH_RESULT 1 value -");
    free(sig);
    or_observation_clear(&e);
    or_observation_clear(&t);
}

/* A program without a legend keeps today's signature. */
static void
sig_no_legend(void)
{
    const char *src = "class T:\n    @property\n    def x(self):\n        return object()\n";
    OrObservation e, t;
    synth(&e, "r1 = tuple[2]\nr1[0] = #1 object\nr1[1] = #2 object\n", NULL, NULL, NULL, NULL);
    synth(&t, "r1 = tuple[2]\nr1[0] = #1 object\nr1[1] = #1\n", NULL, NULL, NULL, NULL);
    char *sig = signature_of(&e, &t, src, OR_TARGET_FINISHED, NULL);
    CHECK_STREQ(sig, "MISMATCH_RESULT 1 reused -");
    free(sig);
    or_observation_clear(&e);
    or_observation_clear(&t);
}

/* A LOG event names its attribute; the side with more events holds it. */
static void
sig_log_event(void)
{
    const char *log_e = "log1 = list[2]\nlog1[0] = tuple[2]\nlog1[0][0] = 'get'\n"
                        "log1[0][1] = 'Base.fresh_prop'\nlog1[1] = tuple[2]\n"
                        "log1[1][0] = 'get'\nlog1[1][1] = 'Base.fresh_prop'\n";
    const char *log_t = "log1 = list[1]\nlog1[0] = tuple[2]\nlog1[0][0] = 'get'\n"
                        "log1[0][1] = 'Base.fresh_prop'\n";
    const char *log_x = "log1 = list[2]\nlog1[0] = tuple[2]\nlog1[0][0] = 'get'\n"
                        "log1[0][1] = 'Base.fresh_prop'\nlog1[1] = tuple[2]\n"
                        "log1[1][0] = 'compute'\nlog1[1][1] = 'Base.cached'\n";
    const char *log_g = "log1 = list[1]\nlog1[0] = tuple[3]\nlog1[0][0] = 'getattr'\n"
                        "log1[0][1] = 'Base'\nlog1[0][2] = 'dynamic'\n";
    OrObservation e, t, x, g;
    synth(&e, R_EAGER, log_e, NULL, NULL, NULL);
    synth(&t, R_EAGER, log_t, NULL, NULL, NULL);
    synth(&x, R_EAGER, log_x, NULL, NULL, NULL);
    synth(&g, R_EAGER, log_g, NULL, NULL, NULL);
    char *sig = signature_of(&e, &t, PROG, OR_TARGET_FINISHED, NULL);
    CHECK_STREQ(sig, "MISMATCH_EVENTS 1 log-missing:get -");
    CHECK(strstr(last_report, "involved: the LOG event get of Base.fresh_prop (prop_fresh)\n"),
          "%s", last_report);
    free(sig);
    /* The target's extra event is the divergent one. */
    sig = signature_of(&t, &x, PROG, OR_TARGET_FINISHED, NULL);
    CHECK_STREQ(sig, "MISMATCH_EVENTS 1 log-extra:compute -");
    free(sig);
    /* __getattr__ logs the missing name: the hook is what ran. */
    sig = signature_of(&t, &g, PROG, OR_TARGET_FINISHED, NULL);
    CHECK_STREQ(sig, "MISMATCH_EVENTS 1 log-diff:get -");
    free(sig);
    sig = signature_of(&g, &t, PROG, OR_TARGET_FINISHED, NULL);
    CHECK_STREQ(sig, "MISMATCH_EVENTS 1 log-diff:getattr -");
    CHECK(strstr(last_report, "(getattr_hook)"), "%s", last_report);
    free(sig);
    /* ... unless the name is a member's (an unset slot falls back to __getattr__). */
    OrObservation gm;
    synth(&gm, R_EAGER, "log1 = list[1]\nlog1[0] = tuple[3]\nlog1[0][0] = 'getattr'\n"
                        "log1[0][1] = 'Base'\nlog1[0][2] = 'inst_val'\n", NULL, NULL, NULL);
    sig = signature_of(&gm, &t, PROG, OR_TARGET_FINISHED, NULL);
    CHECK_STREQ(sig, "MISMATCH_EVENTS 1 log-diff:getattr -");
    CHECK(strstr(last_report, "(inst_attr)"), "%s", last_report);
    free(sig);
    or_observation_clear(&gm);
    or_observation_clear(&e);
    or_observation_clear(&t);
    or_observation_clear(&x);
    or_observation_clear(&g);
}

/* A state entry names its attribute's kind; the signature keeps only the root. */
static void
sig_state(void)
{
    OrObservation e, t;
    synth(&e, R_EAGER, NULL, NULL, NULL,
          "args = tuple[1]\nargs[0] = #9 Base\nargs[0].cached = #12 list[1]\n"
          "args[0].cached[0] = 2\nargs2 = tuple[0]\nLOG = #11 list[0]\n");
    synth(&t, R_EAGER, NULL, NULL, NULL,
          "args = tuple[1]\nargs[0] = #9 Base\nargs[0].cached = #12 list[1]\n"
          "args[0].cached[0] = 3\nargs2 = tuple[0]\nLOG = #11 list[0]\n");
    char *sig = signature_of(&e, &t, PROG, OR_TARGET_FINISHED, NULL);
    CHECK_STREQ(sig, "MISMATCH_STATE end value cached_prop");
    CHECK(strstr(last_report, "involved: what Base.cached (cached_prop) left in the world\n"),
          "%s", last_report);
    free(sig);
    or_observation_clear(&e);
    or_observation_clear(&t);
}

/* In step 2 the between() mutation of the statement's attribute joins the hint. */
static void
sig_between(void)
{
    const char *r2e = "r2 = tuple[5]\nr2[0] = tuple[2]\nr2[0][0] = 'rebound'\nr2[0][1] = 6\n"
                      "r2[1] = #20\nr2[2] = #20\nr2[3] = #21 tuple[2]\nr2[4] = #3\n";
    const char *r2t = "r2 = tuple[5]\nr2[0] = 3\nr2[1] = 3\nr2[2] = 3\nr2[3] = #21 tuple[2]\n"
                      "r2[4] = #3\n";
    OrObservation e, t;
    synth(&e, R_EAGER, NULL, r2e, NULL, NULL);
    synth(&t, R_EAGER, NULL, r2t, NULL, NULL);
    char *sig = signature_of(&e, &t, PROG, OR_TARGET_FINISHED, NULL);
    CHECK_STREQ(sig, "MISMATCH_RESULT 2 stale reread+rebind_class_attr");
    CHECK(last_report != NULL
              && strstr(last_report, "involved: class_val (class_attr) read as loop by "
                                     "statement 1 of program(), after between() did "
                                     "rebind_class_attr\n") != NULL,
          "%s", last_report ? last_report : "(no report)");
    free(sig);
    or_observation_clear(&e);
    or_observation_clear(&t);
}

/* The tracer's provenance message names the attribute. */
static void
sig_provenance(void)
{
    OrObservation e;
    synth(&e, R_EAGER, NULL, NULL, NULL, NULL);
    char *sig = signature_of(&e, &e, PROG, OR_TARGET_PROVENANCE,
                             "tfjit.ProvenanceError: attribute fresh_prop of Sub object out "
                             "of sync: <dict object at 0x1> vs. <dict object at 0x2>\n");
    CHECK_STREQ(sig, "PROVENANCE 1 ProvenanceError prop_fresh");
    free(sig);
    sig = signature_of(&e, &e, PROG, OR_TARGET_PROVENANCE,
                       "tfjit.ProvenanceError: provenance INPUT[0].cached via cached_property "
                       "resolves to <tuple object at 0x1>, the trace used <list object at 0x2>\n");
    CHECK_STREQ(sig, "PROVENANCE 1 ProvenanceError cached_prop");
    free(sig);
    sig = signature_of(&e, &e, PROG, OR_TARGET_PROVENANCE,
                       "tfjit.ProvenanceError: attribute dynamic of Base object out of sync: "
                       "['dynamic', 68] vs. ['dynamic', 68]\n");
    CHECK_STREQ(sig, "PROVENANCE 1 ProvenanceError getattr_hook");
    free(sig);
    /* Python's own attribute, not a member (nor the program's __getattr__). */
    sig = signature_of(&e, &e, PROG, OR_TARGET_PROVENANCE,
                       "tfjit.ProvenanceError: attribute __name__ of type object out of sync: "
                       "AttributeError vs. AttributeError\n");
    CHECK_STREQ(sig, "PROVENANCE 1 ProvenanceError builtin:__name__");
    free(sig);
    /* A chain: the attribute the earlier exception names is not the tracer's. */
    sig = signature_of(&e, &e, PROG, OR_TARGET_PROVENANCE,
                       "Traceback (most recent call last):\n  File \"<tfprog>\", line 9\n"
                       "AttributeError: 'Base' object has no attribute 'cached'\n\nDuring "
                       "handling of the above exception, another exception occurred:\n\n"
                       "tfjit.ProvenanceError: attribute fresh_prop of Base object out of "
                       "sync: 1 vs. 2\n");
    CHECK_STREQ(sig, "PROVENANCE 1 ProvenanceError prop_fresh");
    free(sig);
    /* In step 2, with the between() mutation of that attribute. */
    OrVerdictInput in;
    memset(&in, 0, sizeof in);
    in.eager1 = in.eager2 = in.target = &e;
    in.program_source = PROG;
    in.target_end = OR_TARGET_PROVENANCE;
    in.step = 2;
    in.target_message = "tfjit.ProvenanceError: provenance ?.class_val via class_attr resolves "
                        "to <tuple object at 0x1>, the trace used <tuple object at 0x2>\n";
    HzHint h;
    hz_hint_init(&h, PROG);
    in.hint = hz_hint_answer;
    in.hint_ctx = &h;
    OrVerdict v;
    CHECK(or_verdict_decide(&in, &v) == 0, "decide");
    CHECK_STREQ(v.signature, "PROVENANCE 2 ProvenanceError class_attr+rebind_class_attr");
    CHECK(strstr(v.report, "involved: class_val (class_attr), named by the target's message, "
                           "after between() did rebind_class_attr\n") != NULL, "%s", v.report);
    or_verdict_clear(&v);
    hz_hint_clear(&h);
    sig = signature_of(&e, &e, PROG, OR_TARGET_PROVENANCE, "tfjit.ProvenanceError: other\n");
    CHECK_STREQ(sig, "PROVENANCE 1 ProvenanceError -");
    free(sig);
    or_observation_clear(&e);
}

/* The hook is asked only for a failure. */
static int asked;

static void
counting_hint(void *ctx, const OrHintQuery *q, OrHintAnswer *ans)
{
    (void)ctx;
    (void)q;
    asked++;
    ans->hint = "named";
}

static void
sig_lazy(void)
{
    OrObservation e;
    synth(&e, R_EAGER, NULL, NULL, NULL, NULL);
    OrVerdictInput in;
    memset(&in, 0, sizeof in);
    in.eager1 = in.eager2 = in.target = &e;
    in.hint = counting_hint;
    OrVerdict v;
    asked = 0;
    CHECK(or_verdict_decide(&in, &v) == 0 && v.kind == OR_OK, "OK");
    CHECK(asked == 0, "asked %d times for an OK input", asked);
    or_verdict_clear(&v);
    in.target_end = OR_TARGET_UNSUPPORTED;
    CHECK(or_verdict_decide(&in, &v) == 0 && v.kind == OR_UNSUPPORTED, "UNSUPPORTED");
    CHECK(asked == 0, "asked %d times for UNSUPPORTED", asked);
    or_verdict_clear(&v);
    in.target_end = OR_TARGET_TIMEOUT;
    CHECK(or_verdict_decide(&in, &v) == 0 && v.kind == OR_TIMEOUT, "TIMEOUT");
    CHECK(asked == 1, "asked %d times for TIMEOUT", asked);
    CHECK_STREQ(v.signature, "TIMEOUT - timeout named");
    or_verdict_clear(&v);
    or_observation_clear(&e);
}

#define SIG_TESTS(X) \
    X(legend_handmade) X(legend_member) X(legend_stmt_of) X(legend_none) \
    X(legend_generated) X(sig_result_item) X(sig_length_refined) X(sig_no_legend) \
    X(sig_log_event) X(sig_state) X(sig_between) X(sig_provenance) X(sig_lazy)

int
main(int argc, char **argv)
{
    static const struct { const char *name; void (*fn)(void); } tests[] = {
#define SIG_ENTRY(n) {#n, n},
        SIG_TESTS(SIG_ENTRY)
#undef SIG_ENTRY
    };
    if (argc != 2) {
        fprintf(stderr, "usage: sig_test NAME\n");
        return 2;
    }
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        if (strcmp(argv[1], tests[i].name) == 0) {
            tests[i].fn();
            free(last_report);
            if (tf_failures) {
                fprintf(stderr, "%s: %d failure(s)\n", argv[1], tf_failures);
                return 1;
            }
            printf("%s: ok\n", argv[1]);
            return 0;
        }
    }
    fprintf(stderr, "sig_test: no test %s\n", argv[1]);
    return 2;
}
