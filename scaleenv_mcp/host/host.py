"""The in-process host: domains, worker pool and episode registry, started and stopped together.

This is the Python API for tests and RL code (``async with Host.running(...) as host``), and
what ``scaleenv serve`` runs behind its listeners. It never imports the generator or openai.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import mcp

from scaleenv_mcp.domain.catalog import find_domains
from scaleenv_mcp.domain.loader import load_domain
from scaleenv_mcp.episodes.registry import Episode, EpisodeOrigin, EpisodeRegistry
from scaleenv_mcp.errors import DomainError
from scaleenv_mcp.host.server import build_domain_server
from scaleenv_mcp.settings import HostSettings
from scaleenv_mcp.workers.pool import WorkerPool

__all__ = ["Host"]

log = logging.getLogger("scaleenv.host")


class Host:
    """Serve domain packages: load them, run their tools in workers, keep episodes apart."""

    def __init__(self, settings: HostSettings | None = None, domain_dirs: list[Path] | None = None,
                 domains: list[str] | None = None) -> None:
        self.settings = settings or HostSettings()
        self.domain_dirs = domain_dirs
        self.only = set(domains) if domains else None
        self.pool = WorkerPool(self.settings.workers, self.settings.worker_memory_mb * 1024 * 1024,
                               max_pages=self.settings.max_db_mb * 1024 * 1024 // 4096)
        self.registry = EpisodeRegistry(self.pool, self.settings)
        self.load_errors: dict[str, str] = {}
        self._reaper: asyncio.Task[None] | None = None

    def load_domains(self) -> None:
        """Load every package found; a broken one is reported in ``load_errors`` and not served."""
        for slug, path in find_domains(self.domain_dirs).items():
            if self.only is not None and slug not in self.only and str(path) not in self.only:
                continue
            try:
                self.registry.add_domain(load_domain(path))
            except DomainError as error:
                self.load_errors[slug] = error.message
                log.warning("not serving domain %s: %s", slug, error.message)
        if self.only:
            for name in self.only:
                if Path(name).is_dir() and (Path(name) / "domain.json").is_file():
                    package_path = Path(name)
                    try:
                        self.registry.add_domain(load_domain(package_path))
                    except DomainError as error:
                        self.load_errors[package_path.name] = error.message

    @classmethod
    @contextlib.asynccontextmanager
    async def running(cls, settings: HostSettings | None = None, domain_dirs: list[Path] | None = None,
                      domains: list[str] | None = None) -> AsyncIterator[Host]:
        host = cls(settings, domain_dirs, domains)
        host.load_domains()
        host.pool.start()
        host._reaper = asyncio.create_task(host._reap_forever())
        try:
            yield host
        finally:
            host._reaper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await host._reaper
            host.pool.stop()

    async def _reap_forever(self) -> None:
        interval = max(1.0, min(60.0, self.settings.idle_timeout / 4))
        while True:
            await asyncio.sleep(interval)
            closed = await self.registry.close_idle()
            if closed:
                log.info("closed %d idle episodes", len(closed))

    # -- conveniences for Python callers ----------------------------------------------------
    async def create_episode(self, domain: str, task_id: str | None = None,
                             origin: EpisodeOrigin = EpisodeOrigin.harness) -> Episode:
        return await self.registry.create(domain, task_id, origin)

    def episode_server(self, episode_id: str) -> Any:
        """A low-level MCP server bound to one episode (for stdio and in-memory clients)."""
        episode = self.registry.get(episode_id)

        async def fixed(ctx: Any) -> str:
            return episode_id

        return build_domain_server(episode.domain, self.registry, fixed, interactive=episode.origin is EpisodeOrigin.interactive)

    def client(self, episode_id: str, **kwargs: Any) -> mcp.Client:
        """An in-memory MCP client bound to one episode: ``async with host.client(eid) as c``."""
        return mcp.Client(self.episode_server(episode_id), **kwargs)
