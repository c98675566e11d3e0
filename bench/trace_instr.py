"""bench/trace_instr.py: a driver for callgrind instruction counts of traced, replayed
and eager calls of the attribute set (docs/PERFORMANCE.md, seventh pass).

    PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=F \\
        tfpython bench/trace_instr.py PROGRAM MODE N [LAYOUT]

MODE is traced (N fresh tfjit.jit objects, each called once), replayed (one object,
traced once before, then N replays) or eager (N plain calls). The per-call count is
(count with N) - (count with 0), divided by N: the same process, imports, set-up and
warm-up either way. LAYOUT (default 0) allocates that many blocks of junk before the
program's objects: their addresses, hence the tracer's address-keyed tables (the trace's
type names, the traced-mode oracle's memo), change with it, and so do counts, by up to
7% (bench/trace_instr.sh averages layouts 0-3). PROGRAM is a name of bench/attr_programs.py or bench/reuse_bench.py's
descriptor set. Every call's result is checked against an eager call's."""
import os
import sys

import tfjit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attr_programs import ATTR_PROGRAMS  # noqa: E402


def main(argv):
    name, mode, n = argv[1], argv[2], int(argv[3])
    layout = int(argv[4]) if len(argv) > 4 else 0
    junk = [bytearray(16 * (i % 64 + 1)) for i in range(layout * 97)]  # noqa: F841
    src = ATTR_PROGRAMS.get(name)
    if src is None:
        import reuse_bench
        src = reuse_bench.PROGRAMS[name]
    ns = {"__name__": "bench_" + name}
    exec(compile(src, f"<{name}>", "exec"), ns)
    program, args = ns["program"], tuple(ns["make"]())
    expected = program(*args)
    # Warm-up common to every N: one traced call of another object, one replay.
    warm = tfjit.jit(program)
    assert warm(*args) == expected
    assert warm(*args) == expected
    if mode == "traced":
        for _ in range(n):
            f = tfjit.jit(program)
            assert f(*args) == expected
    elif mode == "replayed":
        before = tfjit.stats()["replays_completed"]
        for _ in range(n):
            assert warm(*args) == expected
        done = tfjit.stats()["replays_completed"] - before
        assert done == n, f"{done} of {n} calls replayed to the end"   # not retraced
    elif mode == "eager":
        for _ in range(n):
            assert program(*args) == expected
    else:
        sys.exit(__doc__)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
