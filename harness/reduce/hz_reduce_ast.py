# hz_reduce_ast.py: the Python side of `tracefuzz reduce` for source programs.
#
# Runs in a helper process with the embedded interpreter (hz_reduce_helper.c puts
# IN_FD and OUT_FD into this module's globals and calls serve()). It never runs a
# candidate: it reads the program's AST and proposes edits, which the C side tests
# through the workers. Edits are made on the program's text at the AST's positions,
# not by ast.unparse, so that comments (the `# tf:` legend the signatures name
# members by) stay where they were.
#
# Requests and answers are frames: 4-byte little-endian length, then the payload.
#   'A' + source  ->  one frame of units, one line each:
#                        "D depth body first last"  a statement owning lines
#                        first..last (1-based, decorators included) of body
#                        number `body`, at nesting depth `depth`;
#                     then one frame with the number N of rewrites, then N frames,
#                     each a whole candidate text (unwrap a compound statement,
#                     drop a decorator or a base class, simplify an expression).
#                     A source that does not parse answers "!" + the error.
#   'C' + n frames ->  one frame of n characters '1' (compiles) or '0'.
import ast
import os
import struct


def _read_exact(n):
    buf = b""
    while len(buf) < n:
        chunk = os.read(IN_FD, n - len(buf))  # noqa: F821 (set by the C side)
        if not chunk:
            raise EOFError
        buf += chunk
    return buf


def _recv():
    (n,) = struct.unpack("<I", _read_exact(4))
    return _read_exact(n)


def _send(data):
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    msg = struct.pack("<I", len(data)) + data
    while msg:
        k = os.write(OUT_FD, msg)  # noqa: F821
        msg = msg[k:]


BODIES = ("body", "orelse", "finalbody")


def _first_line(s):
    return min([s.lineno] + [d.lineno for d in getattr(s, "decorator_list", ())])


def _child_bodies(s):
    for f in BODIES:
        b = getattr(s, f, None)
        if isinstance(b, list) and b and isinstance(b[0], ast.stmt):
            yield b
    for h in getattr(s, "handlers", ()):
        yield h.body
    for c in getattr(s, "cases", ()):
        yield c.body


class Analysis:
    def __init__(self, src):
        self.src = src
        self.lines = src.split("\n")
        self.tree = ast.parse(src)
        self.units = []
        self.rewrites = []
        self.nbody = 0
        self.body(self.tree.body, 0, 0)
        for node in ast.walk(self.tree):
            self.rewrite(node)
        self.inline(self.tree, self.tree.body)
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.inline(node, node.body)

    # ---- statements ----
    def owns(self, stmts, i, header):
        """Whether stmts[i] has its lines to itself (no sibling, no header on them)."""
        s = stmts[i]
        a, b = _first_line(s), s.end_lineno
        if a <= header:
            return False
        if i > 0 and stmts[i - 1].end_lineno >= a:
            return False
        if i + 1 < len(stmts) and _first_line(stmts[i + 1]) <= b:
            return False
        return True

    def body(self, stmts, depth, header):
        bid = self.nbody
        self.nbody += 1
        for i, s in enumerate(stmts):
            if self.owns(stmts, i, header):
                self.units.append("D %d %d %d %d" % (depth, bid, _first_line(s), s.end_lineno))
        for s in stmts:
            for b in _child_bodies(s):
                self.body(b, depth + 1, s.lineno)

    # ---- rewrites: whole candidate texts ----
    def text_with_lines(self, a, b, new_lines):
        """The source with lines a..b (1-based) replaced by new_lines."""
        return "\n".join(self.lines[: a - 1] + new_lines + self.lines[b:])

    def offset(self, line, col):
        """Character offset of (line, byte column)."""
        pre = sum(len(x) + 1 for x in self.lines[: line - 1])
        return pre + len(self.lines[line - 1].encode("utf-8")[:col].decode("utf-8", "replace"))

    def replace_span(self, node_a, node_b, text):
        """The source with the span from node_a's start to node_b's end replaced."""
        s = self.offset(node_a.lineno, node_a.col_offset)
        e = self.offset(node_b.end_lineno, node_b.end_col_offset)
        return self.src[:s] + text + self.src[e:]

    def add(self, text):
        if text != self.src and len(text) < len(self.src) + 8:
            self.rewrites.append(text)

    @staticmethod
    def tag(line):
        i = line.find("# tf:")
        return line[i:] if i >= 0 else ""

    def unwrap(self, s, body):
        """s replaced by its body, dedented, the header's tag carried over."""
        if body[0].lineno <= s.lineno or s.col_offset is None:
            return
        a, b = _first_line(s), s.end_lineno
        ba, bb = _first_line(body[0]), body[-1].end_lineno
        shift = body[0].col_offset - s.col_offset
        if shift <= 0:
            return
        new = []
        for ln in self.lines[ba - 1: bb]:
            lead = len(ln) - len(ln.lstrip(" "))
            new.append(ln[min(shift, lead):])
        tag = self.tag(self.lines[s.lineno - 1])
        if tag and not self.tag(new[0]):
            new[0] = new[0] + "  " + tag
        self.add(self.text_with_lines(a, b, new))

    def inline(self, scope, body):
        """`x = E` whose x is read once, later, in scope: E in its place, the
        assignment gone (`a = Base(); return (a,)` -> `return (Base(),)`)."""
        loads, stores = {}, {}
        for n in ast.walk(scope):
            if isinstance(n, ast.Name):
                d = loads if isinstance(n.ctx, ast.Load) else stores
                d.setdefault(n.id, []).append(n)
            elif isinstance(n, (ast.Global, ast.Nonlocal)):
                for name in n.names:
                    stores.setdefault(name, []).extend([None, None])
        for i, st in enumerate(body):
            if not (isinstance(st, ast.Assign) and len(st.targets) == 1 and
                    isinstance(st.targets[0], ast.Name) and self.owns(body, i, 0)):
                continue
            name = st.targets[0].id
            if len(stores.get(name, ())) != 1 or len(loads.get(name, ())) != 1:
                continue
            use = loads[name][0]
            if use.lineno <= st.end_lineno:
                continue
            seg = ast.get_source_segment(self.src, st.value)
            if seg is None or "\n" in seg:
                continue
            if not isinstance(st.value, (ast.Call, ast.Name, ast.Attribute, ast.Constant,
                                         ast.Subscript, ast.Tuple, ast.List, ast.Dict)):
                seg = "(" + seg + ")"
            text = self.replace_span(use, use, seg).split("\n")
            del text[_first_line(st) - 1: st.end_lineno]
            self.add("\n".join(text))

    def drop_init(self, cls):
        """A class without its __init__ and every `Cls(...)` of the module without
        arguments: the two edits only work together."""
        init = [i for i, st in enumerate(cls.body) if isinstance(st, ast.FunctionDef)
                and st.name == "__init__" and self.owns(cls.body, i, cls.lineno)]
        if not init or len(cls.body) < 2:
            return
        st = cls.body[init[0]]
        calls = [n for n in ast.walk(self.tree) if isinstance(n, ast.Call) and
                 isinstance(n.func, ast.Name) and n.func.id == cls.name and
                 (n.args or n.keywords)]
        if any(c.lineno != c.end_lineno for c in calls):
            return
        text = self.src
        for c in sorted(calls, key=lambda c: (c.lineno, c.col_offset), reverse=True):
            s, e = self.offset(c.lineno, c.col_offset), self.offset(c.end_lineno, c.end_col_offset)
            text = text[:s] + cls.name + "()" + text[e:]
        lines = text.split("\n")
        del lines[_first_line(st) - 1: st.end_lineno]
        self.add("\n".join(lines))

    def rewrite(self, node):
        if isinstance(node, (ast.If, ast.For, ast.While, ast.With, ast.Try)):
            self.unwrap(node, node.body)
            if isinstance(node, ast.Try) and node.finalbody:
                self.unwrap(node, node.body + node.finalbody)
            if isinstance(node, ast.If) and node.orelse:
                self.unwrap(node, node.orelse)
        if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            for d in node.decorator_list:
                if d.lineno == d.end_lineno and d.lineno < node.lineno:
                    line = self.lines[d.lineno - 1]
                    if line.strip().startswith("@"):
                        t = self.lines[:]
                        tag = self.tag(line)   # a kept tag moves to the def line
                        if tag and not self.tag(t[node.lineno - 1]):
                            t[node.lineno - 1] += "  " + tag
                        del t[d.lineno - 1]
                        self.add("\n".join(t))
        if isinstance(node, ast.ClassDef):
            self.drop_init(node)
        if isinstance(node, ast.ClassDef):
            parts = node.bases + node.keywords
            for i in range(len(parts)):
                keep = [ast.get_source_segment(self.src, p) for j, p in enumerate(parts) if j != i]
                if None not in keep:
                    self.add(self.replace_span(parts[0], parts[-1], ", ".join(keep)))
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                node.lineno == node.value.lineno:
            # `out[0] = EXPR` -> `EXPR`: the effect without the store
            seg = ast.get_source_segment(self.src, node.value)
            if seg is not None:
                self.add(self.replace_span(node, node.value, seg))
        if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords and \
                not isinstance(node.args[0], ast.Starred):
            # `out.append(EXPR)` -> `EXPR`, `tuple(out)` -> `out`
            seg = ast.get_source_segment(self.src, node.args[0])
            if seg is not None:
                self.add(self.replace_span(node, node, seg if "\n" not in seg else "(" + seg + ")"))
        if isinstance(node, ast.Call) and (node.args or node.keywords):
            # `Desc("name", 1, True)` -> `Desc()`: then its __init__ may go
            self.add(self.replace_span(node, node,
                                       ast.get_source_segment(self.src, node.func) + "()"))
        if isinstance(node, ast.Tuple) and len(node.elts) == 1 and \
                not isinstance(node.elts[0], ast.Starred):
            seg = ast.get_source_segment(self.src, node.elts[0])
            if seg is not None and "\n" not in seg:
                self.add(self.replace_span(node, node, seg))
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and len(node.elts) > 1:
            for i in range(len(node.elts)):
                keep = [ast.get_source_segment(self.src, e) for j, e in enumerate(node.elts)
                        if j != i]
                if None in keep:
                    continue
                inner = ", ".join(keep)
                if isinstance(node, ast.Tuple):
                    inner = inner + ("," if len(keep) == 1 else "")
                    text = "(" + inner + ")"
                else:
                    text = ("[%s]" if isinstance(node, ast.List) else "{%s}") % inner
                self.add(self.replace_span(node, node, text))
        if isinstance(node, ast.Dict) and len(node.keys) > 0 and None not in node.keys:
            self.add(self.replace_span(node, node, "{}"))
        if isinstance(node, ast.Constant) and not isinstance(node.value, bool):
            v = node.value
            if isinstance(v, int) and v not in (0, 1):
                self.add(self.replace_span(node, node, "1"))
            elif isinstance(v, str) and len(v) > 1 and node.lineno == node.end_lineno:
                self.add(self.replace_span(node, node, repr(v[0])))
        if isinstance(node, (ast.BoolOp,)):
            for v in node.values:
                seg = ast.get_source_segment(self.src, v)
                if seg is not None and "\n" not in seg:
                    self.add(self.replace_span(node, node, "(" + seg + ")"))
        if isinstance(node, ast.IfExp):
            for v in (node.body, node.orelse):
                seg = ast.get_source_segment(self.src, v)
                if seg is not None and "\n" not in seg:
                    self.add(self.replace_span(node, node, "(" + seg + ")"))


def analyse(src):
    try:
        a = Analysis(src)
    except (SyntaxError, ValueError, RecursionError) as e:
        _send("!" + str(e))
        return
    _send("\n".join(a.units))
    _send(str(len(a.rewrites)))
    for t in a.rewrites:
        _send(t)


def compiles(src):
    try:
        compile(src, "<candidate>", "exec", dont_inherit=True)
        return "1"
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return "0"


def serve():
    while True:
        try:
            req = _recv()
        except EOFError:
            return
        op, body = req[:1], req[1:].decode("utf-8", "surrogateescape")
        if op == b"A":
            analyse(body)
        elif op == b"C":
            n = int(body)
            _send("".join(compiles(_recv().decode("utf-8", "surrogateescape"))
                          for _ in range(n)))
        else:
            return
