#!/usr/bin/env bash
# jobs_check.sh CASE TRACEFUZZ WORKDIR: `tracefuzz fuzz --jobs 2` (persistent libFuzzer
# jobs on one corpus, harness/cmd/cmd_fuzz_jobs.c). Run from the source tree.
#   restart   the fault unset_slot_is_none from a passing seed for 10 s: two job logs,
#             both jobs ran inputs, stats.csv's last row and the summary are the sum of
#             the jobs' executed units, findings, and a job restarted after a finding
#             ran inputs again (the run went on past the first crash)
#   fallback  a seed that fails under the fault: each job goes on in fork mode and
#             still runs inputs; the seed's finding is reported
#   INT, TERM the signal after both jobs started (INT: persistent jobs on identity; TERM:
#             jobs in fork mode): exit 128+signal, the summary, no process left, the
#             jobs' temporary directories removed
# Exit 77 (skipped) on fewer than 2 cores: --jobs is capped at the core count.
set -u
case_="$1" tf="$2" work="$3"
[ "$(nproc)" -ge 2 ] || { echo "jobs_check: fewer than 2 cores"; exit 77; }
rm -rf "$work"
mkdir -p "$work/tmp"
export TMPDIR="$work/tmp"   # the jobs' TMPDIRs are made in here
out="$work/stdout" err="$work/stderr" o="$work/o"
fail() {
    echo "jobs_check: $case_: $*"
    echo "---- stdout"; cat "$out"; echo "---- stderr"; tail -30 "$err"
    exit 1
}
# units LOG: the executed units of every process of a job (one final line each)
units() { awk '/^stat::number_of_executed_units:/ {s += $2} END {print s + 0}' "$1"; }
# A seed failing under the fault: the regression case as a #tracefuzz-py input.
failing_seeds() {
    mkdir -p "$work/seeds"
    cp tests/fuzz/min_seed/zero "$work/seeds/"
    { echo "#tracefuzz-py"; cat corpus/regression/fault_unset_slot_is_none.py; } \
        >"$work/seeds/slot.py"
}
# wait_started: until both job logs have an INITED or fork-mode status line (40 s)
wait_started() {
    for _ in $(seq 80); do
        n=0
        for j in 0 1; do
            grep -Eq 'INITED|^#[0-9]+: cov' "$o/fuzz-$j.log" 2>/dev/null && n=$((n + 1))
        done
        [ $n = 2 ] && return 0
        sleep 0.5
    done
    return 1
}

case "$case_" in
restart)
    "$tf" fuzz --target builtin --faults unset_slot_is_none --seeds tests/fuzz/min_seed \
        --jobs 2 --time 10 --seed 11 --no-reduce --out "$o" >"$out" 2>"$err"
    rc=$?
    [ $rc = 1 ] || fail "exit status $rc, expected 1 (findings)"
    total=0
    for j in 0 1; do
        log="$o/fuzz-$j.log"
        [ -s "$log" ] || fail "no job log $log"
        n=$(units "$log")
        [ "$n" -gt 0 ] || fail "job $j executed no input ($log)"
        total=$((total + n))
    done
    [ -e "$o/fuzz-2.log" ] && fail "a third job log"
    last=$(grep -Ev '^unix_time|,"' "$o/stats.csv" | tail -1 | cut -d, -f3)
    [ "$last" = "$total" ] || fail "stats.csv's last row has $last execs, the jobs ran $total"
    grep -q "^  execs     $total " "$out" || fail "the summary's execs are not the jobs' $total"
    grep -q '^  time      [0-9]* s on 2 cores' "$out" || fail "no 'on 2 cores' in the summary"
    grep -Eq '^  findings  [1-9]' "$out" || fail "no finding"
    ls "$o/findings/"*.report >/dev/null 2>&1 || fail "no finding files"
    # a job that ended on a finding was restarted and ran inputs again: after its
    # first saved input, another process of the same job read the corpus (INITED)
    # and executed units
    restarted=0
    for j in 0 1; do
        awk '/Test unit written to/ {c = 1} c && /\tINITED / {i = 1}
             c && i && /^stat::number_of_executed_units: *[1-9]/ {ok = 1}
             END {exit !ok}' "$o/fuzz-$j.log" && restarted=1
    done
    [ $restarted = 1 ] || fail "no job ran inputs after a restart"
    grep -q 'fork mode' "$err" && fail "fell back to fork mode"
    grep -q '^\[0\] ' "$o/fuzz.log" && grep -q '^\[1\] ' "$o/fuzz.log" ||
        fail "fuzz.log does not combine both jobs"
    ;;
fallback)
    failing_seeds
    "$tf" fuzz --target builtin --faults unset_slot_is_none --seeds "$work/seeds" \
        --jobs 2 --time 8 --no-reduce --out "$o" >"$out" 2>"$err"
    rc=$?
    [ $rc = 1 ] || fail "exit status $rc, expected 1 (findings)"
    for j in 0 1; do
        grep -q "job $j: an input of the corpus fails: going on in fork mode" "$err" ||
            fail "job $j did not go on in fork mode"
        grep -Eq '^#[0-9]*[1-9][0-9]*: cov' "$o/fuzz-$j.log" || fail "job $j ran nothing in fork mode"
    done
    grep -q 'MISMATCH_RESULT' "$out" || fail "the failing seed's finding is missing"
    ;;
INT | TERM)
    if [ "$case_" = INT ]; then
        set -- --target identity
    else
        failing_seeds
        set -- --target builtin --faults unset_slot_is_none --seeds "$work/seeds"
    fi
    "$tf" fuzz "$@" --jobs 2 --time 120 --no-reduce --out "$o" >"$out" 2>"$err" &
    pid=$!
    wait_started || { kill -KILL $pid; fail "the jobs did not start within 40 s"; }
    sleep 1
    kill -"$case_" $pid
    wait $pid
    rc=$?
    sleep 0.5
    want=$((128 + $(kill -l "$case_")))
    [ "$rc" = "$want" ] || fail "exit status $rc, expected $want"
    # this run's processes: the jobs name $o, fork mode's children its TMPDIR
    procs="$work/(o|tmp)/"
    left=$(pgrep -f "$procs" | wc -l)
    [ "$left" = 0 ] && [ -z "$(ls -A "$work/tmp")" ] || {
        pgrep -af "$procs"; ls -la "$work/tmp"
        for p in $(pgrep -f "$procs"); do kill -KILL "$p"; done
        fail "$left processes and these temporary files left"
    }
    grep -q "interrupted by" "$err" || fail "no 'interrupted by' message"
    grep -q '^tracefuzz fuzz summary' "$out" || fail "no summary"
    grep -Eq '^  execs     [1-9]' "$out" || fail "no execs in the summary"
    ;;
*)
    echo "jobs_check: unknown case $case_"; exit 2 ;;
esac
echo "jobs_check: $case_ OK"
