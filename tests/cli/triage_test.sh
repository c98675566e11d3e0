#!/usr/bin/env bash
# triage_test.sh TRACEFUZZ CASE [CAMPAIGN]: `triage` groups findings across runs, `promote` turns
# one into a regression case, reports lead with the divergence and are capped.
# Runs from the source tree; every expected number is counted here independently
# (from the files), never written in.
set -u
tf="$1"; case_="$2"; shared="${3:-}"
py=/usr/bin/python3.11
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAILED: $*"; exit 1; }
MARKER='# ---- tracefuzz repro: below this line runs the program above eagerly and through the JIT ----'
# Findings of two faults in two runs (d1, d2), and d1 again under another name:
# made once into CAMPAIGN (case "setup"), copied by each case (they alter it).
make_campaign() {
    "$tf" gen --count 30 --seed 11 --out "$1/in" >/dev/null 2>&1
    "$tf" run --faults stale_class_attr --findings "$1/d1" "$1/in" >/dev/null 2>&1
    "$tf" run --faults dict_before_data_desc --findings "$1/d2" "$1/in" >/dev/null 2>&1
    cp -r "$1/d1" "$1/d3"
    [ -n "$(ls "$1/d1")" ] && [ -n "$(ls "$1/d2")" ] || fail "the campaign found nothing"
}
campaign() {
    if [ -n "$shared" ] && [ -d "$shared/d3" ]; then
        cp -r "$shared/d1" "$shared/d2" "$shared/d3" "$tmp/"
    else
        make_campaign "$tmp"
    fi
}
# Non-blank, non-comment lines of a file, above the repro marker.
size() { awk -v m="$MARKER" '$0 == m {exit} /^[ \t]*$/ {next} /^[ \t]*#/ {next} {n++} END {print n+0}' "$1"; }
a_finding() { ls "$1"/*.report | head -1; }
case "$case_" in
setup)        # the shared campaign
    rm -rf "$shared" && mkdir -p "$shared" && make_campaign "$shared";;
groups)       # one group per signature, a STEM found twice counts once, JSON agrees
    campaign
    stems=$(cd "$tmp" && ls d1 d2 d3 | grep '\.report$' | sort -u | wc -l)
    sigs=$(grep -h '^signature: ' "$tmp"/d1/*.report "$tmp"/d2/*.report | sort -u | wc -l)
    out=$("$tf" triage "$tmp/d1" "$tmp/d2" "$tmp/d3" --json "$tmp/t.json") || fail "exit $?"
    echo "$out" | tail -1 | grep -qx "$stems findings in $sigs signatures" ||
        fail "want '$stems findings in $sigs signatures': $(echo "$out" | tail -1)"
    "$py" - "$tmp/t.json" "$stems" "$sigs" "$MARKER" <<'EOF' || fail "JSON: see above"
import json, os, sys
d = json.load(open(sys.argv[1]))
stems, sigs, marker = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
assert d["schema"] == "tracefuzz-triage" and d["version"] == 1, d["version"]
g = d["groups"]
assert len(g) == sigs == d["signatures"], (len(g), sigs)
assert sum(x["count"] for x in g) == stems == d["findings"]
assert len({x["signature"] for x in g}) == len(g), "a signature in two groups"
assert [x["count"] for x in g] == sorted((x["count"] for x in g), reverse=True)
def size(p):
    n = 0
    for line in open(p):
        if line.rstrip("\n") == marker: break
        s = line.strip()
        n += bool(s) and not s.startswith("#")
    return n
for x in g:
    assert x["count"] == len(x["findings"])
    assert len({f["stem"] for f in x["findings"]}) == x["count"], "a stem counted twice"
    for f in x["findings"]:
        r = open(f["report"]).read()
        assert "\nsignature: %s\n" % x["signature"] in r, f["report"]
        assert f["time"] >= x["first_seen"]
    want = min(size(f["report"][:-7] + ".py") for f in x["findings"])
    assert x["smallest"]["size"] == want == size(x["smallest"]["path"]), (x, want)
print("json ok:", len(g), "groups")
EOF
    ;;
prefers_min)  # a reduced STEM.min.py wins over any STEM.py, even a shorter one; a
    # repro footer is no program
    campaign
    r=$(a_finding "$tmp/d1"); stem=${r%.report}
    sig=$(grep -m1 '^signature: ' "$r" | cut -d' ' -f2-)
    { printf 'LOG = []\ndef make():\n    return ()\n\n# a comment\ndef program():\n    return 1\n'
      for i in $(seq 1000); do echo "x$i = $i"; done   # longer than any STEM.py
      printf '%s\nimport sys\nsys.exit(3)\n' "$MARKER"; } > "$stem.min.py"
    "$tf" triage "$tmp/d1" --json "$tmp/t.json" >/dev/null || fail "exit $?"
    "$py" - "$tmp/t.json" "$sig" "$stem.min.py" <<'EOF' || fail "JSON: see above"
import json, sys
g = [x for x in json.load(open(sys.argv[1]))["groups"] if x["signature"] == sys.argv[2]][0]
s = g["smallest"]
assert s["path"] == sys.argv[3] and s["reduced"] and s["size"] == 1005, s
EOF
    ;;
first_seen)   # first seen is the earliest time: of the group, whichever directory
    campaign
    r=$(a_finding "$tmp/d3")
    sed -i 's/^time: .*/time: 2001-01-01T00:00:00Z/' "$r"
    sig=$(grep -m1 '^signature: ' "$r" | cut -d' ' -f2-)
    "$tf" triage "$tmp/d1" "$tmp/d3" --json - | "$py" -c '
import json, sys
g = [x for x in json.load(sys.stdin)["groups"] if x["signature"] == sys.argv[1]][0]
assert g["first_seen"] == "2001-01-01T00:00:00Z", g' "$sig" || fail "first seen";;
bad_dir)      # a directory that cannot be read is an error of the command (2)
    "$tf" triage "$tmp/nothing" >/dev/null 2>&1; rc=$?
    [ $rc = 2 ] || fail "exit $rc, want 2";;
report_leads) # a finding's report: divergence first, observations last, all capped
    campaign
    for r in "$tmp"/d1/*.report "$tmp"/d2/*.report; do
        body=$(awk 'p {print} /^time: / {p=1}' "$r")
        echo "$body" | sed -n 2,4p | grep -q '^divergence: ' || fail "$r: no divergence: line on top"
        d=$(echo "$body" | grep -n '^divergence: ' | head -1 | cut -d: -f1)
        pgm=$(echo "$body" | grep -n '^program:' | head -1 | cut -d: -f1)
        [ -z "$pgm" ] || [ "$d" -lt "$pgm" ] || fail "$r: the program before the divergence"
        # 200 lines of report + 3 observations of 200, headers and cut notes
        [ "$(wc -l < "$r")" -le 830 ] || fail "$r: $(wc -l < "$r") lines, over the caps"
    done
    grep -lq 'more lines cut' "$tmp"/d1/*.report "$tmp"/d2/*.report ||
        fail "no report was cut: the campaign's programs are longer than the cap"
    # the program's lines involved are the program's own, numbered as in NAME.py
    n=0
    for r in "$tmp"/d1/*.report "$tmp"/d2/*.report; do
        first=$(awk '/^the program.s lines involved:$/ {getline; print; exit}' "$r")
        [ -n "$first" ] || continue
        num=$(echo "$first" | sed -E 's/^  ([0-9]+) \| .*/\1/')
        text=$(echo "$first" | sed -E 's/^  [0-9]+ \| //')
        [ "$(sed -n "${num}p" "${r%.report}.py")" = "$text" ] ||
            fail "$r: line $num is not '$text'"
        echo "$text" | grep -q '# tf:' || fail "$r: '$text' is not a tagged line"
        n=$((n + 1))
    done
    [ $n -gt 0 ] || fail "no report names the program's lines involved";;
promote)      # a finding becomes a case whose both expectations hold under run
    campaign
    r=$(grep -l '^verdict: MISMATCH' "$tmp"/d1/*.report | head -1)
    [ -n "$r" ] || r=$(a_finding "$tmp/d1")
    stem=$(basename "${r%.report}")
    v=$(grep -m1 '^verdict: ' "$r" | cut -d' ' -f2)
    # a repro footer below the program is not part of the case
    printf '%s\nraise SystemExit(3)\n' "$MARKER" >> "${r%.report}.py"
    "$tf" promote "$r" --to "$tmp/reg" >/dev/null 2>&1 || fail "promote exit $?"
    c="$tmp/reg/$stem.py"
    [ -f "$c" ] || fail "no case $c"
    head -1 "$c" | grep -q "^# tracefuzz regression: catches $v " || fail "first line: $(head -1 "$c")"
    grep -qx "# expect\[builtin faults=stale_class_attr\]: $v" "$c" || fail "no expectation for the fault"
    grep -qx "# expect\[builtin\]: OK" "$c" || fail "no expect[builtin]: OK"
    grep -qF "$MARKER" "$c" && fail "the repro footer went into the case"
    "$tf" run --faults stale_class_attr "$c" | tail -1 | grep -qx "1 passed, 0 failed" || fail "faulty run"
    "$tf" run "$c" | tail -1 | grep -qx "1 passed, 0 failed" || fail "fault-free run";;
promote_refuses) # an expectation that does not hold: exit 1, nothing written
    campaign
    r=$(grep -l '^verdict: PROVENANCE' "$tmp"/d1/*.report | head -1)
    [ -n "$r" ] || fail "no PROVENANCE finding to tamper with"
    sed -i 's/^verdict: PROVENANCE/verdict: MISMATCH_STATE/' "$r"
    "$tf" promote "$r" --to "$tmp/reg" >/dev/null 2>&1; rc=$?
    [ $rc = 1 ] || fail "exit $rc, want 1"
    [ -z "$(ls -A "$tmp/reg")" ] || fail "a refused case was written: $(ls -A "$tmp/reg")"
    # found on the fault-free built-in tracer: it cannot also expect OK there
    r=$(a_finding "$tmp/d2")
    "$tf" promote "$r" --faults "" --to "$tmp/reg" >/dev/null 2>&1; rc=$?
    [ $rc = 1 ] || fail "fault-free builtin: exit $rc, want 1";;
promote_keeps) # never overwrites another case; the same one again is a no-op
    campaign
    r=$(a_finding "$tmp/d1"); stem=$(basename "${r%.report}")
    "$tf" promote "$r" --to "$tmp/reg" >/dev/null 2>&1 || fail "first promote exit $?"
    sum1=$(sha1sum < "$tmp/reg/$stem.py")
    out=$("$tf" promote "${r%.report}.py" --to "$tmp/reg" 2>&1) || fail "again: exit $?"
    echo "$out" | grep -q "already promoted" || fail "again: $out"
    echo "# mine" > "$tmp/reg/other.py"
    "$tf" promote "$r" --name other --to "$tmp/reg" >/dev/null 2>&1; rc=$?
    [ $rc = 2 ] || fail "onto another case: exit $rc, want 2"
    [ "$(cat "$tmp/reg/other.py")" = "# mine" ] || fail "another case was overwritten"
    [ "$(sha1sum < "$tmp/reg/$stem.py")" = "$sum1" ] || fail "the case changed"
    [ "$(ls -A "$tmp/reg" | wc -l)" = 2 ] || fail "stray files: $(ls -A "$tmp/reg")";;
*) echo "unknown case $case_"; exit 2;;
esac
echo "ok $case_"
