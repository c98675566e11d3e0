#!/usr/bin/env bash
# smoke.sh MODE WORKDIR FUZZER [libFuzzer flags...] -- SEED_DIR...
#   MODE clean:   the run must end normally ("Done N runs") with no finding
#   MODE finds:   the run must stop on a finding (the fuzzer finds a planted bug)
#   MODE clean-builtin, finds-builtin: the same with the default target, skipped
#                 (exit 77) while that is identity (before the tracer has jit())
# New corpus entries and artifacts go to WORKDIR (emptied first), never into the
# seed directories. Prints the tail of libFuzzer's output either way.
set -u
mode="$1" work="$2" fuzzer="$3"
shift 3
flags=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do flags+=("$1"); shift; done
shift
rm -rf "$work"
mkdir -p "$work/corpus"
log="$work/log"
if [ "$mode" = finds-builtin ] || [ "$mode" = clean-builtin ]; then
    # Which target is the default? (-runs=0 on an empty corpus: start-up only.)
    mkdir -p "$work/probe"
    "$fuzzer" -runs=0 "$work/probe" >"$log" 2>&1 || true
    if grep -q '^tracefuzz fuzz target: target identity' "$log"; then
        echo "smoke.sh: the default target is identity (no tfjit.jit yet): skipped" >&2
        exit 77
    fi
fi
"$fuzzer" "${flags[@]}" -detect_leaks=0 -artifact_prefix="$work/" "$work/corpus" "$@" >"$log" 2>&1
rc=$?
tail -n 25 "$log"
case "$mode" in
clean|clean-builtin)
    if [ $rc -ne 0 ] || ! grep -q '^Done [0-9]* runs' "$log"; then
        echo "smoke.sh: expected a clean run, exit status $rc" >&2
        exit 1
    fi
    if grep -q 'NONDETERMINISTIC input' "$log"; then
        echo "smoke.sh: note: nondeterministic inputs (generator bugs) were seen" >&2
    fi
    ;;
finds|finds-builtin)
    if [ $rc -eq 0 ] || ! grep -q '^==== tracefuzz finding' "$log"; then
        echo "smoke.sh: expected a finding, exit status $rc" >&2
        exit 1
    fi
    grep -m1 -A3 '^==== tracefuzz finding' "$log"
    grep -m1 '^#[0-9]*' "$log" >/dev/null
    # How many runs it took (libFuzzer's last status line before the crash).
    grep -o '^#[0-9]*' "$log" | tail -1 | sed 's/^#/smoke.sh: runs before the finding: /'
    ;;
*)
    echo "smoke.sh: unknown mode $mode" >&2
    exit 2
    ;;
esac
exit 0
