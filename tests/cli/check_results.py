"""check_results.py KIND FILE EXPECT...: parses a result file of `tracefuzz run`
(--json, --junit or --sarif) and checks it against key=value expectations.
Exits 1 with the reason on the first mismatch. Run by results_test.sh."""
import json
import sys
import xml.etree.ElementTree as ET


def fail(msg):
    print("FAILED:", msg)
    sys.exit(1)


def check_json(path, want):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    if doc.get("schema") != "tracefuzz-results" or doc.get("version") != 1:
        fail("schema/version: %r %r" % (doc.get("schema"), doc.get("version")))
    for key in ("tracefuzz", "command", "target", "exit_status", "summary", "results",
                "signatures", "decoder_version", "observation_version", "started"):
        if key not in doc:
            fail("JSON lacks %s" % key)
    s = doc["summary"]
    got = {
        "passed": s["passed"], "failed": s["failed"], "known": s["known"],
        "results": len(doc["results"]), "signatures": len(doc["signatures"]),
        "exit": doc["exit_status"], "command": doc["command"],
    }
    for r in doc["results"]:
        for key in ("input", "verdict", "signature", "passed", "known", "finding", "why"):
            if key not in r:
                fail("result lacks %s: %r" % (key, r))
        if not r["passed"] and not r["known"] and r["verdict"] != "ERROR" and not r["why"]:
            fail("a failure without why: %r" % r)
    got["inputs"] = ",".join(sorted(r["input"].rsplit("/", 1)[-1] for r in doc["results"]))
    return got


def check_junit(path, want):
    root = ET.parse(path).getroot()
    if root.tag != "testsuites":
        fail("root is %s" % root.tag)
    suites = root.findall("testsuite")
    if len(suites) != 1:
        fail("%d testsuites" % len(suites))
    cases = suites[0].findall("testcase")
    failures = [c for c in cases if c.find("failure") is not None]
    for c in failures:
        fl = c.find("failure")
        if not fl.get("type") or not fl.get("message") or not (fl.text or "").strip():
            fail("failure without type, message or report: %s" % c.get("name"))
    return {
        "tests": len(cases), "failures": len(failures),
        "skipped": len([c for c in cases if c.find("skipped") is not None]),
        "attr_failures": int(suites[0].get("failures")),
        "names": ",".join(sorted(c.get("name").rsplit("/", 1)[-1] for c in cases)),
    }


def check_sarif(path, want):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    if doc.get("version") != "2.1.0" or "sarif-2.1.0" not in doc.get("$schema", ""):
        fail("not SARIF 2.1.0")
    if len(doc.get("runs", [])) != 1:
        fail("want one run")
    run = doc["runs"][0]
    driver = run["tool"]["driver"]
    if driver["name"] != "tracefuzz":
        fail("driver %r" % driver["name"])
    rule_ids = {r["id"] for r in driver["rules"]}
    for res in run["results"]:
        if res["ruleId"] not in rule_ids:
            fail("result rule %s not among the rules" % res["ruleId"])
        if res["level"] not in ("error", "warning", "note"):
            fail("level %r" % res["level"])
        if not res["message"]["text"]:
            fail("empty message")
        loc = res["locations"][0]["physicalLocation"]
        uri = loc["artifactLocation"]["uri"]
        if " " in uri or '"' in uri:
            fail("uri not encoded: %r" % uri)
        if loc["region"]["startLine"] < 1:
            fail("startLine < 1")
        if not res["partialFingerprints"]["tracefuzzSignature/v1"]:
            fail("no fingerprint")
    return {"results": len(run["results"]), "rules": len(rule_ids),
            "levels": ",".join(sorted(r["level"] for r in run["results"]))}


def main():
    kind, path = sys.argv[1], sys.argv[2]
    want = dict(a.split("=", 1) for a in sys.argv[3:])
    got = {"json": check_json, "junit": check_junit, "sarif": check_sarif}[kind](path, want)
    for k, v in want.items():
        if str(got.get(k)) != v:
            fail("%s %s: %s=%r, want %r (all: %r)" % (kind, path, k, got.get(k), v, got))
    print("ok", kind, got)


main()
