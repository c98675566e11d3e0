/* or_test_shapes.h: the shapes of divergences (oracles/or_shape.h), the message
 * normalisation and the crash-state signatures, from synthetic texts (included by
 * or_test_verdicts.h; the names are in its X list). */
#include "or_shape.h"

/* The shape of path in section sec between texts e (eager) and t (target). */
static void
check_shape(OrSection sec, const char *e, const char *t, const char *path, unsigned flags,
            const char *want)
{
    char got[OR_SHAPE_MAX];
    or_shape(sec, e, t, path, flags, NULL, NULL, got, sizeof got);
    CHECK(strcmp(got, want) == 0, "%s: got %s, want %s", path, got, want);
}

static void
verdict_shape_result(void)
{
    const char *e = "r1 = tuple[4]\nr1[0] = #1 object\nr1[1] = tuple[2]\nr1[1][0] = 1\n"
                    "r1[1][1] = 2\nr1[2] = tuple[2]\nr1[2][0] = 'raised'\n"
                    "r1[2][1] = 'AttributeError'\nr1[3] = #2\n";
    /* An object served again where eager made a new one. */
    check_shape(OR_SEC_R1, "r1 = tuple[2]\nr1[0] = #1 object\nr1[1] = #2 object\n",
                "r1 = tuple[2]\nr1[0] = #1 object\nr1[1] = #1\n", "r1[1]", 0, "reused");
    /* A counter read twice: 1, 1 where eager read 1, 2. */
    check_shape(OR_SEC_R1, e,
                "r1 = tuple[4]\nr1[0] = #1 object\nr1[1] = tuple[2]\nr1[1][0] = 1\n"
                "r1[1][1] = 1\n", "r1[1][1]", 0, "reused");
    /* ... but 1, 3 is another value. */
    check_shape(OR_SEC_R1, e,
                "r1 = tuple[4]\nr1[0] = #1 object\nr1[1] = tuple[2]\nr1[1][0] = 1\n"
                "r1[1][1] = 3\n", "r1[1][1]", 0, "value");
    /* After the statement's own write: stale when the value is one from before
     * (an earlier item's), another value otherwise. */
    const char *w_e = "r1 = tuple[2]\nr1[0] = tuple[2]\nr1[0][0] = 'old'\nr1[0][1] = 1\n"
                      "r1[1] = tuple[2]\nr1[1][0] = 'written'\nr1[1][1] = 1\n";
    const char *w_t = "r1 = tuple[2]\nr1[0] = tuple[2]\nr1[0][0] = 'old'\nr1[0][1] = 1\n"
                      "r1[1] = tuple[2]\nr1[1][0] = 'old'\nr1[1][1] = 1\n";
    check_shape(OR_SEC_R1, w_e, w_t, "r1[1][0]", OR_SHAPE_WRITE, "stale");
    check_shape(OR_SEC_R1, w_e, w_t, "r1[1][0]", 0, "value");
    check_shape(OR_SEC_R1, w_e,
                "r1 = tuple[2]\nr1[0] = tuple[2]\nr1[0][0] = 'old'\nr1[0][1] = 1\n"
                "r1[1] = None\n", "r1[1]", OR_SHAPE_WRITE, "value");
    check_shape(OR_SEC_R1, "r1 = tuple[2]\nr1[0] = #1 object\nr1[1] = #2 object\n",
                "r1 = tuple[2]\nr1[0] = #1 object\nr1[1] = #1\n", "r1[1]", OR_SHAPE_WRITE,
                "stale");
    /* A new object where eager had the one seen before. */
    check_shape(OR_SEC_R1, "r1 = tuple[2]\nr1[0] = #1 object\nr1[1] = #1\n",
                "r1 = tuple[2]\nr1[0] = #1 object\nr1[1] = #2 object\n", "r1[1]", 0, "fresh");
    /* Raised items: another type, raised where eager did not, and the reverse. */
    const char *t_exc = "r1 = tuple[4]\nr1[0] = #1 object\nr1[1] = tuple[2]\nr1[1][0] = 1\n"
                        "r1[1][1] = 2\nr1[2] = tuple[2]\nr1[2][0] = 'raised'\n"
                        "r1[2][1] = 'TypeError'\nr1[3] = #2\n";
    check_shape(OR_SEC_R1, e, t_exc, "r1[2][1]", 0, "exc-type");
    const char *t_val = "r1 = tuple[4]\nr1[0] = #1 object\nr1[1] = tuple[2]\nr1[1][0] = 1\n"
                        "r1[1][1] = 2\nr1[2] = 5\nr1[3] = #2\n";
    check_shape(OR_SEC_R1, e, t_val, "r1[2]", 0, "no-raise");
    check_shape(OR_SEC_R1, e, t_val, "r1[2]", OR_SHAPE_WRITE, "no-raise");   /* after del */
    check_shape(OR_SEC_R1, t_val, e, "r1[2]", 0, "raises");
    /* An identity test read True where eager read False. */
    check_shape(OR_SEC_R1, "r1 = tuple[1]\nr1[0] = False\n", "r1 = tuple[1]\nr1[0] = True\n",
                "r1[0]", OR_SHAPE_IDENTITY, "reused");
    check_shape(OR_SEC_R1, "r1 = tuple[1]\nr1[0] = False\n", "r1 = tuple[1]\nr1[0] = True\n",
                "r1[0]", 0, "value");
    /* An item on one side only; a state entry on one side only. */
    check_shape(OR_SEC_R1, "r1 = tuple[1]\nr1[0] = 1\n", "r1 = tuple[2]\nr1[0] = 1\nr1[1] = 2\n",
                "r1[1]", 0, "extra");
    check_shape(OR_SEC_STATE, "args = tuple[1]\nargs[0] = #1 A\nargs[0].x = 1\n",
                "args = tuple[1]\nargs[0] = #1 A\n", "args[0].x", 0, "missing");
}

static void
verdict_shape_log(void)
{
    const char *two = "log1 = list[2]\nlog1[0] = tuple[2]\nlog1[0][0] = 'get'\n"
                      "log1[0][1] = 'Base.p_1'\nlog1[1] = tuple[2]\nlog1[1][0] = 'get'\n"
                      "log1[1][1] = 'Base.p_1'\n";
    const char *one = "log1 = list[1]\nlog1[0] = tuple[2]\nlog1[0][0] = 'get'\n"
                      "log1[0][1] = 'Base.p_1'\n";
    const char *probe = "log1 = list[2]\nlog1[0] = tuple[2]\nlog1[0][0] = 'get'\n"
                        "log1[0][1] = 'Base.p_1'\nlog1[1] = tuple[3]\nlog1[1][0] = 'getattr'\n"
                        "log1[1][1] = 'Base'\nlog1[1][2] = '_jit'\n";
    check_shape(OR_SEC_LOG1, two, one, "log1[1]", 0, "log-missing:get");
    check_shape(OR_SEC_LOG1, one, probe, "log1[1]", 0, "log-extra:getattr");
    check_shape(OR_SEC_LOG1, two, probe, "log1[1][0]", 0, "log-diff:get");
    /* String events: the first word; numbers: "int"; generated names masked. */
    check_shape(OR_SEC_LOG1, "log1 = list[1]\nlog1[0] = 'set x'\n", "log1 = list[0]\n",
                "log1[0]", 0, "log-missing:set");
    check_shape(OR_SEC_LOG1, "log1 = list[1]\nlog1[0] = 3\n", "log1 = list[0]\n", "log1[0]", 0,
                "log-missing:int");
    check_shape(OR_SEC_LOG1, "log1 = list[1]\nlog1[0] = 'attr_3'\n", "log1 = list[0]\n",
                "log1[0]", 0, "log-missing:*");
    /* The state's LOG reads the same. */
    check_shape(OR_SEC_STATE, "LOG = #4 list[1]\nLOG[0] = 'get x'\n", "LOG = #4 list[0]\n",
                "LOG[0]", 0, "log-missing:get");
}

/* Step 2: the target's item is its step 1 item where eager's changed. */
static void
verdict_shape_step2(void)
{
    const char *e1 = "r1 = tuple[1]\nr1[0] = 3\n", *e2 = "r2 = tuple[1]\nr2[0] = 4\n";
    const char *t2 = "r2 = tuple[1]\nr2[0] = 3\n", *t2b = "r2 = tuple[1]\nr2[0] = 5\n";
    char got[OR_SHAPE_MAX];
    or_shape(OR_SEC_R2, e2, t2, "r2[0]", 0, e1, e1, got, sizeof got);
    CHECK_STREQ(got, "stale");
    or_shape(OR_SEC_R2, e2, t2b, "r2[0]", 0, e1, e1, got, sizeof got);
    CHECK_STREQ(got, "value");
    /* An object of step 1 served again in step 2 ("#1" against "#1 list[1]"). */
    or_shape(OR_SEC_R2, "r2 = tuple[1]\nr2[0] = #5 list[1]\nr2[0][0] = 2\n",
             "r2 = tuple[1]\nr2[0] = #1\n", "r2[0]", 0,
             "r1 = tuple[1]\nr1[0] = #1 list[1]\nr1[0][0] = 1\n",
             "r1 = tuple[1]\nr1[0] = #1 list[1]\nr1[0][0] = 1\n", got, sizeof got);
    CHECK_STREQ(got, "stale");
}

static int
names_base(void *ctx, const char *s, size_t n)
{
    (void)ctx;
    return n == 4 && memcmp(s, "Base", 4) == 0;
}

static void
verdict_message_norm(void)
{
    static const struct { const char *in, *want; } cases[] = {
        {"'fresh_prop'", "'*'"},
        {"calling a non-callable 'classmethod'", "calling_a_non-callable_'*'"},
        {"attribute fresh_prop of Base object out of sync: [1] vs. [2]",
         "attribute_*_of_*_object_out_of_sync"},
        {"<function f at 0x7f00aa> got 3 arguments, expected 12", "<*>_got_N_arguments,_expected_N"},
        {"bad address 0xdeadbeef in Child2", "bad_address_0x*_in_*"},
        {"__getattr__ returned None", "__getattr___returned_None"},
        {"", "-"},
        {"first line\nsecond line", "first_line"},
        {"a very long message that goes on and on and on and on and on and on and on",
         "a_very_long_message_that_goes_on_and_on_and_on_and_on~"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[56];
        or_message_norm(cases[i].in, names_base, NULL, out, sizeof out);
        CHECK(strcmp(out, cases[i].want) == 0, "%s: got %s, want %s", cases[i].in, out,
              cases[i].want);
    }
}

/* A crash state from the harness signs the crash: no step, the message last. */
static void
verdict_crash_state(void)
{
    OrObservation e;
    synth(&e, R_SAME, L_ONE, NULL, NULL);
    OrVerdictInput in = {0};
    in.eager1 = in.eager2 = &e;
    in.target_end = OR_TARGET_OWN_EXCEPTION;
    in.step = 2;
    in.hint_desc_kind = "prop_fresh";
    in.target_message = "InterpreterError: cannot load 'x'";
    in.crash_state = "InterpreterError<-KeyError@interp.py:Interp.run_native,Interp.load";
    in.crash_message = "'*'";
    OrVerdict v = decide(&in, OR_TARGET_CRASH);
    CHECK_STREQ(v.signature,
                "TARGET_CRASH - InterpreterError<-KeyError@interp.py:Interp.run_native,"
                "Interp.load '*'");
    CHECK(strstr(v.report, "crash state: InterpreterError<-KeyError@interp.py:"
                           "Interp.run_native,Interp.load (") != NULL
              && strstr(v.report, "message '*', in step 2\n") != NULL,
          "%s", v.report);
    or_verdict_clear(&v);
    in.target_end = OR_TARGET_SETUP_FAILED;
    in.crash_state = "TypeError@jit.py:jit";
    in.crash_message = "not_a_function";
    v = decide(&in, OR_TARGET_CRASH);
    CHECK_STREQ(v.signature, "TARGET_CRASH - setup:TypeError@jit.py:jit not_a_function");
    or_verdict_clear(&v);
    or_observation_clear(&e);
}
