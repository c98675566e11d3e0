#!/usr/bin/python3.11
"""workflows_check.py TRACEFUZZ: the CI recipes a JIT team copies still match the tool.

No GitHub runner and no docker daemon here, so the workflows and the ClusterFuzzLite
image cannot run in ctest; what can drift without anyone noticing is checked instead:

  .github/workflows/*.yml   YAML that parses; every job has runs-on and steps; every
                            step a `uses` or a `run`; in each `run`, every
                            `build/PRESET/tracefuzz SUB --flag ...` names a preset of
                            CMakePresets.json, a subcommand whose `--help` exits 0 and
                            flags that help mentions; every `scripts/X` exists and is
                            executable; every `cmake --preset P` names a preset.
  .clusterfuzzlite/         project.yaml parses (language c); build.sh is executable;
                            every COPY source of the Dockerfile exists.

Prints one line per problem, then `N checked, N problems`. Exit 0 when none, 1
otherwise, 2 on a usage error.
"""
import json
import os
import re
import shlex
import subprocess
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
problems = []
checked = 0
help_cache = {}


def problem(where, what):
    problems.append(f"{where}: {what}")


def presets():
    with open(os.path.join(ROOT, "CMakePresets.json")) as f:
        data = json.load(f)
    return {p["name"] for p in data.get("configurePresets", [])}


def subcommand_help(tf, sub):
    """The `--help` text of a tracefuzz subcommand, or None when it is not one."""
    if sub not in help_cache:
        p = subprocess.run([tf, sub, "--help"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        help_cache[sub] = p.stdout if p.returncode == 0 else None
    return help_cache[sub]


def check_command(where, words, tf, known_presets):
    """One simple command of a `run` step."""
    global checked
    if not words:
        return
    prog = words[0]
    m = re.fullmatch(r"build/([^/]+)/tracefuzz", prog)
    if m:
        checked += 1
        if m.group(1) not in known_presets:
            problem(where, f"{prog}: no preset {m.group(1)} in CMakePresets.json")
        if len(words) < 2:
            problem(where, f"{prog} without a subcommand")
            return
        text = subcommand_help(tf, words[1])
        if text is None:
            problem(where, f"tracefuzz {words[1]}: not a subcommand (--help failed)")
            return
        for w in words[2:]:
            flag = w.split("=", 1)[0]
            if flag.startswith("--") and flag not in text:
                problem(where, f"tracefuzz {words[1]} {flag}: not in its --help")
    elif prog.startswith("scripts/"):
        checked += 1
        path = os.path.join(ROOT, prog)
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            problem(where, f"{prog}: missing or not executable")
    elif prog == "cmake" and "--preset" in words:
        checked += 1
        i = words.index("--preset")
        if i + 1 >= len(words) or words[i + 1] not in known_presets:
            problem(where, f"cmake --preset {words[i + 1:i + 2]}: no such preset")


def check_run(where, script, tf, known_presets):
    # ${{ expressions }} are values GitHub fills in; line continuations join lines.
    script = re.sub(r"\$\{\{[^}]*\}\}", "X", script).replace("\\\n", " ")
    for line in script.splitlines():
        for part in re.split(r"&&|\|\||;|\|", line):
            try:
                words = shlex.split(part, comments=True)
            except ValueError as e:
                problem(where, f"cannot split {part!r}: {e}")
                continue
            while words and words[0] in ("test", "!", "-f", "-d") or (
                    words and words[0].startswith("out/")):
                words = words[1:]
            check_command(where, words, tf, known_presets)


def check_workflows(tf, known_presets):
    global checked
    wdir = os.path.join(ROOT, ".github", "workflows")
    files = sorted(f for f in os.listdir(wdir) if f.endswith((".yml", ".yaml")))
    if not files:
        problem(wdir, "no workflow")
    for name in files:
        path = os.path.join(wdir, name)
        with open(path) as f:
            try:
                wf = yaml.safe_load(f)
            except yaml.YAMLError as e:
                problem(name, f"not YAML: {e}")
                continue
        checked += 1
        # YAML 1.1 reads the key `on` as True.
        if not isinstance(wf, dict) or not ("on" in wf or True in wf) or "jobs" not in wf:
            problem(name, "needs `on` and `jobs`")
            continue
        for job_name, job in wf["jobs"].items():
            where = f"{name} job {job_name}"
            if "runs-on" not in job or not job.get("steps"):
                problem(where, "needs runs-on and steps")
                continue
            for k, step in enumerate(job["steps"]):
                swhere = f"{where} step {k + 1} ({step.get('name', '')})"
                if ("uses" in step) == ("run" in step):
                    problem(swhere, "needs exactly one of uses and run")
                if "run" in step:
                    check_run(swhere, step["run"], tf, known_presets)


def check_clusterfuzzlite():
    global checked
    cdir = os.path.join(ROOT, ".clusterfuzzlite")
    with open(os.path.join(cdir, "project.yaml")) as f:
        proj = yaml.safe_load(f)
    checked += 1
    if not isinstance(proj, dict) or proj.get("language") != "c":
        problem("project.yaml", "language must be c")
    build = os.path.join(cdir, "build.sh")
    checked += 1
    if not os.access(build, os.X_OK):
        problem("build.sh", "not executable")
    with open(os.path.join(cdir, "Dockerfile")) as f:
        for n, line in enumerate(f, 1):
            words = line.split()
            if words[:1] == ["COPY"]:
                for src in words[1:-1]:
                    if src.startswith("--"):
                        continue
                    checked += 1
                    if not os.path.exists(os.path.join(ROOT, src)):
                        problem(f"Dockerfile:{n}", f"COPY {src}: no such path")


def main():
    if len(sys.argv) != 2 or not os.access(sys.argv[1], os.X_OK):
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    check_workflows(sys.argv[1], presets())
    check_clusterfuzzlite()
    for p in problems:
        print(p)
    print(f"{checked} checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
