"""os.fork() whose child returns into tracefuzz's protocol and keeps running it: two
processes report on one channel."""
import os
from _hostile import hostile
jit = hostile(lambda: os.fork(), on_call=1)
