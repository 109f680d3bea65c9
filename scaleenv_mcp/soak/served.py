"""A ``scaleenv serve`` in its own process, and the processes it leaves behind.

The soak measures the host as deployed (its RSS, whether it crashed), and the lifetime
tests kill it with SIGKILL, so both start the real command, not an in-process host. Every
process of one run carries a random tag in its environment (workers inherit it), which is
how ``tagged_processes`` finds what is left after the host is gone.
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from scaleenv_mcp.tls import shared_ssl_context
from scaleenv_mcp.workers.launcher import LAUNCHER_NAME

__all__ = ["HostStartError", "ServedHost", "TAG_VARIABLE", "rss_kb", "tagged_processes", "worker_processes"]

TAG_VARIABLE = "SCALEENV_PROCESS_TAG"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def tagged_processes(tag: str) -> list[int]:
    """Pids of live processes (not zombies) whose environment holds ``TAG_VARIABLE=tag`` (Linux /proc)."""
    needle = f"{TAG_VARIABLE}={tag}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if needle in (entry / "environ").read_bytes().split(b"\0") and " Z " not in (entry / "stat").read_text():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def worker_processes(tag: str, host_pid: int) -> list[int]:
    """The worker processes among ``tag``'s: not the host, not its worker launcher (``workers.launcher``)."""
    def launcher(pid: int) -> bool:
        try:
            return Path(f"/proc/{pid}/comm").read_bytes().strip() == LAUNCHER_NAME
        except OSError:
            return False

    return [pid for pid in tagged_processes(tag) if pid != host_pid and not launcher(pid)]


def rss_kb(pid: int) -> int:
    """Resident set size of ``pid`` in KiB (0 once it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


class HostStartError(RuntimeError):
    """The ``scaleenv serve`` under test exited, or did not bring its domains online in time."""


class ServedHost:
    """``python -m scaleenv_mcp serve`` on free loopback ports; ``with ServedHost(...) as served``."""

    def __init__(self, domains_dir: Path | None, state_dir: Path, *, domains: list[str] | None = None,
                 workers: int = 1, skip_validation: bool = False, env: dict[str, str] | None = None,
                 startup_timeout: float = 300.0) -> None:
        self.tag = secrets.token_hex(8)
        self.port, self.control_port = _free_port(), _free_port()
        self.token = secrets.token_urlsafe(24)
        self.token_file = state_dir / "control-token"
        command = [sys.executable, "-m", "scaleenv_mcp", "serve", "--port", str(self.port),
                   "--control-port", str(self.control_port), "--token-file", str(self.token_file),
                   "--workers", str(workers)]
        command += ["--domains-dir", str(domains_dir)] if domains_dir else []
        command += [arg for slug in domains or [] for arg in ("--domain", slug)]
        command += ["--skip-validation"] if skip_validation else []
        self.command = command
        self.log_path = state_dir / "serve.stderr"
        self.domains = list(domains or [])  # start() waits for these to be online (none named: any one)
        self.env = {**os.environ, **(env or {}), TAG_VARIABLE: self.tag, "SCALEENV_STATE_DIR": str(state_dir),
                    "SCALEENV_TOKEN": self.token}
        self.startup_timeout = startup_timeout
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def agent_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def control_url(self) -> str:
        return f"http://127.0.0.1:{self.control_port}"

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def start(self) -> ServedHost:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("ab") as log:  # what serve says, for the reason it gives when it exits
            self.process = subprocess.Popen(self.command, env=self.env, stdin=subprocess.DEVNULL,
                                            stdout=subprocess.DEVNULL, stderr=log)
        deadline = time.monotonic() + self.startup_timeout
        headers = {"authorization": f"Bearer {self.token}"}
        online: set[str] = set()
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                said = [line for line in self.log_path.read_text(errors="replace").splitlines() if line.strip()]
                raise HostStartError(f"scaleenv serve exited with {self.process.returncode} while starting"
                                     + (f": {said[-1].strip()}" if said else ""))
            try:
                online = {d["slug"] for d in httpx.get(f"{self.control_url}/domains", headers=headers, timeout=2,
                                                       verify=shared_ssl_context()).json()["domains"]}
            except (httpx.HTTPError, KeyError, TypeError, ValueError):
                pass
            # every domain asked for: one online while another still validates is not yet a host to test
            if online and online.issuperset(self.domains):
                return self
            time.sleep(0.2)
        missing = ", ".join(sorted(set(self.domains) - online)) or "any domain"
        raise HostStartError(f"scaleenv serve did not bring {missing} online within {self.startup_timeout:.0f} s "
                           "(`scaleenv validate` says why a domain fails)")

    def kill(self) -> None:
        """SIGKILL: no clean-up of any kind runs in the host."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()

    def __enter__(self) -> ServedHost:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
