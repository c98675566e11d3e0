#!/usr/bin/env bash
# results_test.sh TRACEFUZZ CASE: run's result files for CI (--json, --junit,
# --sarif) and the baseline (--baseline, --update-baseline). Runs from the source
# tree; check_results.py parses each file.
set -u
tf="$1"; case_="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
T=tests/targets
py=${PYTHON:-python3.11}
chk() { "$py" tests/cli/check_results.py "$@" || exit 1; }
fail() { echo "FAILED: $*"; exit 1; }
# Two failing inputs (one with quotes and markup in its name), one passing.
mkdir -p "$tmp/in"
# drop_event.py loses the last LOG entry: ok_plain.py logs (fails), no_expectation.py
# does not (passes).
cp tests/verdicts/ok_plain.py "$tmp/in/plain.py"
cp tests/verdicts/ok_plain.py "$tmp/in/we\"ird <&> name.py"
echo "# a second failing input" >> "$tmp/in/we\"ird <&> name.py"
cp tests/cli/inputs/no_expectation.py "$tmp/in/ok.py"
run() { "$tf" run --target $T/drop_event.py:jit "$@" "$tmp/in" >"$tmp/out" 2>"$tmp/err"; }
case "$case_" in
json)
    run --json "$tmp/r.json"; [ $? = 1 ] || fail "exit status not 1"
    chk json "$tmp/r.json" passed=1 failed=2 known=0 results=3 signatures=1 exit=1 command=run \
        "inputs=ok.py,plain.py,we\"ird <&> name.py";;
junit)
    run --junit "$tmp/r.xml" --findings "$tmp/f"
    chk junit "$tmp/r.xml" tests=3 failures=2 attr_failures=2 skipped=0;;
sarif)
    run --sarif "$tmp/r.sarif" --findings "$tmp/f"
    chk sarif "$tmp/r.sarif" results=1 rules=1 levels=error
    # the location is the finding's reproducer, which exists
    uri=$("$py" -c 'import json,sys,urllib.parse as u; d=json.load(open(sys.argv[1])); print(u.unquote(u.urlparse(d["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]).path))' "$tmp/r.sarif")
    [ -f "$uri" ] || fail "SARIF location $uri is not a file";;
baseline)     # known signatures pass, with no finding; the run is green
    run --baseline /dev/null --update-baseline 2>/dev/null
    sig=$(grep -m1 ': MISMATCH_EVENTS ' "$tmp/out" | sed 's/^.*: MISMATCH_EVENTS  //')
    [ -n "$sig" ] || fail "no failing signature: $(cat "$tmp/out")"
    printf '# known bugs\n%s\n' "$sig" > "$tmp/base"
    run --baseline "$tmp/base" --findings "$tmp/f" --json "$tmp/r.json"
    [ $? = 0 ] || fail "a run with only known failures is not green: $(cat "$tmp/out")"
    grep -q "^3 passed, 0 failed" "$tmp/out" || fail "summary: $(tail -2 "$tmp/out")"
    grep -q "(known)" "$tmp/out" || fail "known failures not marked"
    [ -z "$(ls -A "$tmp/f" 2>/dev/null)" ] || fail "findings written for known failures"
    chk json "$tmp/r.json" passed=1 failed=0 known=2 exit=0
    # another signature is still a failure
    printf 'MISMATCH_EVENTS 9 something else\n' > "$tmp/base2"
    run --baseline "$tmp/base2"; [ $? = 1 ] || fail "an unknown signature passed"
    grep -q "baseline signature not met" "$tmp/err" || fail "unmet baseline entry not listed";;
update)       # --update-baseline appends the new signatures once
    run --baseline "$tmp/base" --update-baseline; [ $? = 1 ] || fail "first run not 1"
    [ "$(grep -vc '^#' "$tmp/base")" = 1 ] || fail "want one signature: $(cat "$tmp/base")"
    run --baseline "$tmp/base" --update-baseline; [ $? = 0 ] || fail "second run not green"
    [ "$(grep -vc '^#' "$tmp/base")" = 1 ] || fail "signature doubled: $(cat "$tmp/base")";;
bad_options)  # configuration errors: exit 2 and one clear line
    run --baseline "$tmp/missing"; [ $? = 2 ] || fail "missing baseline not exit 2"
    grep -q "cannot read the baseline" "$tmp/err" || fail "message: $(cat "$tmp/err")"
    run --update-baseline; [ $? = 2 ] || fail "--update-baseline alone not exit 2"
    run --json "$tmp/no/such/dir/r.json"; [ $? = 2 ] || fail "unwritable --json not exit 2"
    grep -q "cannot write the JSON file" "$tmp/err" || fail "message: $(cat "$tmp/err")";;
fuzz)         # fuzz writes the same files; its baseline makes known findings green
    mkdir -p "$tmp/seeds"   # one seed that fails at once: a deterministic first finding
    { echo '#tracefuzz-py'; cat corpus/regression/motivating.py; } > "$tmp/seeds/m"
    fz() { "$tf" fuzz --first --time 60 --target builtin --faults assume_stable_attrs \
        --seeds "$tmp/seeds" "$@" >"$tmp/out" 2>"$tmp/err"; }
    fz --out "$tmp/o1" --json "$tmp/f.json" --junit "$tmp/f.xml" --sarif "$tmp/f.sarif"
    [ $? = 1 ] || fail "fuzz with a finding: exit not 1: $(tail -3 "$tmp/err")"
    chk json "$tmp/f.json" signatures=1 exit=1 command=fuzz failed=1
    chk junit "$tmp/f.xml" tests=1 failures=1
    chk sarif "$tmp/f.sarif" results=1 levels=error
    "$py" -c 'import json,sys; [print(s["signature"]) for s in json.load(open(sys.argv[1]))["signatures"]]' \
        "$tmp/f.json" > "$tmp/base"
    fz --out "$tmp/o2" --baseline "$tmp/base" --json "$tmp/g.json"
    [ $? = 0 ] || fail "fuzz with only known findings: exit not 0: $(tail -3 "$tmp/out")"
    grep -q "(known)" "$tmp/out" || fail "known finding not marked: $(tail -3 "$tmp/out")"
    chk json "$tmp/g.json" known=1 failed=0 exit=0;;
json_utf8)    # names in UTF-8 stay readable, stray bytes are escaped: valid JSON
    mkdir -p "$tmp/u"
    cp tests/verdicts/ok_plain.py "$tmp/u/café.py"
    cp tests/verdicts/ok_plain.py "$tmp/u/$(printf 'bad\xff').py"
    "$tf" run --target $T/drop_event.py:jit --json "$tmp/u.json" "$tmp/u" >/dev/null 2>&1
    "$py" -c '
import json, sys
raw = open(sys.argv[1], "rb").read()
raw.decode("utf-8")                      # the file is valid UTF-8
names = sorted(r["input"].rsplit("/", 1)[-1] for r in json.loads(raw)["results"])
assert names == ["bad\u00ff.py", "caf\u00e9.py"], names
assert b"caf\xc3\xa9.py" in raw, "UTF-8 name escaped instead of kept"
' "$tmp/u.json" || fail "JSON of odd names";;
*) fail "unknown case $case_";;
esac
echo "ok $case_"
