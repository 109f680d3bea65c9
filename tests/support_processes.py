"""Starting a real `scaleenv serve` for tests, stopping the processes tests start (the way a person
would, Ctrl-C, then by force), and reading a process's parent."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

__all__ = ["interrupt", "parent_pid", "scaleenv_serve"]


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
def scaleenv_serve(domains_dir: Path, root: Path) -> Iterator[tuple[str, str, Path]]:
    """A real `scaleenv serve` process on free loopback ports, its state and token under ``root``:
    (agent base URL, control URL, token file); interrupted on exit."""
    token = root / "control-token"
    host = subprocess.Popen([sys.executable, "-m", "scaleenv_mcp", "serve", "--port", "0", "--control-port", "0",
                             "--workers", "1", "--domains-dir", str(domains_dir), "--token-file", str(token)],
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                            env={**os.environ, "SCALEENV_STATE_DIR": str(root / "state")})
    try:
        assert host.stderr is not None
        banner = next(line for line in host.stderr if " online at " in line)
        yield (banner.split(" online at ", 1)[1].split("/mcp/", 1)[0],
               banner.split("(control: ", 1)[1].split(",", 1)[0], token)
    finally:
        interrupt(host)
