"""A small randomized differential test of the attribute protocol and its cache:
random classes (properties with setters, fresh properties, class attributes,
methods, custom data / non-data descriptors, cached_property, static/class methods,
a property raising AttributeError, slots, __getattr__) and random sequences of reads
(plain, identity, getattr/hasattr, class and super reads), stores, deletes, class
stores, instance-dict writes and opaque dict updates, each run eagerly and through
tfjit.jit by the protocol of attr_common.run. Deterministic for a seed.

Usage: tfpython attr_minifuzz.py SEED COUNT            every program must agree
       tfpython attr_minifuzz.py SEED COUNT --faults   each fault must make one differ
"""
import random
import sys

import tfjit
from attr_common import differences, run

FEATURES = {
 "prop": "    @property\n    def {n}(self): LOG.append('get {n}'); return self.__dict__.get('_{n}', [0])\n    @{n}.setter\n    def {n}(self, v): LOG.append('set {n}'); self.__dict__['_{n}'] = v\n",
 "fresh": "    @property\n    def {n}(self): return [len(LOG)]\n",
 "cls": "    {n} = [10]\n",
 "meth": "    def {n}(self): return 1\n",
 "nd": "    {n} = ND()\n",
 "dd": "    {n} = DD()\n",
 "cp": "    @functools.cached_property\n    def {n}(self): LOG.append('cp {n}'); return [5]\n",
 "sm": "    @staticmethod\n    def {n}(): return 2\n",
 "cm": "    @classmethod\n    def {n}(cls): return cls\n",
 "attrerr": "    @property\n    def {n}(self): LOG.append('ae {n}'); raise AttributeError('inner {n}')\n",
}
OPS = [
 "r.append(o.{n})", "r.append(o.{n} is o.{n})", "o.{n} = [1]", "del o.{n}",
 "type(o).{n} = [2]", "vars(o)['{n}'] = [3]", "o.__dict__.update({n}=[4])",
 "r.append(getattr(o, '{n}', 'dflt'))", "r.append(hasattr(o, '{n}'))",
 "setattr(o, '{n}', [6])", "r.append(type(o).{n})", "r.append(super(type(o), o).{n})",
 "object.__setattr__(o, '{n}', [7])", "r.append(len(str(o.{n})))",
]
def gen(rng):
    names = ["a", "b", "c"]
    body = ""
    for n in names:
        f = rng.choice(list(FEATURES) + [None, None])
        if f: body += FEATURES[f].format(n=n)
    slots = rng.random() < 0.2
    getattr_hook = rng.random() < 0.3
    src = "import functools\nLOG = []\nclass ND:\n    def __get__(self, o, t=None): return 'nd'\nclass DD:\n    def __get__(self, o, t=None): return o.__dict__.get('_dd', 'dd') if o is not None else self\n    def __set__(self, o, v): o.__dict__['_dd'] = v\n"
    src += "class Base:\n" + (body or "    pass\n")
    src += "class C(Base):\n"
    if slots: src += "    __slots__ = ('s',)\n"     # Base gives the __dict__
    if getattr_hook: src += "    def __getattr__(self, n): LOG.append('ga ' + n); return 'ga'\n"
    src += "    pass\n"
    src += "def make():\n    o = C()\n" + ("    o.s = [9]\n" if slots else "") + "    return (o,)\n"
    src += "def program(o):\n    r = []\n"
    for _ in range(rng.randint(2, 10)):
        op = rng.choice(OPS).format(n=rng.choice(names + (["s"] if slots else [])))
        src += "    try:\n        " + op + "\n    except Exception as e:\n        r.append((type(e).__name__, str(e)))\n"
    src += "    return r\n"
    if rng.random() < 0.5:
        src += "def between(o):\n    " + rng.choice(["C.a = [99]", "o.b = [98]", "Base.c = property(lambda s: 'p')", "o.__dict__.clear()", "pass"]) + "\n"
    return src



def count_bad(seed, n, show=3):
    rng = random.Random(seed)
    bad = compared = 0
    for _ in range(n):
        src = gen(rng)
        try:
            e1 = run(src, None)
        except Exception:
            continue        # make/between fail eagerly: an invalid program
        if e1 != run(src, None):
            continue        # nondeterministic program: not the tracer's business
        compared += 1
        try:
            t = run(src, tfjit.jit)
        except Exception as ex:
            bad += 1
            print(f"traced run failed: {type(ex).__name__}: {ex}\n{src}")
            continue
        d = differences(e1, t)
        if d:
            bad += 1
            if bad <= show:
                print(f"differs in {', '.join(d)}:\n{src}\neager  {e1['results']!r}\n"
                      f"traced {t['results']!r}")
    return bad, compared


# Faults these program shapes cannot reach: no metaclass, no __getattribute__, and no
# read-write-read of one attribute inside a replayed call. The fault zoo
# (bench/faultzoo.py) finds them with the full generator.
OUT_OF_REACH = {
    "meta_data_desc_loses": "no metaclass here",
    "getattribute_ignored": "no user __getattribute__ here",
    "no_invalidate_on_store": "no read, store, read of one attribute in a replayed call",
}


def main():
    seed, n = int(sys.argv[1]), int(sys.argv[2])
    if "--faults" in sys.argv[3:]:
        missed = []
        # every fault the tracer knows, so a new one must be found here or listed above
        for fault in tfjit.known_faults():
            if fault in OUT_OF_REACH:
                print(f"{fault}: not checked ({OUT_OF_REACH[fault]})")
                continue
            tfjit.set_faults(fault)
            try:
                bad, compared = count_bad(seed, n, show=0)
            finally:
                tfjit.set_faults("")
            print(f"{fault}: {bad} of {compared} programs differ")
            if bad == 0:
                missed.append(fault)
        return 1 if missed else 0
    bad, compared = count_bad(seed, n)
    print(f"seed {seed}: {compared} programs compared, {bad} differ")
    return 1 if bad or compared < n // 2 else 0


if __name__ == "__main__":
    sys.exit(main())
