"""tr_opcodes.def against Python's opcode module, and the opcode counters."""
import dis
import opcode

import tfjit
from tc_util import expect, finish

supported = tfjit.supported_opcodes()
excluded = tfjit.excluded_opcodes()
expect(set(supported) | set(excluded) == set(opcode.opmap),
       f"every opcode listed: missing {set(opcode.opmap) - set(supported) - set(excluded)}, "
       f"extra {set(supported) | set(excluded) - set(opcode.opmap)}")
expect(not set(supported) & set(excluded), "no opcode both supported and excluded")
expect(all(isinstance(r, str) and len(r) > 10 for r in excluded.values()),
       "each exclusion has a reason")
expect(supported == sorted(supported, key=opcode.opmap.get), "supported opcodes in number order")
expect(set(excluded) == {"CACHE", "GET_AWAITABLE", "GET_AITER", "GET_ANEXT", "END_ASYNC_FOR",
                         "BEFORE_ASYNC_WITH", "ASYNC_GEN_WRAP"},
       f"only CACHE and the async opcodes excluded: {sorted(excluded)}")

table = tfjit.opcode_table()
expect({n: num for n, (num, _) in table.items()} == opcode.opmap, "numbers as in opcode.opmap")
expect(all(c == opcode._inline_cache_entries[num] for num, c in table.values()),
       "inline cache entries as in opcode._inline_cache_entries")

counts = tfjit.opcode_counts()
expect(set(counts) == set(opcode.opmap), "counts for every opcode")
before = counts["BINARY_OP"]
def f(x): return x + 1 + 2
tfjit.jit(f)(1)
after = tfjit.opcode_counts()["BINARY_OP"]
expect(after - before == 2, f"BINARY_OP counted twice: {after - before}")
expect(all(tfjit.opcode_counts()[n] == 0 for n in excluded), "excluded opcodes never run")
finish()
