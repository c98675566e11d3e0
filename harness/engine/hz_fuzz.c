/* hz_fuzz.c: the fuzz target of the whole pipeline, for libFuzzer and AFL++ (through
 * AFL++'s libAFLDriver, which calls the same two functions in persistent mode).
 *
 *   bytes --hz_decode/hz_emit--> source --hz_protocol_run--> verdict
 *
 * Configuration comes from the environment (libFuzzer owns argv):
 *   TRACEFUZZ_TARGET        builtin (default once tfjit.jit exists) | identity |
 *                           path/file.py:attr | package.module:attr
 *   TRACEFUZZ_UNSUPPORTED   MOD:EXC, the target's "cannot trace this" exception
 *   TRACEFUZZ_FAULTS        faults injected into the built-in tracer
 *   TRACEFUZZ_PYTHON_PATH   colon-separated directories to find the target in
 *   TRACEFUZZ_STRICT=1      UNSUPPORTED is a finding
 *   TRACEFUZZ_QUIET=1       no note per NONDETERMINISTIC input
 *   TRACEFUZZ_PYTHONHOME    the standard library's home (default: python-home/ next
 *                           to this executable, as ClusterFuzzLite's $OUT has it)
 *   TRACEFUZZ_BYTE_MUTATOR=1  libFuzzer's byte-level mutation only (to measure
 *                           what the structure-aware mutator is worth)
 *   TRACEFUZZ_SIZE_BUDGET=N the structure-aware edits produce at most N bytes
 *                           (smaller programs, more inputs per second; default
 *                           128, 0 for no cap)
 *   TRACEFUZZ_FRESH=N       one custom mutation in N is a fresh random program
 *                           (hz_mutate.h, HZ_FRESH_ONE_IN; 0: never)
 *   TRACEFUZZ_SMALL=0       no program size dimension (hz_mutate.h, HZ_SIZE_OFF);
 *                           by default (HZ_SIZE_DEFAULT, also TRACEFUZZ_SMALL=1)
 *                           every edit and crossover is cut to one class and three
 *                           statements, fresh programs to one class with all their
 *                           statements; =small (HZ_SIZE_SMALL) session 9's milder
 *                           cut; =tiny (HZ_SIZE_TINY) fresh programs cut to three
 *                           statements too (more execs, a fault found later:
 *                           docs/PROGRAMS.md);
 *                           TRACEFUZZ_FOCUS=N, TRACEFUZZ_FOCUS_SPLICE=N
 *                           (edits, crossovers: cut down except one time in N; 0:
 *                           never) and TRACEFUZZ_TRIM=N (keep N members nothing
 *                           names per class; -1: no trim) set its parts
 *
 * A finding (any verdict but OK, UNSUPPORTED unless strict, INVALID and
 * NONDETERMINISTIC) prints the report and the program to stderr and aborts, so the
 * engine saves the input. INVALID inputs are the corpus's problem (a hand-written
 * .py seed that does not compile) and NONDETERMINISTIC ones the generator's: both
 * are counted, never findings. Like CPython's Modules/_xxtestfuzz/fuzzer.c, CPython
 * is initialised once; hz_protocol_run runs each input in fresh namespaces and
 * collects garbage every hundred inputs.
 *
 * Feedback beyond C edges (hz_pycov.h): the (descriptor kind x access pattern)
 * pairs and between kinds the program uses, with the verdict; for the built-in
 * tracer, the resolution each attribute operation actually took (the entries of what
 * tfjit.last_trace() prints: "LOAD_ATTR x -> ... via property.fget", "[cached]"),
 * alone and in pairs; and for a
 * target written in Python, that target's line and branch coverage.
 *
 * The structure-aware mutator (hz_mutate.h) is exposed as LLVMFuzzerCustomMutator and
 * LLVMFuzzerCustomCrossOver; a quarter of the mutations stay byte-level (libFuzzer's
 * own LLVMFuzzerMutate), which also handles `#tracefuzz-py` source inputs. */
#include "hz_embed.h"
#include "hz_input.h"
#include "hz_ir.h"
#include "hz_mutate.h"
#include "hz_protocol.h"
#include "hz_pycov.h"
#include "tr_module.h"
#include "hz_target.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2,
                                 uint8_t *out, size_t max_out, unsigned int seed);
/* Provided by libFuzzer; weak so the AFL++ driver (which has none) still links. */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size) __attribute__((weak));

static HzTarget target;
static HzProtocol *proto;
static bool strict, quiet, python_cov, bytes_only;
/* The default cap on what the structure-aware edits produce, in bytes of the encoded
 * input: generated programs average ~100 bytes (~215 lines). Without a cap the
 * fuzzing loop drifts to ~190-byte inputs (~330 lines) and half the rate; with 128
 * it ran 2x the inputs per second and found the injected faults in as many inputs
 * (docs/FUZZING.md, "Throughput"). An input already larger may be edited but not
 * grown; byte-level mutations and source inputs are not capped. */
#define HZ_SIZE_BUDGET 128
static size_t size_budget;   /* TRACEFUZZ_SIZE_BUDGET: cap on IR edits' output, 0 = none */
static bool builtin_tracer;   /* the target is the built-in tracer: resolution feedback */
static unsigned long ninputs, nnondet, ninvalid;

static bool env_flag(const char *name)
{
    const char *v = getenv(name);
    return v != NULL && strcmp(v, "1") == 0;
}

static void die(const char *what, const char *err)
{
    fprintf(stderr, "tracefuzz fuzz target: %s: %s\n", what, err);
    exit(2);
}

/* libFuzzer's entropic power schedule keeps a frequency per feature and a list of
 * the rarest ones, updated for every feature of every run; with this target's many
 * features (instrumented tracer, harness and observation writer, extra counters) and
 * a corpus that grows by a third of the inputs, that bookkeeping was ~25% of the CPU
 * (perf). Without it libFuzzer runs ~1.7x the inputs per second and found the
 * injected faults in as few inputs (docs/FUZZING.md, "Throughput"). So -entropic=0
 * goes first in argv: a later -entropic=1 on the command line still wins. Only under
 * libFuzzer: AFL++'s driver reads argv itself (its argv[1] is a loop count) and also
 * defines LLVMFuzzerMutate, so the AFL build is told apart at compile time (afl-cc
 * defines __AFL_COMPILER). */
static void default_flags(int *argc, char ***argv)
{
#ifdef __AFL_COMPILER
    (void)argc;
    (void)argv;
    return;
#endif
    static char entropic[] = "-entropic=0";
    static char *args[256];
    if (LLVMFuzzerMutate == NULL || argc == NULL || argv == NULL || *argc < 1 ||
        *argc + 2 > (int)(sizeof args / sizeof args[0]))
        return;
    args[0] = (*argv)[0];
    args[1] = entropic;
    for (int i = 1; i < *argc; i++)
        args[i + 1] = (*argv)[i];
    *argc += 1;
    args[*argc] = NULL;
    *argv = args;
}

/* At exit: how many inputs ran and how much compiled code they reused (the cache
 * of hz_protocol_run), for the throughput bench. */
static void print_counts(void)
{
    if (proto == NULL || ninputs == 0)
        return;
    HzCodeCacheStats cs = hz_protocol_code_stats(proto);
    fprintf(stderr, "tracefuzz fuzz target: %lu inputs, %lu reused compiled code, "
            "%lu of %lu pieces reused, %lu invalid, %lu nondeterministic\n", ninputs,
            cs.source_hits, cs.piece_hits, cs.pieces, ninvalid, nnondet);
    if (!hz_asm_timings())
        fprintf(stderr, "tracefuzz fuzz target: the CPU seconds below are not measured "
                "(TRACEFUZZ_TIMINGS=1 measures them)\n");
    fprintf(stderr, "tracefuzz fuzz target: assembler: %lu statement wrappers compiled in "
            "%.3f CPU s\n", cs.assembler.wrappers, cs.assembler.cpu_wrappers);
    fprintf(stderr, "tracefuzz fuzz target: %lu of %lu def pieces assembled, %lu compiled "
            "whole by the assembler, %lu of %lu statement lookups hit; CPU s: def pieces "
            "compiled %.3f, assembled %.3f, whole+cut %.3f (compile %.3f, cut out %.3f), refused %.3f\n", cs.assembler.assembled,
            cs.assembler.pieces, cs.assembler.whole, cs.assembler.block_hits, cs.assembler.blocks, cs.cpu_def_compile,
            cs.assembler.cpu_assembled, cs.assembler.cpu_whole, cs.assembler.cpu_whole_compile, cs.assembler.cpu_cut_out,
            cs.assembler.cpu_refused);
    fprintf(stderr, "tracefuzz fuzz target: templates: %lu pieces asked, %lu served from a "
            "compiled template, %lu templates compiled, %lu pieces without one; CPU s: "
            "templates compiled %.3f, abstracting and instantiating %.3f\n", cs.templates.lookups,
            cs.templates.hits, cs.templates.compiles, cs.templates.refused, cs.templates.cpu_compile,
            cs.templates.cpu_instantiate);
    fprintf(stderr, "tracefuzz fuzz target: class bodies: %lu linked from statements, %lu "
            "refused; %lu statements made, %lu found\n", cs.templates.link.linked, cs.templates.link.refused,
            cs.templates.link.made, cs.templates.link.found);
    fprintf(stderr, "tracefuzz fuzz target: statement templates: %lu of %lu def pieces "
            "assembled, %lu of %lu lookups hit, %lu blocks instantiated (%lu for other extras), "
            "%lu statement templates compiled; CPU s: assembled %.3f (compiling %.3f), refused "
            "%.3f\n", cs.statements.assembled, cs.statements.pieces, cs.statements.block_hits, cs.statements.blocks,
            cs.statements.instances, cs.statements.recompiles, cs.statements.wrappers, cs.statements.cpu_assembled,
            cs.statements.cpu_wrappers, cs.statements.cpu_refused);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    char err[4096];
    default_flags(argc, argv);
    atexit(print_counts);
    const char *spec = getenv("TRACEFUZZ_TARGET");
    if (spec != NULL && *spec == 0)
        spec = NULL;
    const char *faults = getenv("TRACEFUZZ_FAULTS");
    strict = env_flag("TRACEFUZZ_STRICT");
    quiet = env_flag("TRACEFUZZ_QUIET");
    bytes_only = env_flag("TRACEFUZZ_BYTE_MUTATOR");
    const char *budget = getenv("TRACEFUZZ_SIZE_BUDGET");
    size_budget = budget != NULL && *budget ? strtoul(budget, NULL, 10) : HZ_SIZE_BUDGET;
    const char *small = getenv("TRACEFUZZ_SMALL");
    if (small != NULL && *small) {
        static const struct {
            const char *name;
            HzSizeDimension size;
        } presets[] = {{"0", HZ_SIZE_OFF}, {"small", HZ_SIZE_SMALL}, {"1", HZ_SIZE_DEFAULT},
                       {"tiny", HZ_SIZE_TINY}};
        size_t i = 0;
        while (i < sizeof presets / sizeof presets[0] && strcmp(small, presets[i].name) != 0)
            i++;
        if (i == sizeof presets / sizeof presets[0]) {
            fprintf(stderr, "tracefuzz fuzz target: TRACEFUZZ_SMALL=%s: expected 0, small, "
                    "1 (the default) or tiny\n", small);
            exit(2);
        }
        hz_size = presets[i].size;
    }
    const char *v;
    if ((v = getenv("TRACEFUZZ_FOCUS")) != NULL && *v)
        hz_size.focus_keep_large = (unsigned)strtoul(v, NULL, 10);
    if ((v = getenv("TRACEFUZZ_FOCUS_SPLICE")) != NULL && *v)
        hz_size.splice_keep_large = (unsigned)strtoul(v, NULL, 10);
    if ((v = getenv("TRACEFUZZ_TRIM")) != NULL && *v)
        hz_size.trim_spare = (int)strtol(v, NULL, 10);
    if ((v = getenv("TRACEFUZZ_FRESH")) != NULL && *v)
        hz_fresh_one_in = (unsigned)strtoul(v, NULL, 10);

    /* TRACEFUZZ_PYTHON_PATH split on ':' into a list that lives for the process. */
    static const char *dirs[64];
    size_t ndirs = 0;
    const char *pp = getenv("TRACEFUZZ_PYTHON_PATH");
    char *copy = pp != NULL ? strdup(pp) : NULL;
    for (char *save = NULL, *d = copy ? strtok_r(copy, ":", &save) : NULL;
         d != NULL && ndirs < 64; d = strtok_r(NULL, ":", &save))
        dirs[ndirs++] = d;

    char *dir = hz_target_file_dir(spec);
    HzEmbedConfig ec = {dirs, ndirs, dir};
    if (hz_embed_init(&ec, err, sizeof err) < 0)
        die("CPython", err);
    free(dir);
    if (hz_target_load(spec, getenv("TRACEFUZZ_UNSUPPORTED"), &target, err, sizeof err) < 0)
        die("target", err);
    if (faults != NULL && *faults) {
        if (hz_target_set_faults(faults, err, sizeof err) < 0)
            die("faults", err);
    }
    /* C coverage says nothing about a target written in Python: trace its lines. */
    python_cov = strcmp(target.name, "builtin") != 0 && strcmp(target.name, "identity") != 0;
    builtin_tracer = strcmp(target.name, "builtin") == 0;
    proto = hz_protocol_new(&target);
    /* Eager run 2 only for inputs the target disagrees on (hz_protocol.h). */
    hz_protocol_set_fast(proto, !env_flag("TRACEFUZZ_FULL_PROTOCOL"));
    fprintf(stderr, "tracefuzz fuzz target: target %s%s%s, faults %s\n", target.name,
            python_cov ? " (Python line coverage)" : "", strict ? ", strict" : "",
            faults && *faults ? faults : "none");
    return 0;
}

/* Semantic features of a bytes input: each statement's (descriptor kind of the member
 * it reads, access pattern), consecutive patterns on one argument, the between
 * kinds, and make_other's twist. */
static void program_features(const HzProgram *p)
{
    HzLayout lay;
    hz_layout(p, &lay);
    HzRef cands[HZ_MAX_VISIBLE];
    for (int i = 0; i < p->nstmts; i++) {
        const HzStmt *s = &p->stmts[i];
        int cls = p->arg_class[s->arg < p->nargs ? s->arg : 0];
        int n = hz_stmt_candidates(p, &lay, cls, (HzAccessPattern)s->pattern, cands);
        uint32_t kind = HZ_DESC__COUNT;
        if (n > 0)
            kind = hz_ref_member(p, cands[s->member % n])->kind;
        hz_cov_hit(hz_cov_key(1, kind * 64u + s->pattern));
        /* Consecutive patterns on one argument: reuse of what the first one cached,
         * which survives to the second only without an escaping call between
         * (the collect mode). */
        if (i > 0 && p->stmts[i - 1].arg == s->arg)
            hz_cov_hit(hz_cov_key(2, (p->collect * 64u + p->stmts[i - 1].pattern) * 64u
                                         + s->pattern));
    }
    for (int i = 0; i < p->nbetween; i++)
        hz_cov_hit(hz_cov_key(3, p->between[i].kind));
    hz_cov_hit(hz_cov_key(4, p->other_kind));
    hz_cov_hit(hz_cov_key(10, p->collect));
}

/* The FNV-1a hash of [s, e). */
static uint32_t hash_span(const char *s, const char *e)
{
    uint32_t h = 2166136261u;
    for (; s < e; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

/* The first needle in [s, e), or NULL: searches stay within one line of the trace
 * (strstr would scan the rest of a long trace for every line). */
static uint32_t hash_str(const char *s)
{
    return s != NULL ? hash_span(s, s + strlen(s)) : 0;
}

/* Resolution feedback from the built-in tracer's last traced call: each attribute
 * operation with the mechanism that resolved it and whether the cache served it, and
 * the pair with the previous operation's (a value cached by one resolution and reused
 * by another is where the motivating bug lives). Names and values stay out of the
 * keys. Read from the trace's entries (tr_module.h), not its text. */
static uint32_t prev_attr_key;

static void visit_attr(void *ctx, const char *op, const char *how, int cached)
{
    (void)ctx;
    uint32_t k = hash_str(op) ^ hash_str(how) * 31u ^ (cached ? 0x5bd1e995u : 0);
    hz_cov_hit(hz_cov_key(6, k));
    hz_cov_hit(hz_cov_key(7, k ^ (prev_attr_key * 0x9E3779B1u)));
    prev_attr_key = k;
}

static void resolution_features(void)
{
    prev_attr_key = 0;
    tr_last_trace_visit_attrs(visit_attr, NULL);
    tr_last_trace_clear();   /* freed by this input, not the next (coverage) */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *source;
    const char *filename;
    bool is_source = hz_input_is_source(NULL, data, size);
    if (is_source) {
        /* An embedded NUL ends the source; INVALID if what is left does not compile. */
        source = strndup((const char *)data, size);
        if (source == NULL)
            abort();
        filename = "<tfseed>";
        HzFeatures f;
        memset(&f, 0, sizeof f);
        hz_source_features(source, &f);
        for (int k = 0; k < HZ_DESC__COUNT; k++)
            if (f.desc[k])
                hz_cov_hit(hz_cov_key(8, (uint32_t)k));
        for (int k = 0; k < HZ_ACCESS__COUNT; k++)
            if (f.access[k])
                hz_cov_hit(hz_cov_key(9, (uint32_t)k));
    }
    else {
        HzProgram *p = hz_decode(data, size);
        program_features(p);
        /* Without the __main__ block that runs the protocol when the file is run
         * standalone: the harness never runs it, but compiling it is ~15% of an
         * input's compile time (what the protocol runs is the same; `tracefuzz show`
         * and the findings' .py keep it). */
        HzEmitOptions eo = {.no_main = true};
        source = hz_emit(p, &eo);
        hz_program_free(p);
        if (source == NULL)
            abort();
        filename = "<tfprog>";
    }

    if (python_cov && hz_pycov_start(filename) < 0) {
        PyErr_Print();
        abort();
    }
    HzOutcome oc;
    int rc = hz_protocol_run(proto, source, filename, NULL, &oc);
    if (python_cov)
        hz_pycov_stop();
    if (rc < 0) {
        fprintf(stderr, "tracefuzz fuzz target: out of memory deciding a verdict\n");
        abort();
    }
    ninputs++;
    hz_cov_hit(hz_cov_key(5, (uint32_t)oc.kind));
    if (builtin_tracer)
        resolution_features();

    bool finding = true;
    switch (oc.kind) {
    case OR_OK:
        finding = false;
        break;
    case OR_UNSUPPORTED:
        finding = strict;
        break;
    case OR_INVALID:
        ninvalid++;
        finding = false;
        break;
    case OR_NONDETERMINISTIC:
        /* The generator's bug, not the target's: say so, never abort. */
        nnondet++;
        finding = false;
        if (!quiet)
            fprintf(stderr, "tracefuzz fuzz target: NONDETERMINISTIC input (%lu of %lu "
                    "so far, a generator bug): %s\n", nnondet, ninputs,
                    oc.signature ? oc.signature : "");
        break;
    default:
        break;
    }
    if (finding) {
        fprintf(stderr, "\n==== tracefuzz finding: %s  %s\n%s\n", or_verdict_name(oc.kind),
                oc.signature ? oc.signature : "", oc.report ? oc.report : "");
        fprintf(stderr, "==== program (%s)\n%s\n==== end of finding\n", filename, source);
        fflush(stderr);
        abort();
    }
    hz_outcome_clear(&oc);
    free(source);
    return 0;
}

/* How large an IR edit of an input of `size` bytes may be: at most the budget, or
 * the input's own size when it is already larger (a large seed can still be edited,
 * just not grown). */
static size_t edit_cap(size_t size, size_t max_size)
{
    if (size_budget == 0)
        return max_size;
    size_t cap = size > size_budget ? size : size_budget;
    return cap < max_size ? cap : max_size;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    HzRng r = {seed};
    if (bytes_only && LLVMFuzzerMutate != NULL)
        return LLVMFuzzerMutate(data, size, max_size);
    /* A quarter byte-level: it reaches decodings no IR edit makes (a different class
     * count shifts every later choice) and it is all a source input can get. */
    if (hz_rng_below(&r, 4) != 0 || LLVMFuzzerMutate == NULL) {
        /* A fresh program within libFuzzer's own limit (hz_mutate.h), else an edit. */
        uint64_t stream = hz_rng_next(&r);
        size_t n = hz_fresh_bytes(data, size, data, max_size, stream);
        if (n > 0)
            return n;
        /* Program size sets the rate (compiling is ~45% of an input): with a budget,
         * IR edits must fit it, which makes hz_mutate_bytes shrink programs above it
         * (docs/FUZZING.md, "Throughput"). */
        size_t cap = edit_cap(size, max_size);
        n = hz_mutate_bytes(data, size, data, cap, stream);
        if (n > 0)
            return n;
    }
    return LLVMFuzzerMutate != NULL ? LLVMFuzzerMutate(data, size, max_size) : size;
}

size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2,
                                 uint8_t *out, size_t max_out, unsigned int seed)
{
    size_t cap = edit_cap(s1, max_out);
    size_t n = bytes_only ? 0 : hz_crossover_bytes(d1, s1, d2, s2, out, cap, seed);
    if (n > 0)
        return n;
    /* A source input on either side: libFuzzer's plain crossover, a prefix of one
     * and a suffix of the other. */
    size_t a = s1 < max_out ? s1 / 2 : max_out / 2;
    size_t b = s2 / 2;
    if (a + b > max_out)
        b = max_out - a;
    memcpy(out, d1, a);
    memcpy(out + a, d2 + s2 / 2, b);
    return a + b;
}
