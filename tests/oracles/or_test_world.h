/* or_test_world.h: the program's globals and class-level state in observations
 * (tfobs 2; docs/OBSERVATION.md, "Globals and classes"), one ctest each (included
 * by or_test.c after or_test_props.h: CHECK, Run, run_program, observe_src,
 * diff_programs, read_file). Each fails when class dicts or globals stop being
 * observed, or are observed beyond their data entries. */

#define OR_TEST_WORLDS(X) \
    X(class_counter) X(global_counter) X(bases_and_metaclass) X(skips_code) \
    X(foreign_class) X(no_user_code) X(one_numbering) X(order) X(cap_entries) \
    X(decides_state) X(custom_mro)

#define WORLD_MAKE "LOG = []\ndef make():\n    return (C(),)\n"

/* A class counter moved once more: the state section differs, at class:C.calls. */
static void
world_class_counter(void)
{
    char *ta, *tb;
    OrSection s = diff_programs(
        "class C:\n    calls = 0\n" WORLD_MAKE
        "def program(c):\n    C.calls += 1\n",
        "class C:\n    calls = 0\n" WORLD_MAKE
        "def program(c):\n    C.calls += 1\n    if C.calls == 2:\n        C.calls += 1\n",
        &ta, &tb);
    CHECK(s == OR_SEC_STATE, "section %d", (int)s);
    CHECK(ta && strstr(ta, "\nclass:C = #") && strstr(ta, "\nclass:C.calls = 3\n"), "%s", ta);
    CHECK(tb && strstr(tb, "\nclass:C.calls = 4\n"), "%s", tb);
    free(ta);
    free(tb);
}

/* A module global rebound and a global dict filled: both observed, LOG not twice. */
static void
world_global_counter(void)
{
    char *ta, *tb;
    const char *common = "class C:\n    pass\nN = 0\nSEEN = {}\n" WORLD_MAKE;
    char a[512], b[512];
    snprintf(a, sizeof a, "%sdef program(c):\n    global N\n    N += 1\n    SEEN[N] = 1\n",
             common);
    snprintf(b, sizeof b, "%sdef program(c):\n    SEEN[len(SEEN) + 1] = 1\n", common);
    OrSection s = diff_programs(a, b, &ta, &tb);
    CHECK(s == OR_SEC_STATE, "section %d", (int)s);
    CHECK(ta && strstr(ta, "\nglobal:N = 3\nglobal:SEEN = #"), "%s", ta);
    CHECK(tb && strstr(tb, "\nglobal:N = 0\nglobal:SEEN = #"), "%s", tb);
    CHECK(ta && strstr(ta, "global:SEEN[3] = 1\n"), "%s", ta);
    CHECK(ta && strstr(ta, "global:LOG") == NULL, "LOG is a root, not a global: %s", ta);
    free(ta);
    free(tb);
}

/* State kept on a base class and on the metaclass, met only through the MRO and
 * the type of the class. */
static void
world_bases_and_metaclass(void)
{
    char *t = observe_src(
        "class Meta(type):\n    made = []\n"
        "    def __init__(cls, *a):\n        Meta.made.append(cls.__name__)\n"
        "class Base(metaclass=Meta):\n    log = []\n"
        "    def touch(self):\n        Base.log.append(type(self).__name__)\n"
        "class Mid(Base):\n    pass\n"
        "class C(Mid):\n    pass\n"
        "LOG = []\n"
        "def make():\n    return (C(),)\n"
        "def program(c):\n    c.touch()\n", NULL);
    /* C (the argument's type) first, then its MRO, then the metaclass; Mid has no
     * data: no lines. */
    CHECK(t && strstr(t, "class:Base = #4 Meta Base\nclass:Base.log = #5 list[3]\n"
                      "class:Base.log[0] = 'C'\n"), "%s", t);
    CHECK(t && strstr(t, "class:Meta = #6 type Meta\nclass:Meta.made = #7 list[3]\n"
                      "class:Meta.made[0] = 'Base'\nclass:Meta.made[1] = 'Mid'\n"), "%s", t);
    CHECK(t && strstr(t, "class:Mid") == NULL && strstr(t, "class:C ") == NULL, "%s", t);
    free(t);
}

/* Code, descriptors (and their own state, here keyed by id()), dunders and
 * classes in a dict are not data: two programs differing only there read the
 * same. */
static void
world_skips_code(void)
{
    const char *fmt =
        "import functools, math\n"
        "class Store:\n"
        "    def __init__(self):\n        self.by_id = {}\n"
        "    def __get__(self, obj, t=None):\n        return self.by_id.get(id(obj), %d)\n"
        "    def __set__(self, obj, v):\n        self.by_id[id(obj)] = v\n"
        "class C:\n"
        "    \"\"\"doc %d\"\"\"\n"
        "    s = Store()\n"
        "    @property\n    def p(self):\n        return %d\n"
        "    @classmethod\n    def cm(cls):\n        return %d\n"
        "    @staticmethod\n    def sm():\n        return %d\n"
        "    cp = functools.cached_property(lambda self: %d)\n"
        "    f = len\n"
        "    class Inner:\n        pass\n"
        "    def m(self):\n        return %d\n"
        "def helper():\n    return %d\n"
        "mod = math\n"
        "__version__ = '%d'\n"
        "LOG = []\n"
        "def make():\n    return (C(),)\n"
        "def program(c):\n    c.s = 1\n    return c.s\n";
    char a[2048], b[2048];
    snprintf(a, sizeof a, fmt, 1, 1, 1, 1, 1, 1, 1, 1, 1);
    snprintf(b, sizeof b, fmt, 2, 2, 2, 2, 2, 2, 2, 2, 2);
    char *ta;
    OrSection s = diff_programs(a, b, &ta, NULL);
    CHECK(s == OR_SEC__COUNT, "section %d differs", (int)s);
    CHECK(ta && strstr(ta, "class:") == NULL && strstr(ta, "global:") == NULL,
          "only code and descriptors, yet: %s", ta);
    free(ta);
}

/* Only classes whose class statement ran in the program's module: a class that
 * says it is another module's, and the built-in types, are not read. */
static void
world_foreign_class(void)
{
    char *t = observe_src(
        "class C:\n    data = [1]\n"
        "class F:\n    __module__ = 'elsewhere'\n    data = [2]\n"
        "class L(list):\n    data = [3]\n"
        "LOG = []\n"
        "def make():\n    return (C(), F(), L())\n"
        "def program(*a):\n    return None\n", NULL);
    CHECK(t && strstr(t, "class:C.data = #") && strstr(t, "class:L.data = #"), "%s", t);
    CHECK(t && strstr(t, "class:F") == NULL && strstr(t, "class:list") == NULL, "%s", t);
    free(t);
}

/* Observing the world case (every hook there appends to LOG) runs no user code. */
static void
world_no_user_code(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/cases/world.py", OR_TEST_DIR);
    char *src = read_file(path);
    Run run;
    if (src == NULL || run_program(src, &run) < 0) {
        CHECK(0, "cannot run %s", path);
        free(src);
        return;
    }
    PyObject *log = global(&run, "LOG");
    Py_ssize_t before = PyList_GET_SIZE(log);
    OrObservation obs;
    CHECK(or_observe(&run.raw, &obs) == 0, "observe failed");
    CHECK(!PyErr_Occurred(), "an exception was left set");
    Py_ssize_t after = PyList_GET_SIZE(log);
    CHECK(before == after, "user code ran while observing: LOG %zd -> %zd", before, after);
    for (Py_ssize_t i = before; i < after; i++) {
        fprintf(stderr, "  ran: %s\n", PyUnicode_AsUTF8(PyList_GET_ITEM(log, i)));
    }
    CHECK(strstr(obs.section[OR_SEC_STATE], "class:Base.sentinel = #") != NULL, "%s",
          obs.section[OR_SEC_STATE]);
    or_observation_clear(&obs);
    run_clear(&run);
    free(src);
}

/* Class state and the world share one numbering: a list held by the class and
 * by an instance is one object (#n again), and an object first met in a class
 * dict keeps its number when seen later. */
static void
world_one_numbering(void)
{
    char *ta, *tb;
    OrSection s = diff_programs(
        "class C:\n    shared = []\n    def __init__(self):\n        self.items = C.shared\n"
        WORLD_MAKE "def program(c):\n    return None\n",
        "class C:\n    shared = []\n    def __init__(self):\n        self.items = []\n"
        WORLD_MAKE "def program(c):\n    return None\n",
        &ta, &tb);
    CHECK(s == OR_SEC_STATE, "section %d", (int)s);
    CHECK(ta && strstr(ta, "args[0].items = #2 list[0]\n") && strstr(ta, "class:C.shared = #2\n"),
          "%s", ta);
    CHECK(tb && strstr(tb, "class:C.shared = #7 list[0]\n"), "%s", tb);
    free(ta);
    free(tb);
}

/* Classes in the order the observation met them (r1 before args), a class dict
 * in insertion order, the namespace in insertion order. */
static void
world_order(void)
{
    char *t = observe_src(
        "Z = 1\nA = 2\n"
        "class A1:\n    y = 1\n    x = 2\n"
        "class B1:\n    v = 1\n"
        "LOG = []\n"
        "def make():\n    return (A1(),)\n"
        "def program(a):\n    return B1()\n", NULL);
    const char *z = t ? strstr(t, "global:Z = 1\nglobal:A = 2\n") : NULL;
    const char *b = t ? strstr(t, "class:B1 = #") : NULL;
    const char *a = t ? strstr(t, "class:A1 = #") : NULL;
    CHECK(z && b && a && z < b && b < a, "%s", t);
    CHECK(a && strstr(a, "class:A1.y = 1\nclass:A1.x = 2\n"), "%s", t);
    free(t);
}

/* At most 64 data entries per class dict, then a cap line with their count. */
static void
world_cap_entries(void)
{
    char *t = observe_src(
        "class C:\n    pass\n"
        "for i in range(70):\n    setattr(C, 'a%d' % i, i)\n"
        "def f():\n    pass\n"
        "C.f = f\n"
        WORLD_MAKE "def program(c):\n    return None\n", NULL);
    CHECK(t && strstr(t, "class:C.a63 = 63\nclass:C.__dict__[64:] = <cap items 70>\n"), "%s", t);
    CHECK(t && strstr(t, "class:C.a64") == NULL, "%s", t);
    free(t);
}

/* A target that differs only in class-level state: decided MISMATCH_STATE; the
 * same runs observed without their namespaces (tfobs 1's view) read OK. */
static void
world_decides_state(void)
{
    const char *program =
        "class M:\n    log = []\n"
        "    def __getattr__(self, name):\n        M.log.append(name)\n"
        "        raise AttributeError(name)\n"
        "LOG = []\n"
        "def make():\n    return (M(),)\n"
        "def program(m):\n    return getattr(m, 'w', 0)\n";
    const char *probe =
        "def jit(fn):\n"
        "    def traced(*args):\n"
        "        for a in args:\n"
        "            getattr(a, '_jit_probe_', None)\n"
        "        return fn(*args)\n"
        "    return traced\n";
    for (int with_ns = 1; with_ns >= 0; with_ns--) {
        Run r1, r2, rt;
        OrObservation o1, o2, ot;
        int ok = run_program(program, &r1) == 0 && run_program(program, &r2) == 0
                 && run_program_through(program, probe, &rt) == 0;
        CHECK(ok, "a run failed");
        if (ok) {
            if (!with_ns) {
                r1.raw.ns = r2.raw.ns = rt.raw.ns = NULL;
            }
            CHECK(or_observe(&r1.raw, &o1) == 0 && or_observe(&r2.raw, &o2) == 0
                  && or_observe(&rt.raw, &ot) == 0, "observe failed");
            OrVerdictInput in = {0};
            in.eager1 = &o1;
            in.eager2 = &o2;
            in.target = &ot;
            in.program_source = program;
            OrVerdict v = {0};
            CHECK(or_verdict_decide(&in, &v) == 0, "decide failed");
            OrVerdictKind want = with_ns ? OR_MISMATCH_STATE : OR_OK;
            CHECK(v.kind == want, "with_ns=%d: got %s, want %s\n%s", with_ns,
                  or_verdict_name(v.kind), or_verdict_name(want), v.report);
            CHECK(!with_ns || strstr(v.report, "class:M.log") != NULL, "%s", v.report);
            or_verdict_clear(&v);
            or_observation_clear(&o1);
            or_observation_clear(&o2);
            or_observation_clear(&ot);
        }
        run_clear(&r1);
        run_clear(&r2);
        run_clear(&rt);
    }
}

/* A metaclass's mro() may give a base an MRO its subclass's lacks: X is only in
 * B's MRO, and is read because B is expanded too, not only marked. */
static void
world_custom_mro(void)
{
    char *t = observe_src(
        "class X:\n    data = [1]\n"
        "class M(type):\n"
        "    def mro(cls):\n"
        "        if cls.__name__ == 'B':\n            return [cls, X, object]\n"
        "        if cls.__name__ == 'C':\n            return [cls, B, object]\n"
        "        return type.mro(cls)\n"
        "class B(metaclass=M):\n    pass\n"
        "class C(B):\n    pass\n"
        "del X, B\n"   /* reached through MROs only, not the namespace */
        "LOG = []\n"
        "def make():\n    return (C(),)\n"
        "def program(c):\n    return None\n", NULL);
    CHECK(t && strstr(t, "\nclass:X = #") && strstr(t, "\nclass:X.data = #"), "%s", t);
    free(t);
}
