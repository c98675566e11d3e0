"""TFJIT_LLTRACE=1 prints every instruction with the stack and its provenance."""
import os
import subprocess
import sys

from tc_util import expect, finish

code = "import tfjit\ndef f(o): return o.real + 1\ntfjit.jit(f)(5)\n"
env = dict(os.environ, TFJIT_LLTRACE="1")
p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
expect(p.returncode == 0, f"exit status {p.returncode}: {p.stderr[-500:]}")
lines = p.stderr.splitlines()
expect(any("LOAD_ATTR" in l and "int:INPUT[0]" in l for l in lines),
       f"LOAD_ATTR with its input on the stack:\n{p.stderr}")
expect(any("BINARY_OP" in l and "INPUT[0].real" in l for l in lines), "attribute provenance")
env.pop("TFJIT_LLTRACE")
p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
expect(p.stderr == "", "silent without the switch")
finish()
