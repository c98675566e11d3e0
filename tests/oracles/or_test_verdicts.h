/* or_test_verdicts.h: one test per verdict kind with synthetic observations, the
 * precedence between them, and the signature's stability (included by or_test.c). */

#define OR_TEST_VERDICTS(X) \
    X(OK) X(INVALID) X(NONDETERMINISTIC) X(PROVENANCE) X(UNSUPPORTED) X(TIMEOUT) \
    X(TARGET_CRASH_signal) X(TARGET_CRASH_own_exception) X(TARGET_CRASH_setup) \
    X(MISMATCH_EXCEPTION) X(MISMATCH_RESULT) X(MISMATCH_EVENTS) X(MISMATCH_STATE) \
    X(precedence) X(signature_stable) X(names) \
    X(shape_result) X(shape_log) X(shape_step2) X(message_norm) X(crash_state)

/* A synthetic observation: the sections of a run that returned `r1` etc. */
static void
synth(OrObservation *o, const char *r1, const char *log1, const char *r2,
      const char *state)
{
    const char *s[OR_SEC__COUNT] = {
        r1, log1, r2 ? r2 : "r2 = None\n", "log2 = list[0]\n", "r3 = None\n",
        "log3 = list[0]\n", state ? state : "args = tuple[0]\nargs2 = tuple[0]\nLOG = <none>\n",
    };
    for (int i = 0; i < OR_SEC__COUNT; i++) {
        o->section[i] = strdup(s[i]);
    }
}

static const char *R_SAME = "r1 = tuple[2]\nr1[0] = #1 object\nr1[1] = #2 object\n";
static const char *R_ALIAS = "r1 = tuple[2]\nr1[0] = #1 object\nr1[1] = #1\n";
static const char *L_ONE = "log1 = list[1]\nlog1[0] = 'get test'\n";
static const char *PROGRAM =
    "class Test:\n    @property\n    def test(self):\n        return object()\n";

/* Decides with eager1 = eager2 = e, target t; checks the kind; returns the verdict. */
static OrVerdict
decide(OrVerdictInput *in, OrVerdictKind want)
{
    OrVerdict v = {0};
    if (in->program_source == NULL) {
        in->program_source = PROGRAM;
    }
    CHECK(or_verdict_decide(in, &v) == 0, "decide failed");
    CHECK(v.kind == want, "got %s, want %s\n%s", or_verdict_name(v.kind),
          or_verdict_name(want), v.report ? v.report : "");
    CHECK(v.signature && strncmp(v.signature, or_verdict_name(want),
                                 strlen(or_verdict_name(want))) == 0,
          "signature %s", v.signature);
    CHECK(v.report && strstr(v.report, PROGRAM) == NULL
          && strstr(v.report, "    def test(self):\n") != NULL,
          "the report ends with the program (indented)");
    return v;
}

static void
verdict_OK(void)
{
    OrObservation e, t;
    synth(&e, R_SAME, L_ONE, NULL, NULL);
    synth(&t, R_SAME, L_ONE, NULL, NULL);
    OrVerdictInput in = {0};
    in.eager1 = in.eager2 = &e;
    in.target = &t;
    OrVerdict v = decide(&in, OR_OK);
    CHECK_STREQ(v.signature, "OK - - -");
    or_verdict_clear(&v);
    or_observation_clear(&e);
    or_observation_clear(&t);
}

static void
verdict_INVALID(void)
{
    OrVerdictInput in = {0};
    in.invalid = true;
    in.invalid_why = "make() raised NameError";
    in.target_end = OR_TARGET_DIED;   /* ignored: invalid input wins */
    OrVerdict v = decide(&in, OR_INVALID);
    CHECK(strstr(v.report, "make() raised NameError") != NULL, "%s", v.report);
    CHECK_STREQ(v.signature, "INVALID - - -");
    or_verdict_clear(&v);
}

static void
verdict_NONDETERMINISTIC(void)
{
    OrObservation e1, e2;
    synth(&e1, R_SAME, "log1 = list[2]\nlog1[0] = 'a'\nlog1[1] = 'b'\n", NULL, NULL);
    synth(&e2, R_SAME, "log1 = list[2]\nlog1[0] = 'a'\nlog1[1] = 'c'\n", NULL, NULL);
    OrVerdictInput in = {0};
    in.eager1 = &e1;
    in.eager2 = &e2;
    in.target = &e1;
    OrVerdict v = decide(&in, OR_NONDETERMINISTIC);
    CHECK_STREQ(v.signature, "NONDETERMINISTIC 1 log1[*] -");
    CHECK(strstr(v.report, "eager 1") && strstr(v.report, "eager 2"), "%s", v.report);
    or_verdict_clear(&v);
    or_observation_clear(&e1);
    or_observation_clear(&e2);
}

static void
verdict_PROVENANCE(void)
{
    OrObservation e;
    synth(&e, R_SAME, L_ONE, NULL, NULL);
    OrVerdictInput in = {0};
    in.eager1 = in.eager2 = &e;
    in.target_end = OR_TARGET_PROVENANCE;
    in.step = 1;
    in.hint_desc_kind = "prop_fresh";
    in.target_message = "Traceback (most recent call last):\n  File \"x\", line 1\n"
                        "KeyError: 'k'\n\nDuring handling of the above exception, another "
                        "exception occurred:\n\nTraceback (most recent call last):\n"
                        "  File \"y\", line 2\n"
                        "tfjit.ProvenanceError: attribute test of Test object out of sync: "
                        "<object object at 0x1>\nvs. <object object at 0x2>\n";
    OrVerdict v = decide(&in, OR_PROVENANCE);
    CHECK_STREQ(v.signature, "PROVENANCE 1 ProvenanceError prop_fresh");
    CHECK(strstr(v.report, "attribute test of Test object out of sync") != NULL, "%s",
          v.report);
    or_verdict_clear(&v);
    or_observation_clear(&e);
}

static void
verdict_UNSUPPORTED(void)
{
    OrObservation e;
    synth(&e, R_SAME, L_ONE, NULL, NULL);
    OrVerdictInput in = {0};
    in.eager1 = in.eager2 = &e;
    in.target_end = OR_TARGET_UNSUPPORTED;
    in.step = 2;
    in.target_message = "tfjit.Unsupported: opcode SETUP_WITH";
    OrVerdict v = decide(&in, OR_UNSUPPORTED);
    CHECK_STREQ(v.signature, "UNSUPPORTED 2 Unsupported -");
    or_verdict_clear(&v);
    or_observation_clear(&e);
}

static void
verdict_TIMEOUT(void)
{
    OrObservation e;
    synth(&e, R_SAME, L_ONE, NULL, NULL);
    OrVerdictInput in = {0};
    in.eager1 = in.eager2 = &e;
    in.target_end = OR_TARGET_TIMEOUT;
    in.step = 3;
    OrVerdict v = decide(&in, OR_TIMEOUT);
    CHECK_STREQ(v.signature, "TIMEOUT 3 timeout -");
    or_verdict_clear(&v);
    or_observation_clear(&e);
}

static void
verdict_TARGET_CRASH_signal(void)
{
    OrObservation e;
    synth(&e, R_SAME, L_ONE, NULL, NULL);
    OrVerdictInput in = {0};
    in.eager1 = in.eager2 = &e;
    in.target_end = OR_TARGET_DIED;
    in.signal = 11;
    in.step = 2;
    in.hint_desc_kind = "slot";
    OrVerdict v = decide(&in, OR_TARGET_CRASH);
    CHECK_STREQ(v.signature, "TARGET_CRASH 2 SIGSEGV slot");
    CHECK(strstr(v.report, "signal 11") != NULL, "%s", v.report);
    or_verdict_clear(&v);
    or_observation_clear(&e);
}

/* The motivating report: an AssertionError from the tracer's own frames. */
static void
verdict_TARGET_CRASH_own_exception(void)
{
    OrObservation e;
    synth(&e, R_SAME, L_ONE, NULL, NULL);
    OrVerdictInput in = {0};
    in.eager1 = in.eager2 = &e;
    in.target_end = OR_TARGET_OWN_EXCEPTION;
    in.step = 1;
    in.hint_desc_kind = "prop_fresh";
    in.target_message = "AssertionError: attribute test of Test object out of sync: "
                        "<object object at 0x7f412657f850> vs. <object object at 0x7f412657f960>";
    OrVerdict v = decide(&in, OR_TARGET_CRASH);
    CHECK_STREQ(v.signature, "TARGET_CRASH 1 AssertionError prop_fresh");
    CHECK(strstr(v.report, "attribute test of Test object out of sync: <object") != NULL,
          "%s", v.report);
    or_verdict_clear(&v);
    or_observation_clear(&e);
}

static void
verdict_TARGET_CRASH_setup(void)
{
    OrObservation e;
    synth(&e, R_SAME, L_ONE, NULL, NULL);
    OrVerdictInput in = {0};
    in.eager1 = in.eager2 = &e;
    in.target_end = OR_TARGET_SETUP_FAILED;
    in.target_message = "TypeError: jit() argument must be a function";
    OrVerdict v = decide(&in, OR_TARGET_CRASH);
    CHECK_STREQ(v.signature, "TARGET_CRASH - setup:TypeError -");
    or_verdict_clear(&v);
    or_observation_clear(&e);
}

static void
verdict_MISMATCH_EXCEPTION(void)
{
    OrObservation e, t;
    synth(&e, "r1 = raise #1 ValueError\nr1.args = tuple[1]\nr1.args[0] = 'a'\n",
          L_ONE, NULL, NULL);
    synth(&t, R_SAME, L_ONE, NULL, NULL);
    OrVerdictInput in = {0};
    in.eager1 = in.eager2 = &e;
    in.target = &t;
    OrVerdict v = decide(&in, OR_MISMATCH_EXCEPTION);
    CHECK_STREQ(v.signature, "MISMATCH_EXCEPTION 1 ValueError!=none -");
    or_verdict_clear(&v);
    or_observation_clear(&t);
    /* Only the message differs: said in the report, same kind. */
    synth(&t, "r1 = raise #1 ValueError\nr1.args = tuple[1]\nr1.args[0] = 'b'\n",
          L_ONE, NULL, NULL);
    v = decide(&in, OR_MISMATCH_EXCEPTION);
    CHECK_STREQ(v.signature, "MISMATCH_EXCEPTION 1 ValueError!=ValueError b");
    CHECK(strstr(v.report, "only the exception message differs") != NULL, "%s", v.report);
    or_verdict_clear(&v);
    or_observation_clear(&t);
    or_observation_clear(&e);
}

static void
verdict_MISMATCH_RESULT(void)
{
    OrObservation e, t;
    synth(&e, R_SAME, L_ONE, NULL, NULL);
    synth(&t, R_ALIAS, L_ONE, NULL, NULL);
    OrVerdictInput in = {0};
    in.eager1 = in.eager2 = &e;
    in.target = &t;
    in.hint_desc_kind = "prop_fresh";
    OrVerdict v = decide(&in, OR_MISMATCH_RESULT);
    CHECK_STREQ(v.signature, "MISMATCH_RESULT 1 reused prop_fresh");
    /* Side by side: the differing line marked, both sides in full. */
    CHECK(strstr(v.report, "path r1[1]") != NULL, "%s", v.report);
    CHECK(strstr(v.report, "> r1[1] = #2 object") != NULL, "%s", v.report);
    CHECK(strstr(v.report, "eager: r1[1] = #2 object\ntarget: r1[1] = #1\n") != NULL,
          "%s", v.report);
    CHECK(strstr(v.report, "difference: identity: eager has a new object where target has "
                 "one seen before (#1)\n") != NULL, "%s", v.report);
    printf("%s", v.report);
    or_verdict_clear(&v);
    or_observation_clear(&e);
    or_observation_clear(&t);
}

static void
verdict_MISMATCH_EVENTS(void)
{
    OrObservation e, t;
    synth(&e, R_SAME, "log1 = list[2]\nlog1[0] = 'get test'\nlog1[1] = 'get test'\n",
          NULL, NULL);
    synth(&t, R_SAME, L_ONE, NULL, NULL);
    OrVerdictInput in = {0};
    in.eager1 = in.eager2 = &e;
    in.target = &t;
    OrVerdict v = decide(&in, OR_MISMATCH_EVENTS);
    CHECK_STREQ(v.signature, "MISMATCH_EVENTS 1 log-missing:get -");
    or_verdict_clear(&v);
    or_observation_clear(&e);
    or_observation_clear(&t);
}

static void
verdict_MISMATCH_STATE(void)
{
    OrObservation e, t;
    synth(&e, R_SAME, L_ONE, NULL, "args = tuple[1]\nargs[0] = #3 A\nargs[0].n = 2\n");
    synth(&t, R_SAME, L_ONE, NULL, "args = tuple[1]\nargs[0] = #3 A\nargs[0].n = 1\n");
    OrVerdictInput in = {0};
    in.eager1 = in.eager2 = &e;
    in.target = &t;
    in.hint_desc_kind = "inst_attr";
    OrVerdict v = decide(&in, OR_MISMATCH_STATE);
    CHECK_STREQ(v.signature, "MISMATCH_STATE end value inst_attr");
    or_verdict_clear(&v);
    or_observation_clear(&e);
    or_observation_clear(&t);
}

static void
verdict_precedence(void)
{
    OrObservation e1, e2, t;
    synth(&e1, R_SAME, L_ONE, NULL, NULL);
    synth(&e2, R_ALIAS, L_ONE, NULL, NULL);
    /* r1 equal, log1 differs, r2 differs too: protocol order says EVENTS. */
    synth(&t, R_SAME, "log1 = list[0]\n", "r2 = 1\n", "LOG = #9 list[0]\n");
    OrVerdictInput in = {0};
    in.eager1 = &e1;
    in.target = &t;
    OrVerdict v = decide(&in, OR_MISMATCH_EVENTS);
    or_verdict_clear(&v);
    /* No eager2: nondeterminism is not checked. A target verdict beats a mismatch. */
    in.target_end = OR_TARGET_UNSUPPORTED;
    v = decide(&in, OR_UNSUPPORTED);
    or_verdict_clear(&v);
    /* Nondeterminism beats everything the target did. */
    in.eager2 = &e2;
    in.target_end = OR_TARGET_PROVENANCE;
    v = decide(&in, OR_NONDETERMINISTIC);
    or_verdict_clear(&v);
    /* Invalid input beats nondeterminism. */
    in.invalid = true;
    v = decide(&in, OR_INVALID);
    or_verdict_clear(&v);
    /* The harness forgot an observation: never a finding. */
    in.invalid = false;
    in.eager2 = NULL;
    in.target_end = OR_TARGET_FINISHED;
    in.target = NULL;
    v = decide(&in, OR_INVALID);
    or_verdict_clear(&v);
    or_observation_clear(&e1);
    or_observation_clear(&e2);
    or_observation_clear(&t);
}

/* Same divergence, different object numbers, values and log positions: one
 * signature. A different path: another one. */
static void
verdict_signature_stable(void)
{
    OrObservation e, t, e2, t2;
    synth(&e, "r1 = tuple[2]\nr1[0] = #4 object\nr1[1] = #5 Foo\n",
          "log1 = list[3]\nlog1[0] = 1\nlog1[1] = 2\nlog1[2] = 'x'\n", NULL, NULL);
    synth(&t, "r1 = tuple[2]\nr1[0] = #4 object\nr1[1] = #4\n",
          "log1 = list[3]\nlog1[0] = 1\nlog1[1] = 2\nlog1[2] = 'y'\n", NULL, NULL);
    /* The same shape (an object served again) at another place groups together. */
    synth(&e2, "r1 = tuple[3]\nr1[0] = 7\nr1[1] = #1 list[0]\nr1[2] = #2 list[0]\n", L_ONE,
          NULL, NULL);
    synth(&t2, "r1 = tuple[3]\nr1[0] = 7\nr1[1] = #1 list[0]\nr1[2] = #1\n", L_ONE, NULL, NULL);
    OrVerdictInput in = {0};
    in.hint_desc_kind = "prop_fresh";
    in.eager1 = in.eager2 = &e;
    in.target = &t;
    OrVerdict a = decide(&in, OR_MISMATCH_RESULT);
    in.eager1 = in.eager2 = &e2;
    in.target = &t2;
    OrVerdict b = decide(&in, OR_MISMATCH_RESULT);
    CHECK_STREQ(a.signature, b.signature);
    CHECK_STREQ(a.signature, "MISMATCH_RESULT 1 reused prop_fresh");
    or_verdict_clear(&a);
    or_verdict_clear(&b);
    /* Events at different log positions with different values group together. */
    OrObservation le, lt, le2, lt2;
    synth(&le, R_SAME, "log1 = list[2]\nlog1[0] = 1\nlog1[1] = #3 A\n", NULL, NULL);
    synth(&lt, R_SAME, "log1 = list[2]\nlog1[0] = 1\nlog1[1] = #3 B\n", NULL, NULL);
    synth(&le2, R_SAME, "log1 = list[9]\nlog1[0] = 1\nlog1[1] = 1\nlog1[2] = #12 A\n",
          NULL, NULL);
    synth(&lt2, R_SAME, "log1 = list[9]\nlog1[0] = 1\nlog1[1] = 1\nlog1[2] = 'q'\n",
          NULL, NULL);
    in.eager1 = in.eager2 = &le;
    in.target = &lt;
    a = decide(&in, OR_MISMATCH_EVENTS);
    in.eager1 = in.eager2 = &le2;
    in.target = &lt2;
    b = decide(&in, OR_MISMATCH_EVENTS);
    CHECK_STREQ(a.signature, b.signature);
    CHECK_STREQ(a.signature, "MISMATCH_EVENTS 1 log-diff:A prop_fresh");
    or_verdict_clear(&a);
    or_verdict_clear(&b);
    /* Object numbers inside a path (an object dict key) are dropped. */
    OrObservation ke, kt;
    synth(&ke, "r1 = #2 dict[1]\nr1[#3 K] = 1\n", L_ONE, NULL, NULL);
    synth(&kt, "r1 = #2 dict[1]\nr1[#3 K] = 2\n", L_ONE, NULL, NULL);
    in.eager1 = &ke;
    in.eager2 = &kt;
    in.target = &kt;
    a = decide(&in, OR_NONDETERMINISTIC);
    CHECK_STREQ(a.signature, "NONDETERMINISTIC 1 r1[#_K] prop_fresh");
    or_verdict_clear(&a);
    OrObservation *all[] = {&e, &t, &e2, &t2, &le, &lt, &le2, &lt2, &ke, &kt};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        or_observation_clear(all[i]);
    }
}

static void
verdict_names(void)
{
    for (int k = 0; k < OR_VERDICT__COUNT; k++) {
        OrVerdictKind back;
        CHECK(or_verdict_parse(or_verdict_name((OrVerdictKind)k), &back) == 0
              && back == (OrVerdictKind)k, "round trip of %d", k);
    }
    OrVerdictKind dummy;
    CHECK(or_verdict_parse("NOPE", &dummy) == -1, "unknown name");
    CHECK_STREQ(or_verdict_name(OR_MISMATCH_RESULT), "MISMATCH_RESULT");
    CHECK_STREQ(or_section_name(OR_SEC_LOG2), "log2");
}

#include "or_test_shapes.h"
