"""Writes a 1 GB file in its working directory (more than the file-size limit)."""
from _hostile import hostile


def _write():
    block = b"x" * (16 << 20)
    with open("big.bin", "wb") as f:
        for _ in range(64):
            f.write(block)


jit = hostile(_write, on_call=1)
