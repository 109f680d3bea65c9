"""One full host inside a Ray actor: its own workers, agent listener and control listener.

``HostActor`` is a plain class; ``scaleenv_mcp.cluster.hosts`` makes it a Ray actor (an async one:
its methods and the host's listeners share the actor's event loop). The router reaches the host
through its control listener with a ``ControlClient``, as it would any host; the actor's own methods
are what HTTP cannot do well: say which incarnation is running (a restarted actor is a new host whose
episodes start from nothing), and hand an episode file to another actor through the Ray object
store, so a fork across actors never passes through the router; and keep per-run state next to the host
(``open_job`` / ``in_job`` / ``close_job``), so a bulk command's work (``tasks synth --ray``
building candidates) runs in-process against this host instead of a round trip per operation. What a
job does is given by the caller as picklable callables: this module never imports the layers above
(the generator), which the import-layer contract test holds it to.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import os
import secrets
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from scaleenv_mcp.domain.task import Task
from scaleenv_mcp.host.bind import BoundSockets, display_host
from scaleenv_mcp.host.heap import settle_heap
from scaleenv_mcp.host.host import Host
from scaleenv_mcp.host.listeners import serving
from scaleenv_mcp.settings import HostSettings

__all__ = ["HostActor", "HostAddress", "JobOpener", "JobWork", "node_bind_address"]

JobOpener = Callable[[Host], Awaitable[Any]]  # builds a job's state against the actor's host
JobWork = Callable[[Any], Awaitable[Any]]  # one piece of work on that state; its result goes back to the caller

_WILDCARDS = ("0.0.0.0", "::", "")
log = logging.getLogger("scaleenv.cluster")


def node_bind_address(host: str) -> str:
    """Where a listener on a Ray node binds for ``host``: the given address, or for a wildcard this node's
    own address (other machines reach it, and the Host-header check accepts it). Ray must be there."""
    if host not in _WILDCARDS:
        return host
    return str(importlib.import_module("ray.util").get_node_ip_address())


class HostAddress(BaseModel):
    """Where one incarnation of a host actor serves (what the router needs to drive it)."""

    incarnation: str
    agent_url: str
    control_url: str
    node: str
    pid: int


class HostActor:
    """A ``Host`` with its listeners, started by ``start()`` and kept until ``stop()`` or the actor's end.

    Args:
        settings: the host's settings as JSON (``HostSettings.model_dump(mode="json")``); the ports
            are replaced by free ones, the control token is the router's (given in ``token``).
        domain_dirs, domains: as for ``Host``.
    """

    def __init__(self, settings: dict[str, Any], domain_dirs: list[str] | None, domains: list[str] | None) -> None:
        self.incarnation = secrets.token_hex(8)  # a restarted actor runs __init__ again: a new host
        self._settings = HostSettings.model_validate(settings)
        self._domain_dirs = [Path(d) for d in domain_dirs] if domain_dirs else None
        self._domains = domains
        self._stack: contextlib.AsyncExitStack | None = None
        self._host: Host | None = None
        self._address: HostAddress | None = None
        self._lock: asyncio.Lock | None = None
        self._jobs: dict[str, Any] = {}  # key -> state a caller opened here (one synthesis run's factory)
        self._opening: set[str] = set()  # keys whose opener is running (the actor runs calls concurrently)

    async def start(self) -> HostAddress:
        """Start the host and its listeners (once per incarnation); where they serve."""
        self._lock = self._lock or asyncio.Lock()
        async with self._lock:
            if self._address is not None:
                return self._address
            bind = node_bind_address(self._settings.host)
            private = Path(tempfile.mkdtemp(prefix="scaleenv-actor-"))  # the token file, 0700
            settings = self._settings.model_copy(update={"host": bind, "port": 0, "control_port": 0,
                                                         "token_file": private / "control-token"})
            stack = contextlib.AsyncExitStack()
            try:
                host = await stack.enter_async_context(Host.running(settings, self._domain_dirs, self._domains))
                listeners = await stack.enter_async_context(serving(host, settings, BoundSockets.bind(settings)))
            except BaseException:
                await stack.aclose()
                raise
            self._stack, self._host = stack, host
            settle_heap()  # the actor's process serves episodes from here on (host.heap)
            assert listeners.control_url is not None  # control_port is 0, never None
            self._address = HostAddress(incarnation=self.incarnation, agent_url=listeners.agent_url,
                                        control_url=listeners.control_url, node=display_host(bind), pid=os.getpid())
            return self._address

    async def address(self) -> HostAddress | None:
        """Where this incarnation serves, None before ``start()``: the router's liveness probe."""
        return self._address

    def _running(self) -> Host:
        if self._host is None:
            raise RuntimeError("host actor not started")
        return self._host

    async def export_episode(self, episode_id: str) -> bytes:
        """The episode as a file (``Host.export_episode``), put in the object store for another actor."""
        return await self._running().export_episode(episode_id)

    async def import_episode(self, data: bytes, allow_other_version: bool = False) -> dict[str, Any]:
        """A new episode here from a file (``Host.import_episode``), as ``EpisodeInfo`` JSON."""
        info = await self._running().import_episode(data, allow_other_version)
        return info.model_dump(mode="json")

    async def stage_tasks(self, domain: str, tasks: list[dict[str, Any]]) -> str:
        """Make ``tasks`` creatable here (``Host.stage_tasks``, for a tasks file other than the package's);
        the domain's status on this host (``online...`` when it serves it)."""
        host = self._running()
        status = host.status.get(domain, "not served")
        if status.startswith("online"):
            await host.stage_tasks(domain, [Task.model_validate(task) for task in tasks])
        return status

    async def unstage_tasks(self, domain: str, task_ids: list[str]) -> None:
        """Forget tasks staged here (``Host.unstage_tasks``); a domain not served has none to forget."""
        host = self._running()
        if host.status.get(domain, "").startswith("online"):
            await host.unstage_tasks(domain, task_ids)

    async def open_job(self, key: str, opener: JobOpener) -> Any:
        """Run ``opener`` on this host once and keep what it returns as job ``key``: state a run reuses
        across calls (a synthesis run's candidate factory). Returns the state's ``summary()`` when it has one
        (what the caller checks: the same package here as there), else None.

        Raises:
            RuntimeError: ``key`` is open already, or being opened by a call still running (two runs must not
                share a key): the opener is not run.
            Exception: what ``opener`` raised; nothing is kept and the key stays free.
        """
        if key in self._jobs or key in self._opening:
            raise RuntimeError(f"job {key!r} is open already")
        # reserved before the opener's first await: the actor is async, so a second open_job of the key can
        # start meanwhile, and would otherwise replace this state without closing it
        self._opening.add(key)
        try:
            state = await opener(self._running())
        finally:
            self._opening.discard(key)
        self._jobs[key] = state
        summary = getattr(state, "summary", None)
        return summary() if callable(summary) else None

    async def in_job(self, key: str, work: JobWork) -> Any:
        """``work`` on job ``key``'s state, here; what it returns. The job stays open whatever ``work`` does.

        Raises:
            KeyError: no such job (never opened, still opening, closed, or this is a new incarnation of the actor).
            Exception: what ``work`` raised.
        """
        if key not in self._jobs:
            raise KeyError(f"no job {key!r} on this host actor (incarnation {self.incarnation})")
        return await work(self._jobs[key])

    async def close_job(self, key: str) -> None:
        """Forget job ``key`` (awaiting its ``aclose()`` when it has one); an unknown key is no error."""
        state = self._jobs.pop(key, None)
        closing = getattr(state, "aclose", None)
        if callable(closing):
            await closing()

    async def live_episodes(self) -> int:
        """How many episodes this host holds (placement is the router's count; this is for checks)."""
        return len(await self._running().list_episodes())

    async def stop(self) -> None:
        """Close the jobs still open, then the listeners and the host (its workers end with it)."""
        for key in list(self._jobs):
            try:
                await self.close_job(key)
            except Exception:  # one job's close must not keep the host from stopping
                log.exception("closing job %s of a stopping host actor failed", key)
        if self._stack is not None:
            await self._stack.aclose()
        self._stack = self._host = self._address = None
