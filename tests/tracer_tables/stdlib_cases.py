"""stdlib_cases.py: pure-Python standard library functions run under tfjit.jit.

Each case: (dotted name of a Python-level function, make() -> tuple of fresh
arguments, keyword arguments, post) where post (applied outside the tracer, to both
runs alike) turns a lazy result such as a generator into a value. tt_stdlib.py checks
that every name resolves to a Python function (inspect.isfunction) whose code is Python.

UNSUPPORTED_OK lists the cases for which tfjit.Unsupported is an accepted answer, each
with its reason; generator functions are accepted automatically (the tracer may declare
generators Unsupported). Anything else answering Unsupported fails the test.
"""
import fractions

F = fractions.Fraction
LOREM = ("The quick brown fox jumps over the lazy dog; pack my box with five dozen "
         "liquor jugs. How vexingly quick daft zebras jump!")


def case(name, make, kw=None, post=None):
    return (name, make, kw or {}, post)


CASES = [
    # textwrap
    case("textwrap.dedent", lambda: ("    a\n      b\n    c\n",)),
    case("textwrap.indent", lambda: ("a\n\nb\n", "> ")),
    case("textwrap.wrap", lambda: (LOREM,), {"width": 20}),
    case("textwrap.fill", lambda: (LOREM,), {"width": 30, "initial_indent": "* "}),
    case("textwrap.shorten", lambda: (LOREM, 40)),
    # fractions (methods are Python functions taking the instance)
    case("fractions.Fraction.limit_denominator", lambda: (F(3141592, 1000000), 100)),
    case("fractions.Fraction.__add__", lambda: (F(1, 3), F(1, 6))),
    case("fractions.Fraction.__mul__", lambda: (F(2, 3), 3)),
    case("fractions.Fraction.__truediv__", lambda: (F(2, 3), F(4, 9))),
    case("fractions.Fraction.__floor__", lambda: (F(-7, 2),)),
    case("fractions.Fraction.__round__", lambda: (F(7, 3), 1)),
    case("fractions.Fraction.as_integer_ratio", lambda: (F(6, 4),)),
    case("fractions.Fraction.__repr__", lambda: (F(-5, 10),)),
    # colorsys
    case("colorsys.rgb_to_hsv", lambda: (0.2, 0.4, 0.6)),
    case("colorsys.hsv_to_rgb", lambda: (0.7, 0.5, 0.9)),
    case("colorsys.rgb_to_hls", lambda: (0.9, 0.1, 0.3)),
    case("colorsys.hls_to_rgb", lambda: (0.3, 0.6, 0.2)),
    case("colorsys.rgb_to_yiq", lambda: (0.1, 0.8, 0.3)),
    case("colorsys.yiq_to_rgb", lambda: (0.5, 0.1, -0.1)),
    # heapq (the Python-level ones; heappush etc. are C)
    case("heapq.nlargest", lambda: (3, [5, 1, 9, 3, 7, 2])),
    case("heapq.nsmallest", lambda: (2, ["pear", "fig", "apple"]), {"key": len}),
    case("heapq.merge", lambda: ([1, 4, 7], [2, 5], [3, 6, 9]), {}, list),
    # statistics
    case("statistics.mean", lambda: ([1, 2, 3, 4, 4],)),
    case("statistics.fmean", lambda: ([3.5, 4.0, 5.25],)),
    case("statistics.median", lambda: ([7, 1, 3, 5],)),
    case("statistics.median_low", lambda: ([7, 1, 3, 5],)),
    case("statistics.median_high", lambda: ([7, 1, 3, 5],)),
    case("statistics.median_grouped", lambda: ([1, 2, 2, 3, 4, 4, 4, 4, 4, 5],)),
    case("statistics.mode", lambda: (["a", "b", "b", "c"],)),
    case("statistics.multimode", lambda: ("aabbbcccc",)),
    case("statistics.variance", lambda: ([2.75, 1.75, 1.25, 0.25, 0.5, 1.25, 3.5],)),
    case("statistics.pvariance", lambda: ([F(1, 4), F(5, 4), F(1, 2)],)),
    case("statistics.stdev", lambda: ([1.5, 2.5, 2.5, 2.75, 3.25, 4.75],)),
    case("statistics.pstdev", lambda: ([1, 2, 3, 4],)),
    case("statistics.harmonic_mean", lambda: ([40, 60],)),
    case("statistics.geometric_mean", lambda: ([54, 24, 36],)),
    case("statistics.quantiles", lambda: ([105, 129, 87, 86, 111, 111, 89, 81, 108, 92],), {"n": 4}),
    case("statistics.correlation", lambda: ([1, 2, 3, 4, 5], [2, 4, 5, 4, 5])),
    case("statistics.covariance", lambda: ([1, 2, 3, 4], [1, 3, 2, 4])),
    case("statistics.linear_regression", lambda: ([1, 2, 3, 4, 5], [3, 5, 7, 9, 11])),
    case("statistics.mean", lambda: ([],)),   # raises StatisticsError: compared too
    # json (Python-level functions; dumps/loads call the C accelerator opaquely)
    case("json.decoder.py_scanstring", lambda: ('"ab\\u00e9\\n" tail', 1)),
    case("json.encoder.py_encode_basestring", lambda: ('quote " and \\\\ and \n',)),
    case("json.encoder.py_encode_basestring_ascii", lambda: ("caf\u00e9 \u2603",)),
    case("json.dumps", lambda: ({"b": [1, 2.5, None], "a": "x"},), {"sort_keys": True, "indent": 1}),
    case("json.loads", lambda: ('{"k": [1, {"z": null}], "t": true}',)),
    # string, shlex
    case("string.capwords", lambda: ("hello  wide\tworld",)),
    case("shlex.split", lambda: ("cmd -x 'quoted arg' \"dq $v\" tail\\ space",)),
    case("shlex.quote", lambda: ("it's here",)),
    case("shlex.join", lambda: (["a b", "c", "d'e"],)),
    # difflib
    case("difflib.get_close_matches", lambda: ("appel", ["ape", "apple", "peach", "puppy"])),
    case("difflib.unified_diff", lambda: (["a\n", "b\n", "c\n"], ["a\n", "B\n", "c\n"]), {}, list),
    case("difflib.context_diff", lambda: (["one\n", "two\n"], ["one\n", "three\n"]), {}, list),
    case("difflib.ndiff", lambda: (["x\n", "y\n"], ["x\n", "z\n"]), {}, list),
    case("difflib.IS_LINE_JUNK", lambda: ("  #  \n",)),
    # ipaddress
    case("ipaddress.ip_address", lambda: ("192.168.10.1",)),
    case("ipaddress.ip_network", lambda: ("10.0.0.0/30",)),
    case("ipaddress.ip_interface", lambda: ("2001:db8::1/64",)),
    case("ipaddress.collapse_addresses",
         lambda: ([__import__("ipaddress").ip_network(n) for n in
                   ("10.0.0.0/25", "10.0.0.128/25", "10.0.1.0/24")],), {}, list),
    case("ipaddress.summarize_address_range",
         lambda: (__import__("ipaddress").ip_address("10.0.0.0"),
                  __import__("ipaddress").ip_address("10.0.0.9")), {}, list),
    case("ipaddress.v4_int_to_packed", lambda: (3232235777,)),
    case("ipaddress.ip_address", lambda: ("not an address",)),
    # base64 (the Python-level codecs)
    case("base64.b32encode", lambda: (b"tracefuzz",)),
    case("base64.b32decode", lambda: (b"ORZGCY3FMZ2XU6Q=",)),
    case("base64.b16encode", lambda: (b"\x00\xffab",)),
    case("base64.b16decode", lambda: (b"00FF6162",)),
    case("base64.b85encode", lambda: (b"hello world",)),
    case("base64.a85encode", lambda: (b"hello world",)),
    case("base64.urlsafe_b64encode", lambda: (b"\xfb\xff\xfe",)),
    # fnmatch, posixpath
    case("fnmatch.fnmatch", lambda: ("report.txt", "*.t?t")),
    case("fnmatch.filter", lambda: (["a.py", "b.c", "c.py"], "*.py")),
    case("fnmatch.translate", lambda: ("[!a-c]*.x?",)),
    case("posixpath.join", lambda: ("/usr", "lib", "python3.11")),
    case("posixpath.normpath", lambda: ("/a/./b/../c//d/",)),
    case("posixpath.splitext", lambda: ("archive.tar.gz",)),
    case("posixpath.relpath", lambda: ("/a/b/c", "/a/d")),
    case("posixpath.commonpath", lambda: (["/usr/lib/x", "/usr/lib/y", "/usr/local"],)),
    case("posixpath.split", lambda: ("/x/y/z.txt",)),
    # urllib.parse
    case("urllib.parse.urlparse", lambda: ("https://u:p@host:8080/p/a;par?q=1&r=2#frag",)),
    case("urllib.parse.quote", lambda: ("a b/c?d=é",)),
    case("urllib.parse.unquote", lambda: ("a%20b%2Fc%C3%A9",)),
    case("urllib.parse.urlencode", lambda: ({"a": 1, "b": ["x", "y"]},), {"doseq": True}),
    case("urllib.parse.parse_qs", lambda: ("a=1&b=2&a=3",)),
    case("urllib.parse.urljoin", lambda: ("http://h/a/b/c", "../d")),
    # calendar, copy, html
    case("calendar.isleap", lambda: (2024,)),
    case("calendar.leapdays", lambda: (1900, 2024)),
    case("calendar.monthrange", lambda: (2026, 2)),
    case("calendar.weekday", lambda: (2026, 11, 30)),
    case("copy.deepcopy", lambda: ({"l": [1, [2, 3]], "t": (4, [5])},)),
    case("copy.copy", lambda: ([1, [2]],)),
    case("html.escape", lambda: ("<a href='x'>&</a>",)),
    case("html.unescape", lambda: ("&lt;p&gt; &amp;amp; &#233; &eacute;",)),
    # heavier pure-Python code: parsers, compilers, formatters
    case("tomllib.loads", lambda: ('title = "t"\n[owner]\nname = "x"\nnums = [1, 2.5, true]\n'
                                   '[[arr]]\nk = 1979-05-27T07:32:00Z\n',)),
    case("ast.literal_eval", lambda: ("{'a': [1, 2.5, (3, None)], 'b': {True, -4}}",)),
    case("re._parser.parse", lambda: (r"(?P<y>\d{4})-(\d\d)?[a-z]+|x*?$",), {}, str),
    case("re._compiler.compile", lambda: (r"(\w+)@(\w+)\.com", 0),
         {}, lambda p: (p.pattern, p.groups, p.findall("a@b.com c@d.com"))),
    case("pprint.pformat", lambda: ({"k%d" % i: list(range(i)) for i in range(8)},), {"width": 40}),
    case("inspect.signature", lambda: (lambda a, b=2, *c, d, **e: None,), {}, str),
    case("inspect.getmembers", lambda: (__import__("colorsys"),),
         {}, lambda ms: [n for n, _ in ms if not n.startswith("_")]),
    case("argparse.ArgumentParser.parse_args",
         lambda: (_parser(), ["-v", "--n", "3", "file.txt"]), {}, vars),
    case("random.Random.shuffle", lambda: (__import__("random").Random(7), list(range(10)))),
    case("random.Random.sample", lambda: (__import__("random").Random(3), "abcdefgh", 3)),
    case("random.Random.choices", lambda: (__import__("random").Random(5), [1, 2, 3]), {"k": 4}),
    case("calendar.TextCalendar.formatmonth", lambda: (__import__("calendar").TextCalendar(), 2026, 11)),
    case("string.Template.substitute", lambda: (__import__("string").Template("$who likes ${what}"),),
         {"who": "tim", "what": "kung pao"}),
    case("string.Formatter.format", lambda: (__import__("string").Formatter(), "{0:>4}|{x!r}", 7),
         {"x": "y"}),
    case("collections.Counter.most_common", lambda: (__import__("collections").Counter("abracadabra"), 2)),
    case("graphlib.TopologicalSorter.static_order",
         lambda: (__import__("graphlib").TopologicalSorter({"b": {"a"}, "c": {"b"}}),), {}, list),
    case("pathlib.PurePath.relative_to",
         lambda: (__import__("pathlib").PurePosixPath("/a/b/c.txt"), "/a")),
    case("email.utils.parseaddr", lambda: ("Tim Peters <tim@example.org>",)),
    case("email.utils.formataddr", lambda: (("Tim", "tim@example.org"),)),
    case("dataclasses.asdict", lambda: (_point(),)),
    case("textwrap.TextWrapper.wrap", lambda: (__import__("textwrap").TextWrapper(width=15), LOREM)),
]


def _parser():
    import argparse
    p = argparse.ArgumentParser(prog="t")
    p.add_argument("-v", action="store_true")
    p.add_argument("--n", type=int, default=0)
    p.add_argument("path")
    return p


def _point():
    import dataclasses

    @dataclasses.dataclass
    class P:
        x: int
        tags: list

    return P(1, ["a", ["b"]])

UNSUPPORTED_OK = {
    # "module.function": "reason", only for a documented limitation of the tracer.
}
