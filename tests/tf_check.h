/* tf_check.h: the assertions of the C test programs under tests/.
 *
 *   CHECK(cond, fmt, ...)  reports a failed condition and counts it in tf_failures
 *                          (the case goes on; main returns tf_failures != 0)
 *   CHECK_STREQ(a, b)      the same for two C strings (NULL never equal)
 *   REQUIRE(cond, fmt, ...) reports and exits 1: for what later steps depend on */
#ifndef TF_CHECK_H
#define TF_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tf_failures;

#define CHECK(cond, ...) do {                                               \
        if (!(cond)) {                                                      \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                   \
            fputc('\n', stderr);                                            \
            tf_failures++;                                                  \
        }                                                                   \
    } while (0)

#define CHECK_STREQ(a, b) do {                                              \
        const char *a_ = (a), *b_ = (b);                                    \
        if (a_ == NULL || b_ == NULL || strcmp(a_, b_) != 0) {              \
            fprintf(stderr, "%s:%d: %s != %s\n  left:  %s\n  right: %s\n",  \
                    __FILE__, __LINE__, #a, #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); \
            tf_failures++;                                                  \
        }                                                                   \
    } while (0)

#define REQUIRE(cond, ...) do {                                             \
        if (!(cond)) {                                                      \
            fprintf(stderr, "%s:%d: REQUIRE(%s) failed: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                   \
            fputc('\n', stderr);                                            \
            exit(1);                                                        \
        }                                                                   \
    } while (0)

#endif
