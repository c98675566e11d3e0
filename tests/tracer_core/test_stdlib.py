"""Library code under the tracer: pure-Python stdlib functions exercising classes,
metaclasses (enum, abc, dataclasses), generators, closures, exceptions, context
managers, exec-generated code. Each runs eagerly and through tfjit.jit and must agree
(results compared by repr)."""
from tc_util import check, finish


def run(name, f, *a, **k):
    def case():
        return repr(f(*a, **k))
    case.__qualname__ = name
    check(case)


import pprint, dataclasses, enum, inspect, argparse, collections, string, textwrap, fractions, decimal, heapq, functools, itertools, operator, json, csv, io, re, copy, typing, abc, contextlib, statistics
run("pprint", pprint.pformat, {"a": [1, 2, {"b": (3, 4)}], "c": "x" * 100}, width=40)
run("make_dataclass", lambda: repr(dataclasses.make_dataclass("P", ["x", ("y", int, dataclasses.field(default=2))])(1)))
run("enum", lambda: list(enum.Enum("Color", "RED GREEN BLUE")))
run("signature", lambda: str(inspect.signature(run)))
def argp():
    p = argparse.ArgumentParser(prog="x")
    p.add_argument("--n", type=int, default=3); p.add_argument("pos", nargs="*")
    return vars(p.parse_args(["--n", "5", "a", "b"]))
run("argparse", argp)
run("namedtuple", lambda: collections.namedtuple("P", "x y")(1, 2)._asdict())
run("template", lambda: string.Template("$a-${b}").substitute(a=1, b=2))
run("textwrap", textwrap.fill, "hello world " * 20, width=30)
run("fractions", lambda: fractions.Fraction(3, 4) + fractions.Fraction("1/3"))
run("csv", lambda: list(csv.reader(io.StringIO("a,b\n1,\"2,3\"\n"))))
run("copy", lambda: copy.deepcopy({"a": [1, {2, 3}], "b": (4, [5])}))
run("contextlib", lambda: (lambda: [contextlib.suppress(KeyError).__enter__(), 1])())
@contextlib.contextmanager
def cm(log):
    log.append(1)
    try: yield 5
    finally: log.append(2)
def use_cm():
    log = []
    with cm(log) as v: log.append(v)
    return log
run("contextmanager", use_cm)
run("statistics", statistics.median, [5, 1, 3, 2])
run("lru", lambda: functools.lru_cache(maxsize=2)(lambda x: x * 2)(4))
run("itertools", lambda: list(itertools.islice(itertools.permutations("abc"), 4)))
run("typing", lambda: typing.get_type_hints(run))
class A(abc.ABC):
    @abc.abstractmethod
    def f(self): ...
run("abc", lambda: A())
run("json", lambda: json.loads(json.dumps({"a": [1, 2.5, None, True]}, indent=2)))
run("decimal", lambda: str(decimal.Decimal("1.1") + decimal.Decimal("2.2")))
def cached():
    class C:
        @functools.cached_property
        def v(self): return [1]
    c = C(); return c.v is c.v
run("cached_property", cached)
run("singledispatch", lambda: functools.singledispatch(lambda x: "base").register(int, lambda x: "int")(1))
run("re", lambda: re.sub(r"(\w)(\d)", lambda m: m.group(2) + m.group(1), "a1b2"))


import difflib, email, html.parser, ast, textwrap, shlex, configparser, string, pathlib, urllib.parse, collections, heapq, itertools, functools, dataclasses, enum, typing, random, tomllib, json, fractions, statistics, io, csv, re, operator, copy, inspect, types, weakref, contextlib, abc, numbers, decimal, calendar, base64, struct
run("unified_diff", lambda: list(difflib.unified_diff(["a\n","b\n"], ["a\n","c\n"])))
run("email", lambda: email.message_from_string("Subject: hi\nFrom: a@b\n\nbody").get("Subject"))
class P(html.parser.HTMLParser):
    def __init__(self): super().__init__(); self.tags = []
    def handle_starttag(self, tag, attrs): self.tags.append((tag, attrs))
def hp():
    p = P(); p.feed("<a href='x'><b>t</b></a>"); return p.tags
run("htmlparser", hp)
run("ast", lambda: ast.unparse(ast.parse("x = [i*2 for i in range(3) if i]")))
run("ast_literal", ast.literal_eval, "{'a': (1, 2.5, None)}")
run("dedent", textwrap.dedent, "   a\n    b\n")
run("shlex", shlex.split, "a 'b c' \"d e\"")
def cp():
    c = configparser.ConfigParser(); c.read_string("[s]\nk = v\nn = 3\n"); return dict(c["s"]), c.getint("s", "n")
run("configparser", cp)
run("formatter", lambda: string.Formatter().format("{0}-{x:>4}", 1, x="y"))
run("purepath", lambda: str(pathlib.PurePosixPath("/a/b/../c.txt").with_suffix(".py")))
run("urlparse", lambda: urllib.parse.urlparse("http://u:p@h:80/p?q=1#f")._asdict())
run("counter", lambda: collections.Counter("abracadabra").most_common(2))
run("ordereddict", lambda: list(collections.OrderedDict(a=1, b=2, c=3).items())[::-1])
run("heapq_merge", lambda: list(heapq.merge([1, 4], [2, 3], key=lambda x: -x, reverse=True)))
@functools.total_ordering
class V:
    def __init__(self, v): self.v = v
    def __eq__(self, o): return self.v == o.v
    def __lt__(self, o): return self.v < o.v
run("total_ordering", lambda: (V(1) <= V(2), V(3) > V(2)))
@dataclasses.dataclass
class D:
    a: int
    b: list = dataclasses.field(default_factory=list)
run("asdict", lambda: dataclasses.asdict(D(1, [D(2)])))
class F(enum.Flag):
    A = 1; B = 2; C = 4
run("flag", lambda: (F.A | F.B, list(F.A | F.C), F(3)))
class NT(typing.NamedTuple):
    x: int
    y: str = "d"
run("namedtuple_typing", lambda: NT(1)._replace(y="z"))
run("random", lambda: random.Random(5).sample(range(100), 5))
run("tomllib", tomllib.loads, 'a = 1\n[t]\nb = "x"\n')
class Enc(json.JSONEncoder):
    def default(self, o): return sorted(o) if isinstance(o, set) else super().default(o)
run("jsonenc", lambda: json.dumps({"s": {3, 1}}, cls=Enc))
run("fraction_limit", lambda: fractions.Fraction(3.14159).limit_denominator(100))
run("mode", statistics.mode, [1, 2, 2, 3])
run("csv_dict", lambda: list(csv.DictReader(io.StringIO("a,b\n1,2\n"))))
run("re_groups", lambda: re.match(r"(?P<x>\d+)-(?P<y>\w+)", "12-ab").groupdict())
run("attrgetter", lambda: operator.attrgetter("real", "imag")(3+4j))
run("deepcopy_obj", lambda: copy.deepcopy(D(1, [2])))
run("signature_bind", lambda: inspect.signature(lambda a, b=2, *c, d, **e: 0).bind(1, d=4).arguments)
run("simplenamespace", lambda: types.SimpleNamespace(a=1, b=2))
def ctx():
    with contextlib.ExitStack() as st:
        out = []
        st.callback(out.append, 1)
        st.callback(out.append, 2)
    return out
run("exitstack", ctx)
run("decimal_ctx", lambda: str(decimal.Context(prec=3).divide(decimal.Decimal(1), decimal.Decimal(7))))
run("calendar", lambda: calendar.monthrange(2024, 2))
run("isinstance_abc", lambda: (isinstance(1, numbers.Integral), isinstance([], collections.abc.Sequence)))
def gen_pipeline():
    def nums():
        yield from range(10)
    evens = (x for x in nums() if x % 2 == 0)
    return list(itertools.accumulate(map(lambda x: x * x, evens)))
run("gen_pipeline", gen_pipeline)

finish()
