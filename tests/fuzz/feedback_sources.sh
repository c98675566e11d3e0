#!/bin/sh
# feedback_sources.sh TF_FUZZ TF_FUZZ_DECODER WORKDIR
# What guides each fuzz target (fuzz/CMakeLists.txt, TF_FUZZ_UNCOVERED): libFuzzer's
# coverage report after the seeds (-print_coverage=1 names the source file of every
# instrumented function) must show tf_fuzz the tracer's files and its own entry point
# only, never the harness's or the oracles' (their edges follow program length and
# cache history), and tf_fuzz_decoder the decoder's. Exit 0 when both hold.
set -eu
fuzz=$1 decoder=$2 work=$3
rm -rf "$work" && mkdir -p "$work/c1" "$work/c2"
sources() {   # the instrumented source files in a target's coverage report
    "$1" -runs=0 -print_coverage=1 "$2" corpus/seed 2>&1 |
        sed -n 's/^\(UN\)\{0,1\}COVERED_FUNC: .*[ /]\([A-Za-z0-9_]*\.[ch]\):[0-9]*$/\2/p' | sort -u
}
TRACEFUZZ_FAULTS= sources "$fuzz" "$work/c1" >"$work/fuzz"
sources "$decoder" "$work/c2" >"$work/decoder"
echo "tf_fuzz: $(tr '\n' ' ' <"$work/fuzz")"
echo "tf_fuzz_decoder: $(tr '\n' ' ' <"$work/decoder")"
fail=0
grep -q '^tr_eval\.c$' "$work/fuzz" || { echo "FAIL: tf_fuzz does not see the tracer"; fail=1; }
if grep -v -e '^tr_' -e '^hz_fuzz\.c$' "$work/fuzz" >"$work/extra"; then
    echo "FAIL: tf_fuzz is guided by $(tr '\n' ' ' <"$work/extra")"
    fail=1
fi
grep -q '^hz_decode\.c$' "$work/decoder" || { echo "FAIL: tf_fuzz_decoder does not see the decoder"; fail=1; }
[ "$fail" = 0 ] && echo "feedback sources: ok"
exit "$fail"
