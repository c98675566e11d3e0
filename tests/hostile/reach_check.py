"""reach_check.py TRACEFUZZ SRC: generated programs reach no file, network,
environment or process API (issue 13, docs/SECURITY.md).

Every name a generated program can reach is checked against ALLOWED:
  1. the emitter's text: every identifier in the string literals of
     harness/gen/hz_emit*.c that names a builtin, and every module after `import`
     (a path of the emitter no sample program takes is checked too);
  2. 500 generated programs (`tracefuzz gen --py`): their imports, the builtins
     they name, and the attributes they read from imported modules.
The user's own --base MODULE:CLASS is the one import outside the allowlist (the
`from %s import %s as _Base` line): it is the user's choice, not the generator's."""
import ast
import builtins
import os
import re
import subprocess
import sys
import tempfile

tf, src = sys.argv[1], sys.argv[2]

ALLOWED_MODULES = {"functools"}
ALLOWED_MODULE_ATTRS = {"functools.cached_property", "functools.partial",
                        "functools.partialmethod", "functools.wraps"}
# Pure computation and the object model: no I/O, no code loading, no process,
# no environment, no introspection of frames or globals.
ALLOWED_BUILTINS = {
    "object", "type", "super", "property", "classmethod", "staticmethod",
    "getattr", "setattr", "hasattr", "delattr", "isinstance", "issubclass", "vars",
    "id", "len", "repr", "str", "int", "float", "bool", "list", "tuple", "dict", "set",
    "frozenset", "range", "enumerate", "zip", "sorted", "reversed", "min", "max", "sum",
    "abs", "any", "all", "iter", "next", "callable", "hash", "print", "slice", "map",
    "filter", "NotImplemented", "Ellipsis", "None", "True", "False", "__name__",
    "BaseException", "Exception", "ArithmeticError", "AttributeError", "KeyError",
    "LookupError", "TypeError", "ValueError", "ZeroDivisionError", "IndexError",
    "RuntimeError", "NotImplementedError", "StopIteration", "RecursionError",
    "AssertionError",
}
FORBIDDEN_EXAMPLES = {"open", "exec", "eval", "compile", "__import__", "input",
                      "breakpoint", "globals", "locals", "exit", "quit", "help"}
assert not FORBIDDEN_EXAMPLES & ALLOWED_BUILTINS
BUILTIN_NAMES = set(dir(builtins))
bad = []

# 1. the emitter's string literals
literal = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
for name in sorted(os.listdir(os.path.join(src, "harness/gen"))):
    if not (name.startswith("hz_emit") and name.endswith(".c")):
        continue
    text = open(os.path.join(src, "harness/gen", name)).read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)   # comments are not emitted
    for lit in literal.findall(text):
        for m in re.finditer(r"(?<![.\w%])([A-Za-z_]\w*)", lit):
            word = m.group(1)
            if word in BUILTIN_NAMES and word not in ALLOWED_BUILTINS:
                bad.append("%s: the emitter writes the builtin %r: %r" % (name, word, lit))
        for m in re.finditer(r"\bimport\s+([\w.%]+)", lit):
            mod = m.group(1)
            base = lit.strip().startswith("from %s import")
            if mod not in ALLOWED_MODULES and not base:
                bad.append("%s: the emitter imports %r: %r" % (name, mod, lit))

# 2. generated programs
programs = 0
with tempfile.TemporaryDirectory() as d:
    subprocess.run([tf, "gen", "--count", "500", "--seed", "21", "--py", "--out", d],
                   check=True, capture_output=True)
    for name in sorted(os.listdir(d)):
        tree = ast.parse(open(os.path.join(d, name)).read())
        programs += 1
        modules = set()
        defined = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
                   and isinstance(n.ctx, ast.Store)}
        defined |= {n.name for n in ast.walk(tree)
                    if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    modules.add(a.asname or a.name)
                    if a.name not in ALLOWED_MODULES:
                        bad.append("%s imports %s" % (name, a.name))
            elif isinstance(node, ast.ImportFrom):
                bad.append("%s imports from %s" % (name, node.module))
            elif (isinstance(node, ast.Name) and node.id in BUILTIN_NAMES
                  and node.id not in defined and node.id not in ALLOWED_BUILTINS):
                bad.append("%s names the builtin %s" % (name, node.id))
            elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                  and node.value.id in modules
                  and "%s.%s" % (node.value.id, node.attr) not in ALLOWED_MODULE_ATTRS):
                bad.append("%s reads %s.%s" % (name, node.value.id, node.attr))

for b in sorted(set(bad))[:40]:
    print("CHECK FAILED:", b)
print("%d programs and the emitter checked; %d names outside the allowlist"
      % (programs, len(set(bad))))
sys.exit(1 if bad else 0)
