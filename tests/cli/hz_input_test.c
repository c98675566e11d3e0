/* hz_input_test.c: unit tests of expectation headers, fault lists and input kinds
 * (harness/exec/hz_input.c). One case per argv[1], so ctest lists each. */
#include "hz_input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHECK_STR(a, b)                                                            \
    do {                                                                           \
        const char *a_ = (a), *b_ = (b);                                           \
        if (a_ == NULL || b_ == NULL ? a_ != b_ : strcmp(a_, b_) != 0) {           \
            fprintf(stderr, "%s:%d: %s == %s: '%s' vs '%s'\n", __FILE__, __LINE__,  \
                    #a, #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)");               \
            return 1;                                                              \
        }                                                                          \
    } while (0)
#define CHECK_INT(a, b)                                                            \
    do {                                                                           \
        long a_ = (long)(a), b_ = (long)(b);                                       \
        if (a_ != b_) {                                                            \
            fprintf(stderr, "%s:%d: %s == %s: %ld vs %ld\n", __FILE__, __LINE__,   \
                    #a, #b, a_, b_);                                               \
            return 1;                                                              \
        }                                                                          \
    } while (0)

static const char src[] =
    "# expect[identity]: OK\n"
    "# expect[builtin]: OK\n"
    "# expect[builtin faults=b,a]: PROVENANCE \n"
    "# expect-report[builtin faults=a,b]: out of sync\n"
    "  # expect[identity]: INVALID   (indented: not a header)\n"
    "def make():\n    return ()\n";

static int test_faults_canonical(void)
{
    char *c = hz_faults_canonical("b,a,,a, c");
    CHECK_STR(c, "a,b,c");
    free(c);
    c = hz_faults_canonical(NULL);
    CHECK_STR(c, "");
    free(c);
    return 0;
}

static int test_expect_plain(void)
{
    char err[256], *v, *r;
    CHECK_INT(hz_input_expectation(src, "identity", NULL, &v, &r, err, sizeof err), 1);
    CHECK_STR(v, "OK");
    CHECK_STR(r, NULL);
    free(v);
    return 0;
}

static int test_expect_faults(void)
{
    char err[256], *v, *r;
    CHECK_INT(hz_input_expectation(src, "builtin", "a,b", &v, &r, err, sizeof err), 1);
    CHECK_STR(v, "PROVENANCE");
    CHECK_STR(r, "out of sync");
    free(v);
    free(r);
    /* without faults, the faults= lines do not apply */
    CHECK_INT(hz_input_expectation(src, "builtin", "", &v, &r, err, sizeof err), 1);
    CHECK_STR(v, "OK");
    CHECK_STR(r, NULL);
    free(v);
    /* another fault set: no line */
    CHECK_INT(hz_input_expectation(src, "builtin", "a", &v, &r, err, sizeof err), 0);
    CHECK_STR(v, NULL);
    return 0;
}

static int test_expect_none(void)
{
    char err[256], *v, *r;
    CHECK_INT(hz_input_expectation(src, "x.py:jit", NULL, &v, &r, err, sizeof err), 0);
    CHECK_STR(v, NULL);
    return 0;
}

static int test_expect_malformed(void)
{
    char err[256], *v, *r;
    CHECK_INT(hz_input_expectation("# expect[identity OK\n", "identity", NULL, &v, &r,
                                   err, sizeof err), -1);
    CHECK_INT(hz_input_expectation("# expect[identity flt=a]: OK\n", "identity", NULL,
                                   &v, &r, err, sizeof err), -1);
    return 0;
}

/* A repro script's program is the text above its marker line, exactly. */
static int test_repro_marker(void)
{
    static const char prog[] = "def make():\n    return ()\n";
    static const char script[] = "def make():\n    return ()\n" HZ_REPRO_MARKER "\n"
                                 "raise SystemExit(1)\n";
    CHECK_INT(hz_program_length(script, strlen(script)), strlen(prog));
    CHECK_INT(hz_program_length(prog, strlen(prog)), strlen(prog));
    /* only a whole line is the marker (a quoted or indented one is program text) */
    static const char quoted[] = "x = '" HZ_REPRO_MARKER "'\n  " HZ_REPRO_MARKER "\n";
    CHECK_INT(hz_program_length(quoted, strlen(quoted)), strlen(quoted));
    static const char crlf[] = "x = 1\r\n" HZ_REPRO_MARKER "\r\ny = 2\r\n";
    CHECK_INT(hz_program_length(crlf, strlen(crlf)), 7);
    static const char first[] = HZ_REPRO_MARKER "\nx = 1\n";
    CHECK_INT(hz_program_length(first, strlen(first)), 0);
    char path[] = "/tmp/hz_input_test_XXXXXX.py";
    int fd = mkstemps(path, 3);
    if (fd < 0 || write(fd, script, strlen(script)) != (ssize_t)strlen(script))
        return 1;
    close(fd);
    HzInput in;
    char err[256];
    int rc = hz_input_load(path, NULL, &in, err, sizeof err);
    unlink(path);
    CHECK_INT(rc, 0);
    CHECK_INT(in.is_source, 1);
    CHECK_STR(in.source, prog);
    CHECK_INT(in.size, strlen(script));   /* the file's bytes stay whole */
    hz_input_clear(&in);
    return 0;
}

static int test_is_source(void)
{
    const uint8_t marker[] = "#tracefuzz-py\nx = 1\n";
    const uint8_t near[] = "#tracefuzz-pyx\n";
    CHECK_INT(hz_input_is_source("a.py", (const uint8_t *)"", 0), 1);
    CHECK_INT(hz_input_is_source("a.tf", marker, sizeof marker - 1), 1);
    CHECK_INT(hz_input_is_source("a.tf", near, sizeof near - 1), 0);
    CHECK_INT(hz_input_is_source("a.tf", (const uint8_t *)"\x01\x02", 2), 0);
    return 0;
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*fn)(void);
    } cases[] = {
        {"faults_canonical", test_faults_canonical},
        {"expect_plain", test_expect_plain},
        {"expect_faults", test_expect_faults},
        {"expect_none", test_expect_none},
        {"expect_malformed", test_expect_malformed},
        {"is_source", test_is_source},
        {"repro_marker", test_repro_marker},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (argc > 1 && strcmp(argv[1], cases[i].name) == 0)
            return cases[i].fn();
    fprintf(stderr, "usage: hz_input_test CASE\n");
    return 2;
}
