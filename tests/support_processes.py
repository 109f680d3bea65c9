"""Stopping the processes tests start: the way a person would (Ctrl-C), then by force."""

from __future__ import annotations

import signal
import subprocess

__all__ = ["interrupt"]


def interrupt(process: subprocess.Popen, timeout: float = 20) -> None:
    """SIGINT, as Ctrl-C would; SIGKILL if it has not exited ``timeout`` seconds later."""
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
