"""A server under cProfile, switched on and off by signals: ``bench.cpu_split`` runs it (#25).

``python bench/profiled_server.py OUT.prof scaleenv|lowlevel ARGS...`` runs ``scaleenv serve ARGS``
or ``bench/bare_servers.py lowlevel ARGS`` in this process. SIGUSR1 starts profiling the main
thread (the event loop, where every request is served), SIGUSR2 stops it and writes the stats
to OUT.prof, so start-up and warm-up stay out of the profile. Worker processes are not
profiled: their CPU is read from /proc.
"""

from __future__ import annotations

import cProfile
import runpy
import signal
import sys
import time
from pathlib import Path
from types import FrameType

PROFILE = cProfile.Profile(time.thread_time)  # CPU time: waiting in epoll or on a busy core is not cost


def _start(signum: int, frame: FrameType | None) -> None:
    PROFILE.enable()


def _stop(signum: int, frame: FrameType | None) -> None:
    PROFILE.disable()
    PROFILE.dump_stats(OUT)


if __name__ == "__main__":
    OUT, kind, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    signal.signal(signal.SIGUSR1, _start)
    signal.signal(signal.SIGUSR2, _stop)
    if kind == "scaleenv":  # the command, run as `python -m scaleenv_mcp serve` runs it (bench sits below the CLI)
        sys.argv = ["scaleenv", "serve", *args]
        runpy.run_module("scaleenv_mcp", run_name="__main__", alter_sys=True)
    else:
        sys.argv = [str(Path(__file__).with_name("bare_servers.py")), kind, *args]
        runpy.run_path(sys.argv[0], run_name="__main__")
