"""Starting a real `scaleenv serve` for tests, stopping the processes tests start (the way a person
would, Ctrl-C, then by force), waiting for a stopped host's processes to be gone, and reading a process's
parent."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

__all__ = ["GONE_WITHIN", "interrupt", "left_after", "parent_pid", "scaleenv_serve"]

GONE_WITHIN = 15.0  # seconds, generous: a worker's death signal acts at once, its watchdog within a second


def left_after(tag: str, seconds: float = GONE_WITHIN) -> list[int]:
    """The processes a host tagged ``tag`` started that are still alive ``seconds`` after now (sooner, once
    none is): a host's workers die with it, but a moment after it, so a check made at once can race them."""
    from scaleenv_mcp.soak.served import tagged_processes

    deadline = time.monotonic() + seconds
    while (left := tagged_processes(tag)) and time.monotonic() < deadline:
        time.sleep(0.2)
    return left


def parent_pid(pid: int) -> int:
    """The parent of ``pid``, from /proc (Linux)."""
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def interrupt(process: subprocess.Popen, timeout: float = 20) -> None:
    """SIGINT, as Ctrl-C would; SIGKILL if it has not exited ``timeout`` seconds later."""
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextlib.contextmanager
def scaleenv_serve(domains_dir: Path, root: Path, args: Sequence[str] = (),
                   env: dict[str, str] | None = None) -> Iterator[tuple[str, str, Path]]:
    """A real `scaleenv serve` process on free loopback ports, its state and token under ``root``:
    (agent base URL, control URL, token file); interrupted on exit. ``args`` go on its command line,
    ``env`` into its environment."""
    token = root / "control-token"
    host = subprocess.Popen([sys.executable, "-m", "scaleenv_mcp", "serve", "--port", "0", "--control-port", "0",
                             "--workers", "1", "--domains-dir", str(domains_dir), "--token-file", str(token), *args],
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                            env={**os.environ, **(env or {}), "SCALEENV_STATE_DIR": str(root / "state")})
    try:
        assert host.stderr is not None
        banner = next(line for line in host.stderr if " online at " in line)
        yield (banner.split(" online at ", 1)[1].split("/mcp/", 1)[0],
               banner.split("(control: ", 1)[1].split(",", 1)[0], token)
    finally:
        interrupt(host)
