#!/bin/sh
# sig_e2e.sh TRACEFUZZ TARGET WORKDIR: generates a fixed set of programs, runs them
# against TARGET, and checks the signatures of the failures: enough failures to
# mean something, nearly all with a named hint, and few distinct signatures.
# Bounds: SIG_COUNT programs (seed SIG_SEED), at most SIG_MAX signatures (measured
# 27 for memo_silent on 300 programs of seed 11: one per shape and access family
# it breaks, the kind only with the catch-all shape "value"; 53 when signatures
# named the kind, 54 before any hint). "Unnamed": the shape "value" with nothing
# named after it.
set -eu
tf=$1; target=$2; work=$3
count=${SIG_COUNT:-300}; seed=${SIG_SEED:-11}; max=${SIG_MAX:-35}
rm -rf "$work"; mkdir -p "$work"
"$tf" gen --count "$count" --seed "$seed" --out "$work/in" >/dev/null
set +e
"$tf" run --quiet --target "$target" "$work/in" >"$work/out.txt" 2>&1
rc=$?
set -e
[ "$rc" -le 1 ] || { echo "run failed ($rc)"; cat "$work/out.txt"; exit 1; }
# Lines "PATH: VERDICT  SIGNATURE" of the failures.
grep -E '^[^ ]+: [A-Z_]+  ' "$work/out.txt" | sed 's/^[^ ]*: [A-Z_]*  //' >"$work/sigs.txt" || true
failed=$(wc -l <"$work/sigs.txt")
distinct=$(sort -u "$work/sigs.txt" | wc -l)
unnamed=$(grep -c " value -$" "$work/sigs.txt" || true)
echo "failed=$failed distinct=$distinct unnamed=$unnamed (max $max)"
sort "$work/sigs.txt" | uniq -c | sort -rn | head -20
[ "$failed" -ge $((count / 4)) ] || { echo "too few failures: the toy bug is not found"; exit 1; }
[ "$distinct" -le "$max" ] || { echo "too many distinct signatures"; exit 1; }
[ $((unnamed * 20)) -le "$failed" ] || { echo "more than 5% of failures name nothing"; exit 1; }
