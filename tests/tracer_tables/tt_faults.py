"""tt_faults.py: every injected fault of the tracer must make the tables fail.

The fault names come from TR_FAULT_LIST in tracer/tr_faults.h (path given by
--faults-header, default: the source tree's). For each fault: tfjit.set_faults(name),
run every snippet (forked children inherit the switch) and require at least one
snippet that passes without faults to fail with it; the catching snippets are printed. Exits 77 (ctest: skipped) when the tracer lacks jit or
set_faults and --require-jit is not given.
"""
import glob
import importlib
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import tt_driver  # noqa: E402

DEFAULT_HEADER = os.path.join(HERE, "..", "..", "tracer", "tr_faults.h")


def fault_names(header):
    with open(header) as f:
        text = f.read()
    return re.findall(r'X\(\s*\w+\s*,\s*"([a-z0-9_]+)"\s*\)', text)


def main():
    ap = tt_driver.parser("Each injected tracer fault must be caught by the tables.")
    ap.add_argument("--faults-header", default=DEFAULT_HEADER)
    opts = ap.parse_args()
    tfjit = tt_driver.tfjit
    jit = tt_driver.real_jit()
    if jit is None or not hasattr(tfjit, "set_faults") or opts.identity:
        print("tracer absent (tfjit.jit or tfjit.set_faults missing)")
        if opts.require_jit:
            print("0 passed, 1 failed")
            return 1
        return 77
    names = fault_names(opts.faults_header)
    if not names:
        print(f"no fault names found in {opts.faults_header}")
        return 1
    tables = [importlib.import_module(os.path.basename(p)[:-3]).T
              for p in sorted(glob.glob(os.path.join(HERE, "snip_*.py")))]
    opts.verbose = False
    npass = nfail = 0
    devnull = open(os.devnull, "w")

    def failing_with(csv):
        tfjit.set_faults(csv)
        saved = sys.stdout
        sys.stdout = devnull            # the per-snippet lines of run_tables
        try:
            _, _, failures = tt_driver.run_tables(tables, opts)
        finally:
            sys.stdout = saved
            tfjit.set_faults("")
        return {n for n, _, _ in failures}

    baseline = failing_with("")
    print(f"without faults {len(baseline)} snippets fail (judged by the topic tests)")
    for name in names:
        caught = sorted(failing_with(name) - baseline)
        if caught:
            npass += 1
            print(f"ok   fault {name}: caught by {len(caught)} more snippets, e.g. "
                  + " ".join(caught[:8]))
        else:
            nfail += 1
            print(f"FAIL fault {name}: no snippet fails with it on")
    print(f"{npass} passed, {nfail} failed")
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())
