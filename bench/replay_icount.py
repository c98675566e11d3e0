"""bench/replay_icount.py: instructions per call of one program, for callgrind.

    valgrind --tool=callgrind --callgrind-out-file=OUT \
        tfpython bench/replay_icount.py PROGRAM MODE N

MODE eager (the plain function), replayed (one warm jit object: traced once, replayed
5 times, then N timed replays) or traced (N fresh jit objects, each traced once).
A process run with N calls minus the same run with N=0 is the count of N calls (the
sixth pass's method, docs/PERFORMANCE.md); bench/replay_icount.sh does both and
prints the difference per call. PYTHONHASHSEED=0 keeps dict layouts fixed."""
import os
import sys

import tfjit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attr_programs import ATTR_PROGRAMS  # noqa: E402
from reuse_bench import PROGRAMS  # noqa: E402


def main(argv):
    name, mode, n = argv[1], argv[2], int(argv[3])
    src = ATTR_PROGRAMS.get(name) or PROGRAMS[name]
    ns = {"__name__": "icount_" + name}
    exec(compile(src, f"<{name}>", "exec"), ns)
    program, args = ns["program"], tuple(ns["make"]())
    expected = program(*args)
    jitted = tfjit.jit(program)
    for _ in range(6):
        assert jitted(*args) == expected
    before = tfjit.stats()["replays_completed"]
    if mode == "eager":
        for _ in range(n):
            program(*args)
    elif mode == "replayed":
        for _ in range(n):
            jitted(*args)
        done = tfjit.stats()["replays_completed"] - before
        assert done == n, (done, n)
    elif mode == "traced":
        for _ in range(n):
            tfjit.jit(program)(*args)
    else:
        sys.exit(__doc__)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
