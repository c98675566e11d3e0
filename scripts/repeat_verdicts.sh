#!/usr/bin/env bash
# repeat_verdicts.sh [-n N] [-t TARGET] [-b TRACEFUZZ] [PATH...]
#
# Runs every input N times (default 100) in one `tracefuzz run` (each run of an input
# in its own process, --isolation fork) and checks that each input gets one verdict
# and signature every time (issue 13: 100/100 identical verdicts). PATHs default to
# corpus/regression and corpus/seed; the target defaults to builtin. Prints, per
# input with more than one outcome, its outcomes and counts, then
#   inputs I, runs R, identical I_same/I, seconds S
# Exit 0 when every input had one outcome, 1 otherwise, 2 on a usage error.
set -u
n=100; target=builtin; tf=build/dev/tracefuzz
while getopts "n:t:b:" o; do
  case "$o" in n) n="$OPTARG";; t) target="$OPTARG";; b) tf="$OPTARG";; *) exit 2;; esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- corpus/regression corpus/seed
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
args=()
for ((i = 0; i < n; i++)); do args+=("$@"); done
start=$(date +%s.%N)
"$tf" run --quiet --target "$target" "${args[@]}" >"$tmp/out" 2>"$tmp/err"
rc=$?
secs=$(echo "$(date +%s.%N) - $start" | bc)
case "$rc" in 0|1) ;; *) echo "tracefuzz run exited $rc"; tail -5 "$tmp/err"; exit 2;; esac
# --quiet prints failures only: an input missing from a run passed (OK).
"$tf" run --target "$target" "$@" 2>/dev/null | grep -E '^[^ ].*: [A-Z_]+  ' |
  sed 's/: [A-Z_]*  .*//' | sort -u > "$tmp/inputs"
awk -v n="$n" -v inputs="$tmp/inputs" '
  BEGIN { while ((getline p < inputs) > 0) { want[p] = 1; total++ } }
  /: [A-Z_]+  / { i = index($0, ": "); p = substr($0, 1, i - 1); o = substr($0, i + 2)
                  seen[p, o]++; fails[p]++; if (!((p, o) in first)) { first[p, o] = 1; outs[p] = outs[p] "\n    " o } }
  END {
    same = 0
    for (p in want) {
      k = 0; split(outs[p], a, "\n"); for (j in a) if (a[j] != "") k++
      if (fails[p] > 0 && fails[p] < n) k++       # passed in some runs
      if (k <= 1) same++
      else { printf "%s: %d outcomes (failed %d of %d runs)%s\n", p, k, fails[p], n, outs[p] }
    }
    printf "inputs %d, runs %d, identical %d/%d\n", total, n, same, total
    exit same == total ? 0 : 1
  }' "$tmp/out"
ok=$?
echo "seconds $secs"
exit $ok
