/* cmd_util.c: small helpers every subcommand uses (cmd.h). */
#include "cmd.h"
#include "hz_channel.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

int cmd_usage_error(const char *usage, const char *fmt, const char *arg)
{
    fprintf(stderr, "tracefuzz: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n\n%s", usage);
    return EXIT_USAGE;
}

bool cmd_is_help(const char *a)
{
    return strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0;
}

int cmd_parse_u64(const char *s, uint64_t *out)
{
    if (s == NULL || *s == 0 || *s == '-')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != 0)
        return -1;
    *out = v;
    return 0;
}

double cmd_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The seed of program i in a run of seed s (splitmix64: neighbouring indices give
 * unrelated programs). */
static uint64_t mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

uint64_t cmd_program_seed(uint64_t seed, uint64_t i)
{
    return mix64(seed ^ mix64(i));
}

/* Splits "module:Class" into emit options (pointing into a copy kept by the caller).
 * Returns 0, or -1 when malformed. */
int cmd_parse_base(const char *spec, char **copy, HzEmitOptions *opts)
{
    const char *colon = strrchr(spec, ':');
    if (colon == NULL || colon == spec || colon[1] == 0)
        return -1;
    *copy = strdup(spec);
    if (*copy == NULL)
        abort();
    (*copy)[colon - spec] = 0;
    opts->base_module = *copy;
    opts->base_class = *copy + (colon - spec) + 1;
    return 0;
}


int cmd_mkdir_p(const char *path)
{
    char *tmp = strdup(path);
    if (tmp == NULL)
        abort();
    for (char *p = tmp + 1; ; p++) {
        if (*p == '/' || *p == 0) {
            char c = *p;
            *p = 0;
            if (mkdir(tmp, 0777) < 0 && errno != EEXIST) {
                free(tmp);
                return -1;
            }
            *p = c;
            if (c == 0)
                break;
        }
    }
    free(tmp);
    return 0;
}

int cmd_write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return -1;
    size_t w = fwrite(data, 1, n, f);
    int rc = (w == n && fclose(f) == 0) ? 0 : -1;
    if (w != n)
        fclose(f);
    return rc;
}
/* SIGINT and SIGTERM end a run early but cleanly: the waits for workers return
 * (hz_channel.h), every worker and input process is killed with its group, the
 * summary covers what ran, and the exit status is 128 + the signal. */
static void on_interrupt(int sig)
{
    hz_channel_on_signal(sig);
}

void cmd_on_signals_interrupt(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;   /* no SA_RESTART: a blocked wait returns */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* The command line, for findings' reports (set by main). */
static char command_line[2048];
void cmd_remember_command_line(int argc, char **argv)
{
    size_t o = 0;
    for (int i = 0; i < argc && o + 4 < sizeof command_line; i++) {
        int w = snprintf(command_line + o, sizeof command_line - o, "%s%s",
                         i ? " " : "", argv[i]);
        if (w < 0)
            break;
        o += (size_t)w;
    }
}

/* Occurrences of needle in hay. The report quotes the program, expectation headers
 * included, so an expected text must occur in the report more often than in the
 * source to count as found. */

const char *cmd_command_line(void)
{
    return command_line;
}

char *cmd_read_text(const char *path, size_t max)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *buf = malloc(max + 1);
    if (buf == NULL)
        abort();
    size_t n = fread(buf, 1, max, f);
    fclose(f);
    buf[n] = 0;
    return buf;
}

int cmd_parse_memory_limit(const char *s, long *mb)
{
    uint64_t v;
    /* Below 64 MiB CPython itself does not start a child's work. */
    if (cmd_parse_u64(s, &v) < 0 || v < 64 || v > (1u << 30))
        return -1;
    *mb = (long)v;
    return 0;
}

const char *cmd_escape(const char *s, char *out, size_t cap)
{
    size_t o = 0;
    for (; *s && o + 5 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '\n' || c == '\t' || c == '\\' || c == '\r') {
            out[o++] = '\\';
            out[o++] = c == '\n' ? 'n' : c == '\t' ? 't' : c == '\r' ? 'r' : '\\';
        }
        else if (c < 0x20 || c == 0x7f) {
            o += (size_t)snprintf(out + o, cap - o, "\\x%02x", c);
        }
        else {
            out[o++] = (char)c;
        }
    }
    out[o] = 0;
    return out;
}
