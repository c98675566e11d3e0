#!/usr/bin/env bash
# repro_test.sh TRACEFUZZ CASE [ARG]: the repro script of a finding (issue 11, part
# "repro"). Runs from the source tree; every script runs from another directory
# (/) with `python3.11 -I` and no PYTHON*/TRACEFUZZ_* variables unless the case sets
# them, so it relies on the absolute paths it recorded.
set -u
tf="$1"; case_="$2"; arg="${3:-}"
PY=${TF_PYTHON:-/usr/bin/python3.11}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
T=tests/targets
fail() { echo "FAILED: $*"; exit 1; }
# script FILE [VAR=VALUE...]: runs the script from / in a clean environment; sets
# $rc and $out (stdout and stderr)
script() {
    local f="$1"; shift
    out=$(cd / && env -i PATH=/usr/bin:/bin "$@" $PY -I "$f" 2>&1); rc=$?
}
expect_rc() { [ "$rc" = "$1" ] || fail "$2: exit status $rc, expected $1; output:
$(echo "$out" | tail -40)"; }
verdict_of() { "$tf" run "$@" 2>/dev/null | grep -E '^[^ ]+: [A-Z_]+ ' | sed 's/^[^ ]*: //'; }

case "$case_" in
zoo)   # the finding of fault ARG: exit 1 with the fault, 0 without; STEM.py = STEM.tf
    f="$arg"; in=tests/cli/inputs/repro/$f.tf
    "$tf" run --faults "$f" --findings "$tmp/f" "$in" >/dev/null 2>&1
    [ $? = 1 ] || fail "$in does not fail under $f"
    py=$(ls "$tmp"/f/*.py); tfin=$(ls "$tmp"/f/*.tf)
    [ -f "$py" ] && [ -f "$tfin" ] || fail "no finding files"
    grep -qx "# ---- tracefuzz repro: below this line runs the program above eagerly and through the JIT ----" "$py" ||
        fail "no marker line in $py"
    script "$py" TRACEFUZZ_FAULTS="$f";  expect_rc 1 "with TRACEFUZZ_FAULTS=$f"
    echo "$out" | grep -Eq "^(MISMATCH_[A-Z]+ at step|PROVENANCE: )" || fail "no divergence printed: $out"
    # a result names the program() statement that made it; LOG events are listed
    if echo "$out" | grep -q "^MISMATCH_RESULT at step"; then
        echo "$out" | grep -q "^the statement of r[123]\[[0-9]*\].* (program line [0-9]*, access=" ||
            fail "no statement: $out"
        echo "$out" | grep -q "^difference: " || fail "no difference line: $out"
    fi
    if echo "$out" | grep -q "^MISMATCH_EVENTS at step"; then
        echo "$out" | grep -q "event by event" || fail "no event list: $out"
    fi
    if echo "$out" | grep -q "^PROVENANCE: "; then
        echo "$out" | grep -q "ProvenanceError: " || fail "no ProvenanceError message: $out"
    fi
    script "$py" TRACEFUZZ_FAULTS=;      expect_rc 0 "with TRACEFUZZ_FAULTS="
    echo "$out" | grep -q "^OK: eager and jit agree" || fail "no agreement line: $out"
    script "$py";                        expect_rc 1 "with the recorded faults"
    script "$py" TRACEFUZZ_FAULTS= TRACEFUZZ_TARGET=identity; expect_rc 0 "TRACEFUZZ_TARGET=identity"
    # `tracefuzz run` on STEM.py runs the program only: the verdict of STEM.tf
    a=$(verdict_of --faults "$f" "$py"); b=$(verdict_of --faults "$f" "$tfin")
    [ -n "$a" ] && [ "$a" = "$b" ] || fail "STEM.py reads '$a', STEM.tf '$b'"
    # and a rerun of the script is the same finding (same name, nothing added)
    "$tf" run --faults "$f" --findings "$tmp/f" "$py" >/dev/null 2>&1
    [ "$(ls "$tmp/f" | grep -c '\.report$')" = 2 ] || fail "want 2 reports (tf and py inputs): $(ls "$tmp/f")";;
crash) # a target that raises its own exception, and one that dies: exit 1, traceback
    "$tf" repro corpus/regression/motivating.py --target $T/memo_assert.py:jit -o "$tmp/a.py" 2>/dev/null
    script "$tmp/a.py"; expect_rc 1 "memo_assert"
    echo "$out" | grep -q "^TARGET_CRASH: the target raised in step 1" || fail "no crash line: $out"
    echo "$out" | grep -q "^Traceback (most recent call last)" || fail "no traceback: $out"
    echo "$out" | grep -q "_proxy.py\", line" || fail "the target's frames are missing: $out"
    echo "$out" | grep -q "AssertionError: attribute test of Test object out of sync" || fail "$out"
    "$tf" repro tests/verdicts/crash.py --target $T/segfault.py:jit -o "$tmp/b.py" 2>/dev/null
    script "$tmp/b.py"; expect_rc 1 "segfault"
    echo "$out" | grep -q "TARGET_CRASH: the process died of SIGSEGV" || fail "$out"
    echo "$out" | grep -q "segfault.py\", line" || fail "no Python frames of the crash: $out"
    "$tf" repro tests/verdicts/timeout.py --target $T/hang.py:jit -o "$tmp/c.py" 2>/dev/null
    script "$tmp/c.py" TRACEFUZZ_TIMEOUT=2; expect_rc 1 "hang"
    echo "$out" | grep -q "^TIMEOUT" || fail "$out";;
toys)  # each mismatch kind through a toy target, and agreement where there is none
    for p in "mismatch_result change_result MISMATCH_RESULT" "mismatch_events drop_event MISMATCH_EVENTS" \
             "mismatch_state mutate_state MISMATCH_STATE" "mismatch_exception drop_exception MISMATCH_EXCEPTION"; do
        set -- $p
        "$tf" repro tests/verdicts/$1.py --target $T/$2.py:jit -o "$tmp/$1.py" 2>/dev/null
        script "$tmp/$1.py"; expect_rc 1 "$1"
        echo "$out" | grep -q "^$3 at step" || fail "$1: want $3: $out"
        script "$tmp/$1.py" TRACEFUZZ_TARGET=identity; expect_rc 0 "$1 under identity"
    done
    # class-level logs and globals (tfobs 2): only the state shows them
    "$tf" repro corpus/regression/module_classlog.py --target $T/probe_getattr.py:jit -o "$tmp/cl.py" 2>/dev/null
    script "$tmp/cl.py"; expect_rc 1 "classlog"
    echo "$out" | grep -q "^MISMATCH_STATE at step end" || fail "classlog: $out"
    echo "$out" | grep -q "class:" || fail "classlog: no class path: $out"
    "$tf" repro corpus/regression/global_counter.py --target $T/globals_copy.py:jit -o "$tmp/gc.py" 2>/dev/null
    script "$tmp/gc.py"; expect_rc 1 "global counter"
    echo "$out" | grep -q "global:" || fail "global: no global path: $out"
    # unsupported passes, as in `run`
    "$tf" repro tests/verdicts/unsupported.py --target $T/unsupported.py:jit \
        --unsupported $T/unsupported.py:Unsupported -o "$tmp/u.py" 2>/dev/null
    script "$tmp/u.py"; expect_rc 0 "unsupported"
    echo "$out" | grep -q "^UNSUPPORTED" || fail "$out";;
setup) # defaults from the report; a target that does not load; the argument wins
    "$tf" run --faults skip_getter_on_replay --findings "$tmp/f" \
        tests/cli/inputs/repro/skip_getter_on_replay.tf >/dev/null 2>&1
    tfin=$(ls "$tmp"/f/*.tf)
    "$tf" repro "$tfin" -o "$tmp/r.py" 2>/dev/null || fail "repro of a finding failed"
    grep -q '^FOUND = {"target": "builtin", "faults": "skip_getter_on_replay"' "$tmp/r.py" ||
        fail "the report's faults are not the default: $(grep ^FOUND "$tmp/r.py")"
    script "$tmp/r.py"; expect_rc 1 "recorded faults"
    cmp -s "$tmp/r.py" "${tfin%.tf}.py" || fail "repro of STEM.tf differs from STEM.py"
    "$tf" repro "${tfin%.tf}.py" -o "$tmp/r2.py" 2>/dev/null
    cmp -s "$tmp/r.py" "$tmp/r2.py" || fail "repro of a repro script is not the same script"
    # not a finding: builtin and $TRACEFUZZ_FAULTS
    TRACEFUZZ_FAULTS= "$tf" repro tests/cli/inputs/repro/skip_getter_on_replay.tf -o "$tmp/n.py" 2>/dev/null
    grep -q '^FOUND = {"target": "builtin", "faults": ""' "$tmp/n.py" || fail "$(grep ^FOUND "$tmp/n.py")"
    script "$tmp/n.py"; expect_rc 0 "no faults"
    script "$tmp/n.py" TRACEFUZZ_FAULTS=skip_getter_on_replay; expect_rc 1 "faults from the environment"
    # a relative file.py target is recorded absolute; the argument overrides it
    "$tf" repro tests/verdicts/mismatch_result.py --target ./$T/change_result.py:jit -o "$tmp/t.py" 2>/dev/null
    grep -q "^FOUND = {\"target\": \"$PWD/$T/change_result.py:jit\"" "$tmp/t.py" || fail "$(grep ^FOUND "$tmp/t.py")"
    script "$tmp/t.py"; expect_rc 1 "recorded target"
    script "$tmp/t.py" TRACEFUZZ_TARGET=identity; expect_rc 0 "TRACEFUZZ_TARGET"
    out=$(cd / && env -i PATH=/usr/bin:/bin $PY -I "$tmp/t.py" identity 2>&1); rc=$?
    expect_rc 0 "target argument"
    script "$tmp/t.py" TRACEFUZZ_TARGET=no/such/file.py:jit; expect_rc 2 "missing target"
    echo "$out" | grep -q "cannot load target no/such/file.py:jit" || fail "$out"
    script "$tmp/n.py" TRACEFUZZ_FAULTS=no_such_fault; expect_rc 2 "unknown fault"
    # --python-path is recorded for package.module:attr targets
    "$tf" repro tests/verdicts/mismatch_result.py --target change_result:jit --python-path $T \
        -o "$tmp/p.py" 2>/dev/null
    script "$tmp/p.py"; expect_rc 1 "python-path target"
    # a finding's --unsupported and --python-path are in its report, and in its repro
    "$tf" run --strict --target $T/unsupported.py:jit --unsupported $T/unsupported.py:Unsupported \
        --python-path $T --findings "$tmp/u" tests/cli/inputs/no_expectation.py >/dev/null 2>&1
    grep -q "^unsupported: $T/unsupported.py:Unsupported" "$tmp"/u/*.report || fail "no unsupported: key"
    grep -q "^python-path: $T\$" "$tmp"/u/*.report || fail "no python-path: key"
    "$tf" repro "$(ls "$tmp"/u/*.py)" -o "$tmp/u.py" 2>/dev/null
    cmp -s "$tmp/u.py" "$(ls "$tmp"/u/*.py)" || fail "repro of the finding differs from its NAME.py"
    grep -q "\"unsupported\": \"$PWD/$T/unsupported.py:Unsupported\", \"python_path\": \[\"$PWD/$T\"\]" \
        "$tmp/u.py" || fail "$(grep ^FOUND "$tmp/u.py")"
    script "$tmp/u.py"; expect_rc 0 "unsupported (not --strict)"
    # the harness's help is its docstring
    out=$(cd / && $PY -I "$tmp/p.py" --help 2>&1)
    echo "$out" | grep -q "^Usage:  python3.11 THIS_FILE.py \[TARGET\]" || fail "help: $out";;
pytest) # the script is a module too: importing it runs nothing; its test function works
    "$tf" repro tests/verdicts/mismatch_result.py --target $T/change_result.py:jit -o "$tmp/test_x.py" 2>/dev/null
    out=$(cd "$tmp" && env -i PATH=/usr/bin:/bin $PY -I -c "
import sys; sys.path.insert(0, '.')
import test_x
try:
    test_x.test_tracefuzz_repro()
except AssertionError:
    print('assertion failed, as it should')
" 2>&1)
    echo "$out" | grep -q "assertion failed, as it should" || fail "$out";;
*) echo "unknown case $case_"; exit 2;;
esac
echo "ok $case_ $arg"
