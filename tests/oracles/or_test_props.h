/* or_test_props.h: properties of observations, one ctest each (included by
 * or_test.c, which provides CHECK, Run, run_program and observe_src). */

#define OR_TEST_PROPS(X) \
    X(aliasing) X(nan_negzero) X(set_order) X(dict_order) X(no_user_code) \
    X(cycle) X(cap_objects) X(cap_lines) X(exceptions) X(int_subclass) \
    X(mutation_in_state) X(partial_run) X(cap_log) \
    X(set_of_instances) X(cap_key) X(exception_addresses) \
    X(float_repr) X(int_repr) X(str_escape)

/* The lines of `text` whose path starts with `prefix`, prefix removed, joined;
 * malloc'd. */
static char *
lines_under(const char *text, const char *prefix)
{
    size_t plen = strlen(prefix), cap = strlen(text) + 1, len = 0;
    char *out = malloc(cap);
    out[0] = '\0';
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);
        if (strncmp(p, prefix, plen) == 0) {
            memcpy(out + len, p + plen, n - plen);
            len += n - plen;
            out[len] = '\0';
        }
        p += n;
    }
    return out;
}

/* Observes two programs and returns the first section where they differ. */
static OrSection
diff_programs(const char *a, const char *b, char **text_a, char **text_b)
{
    OrObservation oa, ob;
    char *ta = observe_src(a, &oa), *tb = observe_src(b, &ob);
    OrSection s = OR_SEC__COUNT;
    if (ta == NULL || tb == NULL) {
        CHECK(0, "a program failed to run");
        s = (OrSection)-1;
    }
    else {
        s = or_observation_diff(&oa, &ob);
        or_observation_clear(&oa);
        or_observation_clear(&ob);
    }
    if (text_a) {
        *text_a = ta;
    }
    else {
        free(ta);
    }
    if (text_b) {
        *text_b = tb;
    }
    else {
        free(tb);
    }
    return s;
}

#define PROLOGUE "LOG = []\ndef make():\n    return ()\n"

static void
prop_aliasing(void)
{
    char *ta, *tb;
    OrSection s = diff_programs(
        PROLOGUE "def program():\n    x = object()\n    return (x, x)\n",
        PROLOGUE "def program():\n    return (object(), object())\n", &ta, &tb);
    CHECK(s == OR_SEC_R1, "(x, x) and (x, y) must differ in r1, got %d", (int)s);
    CHECK(ta && strstr(ta, "r1[0] = #1 object\nr1[1] = #1\n"), "%s", ta);
    CHECK(tb && strstr(tb, "r1[0] = #1 object\nr1[1] = #2 object\n"), "%s", tb);
    free(ta);
    free(tb);
    /* Addresses do not matter: two fresh objects in either order read the same. */
    s = diff_programs(
        PROLOGUE "def program():\n    a = object(); b = object()\n    return (b, a)\n",
        PROLOGUE "def program():\n    return (object(), object())\n", NULL, NULL);
    CHECK(s == OR_SEC__COUNT, "fresh objects must read the same, differ in %d", (int)s);
}

static void
prop_nan_negzero(void)
{
    char *ta;
    OrSection s = diff_programs(
        PROLOGUE "def program():\n    return (float('nan'), -0.0, 0.0, 1e22, 0.1)\n",
        PROLOGUE "def program():\n    return (float('nan'), 0.0, 0.0, 1e22, 0.1)\n",
        &ta, NULL);
    CHECK(s == OR_SEC_R1, "-0.0 and 0.0 must differ, got %d", (int)s);
    CHECK(ta && strstr(ta, "r1[0] = nan\nr1[1] = -0.0\nr1[2] = 0.0\nr1[3] = 1e+22\n"
                       "r1[4] = 0.1\n"), "%s", ta);
    free(ta);
    s = diff_programs(PROLOGUE "def program():\n    return float('nan')\n",
                      PROLOGUE "def program():\n    return -float('nan')\n", NULL, NULL);
    CHECK(s == OR_SEC__COUNT, "NaN reads as its repr, got %d", (int)s);
}

static void
prop_set_order(void)
{
    /* Same elements, different table orders (checked by the program itself). */
    const char *src = PROLOGUE
        "def program():\n"
        "    words = ['w%d' % i for i in range(40)]\n"
        "    a = set(words)\n"
        "    b = set(range(1000)) | set(reversed(words))\n"
        "    b -= set(range(1000))\n"
        "    assert a == b and list(a) != list(b), 'premise: orders differ'\n"
        "    return (a, b, frozenset(a), frozenset(b))\n";
    char *t = observe_src(src, NULL);
    CHECK(t != NULL && strstr(t, "r1 = raise") == NULL, "%s", t ? t : "");
    if (t != NULL) {
        char *a = lines_under(t, "r1[0]"), *b = lines_under(t, "r1[1]");
        char *fa = lines_under(t, "r1[2]"), *fb = lines_under(t, "r1[3]");
        CHECK(strstr(a, "{0} = 'w0'\n{1} = 'w1'\n{2} = 'w10'\n") != NULL, "%s", a);
        CHECK(strstr(b, " = #2 set[40]\n") != NULL, "%s", b);
        CHECK_STREQ(strchr(a, '\n'), strchr(b, '\n'));   /* elements, after the header */
        CHECK_STREQ(fa, fb);
        free(a);
        free(b);
        free(fa);
        free(fb);
    }
    free(t);
}

static void
prop_dict_order(void)
{
    OrSection s = diff_programs(
        PROLOGUE "def program():\n    return {'a': 1, 'b': 2}\n",
        PROLOGUE "def program():\n    return {'b': 2, 'a': 1}\n", NULL, NULL);
    CHECK(s == OR_SEC_R1, "dict order matters, got %d", (int)s);
    s = diff_programs(
        PROLOGUE "def program():\n    d = {'a': 1, 'b': 2}\n    return d\n",
        PROLOGUE "def program():\n    d = {'b': 2}\n    d['a'] = 1\n    d['b'] = 2\n"
                 "    del d['b']\n    d['b'] = 2\n    return d\n", NULL, NULL);
    CHECK(s == OR_SEC__COUNT, "same insertion order reads the same, got %d", (int)s);
}

/* Every hook a class can define: none may run while observing. */
static const char *hooks_src =
    "LOG = []\n"
    "class Meta(type):\n"
    "    def __getattribute__(cls, name):\n"
    "        LOG.append('meta getattribute ' + name); raise RuntimeError\n"
    "class Hooked(metaclass=Meta):\n"
    "    __slots__ = ('s', 'u', '__dict__')\n"
    "    @property\n"
    "    def p(self):\n"
    "        LOG.append('property'); raise RuntimeError\n"
    "    @property\n"
    "    def __class__(self):\n"
    "        LOG.append('__class__'); raise RuntimeError\n"
    "    def __getattribute__(self, name):\n"
    "        LOG.append('getattribute ' + name); raise RuntimeError\n"
    "    def __getattr__(self, name):\n"
    "        LOG.append('getattr ' + name); raise RuntimeError\n"
    "    def __repr__(self):\n"
    "        LOG.append('repr'); raise RuntimeError\n"
    "    def __eq__(self, other):\n"
    "        LOG.append('eq'); raise RuntimeError\n"
    "    def __hash__(self):\n"
    "        LOG.append('hash'); return 1\n"
    "    def __len__(self):\n"
    "        LOG.append('len'); raise RuntimeError\n"
    "    def __iter__(self):\n"
    "        LOG.append('iter'); raise RuntimeError\n"
    "    def __del__(self):\n"
    "        LOG.append('del')\n"
    "class HList(list):\n"
    "    def __iter__(self):\n"
    "        LOG.append('list iter'); raise RuntimeError\n"
    "    def __len__(self):\n"
    "        LOG.append('list len'); raise RuntimeError\n"
    "    def __getitem__(self, i):\n"
    "        LOG.append('list getitem'); raise RuntimeError\n"
    "class HDict(dict):\n"
    "    def __iter__(self):\n"
    "        LOG.append('dict iter'); raise RuntimeError\n"
    "    def items(self):\n"
    "        LOG.append('dict items'); raise RuntimeError\n"
    "    def keys(self):\n"
    "        LOG.append('dict keys'); raise RuntimeError\n"
    "class HSet(set):\n"
    "    def __iter__(self):\n"
    "        LOG.append('set iter'); raise RuntimeError\n"
    "class HInt(int):\n"
    "    def __repr__(self):\n"
    "        LOG.append('int repr'); raise RuntimeError\n"
    "    def __index__(self):\n"
    "        LOG.append('int index'); raise RuntimeError\n"
    "class HStr(str):\n"
    "    def __repr__(self):\n"
    "        LOG.append('str repr'); raise RuntimeError\n"
    "def make():\n"
    "    h = object.__new__(Hooked)\n"
    "    object.__setattr__(h, 'x', 1)\n"
    "    object.__setattr__(h, 's', 'slot')\n"
    "    keyobj = object.__new__(Hooked)\n"
    "    return (h, HList([1, h]), HDict({keyobj: 2}), HSet([keyobj, 3]),\n"
    "            HInt(2 ** 80), HStr('s'), Hooked, {h: keyobj})\n"
    "def program(*args):\n"
    "    return args\n";

static void
prop_no_user_code(void)
{
    Run run;
    if (run_program(hooks_src, &run) < 0) {
        CHECK(0, "hooks program failed");
        run_clear(&run);
        return;
    }
    PyObject *log = global(&run, "LOG");
    Py_ssize_t before = PyList_GET_SIZE(log);
    OrObservation obs;
    CHECK(or_observe(&run.raw, &obs) == 0, "observe failed");
    CHECK(!PyErr_Occurred(), "an exception was left set");
    PyErr_Clear();
    Py_ssize_t after = PyList_GET_SIZE(log);
    CHECK(before == after, "user code ran while observing: LOG %zd -> %zd", before, after);
    for (Py_ssize_t i = before; i < after; i++) {
        fprintf(stderr, "  ran: %s\n", PyUnicode_AsUTF8(PyList_GET_ITEM(log, i)));
    }
    char *t = or_observation_text(&obs);
    CHECK(t && strstr(t, "r1[0] = #1 Hooked\nr1[0].x = 1\nr1[0].s = 'slot'\n"
                      "r1[0].u = <unset>\n"), "%s", t);
    CHECK(t && strstr(t, "r1[1] = #2 HList[2]\nr1[1][0] = 1\nr1[1][1] = #1\n"), "%s", t);
    CHECK(t && strstr(t, "r1[2] = #3 HDict[1]\nr1[2][#4 Hooked] = 2\nr1[3] = #5 HSet[2]\n"
                      "r1[3]{0} = #4\nr1[3]{1} = 3\n"), "%s", t);
    CHECK(t && strstr(t, "r1[4] = #6 HInt 1208925819614629174706176\n"), "%s", t);
    CHECK(t && strstr(t, "r1[6] = #8 Meta Hooked\n"), "%s", t);
    free(t);
    or_observation_clear(&obs);
    run_clear(&run);
}

static void
prop_cycle(void)
{
    char *t = observe_src(PROLOGUE "def program():\n    l = []\n    l.append(l)\n"
                          "    d = {}\n    d['d'] = d\n    return (l, d)\n", NULL);
    CHECK(t && strstr(t, "r1[0] = #1 list[1]\nr1[0][0] = #1\n"
                      "r1[1] = #2 dict[1]\nr1[1]['d'] = #2\n"), "%s", t);
    free(t);
}

static void
prop_cap_objects(void)
{
    char *t = observe_src(PROLOGUE "def program():\n"
                          "    return [[object() for i in range(50)] for j in range(50)]\n",
                          NULL);
    /* r1 is #1; list j is #(2 + 51 j), its k-th object #(3 + 51 j + k). */
    CHECK(t && strstr(t, "r1[39] = #1991 list[50]\nr1[39][0] = #1992 object\n"), "%s",
          t ? t : "");
    CHECK(t && strstr(t, "r1[39][8] = #2000 object\nr1[39][9] = <cap objects> object\n"),
          "the object cap must show");
    CHECK(t && strstr(t, "r1[40] = <cap objects> list[50]\nr1[41] = <cap objects> list[50]\n"), "capped lists show no contents");
    free(t);
}

static void
prop_cap_lines(void)
{
    OrObservation obs;
    char *t = observe_src(PROLOGUE "def program():\n"
                          "    LOG.append('after')\n"
                          "    return [[[k for k in range(64)] for j in range(64)]"
                          " for i in range(64)]\n", &obs);
    CHECK(t != NULL, "observe failed");
    if (t == NULL) {
        return;
    }
    const char *r1 = obs.section[OR_SEC_R1];
    size_t lines = 0;
    for (const char *p = r1; *p; p++) {
        lines += *p == '\n';
    }
    CHECK(lines == 10001, "r1 has %zu lines, want the cap 10000 + 1", lines);
    CHECK(strstr(r1, "\n<cap lines>\n") != NULL, "the line cap must show");
    CHECK_STREQ(obs.section[OR_SEC_LOG1], "log1 = list[1]\nlog1[0] = 'after'\n");
    or_observation_clear(&obs);
    free(t);
}

static void
prop_exceptions(void)
{
    const char *a = PROLOGUE "def program():\n    raise ValueError('m', 1)\n";
    const char *b = PROLOGUE "def program():\n    raise ValueError('other', 1)\n";
    const char *c = PROLOGUE "def program():\n    raise TypeError('m', 1)\n";
    const char *d = PROLOGUE "def program():\n    return ValueError('m', 1)\n";
    char *ta;
    CHECK(diff_programs(a, a, &ta, NULL) == OR_SEC__COUNT, "same type and args: equal");
    CHECK(ta && strstr(ta, "r1 = raise #1 ValueError\nr1.args = tuple[2]\n"
                       "r1.args[0] = 'm'\nr1.args[1] = 1\n"), "%s", ta);
    free(ta);
    CHECK(diff_programs(a, b, NULL, NULL) == OR_SEC_R1, "args differ");
    CHECK(diff_programs(a, c, NULL, NULL) == OR_SEC_R1, "types differ");
    CHECK(diff_programs(a, d, NULL, NULL) == OR_SEC_R1, "raised vs returned");

    /* Through the verdict: only the message differs vs another type. */
    OrObservation oa, ob, oc;
    char *x = observe_src(a, &oa), *y = observe_src(b, &ob), *z = observe_src(c, &oc);
    if (x && y && z) {
        OrVerdictInput in = {0};
        in.eager1 = in.eager2 = &oa;
        in.target = &ob;
        OrVerdict v;
        CHECK(or_verdict_decide(&in, &v) == 0, "decide");
        CHECK(v.kind == OR_MISMATCH_EXCEPTION, "%s", or_verdict_name(v.kind));
        CHECK(strstr(v.report, "only the exception message differs") != NULL, "%s", v.report);
        or_verdict_clear(&v);
        in.target = &oc;
        CHECK(or_verdict_decide(&in, &v) == 0, "decide");
        CHECK(v.kind == OR_MISMATCH_EXCEPTION, "%s", or_verdict_name(v.kind));
        CHECK(strstr(v.report, "only the exception message") == NULL, "%s", v.report);
        or_verdict_clear(&v);
        or_observation_clear(&oa);
        or_observation_clear(&ob);
        or_observation_clear(&oc);
    }
    else {
        CHECK(0, "a program failed");
    }
    free(x);
    free(y);
    free(z);
}

static void
prop_int_subclass(void)
{
    char *ta;
    OrSection s = diff_programs(
        "LOG = []\nclass I(int):\n    pass\ndef make():\n    return ()\n"
        "def program():\n    return (I(5), 5, True)\n",
        PROLOGUE "def program():\n    return (5, 5, True)\n", &ta, NULL);
    CHECK(s == OR_SEC_R1, "an int subclass is not an int, got %d", (int)s);
    CHECK(ta && strstr(ta, "r1[0] = #1 I 5\nr1[1] = 5\nr1[2] = True\n"), "%s", ta);
    free(ta);
}

/* A tracer that mutates the arguments differently is caught in the state. */
static void
prop_mutation_in_state(void)
{
    char *ta;
    OrSection s = diff_programs(
        "LOG = []\nclass A:\n    pass\ndef make():\n    return (A(),)\n"
        "def program(a):\n    a.n = getattr(a, 'n', 0) + 1\n",
        "LOG = []\nclass A:\n    pass\ndef make():\n    return (A(),)\n"
        "def program(a):\n    a.n = 1\n", &ta, NULL);
    CHECK(s == OR_SEC_STATE, "state must differ, got %d", (int)s);
    CHECK(ta && strstr(ta, "[state]\nargs = tuple[1]\nargs[0] = #1 A\nargs[0].n = 2\n"
                       "args2 = tuple[1]\nargs2[0] = #2 A\nargs2[0].n = 1\n"
                       "LOG = #3 list[0]\n"), "%s", ta);
    free(ta);
}

/* A run that ended early (between raised): later steps read <not run>, absent
 * roots <none>; no exception is left set. */
static void
prop_partial_run(void)
{
    OrRunRaw raw;
    memset(&raw, 0, sizeof raw);
    PyObject *r = Py_BuildValue("(is)", 1, "a");
    PyObject *log = PyList_New(0);
    raw.steps_done = 1;
    raw.result[0] = r;
    raw.log_after[0] = log;
    raw.args = r;
    OrObservation obs;
    CHECK(or_observe(&raw, &obs) == 0, "observe");
    CHECK(!PyErr_Occurred(), "no exception");
    CHECK_STREQ(obs.section[OR_SEC_R1], "r1 = tuple[2]\nr1[0] = 1\nr1[1] = 'a'\n");
    CHECK_STREQ(obs.section[OR_SEC_LOG1], "log1 = list[0]\n");
    CHECK_STREQ(obs.section[OR_SEC_R2], "r2 = <not run>\n");
    CHECK_STREQ(obs.section[OR_SEC_LOG3], "log3 = <not run>\n");
    CHECK_STREQ(obs.section[OR_SEC_STATE], "args = tuple[2]\nargs[0] = 1\nargs[1] = 'a'\n"
                "args2 = <none>\nLOG = <none>\n");
    char *t = or_observation_text(&obs);
    CHECK(t && strncmp(t, "tfobs 2\ncaps depth=8 ", 21) == 0, "%s", t);
    free(t);
    or_observation_clear(&obs);
    /* Nothing at all: every section still present. */
    memset(&raw, 0, sizeof raw);
    CHECK(or_observe(&raw, &obs) == 0, "observe empty");
    CHECK_STREQ(obs.section[OR_SEC_R1], "r1 = <not run>\n");
    CHECK_STREQ(obs.section[OR_SEC_STATE], "args = <none>\nargs2 = <none>\nLOG = <none>\n");
    or_observation_clear(&obs);
    Py_DECREF(r);
    Py_DECREF(log);
}

/* LOG and its copies show up to OR_CAP_LOG events (more than other containers),
 * then say how many there were. */
static void
prop_cap_log(void)
{
    OrObservation obs;
    char *t = observe_src(PROLOGUE "def program():\n"
                          "    LOG.extend(range(len(LOG), len(LOG) + 1100))\n"
                          "    return list(range(70))\n", &obs);
    CHECK(t != NULL, "observe failed");
    if (t == NULL) {
        return;
    }
    CHECK(strstr(obs.section[OR_SEC_LOG1], "log1[1023] = 1023\nlog1[1024:] = <cap items 1100>\n")
          != NULL, "%s", obs.section[OR_SEC_LOG1]);
    CHECK(strstr(obs.section[OR_SEC_R1], "r1[63] = 63\nr1[64:] = <cap items 70>\n") != NULL,
          "%s", obs.section[OR_SEC_R1]);
    CHECK(strstr(obs.section[OR_SEC_STATE], "LOG[1024:] = <cap items 3300>\n") != NULL,
          "the final LOG is capped the same way");
    or_observation_clear(&obs);
    free(t);
}

/* Removes the digits after '#' (object numbers), in place. */
static void
strip_numbers(char *s)
{
    char *w = s;
    for (char *r = s; *r; r++) {
        *w++ = *r;
        if (*r == '#') {
            while (r[1] >= '0' && r[1] <= '9') {
                r++;
            }
        }
    }
    *w = '\0';
}

/* New instances in a set sort by their state, not their addresses. */
static void
prop_set_of_instances(void)
{
    const char *src = PROLOGUE
        "class C:\n"
        "    pass\n"
        "def mk(v):\n"
        "    c = C()\n"
        "    c.v = v\n"
        "    return c\n"
        "keep = []\n"
        "def program():\n"
        "    for i in range(200):\n"
        "        a, b = mk(1), mk((2, 'x'))\n"
        "        b2, a2 = mk((2, 'x')), mk(1)\n"
        "        s1, s2 = {a, b}, {a2, b2}\n"
        "        keep.append((a, b, a2, b2))\n"
        "        if [x.v for x in s1] != [x.v for x in s2]:\n"
        "            return (s1, s2)\n"
        "    raise AssertionError('premise: two table orders')\n";
    char *t = observe_src(src, NULL);
    CHECK(t != NULL && strstr(t, "r1 = raise") == NULL, "%s", t ? t : "");
    if (t != NULL) {
        char *a = lines_under(t, "r1[0]"), *b = lines_under(t, "r1[1]");
        strip_numbers(a);
        strip_numbers(b);
        CHECK_STREQ(a, b);
        /* Sorted by "#? C{v=(2, 'x')}" < "#? C{v=1}". */
        CHECK(strstr(a, "{0} = # C\n{0}.v = tuple[2]\n{0}.v[0] = 2\n{0}.v[1] = 'x'\n"
                        "{1} = # C\n{1}.v = 1\n") != NULL, "%s", a);
        free(a);
        free(b);
    }
    free(t);
}

/* Inline forms are capped in length; shared structure cannot blow up the work. */
static void
prop_cap_key(void)
{
    OrObservation obs;
    char *t = observe_src(PROLOGUE "def program():\n"
                          "    level = [frozenset({i}) for i in range(40)]\n"
                          "    for depth in range(6):\n"
                          "        level = [frozenset(level[:i] + level[i + 1:]) for i in range(40)]\n"
                          "    return ({tuple(str(i) * 40 for i in range(300)): 1},"
                          " set(level))\n", &obs);
    CHECK(t != NULL, "observe failed");
    if (t == NULL) {
        return;
    }
    const char *r1 = obs.section[OR_SEC_R1];
    CHECK(strstr(r1, "r1[0][('0000") != NULL && strstr(r1, "<cap key>] = 1\n") != NULL,
          "%.2000s", r1);
    CHECK(strstr(r1, "r1[1] = #2 set[40]\nr1[1]{0} = frozenset[39]\n") != NULL, "%.400s", r1);
    or_observation_clear(&obs);
    free(t);
}

/* Addresses inside exception args (from a repr) are hidden: they differ between
 * runs without meaning anything. Elsewhere strings are exact. */
static void
prop_exception_addresses(void)
{
    char *t;
    OrSection s = diff_programs(
        PROLOGUE "def program():\n    o = object()\n    LOG.append('0x1234567')\n"
                 "    raise ValueError(repr(o), ['at 0xdeadbeef0', '0x12'])\n",
        PROLOGUE "def program():\n    o = object()\n    LOG.append('0x1234567')\n"
                 "    raise ValueError(repr(o), ['at 0xdeadbeef1', '0x12'])\n", &t, NULL);
    CHECK(s == OR_SEC__COUNT, "addresses in exception args must not matter, got %d", (int)s);
    CHECK(t && strstr(t, "r1.args[0] = '<object\\x20object\\x20at" ) == NULL
          && strstr(t, "r1.args[0] = '<object object at 0x<addr>>'\n") != NULL
          && strstr(t, "r1.args[1][0] = 'at 0x<addr>'\nr1.args[1][1] = '0x12'\n") != NULL
          && strstr(t, "log1[0] = '0x1234567'\n") != NULL, "%s", t);
    free(t);
}

/* ---- the value writers against an independent reference (refs/reference.py) ---- */

/* Runs refs/reference.py followed by `tail` (which defines make, program and
 * EXPECTED) and checks that the [r1] section reads EXPECTED: the writers' fast
 * paths (digits, floats, plain runs) against Python's repr and the documented
 * escaping, on some 1,500 seeded values each. */
static void
check_reference(const char *tail)
{
    char *ref = read_file(OR_TEST_DIR "/refs/reference.py");
    CHECK(ref != NULL, "cannot read refs/reference.py");
    if (ref == NULL) {
        return;
    }
    size_t n = strlen(ref) + strlen(tail) + 1;
    char *src = malloc(n);
    snprintf(src, n, "%s%s", ref, tail);
    Run run;
    OrObservation obs;
    if (run_program(src, &run) < 0) {
        CHECK(0, "the reference program failed");
    }
    else if (or_observe(&run.raw, &obs) < 0) {
        PyErr_Print();
        CHECK(0, "observe failed");
    }
    else {
        PyObject *want = PyDict_GetItemString(run.globals, "EXPECTED");   /* borrowed */
        const char *w = want != NULL ? PyUnicode_AsUTF8(want) : NULL;
        const char *got = obs.section[OR_SEC_R1];
        CHECK(w != NULL, "EXPECTED missing");
        if (w != NULL && strcmp(w, got) != 0) {
            /* the first differing line, not 1,500 of them */
            size_t i = 0, line = 0;
            while (w[i] && w[i] == got[i]) {
                line += w[i++] == '\n';
            }
            const char *a = w + i, *b = got + i;
            while (a > w && a[-1] != '\n') {
                a--;
                b--;
            }
            CHECK(0, "line %zu differs\n  want: %.*s\n  got:  %.*s", line + 1,
                  (int)strcspn(a, "\n"), a, (int)strcspn(b, "\n"), b);
        }
        or_observation_clear(&obs);
    }
    run_clear(&run);
    free(src);
    free(ref);
}

#define REF_TAIL(values, text_of) \
    "\nLOG = []\ndef make():\n    return ()\n" \
    "TABLE, EXPECTED = rows(" values "(random.Random(7)), " text_of ")\n" \
    "def program():\n    return TABLE\n"

static void
prop_float_repr(void)
{
    check_reference(REF_TAIL("floats", "repr"));
}

static void
prop_int_repr(void)
{
    check_reference(REF_TAIL("ints", "text_of_int"));
}

static void
prop_str_escape(void)
{
    check_reference(REF_TAIL("strs", "text_of_str"));
}
