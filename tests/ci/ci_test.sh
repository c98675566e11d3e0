#!/usr/bin/env bash
# ci_test.sh TRACEFUZZ PYTHON CASE: corpus upkeep (`corpus merge/prune`, `fuzz --corpus`),
# the campaign's time series (OUT/stats.csv) and its picture (`plot`). Runs from the
# source tree; every case fails loudly with what it saw.
set -u
tf="$1"; py="$2"; case_="$3"
here=tests/ci
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAILED: $*"; for f in "$tmp"/out "$tmp"/err; do [ -f "$f" ] && { echo "--- $f"; cat "$f"; }; done; exit 1; }
nfiles() { find "$1" -type f | wc -l; }
# one_line_error STATUS REGEX COMMAND...: exits STATUS with exactly one stderr line matching
one_line_error() {
    want="$1"; re="$2"; shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
    [ "$rc" = "$want" ] || fail "exit status $rc, want $want: $*"
    [ "$(wc -l <"$tmp/err")" = 1 ] || fail "want one line on stderr: $*"
    grep -Eq -- "$re" "$tmp/err" || fail "stderr does not match /$re/"
}
case "$case_" in
plot_libfuzzer)   # two runs appended, two signatures (one quoted with "" and markup)
    "$tf" plot $here/stats_libfuzzer.csv -o "$tmp/p.svg" >"$tmp/out" 2>"$tmp/err" || fail "plot failed"
    "$py" $here/plot_check.py "$tmp/p.svg" 4 2 'stale prop <a&b>' 'ProvenanceError "method"' \
        'coverage: edges' 'coverage: features' || fail "bad SVG";;
plot_afl)         # AFL++'s map coverage instead of edges and features
    "$tf" plot $here/stats_afl.csv -o "$tmp/p.svg" >"$tmp/out" 2>"$tmp/err" || fail "plot failed"
    "$py" $here/plot_check.py "$tmp/p.svg" 3 0 'AFL++ map' || fail "bad SVG";;
plot_missing)
    one_line_error 2 "^tracefuzz plot: cannot read $tmp/none/stats.csv: No such file" \
        "$tf" plot "$tmp/none/stats.csv";;
plot_bad_header)
    one_line_error 2 "stats_bad_header.csv:1: not a tracefuzz stats.csv" \
        "$tf" plot $here/stats_bad_header.csv -o "$tmp/p.svg";;
plot_bad_number)
    one_line_error 2 "stats_bad_number.csv:3: bad elapsed_s 'ten'" \
        "$tf" plot $here/stats_bad_number.csv -o "$tmp/p.svg";;
plot_short_row)
    one_line_error 2 "stats_short_row.csv:2: 4 fields, want 11" \
        "$tf" plot $here/stats_short_row.csv -o "$tmp/p.svg";;
plot_header_only)
    head -1 $here/stats_afl.csv >"$tmp/stats.csv"
    one_line_error 2 "no progress rows" "$tf" plot "$tmp";;
fuzz_stats_corpus) # fuzz --corpus keeps the corpus there (not OUT/corpus); stats.csv grows
    "$tf" fuzz --target identity --time 12 --out "$tmp/o" --corpus "$tmp/c" >"$tmp/out" 2>"$tmp/err" \
        || fail "fuzz exit status $?"
    [ -d "$tmp/o/corpus" ] && fail "OUT/corpus made despite --corpus"
    n=$(nfiles "$tmp/c"); [ "$n" -gt 0 ] || fail "the corpus directory is empty"
    head -1 "$tmp/o/stats.csv" | grep -qx 'unix_time,elapsed_s,execs,execs_per_s,cov,ft,map_pct,corpus,crashes,signature,findings' \
        || fail "stats.csv header: $(head -1 "$tmp/o/stats.csv")"
    rows=$(($(wc -l <"$tmp/o/stats.csv") - 1))
    [ "$rows" -ge 2 ] || fail "stats.csv has $rows rows"
    # execs grow and the last row has what the summary printed
    last=$(tail -1 "$tmp/o/stats.csv" | cut -d, -f3)
    grep -q "execs     $last " "$tmp/out" || fail "last row's execs $last not the summary's"
    # a second run reads the kept corpus and appends (one header)
    "$tf" fuzz --target identity --time 6 --out "$tmp/o" --corpus "$tmp/c" >"$tmp/out" 2>"$tmp/err" \
        || fail "second fuzz exit status $?"
    grep -Eq "INFO: +$n files found in $tmp/c" "$tmp/o/fuzz.log" || fail "the second run did not read the $n kept inputs"
    [ "$(grep -c '^unix_time,' "$tmp/o/stats.csv")" = 1 ] || fail "header written twice"
    [ $(($(wc -l <"$tmp/o/stats.csv") - 1)) -gt "$rows" ] || fail "second run appended nothing"
    "$tf" plot "$tmp/o" >"$tmp/out" 2>"$tmp/err" || fail "plot of the run failed"
    "$py" $here/plot_check.py "$tmp/o/stats.svg" 4 0 || fail "bad SVG of the run";;
fuzz_stats_findings) # a finding's signature row after the replay, with its count
    "$tf" fuzz --target tests/targets/memo_silent.py:jit --time 30 --first --seeds tests/fuzz/min_seed \
        --out "$tmp/o" >"$tmp/out" 2>"$tmp/err"
    [ $? = 1 ] || fail "want exit 1 (a finding)"
    sig=$(grep -E '^ +[0-9]+  [A-Z_]+ ' "$tmp/out" | head -1 | sed -E 's/^ +[0-9]+  (.*)   \(e\.g\..*$/\1/')
    [ -n "$sig" ] || fail "no signature in the summary"
    grep -qF ",\"$sig\",1" "$tmp/o/stats.csv" || fail "no row for \"$sig\" in stats.csv"
    "$tf" plot "$tmp/o" -o "$tmp/p.svg" >"$tmp/out" 2>"$tmp/err" || fail "plot failed"
    "$py" $here/plot_check.py "$tmp/p.svg" 4 1 || fail "bad SVG";;
corpus_prune)     # fewer (or as many) files, the same coverage, DIR replaced in place
    "$tf" gen --count 150 --seed 11 --out "$tmp/d" >/dev/null 2>&1 || fail "gen"
    # 30 copies in a sub-folder (libFuzzer reads corpora recursively): nothing new
    mkdir "$tmp/d/copies" && cp $(find "$tmp/d" -maxdepth 1 -type f | head -30) "$tmp/d/copies/"
    before=$(nfiles "$tmp/d")   # gen names inputs by content: duplicates are one file
    "$tf" corpus prune --target identity "$tmp/d" >"$tmp/out" 2>"$tmp/err" || fail "prune exit status $?"
    grep -Eq "^  before +$before files" "$tmp/out" || fail "no 'before $before files'"
    after=$(sed -nE 's/^  after +([0-9]+) files.*/\1/p' "$tmp/out")
    [ -n "$after" ] && [ "$after" -le $((before - 30)) ] && [ "$after" -gt 0 ] || fail "after: '$after'"
    [ "$(nfiles "$tmp/d")" = "$after" ] || fail "DIR holds $(nfiles "$tmp/d") files, the summary says $after"
    grep -q "^  merge   $after new files" "$tmp/out" || fail "no merge summary"
    cb=$(sed -nE 's/^  before .* (cov [0-9]+  ft [0-9]+)$/\1/p' "$tmp/out")
    ca=$(sed -nE 's/^  after .* (cov [0-9]+  ft [0-9]+)$/\1/p' "$tmp/out")
    [ -n "$cb" ] && [ "$cb" = "$ca" ] || fail "coverage before '$cb' after '$ca'"
    ls -d "$tmp"/d.* 2>/dev/null && fail "temporary directories left"
    # pruning the pruned corpus keeps its coverage (libFuzzer's greedy pass over a
    # stateful target may drop an input more)
    "$tf" corpus prune --target identity "$tmp/d" >"$tmp/out" 2>"$tmp/err" || fail "second prune"
    again=$(sed -nE 's/^  after +([0-9]+) files.*/\1/p' "$tmp/out")
    [ -n "$again" ] && [ "$again" -le "$after" ] || fail "a second prune grew the corpus"
    grep -q "^  after .* $ca$" "$tmp/out" || fail "a second prune changed the coverage";;
corpus_prune_fails) # a merge that fails part way leaves DIR as it was (exit 3, log named)
    "$tf" gen --count 20 --seed 12 --out "$tmp/d" >/dev/null 2>&1 || fail "gen"
    ls -l "$tmp/d" >"$tmp/before"
    cat >"$tmp/fake" <<'FAKE'
#!/bin/sh
# a libFuzzer stand-in: coverage passes work, the merge writes one file and dies
case "$1" in
-runs=0) echo "#21	INITED cov: 5 ft: 7 corp: 1/1b exec/s: 0 rss: 1Mb"; exit 0;;
-merge=1) for a; do d="$a"; case "$a" in -*) ;; *) touch "$a/partial"; break;; esac; done
          echo "MERGE-OUTER: attempt 1"; exit 1;;
esac
exit 9
FAKE
    chmod +x "$tmp/fake"
    "$tf" corpus prune --fuzzer "$tmp/fake" "$tmp/d" >"$tmp/out" 2>"$tmp/err"
    [ $? = 3 ] || fail "want exit 3"
    grep -q "the merge failed (exit status 1); its output is in " "$tmp/err" || fail "no message naming the log"
    grep -q "$tmp/d is unchanged" "$tmp/err" || fail "no 'unchanged'"
    ls -l "$tmp/d" | diff "$tmp/before" - || fail "DIR changed"
    ls -d "$tmp"/d.* 2>/dev/null && fail "temporary directories left"
    rm -f "$(sed -nE 's/.*its output is in (.*)$/\1/p' "$tmp/err")";;
corpus_merge)     # OUT gets IN's new coverage only; merging again adds nothing
    "$tf" gen --count 100 --seed 13 --out "$tmp/in" >/dev/null 2>&1 || fail "gen"
    nin=$(nfiles "$tmp/in")
    "$tf" corpus merge --target identity "$tmp/out_c" "$tmp/in" >"$tmp/out" 2>"$tmp/err" || fail "merge exit status $?"
    grep -Eq "^  before +$nin files" "$tmp/out" || fail "no 'before $nin files'"
    n=$(nfiles "$tmp/out_c"); [ "$n" -gt 0 ] && [ "$n" -le "$nin" ] || fail "OUT has $n files"
    [ "$(nfiles "$tmp/in")" = "$nin" ] || fail "IN changed"
    "$tf" corpus merge --target identity "$tmp/out_c" "$tmp/in" >"$tmp/out" 2>"$tmp/err" || fail "second merge"
    grep -q '^  merge   0 new files' "$tmp/out" || fail "the second merge added files"
    [ "$(nfiles "$tmp/out_c")" = "$n" ] || fail "OUT changed on the second merge";;
corpus_usage)     # bad paths and arguments: exit 2, one line
    one_line_error 2 "^tracefuzz corpus: $tmp/none: not a directory$" "$tf" corpus prune "$tmp/none"
    mkdir -p "$tmp/d"
    one_line_error 2 "is OUT itself" "$tf" corpus merge "$tmp/d" "$tmp/d"
    "$tf" corpus prune --fuzzer "$tmp/nofuzzer" "$tmp/d" >"$tmp/out" 2>"$tmp/err"
    [ $? = 2 ] && grep -q "^tracefuzz corpus: no libFuzzer fuzz target at $tmp/nofuzzer" "$tmp/err" \
        || fail "a missing --fuzzer: not exit 2 with its name"
    "$tf" corpus prune "$tmp/d" "$tmp/d" >"$tmp/out" 2>"$tmp/err"; [ $? = 2 ] || fail "two DIRs: not exit 2"
    "$tf" corpus frobnicate >"$tmp/out" 2>"$tmp/err"; [ $? = 2 ] || fail "unknown subcommand: not exit 2"
    "$tf" fuzz --engine afl --corpus "$tmp/d" >"$tmp/out" 2>"$tmp/err"; [ $? = 2 ] || fail "fuzz --engine afl --corpus: not exit 2"
    grep -q "libFuzzer only" "$tmp/err" || fail "fuzz --engine afl --corpus: no reason given";;
corpus_bad_target) # the target does not load: exit 2 with the fuzz target's message
    "$tf" gen --count 5 --seed 14 --out "$tmp/d" >/dev/null 2>&1 || fail "gen"
    "$tf" corpus prune --target "$tmp/missing.py:jit" "$tmp/d" >"$tmp/out" 2>"$tmp/err"
    [ $? = 2 ] || fail "want exit 2"
    grep -q "tracefuzz fuzz target: target" "$tmp/err" || fail "the target's problem is not shown"
    [ "$(nfiles "$tmp/d")" = 5 ] || fail "DIR changed";;
*) echo "unknown case $case_"; exit 2;;
esac
echo "ok: $case_"
