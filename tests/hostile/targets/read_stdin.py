"""Reads its standard input (input()): EOFError, never a hang."""
from _hostile import hostile
jit = hostile(lambda: input())
