/* or_test_e2es.h: observations of real runs decided end to end: a program run
 * eagerly twice and once through a toy target (a module defining jit(fn)), the
 * three observations handed to or_verdict_decide as the harness does. The toy
 * targets mimic the bugs DESIGN.md names (included by or_test.c). */

#define OR_TEST_E2ES(X) \
    X(identity_ok) X(memo_silent) X(drop_event) X(extra_event) X(drop_exception) X(mutate_state) \
    X(nondeterministic) X(message_only)

static const char *MOTIVATING =
    "LOG = []\n"
    "class Test:\n"
    "    @property\n"
    "    def test(self):\n"
    "        LOG.append('test')\n"
    "        return object()\n"
    "def make():\n"
    "    return (Test(),)\n"
    "def program(t):\n"
    "    return t.test, t.test\n";

/* A tracer assuming attribute reads are stable: serves the first value again. */
static const char *MEMO_SILENT =
    "import builtins\n"
    "def jit(fn):\n"
    "    memo = {}\n"
    "    class Proxy:\n"
    "        def __init__(self, o):\n"
    "            object.__setattr__(self, '_o', o)\n"
    "        def __getattr__(self, name):\n"
    "            o = object.__getattribute__(self, '_o')\n"
    "            key = (id(o), name)\n"
    "            if key not in memo:\n"
    "                memo[key] = getattr(o, name)\n"
    "            return memo[key]\n"
    "    def traced(*args):\n"
    "        return fn(*[Proxy(a) for a in args])\n"
    "    return traced\n";

/* Decides program vs target; checks the kind and the signature. */
static void
e2e_check(const char *program, const char *target, OrVerdictKind want,
          const char *want_signature, const char *report_has)
{
    Run r1, r2, rt;
    OrObservation o1, o2, ot;
    int ok = run_program(program, &r1) == 0 && run_program(program, &r2) == 0
             && run_program_through(program, target, &rt) == 0;
    CHECK(ok, "a run failed");
    if (ok) {
        CHECK(or_observe(&r1.raw, &o1) == 0 && or_observe(&r2.raw, &o2) == 0
              && or_observe(&rt.raw, &ot) == 0, "observe failed");
        OrVerdictInput in = {0};
        in.eager1 = &o1;
        in.eager2 = &o2;
        in.target = &ot;
        in.program_source = program;
        OrVerdict v = {0};
        CHECK(or_verdict_decide(&in, &v) == 0, "decide failed");
        CHECK(v.kind == want, "got %s, want %s\n%s", or_verdict_name(v.kind),
              or_verdict_name(want), v.report);
        CHECK_STREQ(v.signature, want_signature);
        if (report_has != NULL) {
            CHECK(strstr(v.report, report_has) != NULL, "report lacks '%s':\n%s",
                  report_has, v.report);
        }
        printf("%s", v.report);
        or_verdict_clear(&v);
        or_observation_clear(&o1);
        or_observation_clear(&o2);
        or_observation_clear(&ot);
    }
    run_clear(&r1);
    run_clear(&r2);
    run_clear(&rt);
}

static void
e2e_identity_ok(void)
{
    e2e_check(MOTIVATING, "def jit(fn):\n    return fn\n", OR_OK, "OK - - -", NULL);
}

/* The quiet form of the motivating bug: one object twice instead of two. */
static void
e2e_memo_silent(void)
{
    e2e_check(MOTIVATING, MEMO_SILENT, OR_MISMATCH_RESULT,
              "MISMATCH_RESULT 1 reused -", "> r1[1] = #2 object");
}

/* A replayed trace that skips the getter: same result, an event lost. */
static void
e2e_drop_event(void)
{
    e2e_check(
        "LOG = []\n"
        "class C:\n"
        "    @property\n"
        "    def value(self):\n"
        "        LOG.append('value')\n"
        "        return 7\n"
        "def make():\n"
        "    return (C(),)\n"
        "def program(c):\n"
        "    return c.value\n",
        "def jit(fn):\n"
        "    def traced(*args):\n"
        "        r = fn(*args)\n"
        "        fn.__globals__['LOG'].pop()\n"
        "        return r\n"
        "    return traced\n",
        OR_MISMATCH_EVENTS, "MISMATCH_EVENTS 1 log-missing:value -", "  - log1[0] 'value'");
}

/* An event added in the middle of the log: the report shows it in context, the
 * events around it as they are, not the shifted lines after it. */
static void
e2e_extra_event(void)
{
    e2e_check(
        "LOG = []\n"
        "class C:\n"
        "    @property\n"
        "    def value(self):\n"
        "        for t in ('a', 'b', 'c', 'd', 'e'):\n"
        "            LOG.append(('get', t))\n"
        "        return 7\n"
        "def make():\n"
        "    return (C(),)\n"
        "def program(c):\n"
        "    return c.value\n",
        "def jit(fn):\n"
        "    def traced(*args):\n"
        "        r = fn(*args)\n"
        "        fn.__globals__['LOG'].insert(2, ('probe', 'x'))\n"
        "        return r\n"
        "    return traced\n",
        OR_MISMATCH_EVENTS, "MISMATCH_EVENTS 1 log-extra:probe -",
        "    log1[1] ('get', 'b')\n"
        "  + log1[2] ('probe', 'x')\n"
        "    log1[2] ('get', 'c')\n");
}

/* A target that swallows the getter's exception. */
static void
e2e_drop_exception(void)
{
    e2e_check(
        "LOG = []\n"
        "class C:\n"
        "    @property\n"
        "    def broken(self):\n"
        "        raise KeyError('broken')\n"
        "def make():\n"
        "    return (C(),)\n"
        "def program(c):\n"
        "    return c.broken\n",
        "def jit(fn):\n"
        "    def traced(*args):\n"
        "        try:\n"
        "            return fn(*args)\n"
        "        except KeyError:\n"
        "            return None\n"
        "    return traced\n",
        OR_MISMATCH_EXCEPTION, "MISMATCH_EXCEPTION 1 KeyError!=none -",
        "difference: exception: eager raises where target returns\n");
}

/* Same results and events, an attribute left behind in the world. */
static void
e2e_mutate_state(void)
{
    e2e_check(
        "class C:\n"
        "    def __init__(self):\n"
        "        self.x = 5\n"
        "def make():\n"
        "    return (C(),)\n"
        "def program(c):\n"
        "    return c.x\n",
        "def jit(fn):\n"
        "    def traced(*args):\n"
        "        r = fn(*args)\n"
        "        for a in args:\n"
        "            a.__dict__['_tampered'] = True\n"
        "        return r\n"
        "    return traced\n",
        OR_MISMATCH_STATE, "MISMATCH_STATE end extra -",
        "difference: structure: target has an entry here that eager lacks "
        "(args[0]._tampered)\n");
}

/* A program whose eager runs disagree (a counter kept in a module). */
static void
e2e_nondeterministic(void)
{
    e2e_check(
        "import sys\n"
        "def make():\n"
        "    return ()\n"
        "def program():\n"
        "    sys.tf_counter = getattr(sys, 'tf_counter', 0) + 1\n"
        "    return sys.tf_counter\n",
        "def jit(fn):\n    return fn\n",
        OR_NONDETERMINISTIC, "NONDETERMINISTIC 1 r1 -", "eager 2");
}

/* Same exception type, another message: MISMATCH_EXCEPTION, said in the report. */
static void
e2e_message_only(void)
{
    e2e_check(
        "class C:\n"
        "    @property\n"
        "    def x(self):\n"
        "        raise AttributeError('x is missing')\n"
        "def make():\n"
        "    return (C(),)\n"
        "def program(c):\n"
        "    return c.x\n",
        "def jit(fn):\n"
        "    def traced(*args):\n"
        "        try:\n"
        "            return fn(*args)\n"
        "        except AttributeError:\n"
        "            raise AttributeError('another message')\n"
        "    return traced\n",
        OR_MISMATCH_EXCEPTION, "MISMATCH_EXCEPTION 1 AttributeError!=AttributeError another_message",
        "only the exception message differs");
}
