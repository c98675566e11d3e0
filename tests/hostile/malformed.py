"""malformed.py TRACEFUZZ SRC [N]: N (default 10,000) malformed input files, none of
which may crash tracefuzz, each given one clear line (issue 13).

Kinds, in one temporary directory (and a few subdirectories):
  random bytes (.tf and no extension), truncated and bit-flipped corpus seeds,
  binary junk named .py, junk Python (syntax errors, no make/program, a make that
  raises), `#tracefuzz-py` files with any extension, empty files, huge files (a
  20 MB .tf, a 2 MB .py, a 70 MB file over the size cap), odd names (newlines,
  control bytes, spaces, leading dashes, 250-byte names, non-UTF-8 bytes), a FIFO,
  dangling symlinks, a symlink loop, a directory named x.py, an unreadable file.

How they are run, to stay within CI time (bytes decode to programs, so most run):
  - every file through one `tracefuzz run --isolation shared` (a worker per run,
    inputs one after the other in it: the parsing, decoding and emitting are
    tracefuzz's own, the same as with fork; a process per input would cost ~50 ms
    each);
  - the odd, huge and special ones (and 50 others) again through a `run` with the
    default --isolation fork;
  - 55 of them through `tracefuzz show`, one process each.
Checks: tracefuzz never dies of a signal or exits 3 (internal error); every file has
exactly one line `NAME: VERDICT  SIGNATURE` or `NAME: ERROR  message` (NAME escaped
as tracefuzz escapes it); the summary is printed. Prints the counts and times."""
import os
import random
import re
import subprocess
import sys
import tempfile
import time

tf, src = sys.argv[1], sys.argv[2]
N = int(sys.argv[3]) if len(sys.argv) > 3 else 10000
rng = random.Random(13)


def escape(name: bytes) -> bytes:
    out = bytearray()
    for c in name:
        if c in b"\n\t\r\\":
            out += b"\\" + {10: b"n", 9: b"t", 13: b"r", 92: b"\\"}[c]
        elif c < 0x20 or c == 0x7f:
            out += b"\\x%02x" % c
        else:
            out.append(c)
    return bytes(out)


seeds = []
for d in ("corpus/seed", "corpus/regression"):
    for n in sorted(os.listdir(os.path.join(src, d))):
        with open(os.path.join(src, d, n), "rb") as f:
            seeds.append(f.read())

JUNK_PY = [
    b"def make(:\n", b"make = 1\nprogram = 2\n", b"def program(): pass\n",
    b"def make(): raise ValueError('no')\ndef program(): pass\n",
    b"def make(): return 5\ndef program(x): return x\n",
    b"import sys\nsys.exit(3)\n", b"\xff\xfe\x00junk\x00", b"\x00" * 100,
    b"class C(metaclass=1): pass\n", b"def make():\n\treturn (\n", b"@@@\n" * 50,
    b"# coding: latin-1\nx = '\xe9'\n", b"# coding: nonexistent\n", b"\t\t\tdef\n",
    b"def make(): return ()\ndef program(): return 1/0\n",
]


def make_files(root: bytes) -> list:
    """Writes the files; returns their paths (bytes) as tracefuzz will name them."""
    paths = []
    sub = [os.path.join(root, b"d%d" % i) for i in range(4)]
    for d in sub:
        os.mkdir(d)

    def put(name: bytes, data: bytes, where=None):
        p = os.path.join(where or rng.choice(sub), name)
        with open(p, "wb") as f:
            f.write(data)
        paths.append(p)

    specials = []
    # odd names
    for i, name in enumerate([b"new\nline.tf", b"ctl\x01\x1b[31m\x7f.py", b"tab\there.tf",
                              b"sp ace s.tf", b"-dash.tf", b"--target.py", b"back\\slash.tf",
                              b"\xff\xfenot-utf8.tf", b"x" * 250, b"caf\xc3\xa9.py",
                              b"q\"uo'te.tf", b"cr\rret.py", b"star*.tf"]):
        put(name, rng.randbytes(rng.randrange(1, 64)) if i % 2 else
            b"#tracefuzz-py\n" + rng.choice(JUNK_PY), sub[0])
        specials.append(paths[-1])
    # huge
    put(b"huge.tf", rng.randbytes(20 << 20), sub[1]); specials.append(paths[-1])
    put(b"huge.py", b"x = 1\n" * ((2 << 20) // 6) + b"def make(): return ()\ndef program(): return 1\n",
        sub[1]); specials.append(paths[-1])
    put(b"over_cap.tf", b"\x00" * (70 << 20), sub[1]); specials.append(paths[-1])
    put(b"empty.tf", b"", sub[2]); specials.append(paths[-1])
    put(b"empty.py", b"", sub[2]); specials.append(paths[-1])
    put(b"marker.bin", b"#tracefuzz-py\n" + b"\x00\xff" * 40, sub[2]); specials.append(paths[-1])
    # special files
    fifo = os.path.join(sub[3], b"fifo.tf"); os.mkfifo(fifo); paths.append(fifo); specials.append(fifo)
    dang = os.path.join(sub[3], b"dangling.tf"); os.symlink(b"/nonexistent/x", dang)
    paths.append(dang); specials.append(dang)
    loop = os.path.join(sub[3], b"loop.tf"); os.symlink(b"loop.tf", loop)
    paths.append(loop); specials.append(loop)
    dpy = os.path.join(sub[3], b"dir.py"); os.mkdir(dpy)   # a directory named .py: walked
    put(b"inside.tf", b"\x01\x02", dpy); specials.append(paths[-1])
    put(b"unreadable.tf", b"\x01", sub[3]); os.chmod(paths[-1], 0); specials.append(paths[-1])
    # the bulk
    i = 0
    while len(paths) < N:
        k = i % 6
        if k == 0:
            put(b"rand%06d.tf" % i, rng.randbytes(rng.randrange(0, 48)))
        elif k == 1:
            s = rng.choice(seeds)
            put(b"trunc%06d.tf" % i, s[:rng.randrange(0, max(1, len(s)))])
        elif k == 2:
            s = bytearray(rng.choice(seeds))
            for _ in range(rng.randrange(1, 8)):
                if s:
                    s[rng.randrange(len(s))] ^= 1 << rng.randrange(8)
            put(b"flip%06d.tf" % i, bytes(s))
        elif k == 3:
            put(b"bin%06d.py" % i, rng.randbytes(rng.randrange(1, 64)))
        elif k == 4:
            put(b"junk%06d.py" % i, rng.choice(JUNK_PY) + rng.randbytes(rng.randrange(0, 8)))
        else:
            put(b"noext%06d" % i, rng.randbytes(rng.randrange(1, 32)))
        i += 1
    return paths, specials


def run(args, paths, label):
    t = time.time()
    p = subprocess.run([tf.encode()] + args, capture_output=True, timeout=600)
    secs = time.time() - t
    bad = []
    if p.returncode < 0 or p.returncode == 3 or p.returncode > 128:
        bad.append(b"%s: exit status %d" % (label.encode(), p.returncode))
    lines = p.stdout.split(b"\n")
    if not any(l.endswith(b" failed") and b" passed, " in l for l in lines[-3:]):
        bad.append(b"%s: no summary line" % label.encode())
    count = {}
    for l in lines:
        m = re.match(rb"^(.*?): ([A-Z_]+)  ", l)   # escaped names hold no newline
        if m:
            count[m.group(1)] = count.get(m.group(1), 0) + 1
    for path in paths:
        if count.get(escape(path), 0) != 1:
            bad.append(b"%s: %d lines for %r" % (label.encode(), count.get(escape(path), 0), path))
    errors = sum(1 for l in lines if b": ERROR  " in l)
    print("%s: %d files, exit %d, %d ERROR lines, %.1f s" % (label, len(paths), p.returncode,
                                                         errors, secs))
    return bad, p


with tempfile.TemporaryDirectory() as tmp:
    root = os.path.join(tmp.encode(), b"in")
    os.mkdir(root)
    t0 = time.time()
    paths, specials = make_files(root)
    print("made %d files in %.1f s" % (len(paths), time.time() - t0))
    bad, p = run([b"run", b"--isolation", b"shared", b"--target", b"identity",
                  b"--timeout", b"5", root], paths, "run --isolation shared")
    # named on the command line, a path that does not exist is a usage error (exit
    # 2, nothing run): the dangling symlink and the loop are walked above only
    named = [x for x in specials if not x.endswith((b"dangling.tf", b"loop.tf"))]
    some = named + rng.sample([x for x in paths if x not in specials], 50)
    b2, _ = run([b"run", b"--target", b"identity", b"--timeout", b"5"] + some, some,
                "run --isolation fork")
    bad += b2
    t = time.time()
    shows = 0
    for path in rng.sample(paths, 50) + specials[:5]:
        q = subprocess.run([tf.encode(), b"show", path], capture_output=True, timeout=60)
        shows += 1
        if q.returncode not in (0, 1) or (q.returncode == 1 and not q.stderr.startswith(b"tracefuzz show: ")):
            bad.append(b"show %r: exit %d, stderr %r" % (path, q.returncode, q.stderr[:200]))
    print("show: %d files, %.1f s" % (shows, time.time() - t))
    for b in bad[:30]:
        print("CHECK FAILED:", b.decode("utf-8", "replace"))
    os.chmod(specials[-1], 0o600)
    sys.exit(1 if bad else 0)
