"""tt_opcode_coverage.py: does the snippet table exercise every opcode the tracer claims?

Decision (docs/TRACER_TESTS.md): every name of opcode.opmap, CACHE included, is in
exactly one of tfjit.supported_opcodes() and tfjit.excluded_opcodes() (name -> reason,
non-empty); CACHE, never executed, belongs to the excluded ones with its reason. Then
the whole snippet table runs under tfjit.jit, and every supported opcode must have
executed at least once (tfjit.opcode_counts(), summed over the forked children).

Static part (also without the tracer): the opcodes present in the table's traced code
(every code object of the snippets except the module body, the bodies of
module-level classes, make, between and make_other) must cover opcode.opmap except NOT_IN_TABLE below, so the table can reach
what a complete tracer supports.
"""
import dis
import glob
import importlib
import opcode
import os
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import tt_driver  # noqa: E402

# Opcodes no snippet contains, with the reason (the static check fails on any other gap).
NOT_IN_TABLE = {
    "CACHE": "inline cache entry, never executed as an instruction",
    "GET_AWAITABLE": "async: coroutines are out of the table's scope",
    "GET_AITER": "async: coroutines are out of the table's scope",
    "GET_ANEXT": "async: coroutines are out of the table's scope",
    "END_ASYNC_FOR": "async: coroutines are out of the table's scope",
    "BEFORE_ASYNC_WITH": "async: coroutines are out of the table's scope",
    "ASYNC_GEN_WRAP": "async: coroutines are out of the table's scope",
}

SETUP_NAMES = {"make", "between", "make_other"}


def load_tables():
    tables = []
    for path in sorted(glob.glob(os.path.join(HERE, "snip_*.py"))):
        mod = importlib.import_module(os.path.basename(path)[:-3])
        tables.append(mod.T)
    return tables


CO_OPTIMIZED = 0x1


def traced_code_objects(code, top=True):
    """Code objects under a snippet's module code that a traced call may run: not the
    setup functions, and not the bodies of module-level classes (they run when the
    module is executed; their methods are kept)."""
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            if top and code.co_name == "<module>" and c.co_name in SETUP_NAMES:
                continue
            if not (top and not c.co_flags & CO_OPTIMIZED):
                yield c
            yield from traced_code_objects(c, top=False)


def static_opcodes(tables):
    seen = {}
    for tb in tables:
        for sn in tb.snippets:
            codes = list(traced_code_objects(sn.code()))
            for v in sn.namespace().values():   # code compiled by the snippet itself
                if isinstance(v, types.CodeType):
                    codes += [v] + list(traced_code_objects(v, top=False))
            for c in codes:
                for ins in dis.get_instructions(c):
                    seen.setdefault(ins.opname, sn.fullname)
                # EXTENDED_ARG is folded into its instruction by dis: read the raw bytes.
                raw = c.co_code
                for i in range(0, len(raw), 2):
                    if raw[i] == opcode.opmap["EXTENDED_ARG"]:
                        seen.setdefault("EXTENDED_ARG", sn.fullname)
    return seen


def as_names(xs):
    return {opcode.opname[x] if isinstance(x, int) else x for x in xs}


def main():
    ap = tt_driver.parser("Opcode coverage of the snippet table.")
    opts = ap.parse_args()
    tables = load_tables()
    failures = []

    seen = static_opcodes(tables)
    gaps = sorted(set(opcode.opmap) - set(seen) - set(NOT_IN_TABLE))
    print(f"static: the table's traced code contains {len(seen)} of {len(opcode.opmap)} opcodes")
    if gaps:
        failures.append("opcodes absent from the table's code: " + " ".join(gaps))

    jit = tt_driver.real_jit()
    tfjit = tt_driver.tfjit
    api = ("supported_opcodes", "excluded_opcodes", "opcode_counts")
    if opts.identity or jit is None or not all(hasattr(tfjit, a) for a in api):
        missing = [a for a in ("jit",) + api if not hasattr(tfjit, a)]
        if opts.require_jit or (jit is not None and not opts.identity):
            failures.append("tfjit lacks " + ", ".join(missing))
        else:
            print("tracer absent (" + ", ".join(missing) + " missing): static check only")
    else:
        sup = as_names(tfjit.supported_opcodes())
        exc = {(opcode.opname[k] if isinstance(k, int) else k): v
               for k, v in dict(tfjit.excluded_opcodes()).items()}
        names = set(opcode.opmap)
        both = sorted(sup & set(exc))
        neither = sorted(names - sup - set(exc))
        unknown = sorted((sup | set(exc)) - names)
        noreason = sorted(k for k, v in exc.items() if not isinstance(v, str) or not v.strip())
        print(f"tracer: {len(sup)} supported, {len(exc)} excluded of {len(names)} opcode.opmap names")
        for k in sorted(exc):
            print(f"  excluded {k}: {exc[k]}")
        if both:
            failures.append("both supported and excluded: " + " ".join(both))
        if neither:
            failures.append("neither supported nor excluded: " + " ".join(neither))
        if unknown:
            failures.append("not in opcode.opmap: " + " ".join(unknown))
        if noreason:
            failures.append("excluded without a reason: " + " ".join(noreason))

        counts = {}
        opts.verbose = False
        saved = sys.stdout
        sys.stdout = open(os.devnull, "w")   # per-snippet verdicts: the topic tests' job
        try:
            npass, nfail, _ = tt_driver.run_tables(tables, opts, counts)
        finally:
            sys.stdout.close()
            sys.stdout = saved
        counts = {(opcode.opname[k] if isinstance(k, int) else k): v for k, v in counts.items()}
        print(f"table under the tracer: {npass} passed, {nfail} failed (judged by the topic tests)")
        never = sorted(op for op in sup if counts.get(op, 0) == 0)
        ran_excluded = sorted(op for op in exc if counts.get(op, 0) > 0)
        print(f"supported opcodes executed: {len(sup) - len(never)} of {len(sup)}")
        if never:
            print("never executed: " + " ".join(never))
            for op in never:
                if op in seen:
                    print(f"  {op}: present in {seen[op]} but not executed by the tracer")
            failures.append(f"{len(never)} supported opcodes never executed: " + " ".join(never))
        if ran_excluded:   # e.g. counted at dispatch, then refused with Unsupported
            print("note: excluded opcodes with a non-zero count: " + " ".join(ran_excluded))

    for f in failures:
        print("FAIL: " + f)
    print(f"{0 if failures else 1} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
