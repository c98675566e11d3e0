/* hzp_tool.c: checks of the program model (decoder, encoder, emitter, stats), one
 * subcommand per ctest case, and a few helpers to look at programs by hand.
 *
 *   hzp_tool total N          N byte strings (empty, 1 byte, 1 MiB, random) decode
 *                             and their source compiles (embedded CPython)
 *   hzp_tool roundtrip N      decode(encode(p)) == p on those inputs' programs
 *   hzp_tool roundtrip-gen N  the same on generated programs, seeds 0..N-1
 *   hzp_tool garbage N        random bytes in the IR struct: emit stays in bounds and
 *                             compiles, normalising is idempotent
 *   hzp_tool determinism N    same bytes -> same program and same source
 *   hzp_tool tags N           hz_source_features(emit(p)) == hz_program_features(p)
 *   hzp_tool coverage N       feature table over N generated programs, with the
 *                             acceptance thresholds (every id >= 1%, between >= 30%)
 *   hzp_tool dump-dir DIR N [module:Class]   writes DIR/prog_<seed>.py for seeds < N
 *   hzp_tool dump-dir DIR N inputs           the same for the first N test inputs
 *   hzp_tool tags-parse -     hz_source_features on hand-written tags
 *   hzp_tool probe KIND VARIANT PATTERN      one class, one member, one statement
 *   hzp_tool motivating -     prints the motivating report's shape (hand-built IR)
 *   hzp_tool emit SEED [module:Class]        prints one generated program
 *   hzp_tool emit-file FILE                  prints the program FILE decodes to
 *   hzp_tool speed N          average decode / encode / emit time
 * Exit status 0 when every check passed; failures print the seed or input index. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hz_ir.h"

#define FAIL(...) do { fprintf(stderr, "FAIL: " __VA_ARGS__); fputc('\n', stderr); failures++; } while (0)

static int failures;

static uint64_t
mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Test input i: 0 empty, 1 one byte, 2 1 MiB random, 3 1 MiB of 0xff, 4 1 MiB of
 * zeros, then random bytes of random length (mostly short, some up to 64 KiB). */
static uint8_t *
test_input(size_t i, size_t *len)
{
    uint64_t s = 0x5eed0000u + i;
    size_t n;
    switch (i) {
    case 0: n = 0; break;
    case 1: n = 1; break;
    case 2: case 3: case 4: n = 1u << 20; break;
    default: {
        uint64_t r = mix(&s);
        n = (r & 3) == 0 ? (size_t)(r >> 8) % 65536 : (size_t)(r >> 8) % 1024;
    }
    }
    uint8_t *buf = malloc(n ? n : 1);
    if (buf == NULL)
        abort();
    for (size_t j = 0; j < n; j++)
        buf[j] = i == 3 ? 0xff : i == 4 ? 0 : (uint8_t)mix(&s);
    *len = n;
    return buf;
}

static void
init_python(void)
{
    PyConfig config;
    PyConfig_InitIsolatedConfig(&config);
    config.write_bytecode = 0;
    PyStatus st = Py_InitializeFromConfig(&config);
    PyConfig_Clear(&config);
    if (PyStatus_Exception(st))
        Py_ExitStatusException(st);
}

static bool
compiles(const char *src, const char *what)
{
    PyObject *code = Py_CompileString(src, what, Py_file_input);   /* new reference */
    if (code == NULL) {
        PyErr_Print();
        return false;
    }
    Py_DECREF(code);
    return true;
}

static bool
features_equal(const HzFeatures *a, const HzFeatures *b)
{
    return memcmp(a->desc, b->desc, sizeof(a->desc)) == 0
           && memcmp(a->access, b->access, sizeof(a->access)) == 0
           && memcmp(a->between, b->between, sizeof(a->between)) == 0
           && memcmp(a->collect, b->collect, sizeof(a->collect)) == 0;
}

static void
check_roundtrip(const HzProgram *p, const char *what, size_t i)
{
    uint8_t *enc;
    size_t n;
    if (hz_encode(p, &enc, &n) != 0) {
        FAIL("%s %zu: hz_encode failed", what, i);
        return;
    }
    HzProgram *q = hz_decode(enc, n);
    if (!hz_program_equal(p, q))
        FAIL("%s %zu: decode(encode(p)) != p", what, i);
    /* The encoding is canonical: encoding the decoded program gives the same bytes. */
    uint8_t *enc2;
    size_t n2;
    if (hz_encode(q, &enc2, &n2) != 0 || n2 != n || memcmp(enc, enc2, n) != 0)
        FAIL("%s %zu: encode(decode(encode(p))) != encode(p)", what, i);
    else
        free(enc2);
    hz_program_free(q);
    free(enc);
}

static int
cmd_inputs(const char *cmd, size_t count)
{
    bool python = strcmp(cmd, "total") == 0;
    if (python)
        init_python();
    for (size_t i = 0; i < count; i++) {
        size_t len;
        uint8_t *buf = test_input(i, &len);
        HzProgram *p = hz_decode(buf, len);
        if (strcmp(cmd, "total") == 0) {
            char *src = hz_emit(p, NULL);
            char what[64];
            snprintf(what, sizeof(what), "<input %zu>", i);
            if (!compiles(src, what))
                FAIL("input %zu (%zu bytes): emitted source does not compile", i, len);
            if (p->nclasses < 1 || p->nclasses > HZ_MAX_CLASSES || p->nstmts < 1
                || p->nstmts > HZ_MAX_STMTS || p->nargs < 1 || p->nargs > HZ_MAX_ARGS)
                FAIL("input %zu: counts out of range", i);
            free(src);
        } else if (strcmp(cmd, "roundtrip") == 0) {
            check_roundtrip(p, "input", i);
        } else if (strcmp(cmd, "determinism") == 0) {
            HzProgram *q = hz_decode(buf, len);
            char *s1 = hz_emit(p, NULL), *s2 = hz_emit(q, NULL);
            if (!hz_program_equal(p, q))
                FAIL("input %zu: two decodes differ", i);
            if (strcmp(s1, s2) != 0)
                FAIL("input %zu: two emits differ", i);
            HzProgram *c = hz_program_clone(p);
            char *s3 = hz_emit(c, NULL);
            if (!hz_program_equal(p, c) || strcmp(s1, s3) != 0)
                FAIL("input %zu: a clone differs", i);
            free(s1);
            free(s2);
            free(s3);
            hz_program_free(q);
            hz_program_free(c);
        } else if (strcmp(cmd, "tags") == 0) {
            char *src = hz_emit(p, NULL);
            HzFeatures a, b;
            hz_program_features(p, &a);
            hz_source_features(src, &b);
            if (!features_equal(&a, &b))
                FAIL("input %zu: source tags disagree with the IR", i);
            HzPairs pa, pb;
            hz_program_pairs(p, &pa);
            hz_source_pairs(src, &pb);
            if (memcmp(&pa, &pb, sizeof(pa)) != 0)
                FAIL("input %zu: source (kind, pattern) pairs disagree with the IR", i);
            for (int k = 0; k < HZ_DESC__COUNT; k++)
                for (int x = 0; x < HZ_ACCESS__COUNT; x++)
                    if (pa.pair[k][x] && (!a.desc[k] || !a.access[x]))
                        FAIL("input %zu: a pair outside the features", i);
            free(src);
        }
        hz_program_free(p);
        free(buf);
    }
    if (python && Py_FinalizeEx() < 0)
        FAIL("Py_FinalizeEx");
    printf("%s: %zu inputs, %d failures\n", cmd, count, failures);
    return failures ? 1 : 0;
}

/* Random bytes poured into the IR struct, as a careless mutator might leave it:
 * emitting, feature extraction and equality stay in bounds, the emitted source
 * compiles, and normalising is idempotent and lands on a decodable program. */
static int
cmd_garbage(size_t count)
{
    init_python();
    for (size_t i = 0; i < count; i++) {
        HzProgram *p = hz_generate(i);
        uint64_t s = 0x6a7b0000u + i;
        uint8_t *raw = (uint8_t *)p;
        size_t n = (i & 1) ? sizeof(*p) : (size_t)(mix(&s) % sizeof(*p));
        for (size_t j = 0; j < n; j++)   /* all of it, or a prefix of it */
            if ((i & 2) || mix(&s) % 8 == 0)
                raw[j] = (uint8_t)mix(&s);
        HzFeatures f;
        hz_program_features(p, &f);
        if (!hz_program_equal(p, p))
            FAIL("garbage %zu: not equal to itself", i);
        char *src = hz_emit(p, NULL);
        if (!compiles(src, "<garbage>"))
            FAIL("garbage %zu: emitted source does not compile", i);
        HzProgram *q = hz_program_clone(p);
        hz_program_normalize(q);
        char *src2 = hz_emit(q, NULL);
        if (strcmp(src, src2) != 0)
            FAIL("garbage %zu: emit(p) != emit(normalize(p))", i);
        HzProgram *r = hz_program_clone(q);
        hz_program_normalize(r);
        if (!hz_program_equal(q, r))
            FAIL("garbage %zu: normalize is not idempotent", i);
        check_roundtrip(q, "garbage", i);
        free(src);
        free(src2);
        hz_program_free(p);
        hz_program_free(q);
        hz_program_free(r);
    }
    if (Py_FinalizeEx() < 0)
        FAIL("Py_FinalizeEx");
    printf("garbage: %zu programs, %d failures\n", count, failures);
    return failures ? 1 : 0;
}

static int
cmd_roundtrip_gen(size_t count)
{
    for (size_t i = 0; i < count; i++) {
        HzProgram *p = hz_generate(i);
        check_roundtrip(p, "seed", i);
        hz_program_free(p);
    }
    printf("roundtrip-gen: %zu seeds, %d failures\n", count, failures);
    return failures ? 1 : 0;
}

static int
cmd_coverage(size_t count)
{
    size_t desc[HZ_DESC__COUNT] = {0}, access[HZ_ACCESS__COUNT] = {0};
    size_t between[HZ_BETWEEN__COUNT] = {0}, collect[HZ_COLLECT__COUNT] = {0};
    size_t with_between = 0, with_other = 0, with_meta = 0, with_mi = 0;
    static bool pairs_seen[HZ_DESC__COUNT][HZ_ACCESS__COUNT];
    for (size_t i = 0; i < count; i++) {
        HzProgram *p = hz_generate(i);
        HzFeatures f;
        hz_program_features(p, &f);
        for (int k = 0; k < HZ_DESC__COUNT; k++)
            desc[k] += f.desc[k];
        for (int k = 0; k < HZ_ACCESS__COUNT; k++)
            access[k] += f.access[k];
        for (int k = 0; k < HZ_BETWEEN__COUNT; k++)
            between[k] += f.between[k];
        for (int k = 0; k < HZ_COLLECT__COUNT; k++)
            collect[k] += f.collect[k];
        with_between += p->nbetween > 0;
        with_other += p->other_kind != HZ_OTHER_NONE;
        bool meta = false, mi = false;
        for (int c = 0; c < p->nclasses; c++) {
            meta |= p->classes[c].meta != 0;
            mi |= p->classes[c].base2 != 0;
        }
        with_meta += meta;
        with_mi += mi;
        if (i < 2000) {   /* pairs need a layout: a sample is enough */
            HzPairs pr;
            hz_program_pairs(p, &pr);
            for (int k = 0; k < HZ_DESC__COUNT; k++)
                for (int x = 0; x < HZ_ACCESS__COUNT; x++)
                    pairs_seen[k][x] |= pr.pair[k][x];
        }
        hz_program_free(p);
    }
    double pct = 100.0 / (double)count;
    printf("| kind | id | programs | %% |\n|---|---|---|---|\n");
    for (int k = 0; k < HZ_DESC__COUNT; k++) {
        printf("| desc | %s | %zu | %.1f |\n", hz_desc_kind_name((HzDescKind)k), desc[k],
               desc[k] * pct);
        if (desc[k] * 100 < count)
            FAIL("desc %s below 1%%", hz_desc_kind_name((HzDescKind)k));
    }
    for (int k = 0; k < HZ_ACCESS__COUNT; k++) {
        printf("| access | %s | %zu | %.1f |\n", hz_access_name((HzAccessPattern)k), access[k],
               access[k] * pct);
        if (access[k] * 100 < count)
            FAIL("access %s below 1%%", hz_access_name((HzAccessPattern)k));
    }
    for (int k = 0; k < HZ_BETWEEN__COUNT; k++) {
        printf("| between | %s | %zu | %.1f |\n", hz_between_name((HzBetweenKind)k), between[k],
               between[k] * pct);
        if (between[k] * 100 < count)
            FAIL("between %s below 1%%", hz_between_name((HzBetweenKind)k));
    }
    for (int k = 0; k < HZ_COLLECT__COUNT; k++) {
        printf("| collect | %s | %zu | %.1f |\n", hz_collect_name((HzCollectMode)k), collect[k],
               collect[k] * pct);
        if (collect[k] * 100 < 30 * count)   /* both modes are common */
            FAIL("collect %s below 30%%", hz_collect_name((HzCollectMode)k));
    }
    printf("| program | has between() | %zu | %.1f |\n", with_between, with_between * pct);
    printf("| program | has make_other() | %zu | %.1f |\n", with_other, with_other * pct);
    printf("| program | a class names a metaclass | %zu | %.1f |\n", with_meta, with_meta * pct);
    printf("| program | multiple inheritance | %zu | %.1f |\n", with_mi, with_mi * pct);
    int npairs = 0;
    for (int k = 0; k < HZ_DESC__COUNT; k++)
        for (int x = 0; x < HZ_ACCESS__COUNT; x++)
            npairs += pairs_seen[k][x];
    printf("\n(kind, pattern) pairs read by some statement in the first 2,000 programs: %d of %d\n",
           npairs, HZ_DESC__COUNT * HZ_ACCESS__COUNT);
    for (int k = 0; k < HZ_DESC__COUNT; k++)
        for (int x = 0; x < HZ_ACCESS__COUNT; x++)
            if (!pairs_seen[k][x])
                printf("  never: %s x %s\n", hz_desc_kind_name((HzDescKind)k),
                       hz_access_name((HzAccessPattern)x));
    if (with_between * 100 < 30 * count)
        FAIL("between() in fewer than 30%% of programs");
    printf("coverage: %zu programs, %d failures\n", count, failures);
    return failures ? 1 : 0;
}

static void
parse_base(const char *arg, HzEmitOptions *opts, char *buf, size_t n)
{
    snprintf(buf, n, "%s", arg);
    char *colon = strchr(buf, ':');
    if (colon == NULL) {
        fprintf(stderr, "expected module:Class, got %s\n", arg);
        exit(2);
    }
    *colon = '\0';
    opts->base_module = buf;
    opts->base_class = colon + 1;
}

/* The motivating report's shape, built by hand: one class with a property returning
 * a new object, a program reading it twice. Also checks that a hand-built IR
 * survives encode/decode. */
static HzProgram *
motivating_program(void)
{
    HzProgram *p = hz_decode(NULL, 0);
    p->classes[0].members[0].kind = HZ_DESC_prop_fresh;
    p->classes[0].members[0].variant = 0;
    p->stmts[0].pattern = HZ_ACCESS_repeat_read;
    return p;
}

/* hz_source_features on hand-written text: known tags count, unknown keys and
 * values, tags outside "# tf:" comments and truncated tags do not. */
static int
cmd_tags_parse(void)
{
    static const char *const src =
        "class A:  # tf: desc=prop_fresh desc=nope bogus=1 access=identity\n"
        "    x = 1  # a comment mentioning desc=slot outside a tag\n"
        "def between(a):\n"
        "    del A.x  # tf: between=delete_class_attr (then words) between=\n"
        "#tf: desc=method\n"
        "# tf:desc=module_like\n"
        "# tf: access=loo\n"
        "# tf: desc=meta_data_desc";
    HzFeatures f, want;
    memset(&want, 0, sizeof(want));
    want.desc[HZ_DESC_prop_fresh] = true;
    want.desc[HZ_DESC_module_like] = true;
    want.desc[HZ_DESC_meta_data_desc] = true;
    want.access[HZ_ACCESS_identity] = true;
    want.between[HZ_BETWEEN_delete_class_attr] = true;
    hz_source_features(src, &f);
    if (!features_equal(&f, &want))
        FAIL("tags-parse: features of the hand-written source are wrong");
    HzPairs pairs, want_pairs;
    memset(&want_pairs, 0, sizeof(want_pairs));
    want_pairs.pair[HZ_DESC_prop_fresh][HZ_ACCESS_identity] = true;
    hz_source_pairs(src, &pairs);
    if (memcmp(&pairs, &want_pairs, sizeof(pairs)) != 0)
        FAIL("tags-parse: (kind, pattern) pairs of the hand-written source are wrong");
    hz_source_features(NULL, &f);
    hz_source_features("", &f);
    memset(&want, 0, sizeof(want));
    if (!features_equal(&f, &want))
        FAIL("tags-parse: empty source has features");
    printf("tags-parse: %d failures\n", failures);
    return failures ? 1 : 0;
}

/* probe KIND VARIANT PATTERN: a hand-built program of one class with one member
 * and one statement, for checking that each kind behaves as DESIGN.md says. */
static int
cmd_probe(const char *kind, const char *variant, const char *pattern, bool other)
{
    HzProgram *p = hz_decode(NULL, 0);
    int k = -1, a = -1;
    for (int i = 0; i < HZ_DESC__COUNT; i++)
        if (strcmp(kind, hz_desc_kind_name((HzDescKind)i)) == 0)
            k = i;
    for (int i = 0; i < HZ_ACCESS__COUNT; i++)
        if (strcmp(pattern, hz_access_name((HzAccessPattern)i)) == 0)
            a = i;
    if (k < 0 || a < 0 || k == HZ_DESC_meta_prop || k == HZ_DESC_meta_data_desc
        || k == HZ_DESC_mro_override) {
        fprintf(stderr, "probe: unknown or unsupported kind/pattern\n");
        return 2;
    }
    p->classes[0].members[0].kind = (uint8_t)k;
    p->classes[0].members[0].variant = (uint8_t)atoi(variant);
    p->classes[0].members[0].value = 7;
    p->stmts[0].pattern = (uint8_t)a;
    if (other)   /* the third call on make_other()'s world (a dict shadow of the member) */
        p->other_kind = HZ_OTHER_SHADOW;
    HzProgram *q = hz_program_clone(p);
    hz_program_normalize(q);
    if (!hz_program_equal(p, q))
        FAIL("probe: the hand-built program is not valid");
    char *src = hz_emit(p, NULL);
    fputs(src, stdout);
    free(src);
    hz_program_free(p);
    hz_program_free(q);
    return failures ? 1 : 0;
}

static int
cmd_motivating(void)
{
    HzProgram *p = motivating_program();
    check_roundtrip(p, "motivating", 0);
    char *src = hz_emit(p, NULL);
    if (strstr(src, "out.append((a.fresh_prop, a.fresh_prop))") == NULL
        || strstr(src, "return object()") == NULL)
        FAIL("motivating: the emitted program lacks the property or the double read");
    fputs(src, stdout);
    free(src);
    hz_program_free(p);
    return failures ? 1 : 0;
}

static int
cmd_dump_dir(const char *dir, size_t count, const char *base)
{
    HzEmitOptions opts = {NULL, NULL};
    char bbuf[256];
    bool inputs = base && strcmp(base, "inputs") == 0;
    if (base && !inputs)
        parse_base(base, &opts, bbuf, sizeof(bbuf));
    for (size_t i = 0; i < count; i++) {
        HzProgram *p;
        if (inputs) {
            size_t len;
            uint8_t *buf = test_input(i, &len);
            p = hz_decode(buf, len);
            free(buf);
        } else {
            p = hz_generate(i);
        }
        char *src = hz_emit(p, &opts);
        char path[4096];
        snprintf(path, sizeof(path), "%s/prog_%zu.py", dir, i);
        FILE *f = fopen(path, "w");
        if (f == NULL || fputs(src, f) < 0 || fclose(f) != 0) {
            perror(path);
            return 1;
        }
        free(src);
        hz_program_free(p);
    }
    return 0;
}

static double
now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int
cmd_speed(size_t count)
{
    double t_dec = 0, t_enc = 0, t_emit = 0;
    size_t big = 1u << 20;
    uint8_t *buf = malloc(big);
    uint64_t s = 1;
    for (size_t j = 0; j < big; j++)
        buf[j] = (uint8_t)mix(&s);
    for (size_t i = 0; i < count; i++) {
        double t0 = now();
        HzProgram *p = hz_decode(buf + (i % 1024), big - (i % 1024));
        double t1 = now();
        uint8_t *enc;
        size_t n;
        if (hz_encode(p, &enc, &n) != 0)
            abort();
        double t2 = now();
        char *src = hz_emit(p, NULL);
        double t3 = now();
        t_dec += t1 - t0;
        t_enc += t2 - t1;
        t_emit += t3 - t2;
        free(src);
        free(enc);
        hz_program_free(p);
    }
    free(buf);
    printf("speed over %zu programs (1 MiB inputs): decode %.1f us, encode %.1f us, emit %.1f us\n",
           count, t_dec / count * 1e6, t_enc / count * 1e6, t_emit / count * 1e6);
    return 0;
}

static char *
read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        perror(path);
        exit(2);
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    *len = n;
    return buf;
}

int
main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: see the header of hzp_tool.c\n");
        return 2;
    }
    const char *cmd = argv[1];
    size_t n = strtoull(argv[argc > 3 && strcmp(cmd, "dump-dir") == 0 ? 3 : 2], NULL, 10);
    if (!strcmp(cmd, "total") || !strcmp(cmd, "roundtrip") || !strcmp(cmd, "determinism")
        || !strcmp(cmd, "tags"))
        return cmd_inputs(cmd, n);
    if (!strcmp(cmd, "roundtrip-gen"))
        return cmd_roundtrip_gen(n);
    if (!strcmp(cmd, "garbage"))
        return cmd_garbage(n);
    if (!strcmp(cmd, "coverage"))
        return cmd_coverage(n);
    if (!strcmp(cmd, "speed"))
        return cmd_speed(n);
    if (!strcmp(cmd, "motivating"))
        return cmd_motivating();
    if (!strcmp(cmd, "tags-parse"))
        return cmd_tags_parse();
    if (!strcmp(cmd, "probe") && argc >= 5)
        return cmd_probe(argv[2], argv[3], argv[4], argc > 5 && !strcmp(argv[5], "other"));
    if (!strcmp(cmd, "dump-dir") && argc >= 4)
        return cmd_dump_dir(argv[2], n, argc > 4 ? argv[4] : NULL);
    if (!strcmp(cmd, "emit") || !strcmp(cmd, "emit-file")) {
        HzEmitOptions opts = {NULL, NULL};
        char bbuf[256];
        if (argc > 3)
            parse_base(argv[3], &opts, bbuf, sizeof(bbuf));
        HzProgram *p;
        if (!strcmp(cmd, "emit")) {
            p = hz_generate(strtoull(argv[2], NULL, 10));
        } else {
            size_t len;
            char *data = read_file(argv[2], &len);
            p = hz_decode((const uint8_t *)data, len);
            free(data);
        }
        char *src = hz_emit(p, &opts);
        fputs(src, stdout);
        free(src);
        hz_program_free(p);
        return 0;
    }
    fprintf(stderr, "unknown command %s\n", cmd);
    return 2;
}
