"""A worker process never outlives its host, and never runs a request far past its budget.

The host kills a worker whose call overruns (``workers.pool``), but when the host itself
dies (SIGTERM, kill -9, an OOM kill, a killed ``scaleenv validate``), nobody is left to do
that: the busy worker was re-parented to PID 1 and spun on at 100% CPU (issue #29, failure 1).
So a worker guards itself three ways, each covering a gap of the others:

- ``PR_SET_PDEATHSIG`` (Linux): the kernel sends SIGKILL when the parent dies, even while
  the worker is inside a long C call that holds the GIL.
- A watchdog thread: exits when the parent pid changes or the host's end of the pipe closes
  (every POSIX system; it cannot run while a C call holds the GIL, which the next covers).
- A per-request alarm: ``ITIMER_REAL`` with SIGALRM left at its default action (terminate),
  armed at the request's budget plus a grace the host normally never reaches, because it
  kills the worker at the budget itself.

The death signal is tied to the thread that spawned the worker; the pool spawns from the
event-loop thread, which lives as long as the host.
"""

from __future__ import annotations

import ctypes
import functools
import os
import select
import signal
import sys
import threading

__all__ = ["arm_budget", "disarm_budget", "guard_lifetime", "own_budget", "prctl"]

_PR_SET_PDEATHSIG = 1
_WATCH_INTERVAL_MS = 250
_HANGUP = select.POLLHUP | select.POLLERR | select.POLLNVAL | getattr(select, "POLLRDHUP", 0)


def own_budget(budget: float) -> float:
    """The worker's own deadline for a request the host gave ``budget`` seconds: later than the
    host's kill, so the host's clear 'wall-time budget' error is what an agent normally sees."""
    return budget * 1.25 + 2.0


def prctl(option: int, value: int | bytes) -> bool:
    """Linux's prctl(2) with one argument; False where there is none or it failed."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = _libc()
        argument = ctypes.c_char_p(value) if isinstance(value, bytes) else value
        return bool(libc.prctl(option, argument, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


@functools.cache
def _libc() -> ctypes.CDLL:
    """The C library this process already has loaded (dlopen of the program itself finds its symbols).
    Not ``ctypes.util.find_library("c")``: on Linux that runs ``ldconfig -p`` in a subprocess, twice in
    each of the hundreds of workers a test run forks (issue #26)."""
    return ctypes.CDLL(None, use_errno=True)


def _set_parent_death_signal() -> bool:
    return prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def _watch(parent_pid: int, fd: int) -> None:
    poller = select.poll()
    poller.register(fd, getattr(select, "POLLRDHUP", 0))
    while True:
        events = poller.poll(_WATCH_INTERVAL_MS)
        if os.getppid() != parent_pid or any(mask & _HANGUP for _, mask in events):
            os._exit(0)


def guard_lifetime(parent_pid: int, fd: int) -> None:
    """Make this process die with ``parent_pid``; call first thing in the worker."""
    _set_parent_death_signal()
    if os.getppid() != parent_pid:  # the parent died before the death signal was set
        os._exit(0)
    signal.signal(signal.SIGALRM, signal.SIG_DFL)  # the alarm terminates: no Python handler to wait for the GIL
    threading.Thread(target=_watch, args=(parent_pid, fd), name="scaleenv-parent-watchdog", daemon=True).start()


def arm_budget(budget: float | None) -> None:
    """Terminate this process if the coming request runs past its own deadline."""
    if budget:
        signal.setitimer(signal.ITIMER_REAL, own_budget(budget))


def disarm_budget() -> None:
    signal.setitimer(signal.ITIMER_REAL, 0)
