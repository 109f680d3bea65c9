"""Host side of the worker processes: spawn, route, enforce the wall-time budget, kill, respawn.

One request is in flight per worker at a time (a worker is single-threaded anyway), which
rules out pipe deadlocks on large payloads. A request past its budget, or a worker that
dies, raises ``WorkerLostError`` after the worker has been killed and replaced by a fresh
one; whoever owns the episodes on it (``episodes.registry``) rebuilds them by replay. Each
request carries its budget, so the worker also stops itself past it, and it dies with this
process whatever kills it (``workers.lifetime``).
"""

from __future__ import annotations

import asyncio
import os
import re
import socket
import subprocess
import sys
from multiprocessing.connection import Connection
from typing import Any

from scaleenv_mcp.workers.protocol import DomainBundle

__all__ = ["DomainLoadError", "WorkerHandle", "WorkerLostError", "WorkerPool"]


class WorkerLostError(Exception):
    """The worker was killed (budget) or died; it has been replaced by a fresh process."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class DomainLoadError(RuntimeError):
    """The worker could not load a domain's tools (a broken package served with --skip-validation).

    ``str()`` is the worker's report with its traceback, for validation reports; ``summary``
    is its first line, without file paths, for agents and harnesses.
    """

    def __init__(self, report: str) -> None:
        super().__init__(f"worker could not load domain: {report}")
        first = report.splitlines()[0] if report else "unknown error"
        self.summary = re.sub(r"(?<![\w.])/[^\s'\",)]+", "<path>", first)[:300]


class WorkerHandle:
    """One worker process and the pipe to it."""

    def __init__(self, index: int, memory_limit: int | None, max_pages: int | None,
                 env: dict[str, str] | None = None, max_result_bytes: int | None = None) -> None:
        self.index = index
        self.memory_limit = memory_limit
        self.max_pages = max_pages
        self.max_result_bytes = max_result_bytes
        self.env = env
        self.lock = asyncio.Lock()
        self.episodes: set[str] = set()
        self.domains: set[str] = set()
        self.generation = 0
        self._spawn()

    def _spawn(self) -> None:
        # A fresh interpreter (not multiprocessing's spawn): it never re-imports the caller's
        # __main__, and its stdout is closed so it cannot corrupt a stdio MCP pipe.
        parent, child = socket.socketpair()
        env = {**os.environ, **(self.env or {})}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "scaleenv_mcp.workers.worker", str(child.fileno()),
             str(self.memory_limit or 0), str(self.max_pages or 0), str(os.getpid()), str(self.max_result_bytes or 0)],
            pass_fds=[child.fileno()], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, env=env,
        )
        child.close()
        self.conn: Connection = Connection(parent.detach())
        self.stale = False  # a reply to a cancelled request is still on its way
        self.domains = set()
        self.generation += 1

    @property
    def pid(self) -> int | None:
        return self.process.pid

    def replace(self) -> None:
        """Kill the process (if alive) and start a fresh one; episode state is gone."""
        self._kill()
        self._spawn()

    def _kill(self) -> None:
        try:
            self.process.kill()
            self.process.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self.conn.close()

    def stop(self) -> None:
        self._kill()

    async def _readable(self, timeout: float | None) -> bool:
        """Wait until a reply is ready; False when ``timeout`` passed first.

        A bare future with a reader callback and a timer: no extra task per call, as
        ``asyncio.wait_for`` would create (bench/calls.py measures this path).
        """
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[bool] = loop.create_future()
        fd = self.conn.fileno()

        def settle(value: bool) -> None:
            if not ready.done():
                ready.set_result(value)

        loop.add_reader(fd, settle, True)
        timer = loop.call_later(timeout, settle, False) if timeout else None
        try:
            return await ready
        finally:
            loop.remove_reader(fd)
            if timer is not None:
                timer.cancel()

    async def request(self, message: tuple, timeout: float | None) -> tuple[str, Any]:
        """Send one request and await its reply; the caller must hold ``self.lock``.

        If the caller is cancelled while the worker is busy, the reply still comes: it is
        marked stale and drained before the next request, so replies never cross.
        """
        try:
            if self.stale and await self._readable(timeout):
                self.conn.recv()
            self.stale = False
            self.conn.send((timeout, message))
        except (BrokenPipeError, EOFError, OSError) as exc:
            self.replace()
            raise WorkerLostError(f"worker pipe broken: {exc}") from exc
        self.stale = True
        try:
            if not await self._readable(timeout):
                self.replace()
                raise WorkerLostError(f"call exceeded its wall-time budget of {timeout:g} s")
            reply = self.conn.recv()
        except (EOFError, OSError) as exc:
            self.replace()
            raise WorkerLostError(f"worker died: {type(exc).__name__}") from exc
        self.stale = False
        return reply

    async def ensure_domain(self, bundle: DomainBundle, timeout: float | None) -> None:
        if bundle.content_hash in self.domains:
            return
        if bundle.base_hash is not None and bundle.base_hash in self.domains:
            message: tuple = ("variant", bundle.base_hash, bundle.content_hash, bundle.tools_source)
        else:
            message = ("domain", bundle)
        status, payload = await self.request(message, timeout)
        if status != "ok":
            raise DomainLoadError(str(payload))
        self.domains.add(bundle.content_hash)


class WorkerPool:
    """A fixed set of worker processes (default: one per core)."""

    def __init__(self, size: int | None = None, memory_limit: int | None = 4 * 1024**3,
                 max_pages: int | None = None, env: dict[str, str] | None = None,
                 max_result_bytes: int | None = None) -> None:
        self.size = size or os.cpu_count() or 1
        self.memory_limit = memory_limit
        self.max_pages = max_pages
        self.env = env
        self.max_result_bytes = max_result_bytes
        self.workers: list[WorkerHandle] = []

    def start(self) -> None:
        self.workers = [WorkerHandle(i, self.memory_limit, self.max_pages, self.env, self.max_result_bytes)
                        for i in range(self.size)]

    def stop(self) -> None:
        for worker in self.workers:
            worker.stop()
        self.workers = []

    def least_loaded(self) -> WorkerHandle:
        return min(self.workers, key=lambda w: (len(w.episodes), w.index))
