"""Ignores SIGTERM/SIGINT/SIGHUP, blocks SIGCHLD, then arms a timer whose SIGALRM
(default action) ends the process."""
import signal
from _hostile import hostile


def _signals():
    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGUSR1):
        signal.signal(s, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    signal.setitimer(signal.ITIMER_REAL, 0.001)
    signal.pause() if hasattr(signal, "pause") else None


jit = hostile(_signals, on_call=2)
