"""Lowers its resource limits (open files, stack, CPU time, file size), then
behaves."""
import resource
from _hostile import hostile


def _lower(which, soft):
    cur, hard = resource.getrlimit(which)
    if cur == resource.RLIM_INFINITY or cur > soft:
        resource.setrlimit(which, (soft, hard))


def _limits():
    _lower(resource.RLIMIT_NOFILE, 64)
    _lower(resource.RLIMIT_STACK, 4 << 20)
    _lower(resource.RLIMIT_CPU, 3600)
    _lower(resource.RLIMIT_FSIZE, 1 << 20)


jit = hostile(_limits, on_call=1)
