#!/bin/sh
# crash_e2e.sh TRACEFUZZ TARGET WORKDIR: generates a fixed set of programs, runs them
# against tests/targets/wrapped_errors.py (three internal errors wrapped in one
# InterpreterError) and checks that the TARGET_CRASH signatures are exactly three,
# each naming its cause: the innermost exception type and the target's function.
set -eu
tf=$1; target=$2; work=$3
count=${SIG_COUNT:-300}; seed=${SIG_SEED:-11}
rm -rf "$work"; mkdir -p "$work"
"$tf" gen --count "$count" --seed "$seed" --out "$work/in" >/dev/null
set +e
"$tf" run --quiet --target "$target" "$work/in" >"$work/out.txt" 2>&1
rc=$?
set -e
[ "$rc" -le 1 ] || { echo "run failed ($rc)"; cat "$work/out.txt"; exit 1; }
grep -E '^[^ ]+: TARGET_CRASH  ' "$work/out.txt" | sed 's/^[^ ]*: [A-Z_]*  //' >"$work/sigs.txt" || true
sort "$work/sigs.txt" | uniq -c | sort -rn
distinct=$(sort -u "$work/sigs.txt" | wc -l)
[ "$distinct" -eq 3 ] || { echo "expected 3 TARGET_CRASH signatures, got $distinct"; exit 1; }
for cause in 'InterpreterError<-KeyError@wrapped_errors.py:_Interp.run_native' \
             'InterpreterError<-NotImplementedError@wrapped_errors.py:_Interp.call' \
             'InterpreterError<-AssertionError@wrapped_errors.py:_Interp.load_instance'; do
    n=$(grep -cF "$cause" "$work/sigs.txt" || true)
    [ "$n" -ge 5 ] || { echo "cause $cause: $n crashes, expected at least 5"; exit 1; }
done
echo "ok: 3 signatures, one per cause"
