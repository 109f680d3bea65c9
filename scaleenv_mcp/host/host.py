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
from scaleenv_mcp.domain.loader import DomainPackage, load_domain
from scaleenv_mcp.episodes.registry import Episode, EpisodeOrigin, EpisodeRegistry
from scaleenv_mcp.errors import DomainError
from scaleenv_mcp.host.server import build_domain_server
from scaleenv_mcp.procedural.cache import ValidationCache, validation_key
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
        self.status: dict[str, str] = {}  # slug -> online | validating | broken: ... | failed validation: ... | rejected: ...
        self.validations = ValidationCache(self.settings.state_dir)
        self._reaper: asyncio.Task[None] | None = None

    def _packages(self) -> dict[str, Path]:
        found = {slug: path for slug, path in find_domains(self.domain_dirs).items()
                 if self.only is None or slug in self.only or str(path) in self.only}
        for name in self.only or ():
            if (Path(name) / "domain.json").is_file():
                found[Path(name).resolve().name] = Path(name).resolve()
        return found

    def load_domains(self) -> list[DomainPackage]:
        """Load every package found; return those that still need validation.

        A broken package is reported in ``status`` and never served. A package whose exact
        contents passed validation before (host-side cache) comes online at once.
        """
        pending = []
        for slug, path in sorted(self._packages().items()):
            try:
                package = load_domain(path)
            except DomainError as error:
                self.status[slug] = f"broken: {error.message}"
                log.warning("not serving domain %s: %s", slug, error.message)
                continue
            if self.settings.skip_validation:
                log.warning("SERVING %s WITHOUT VALIDATION (--skip-validation is for development only)", slug)
                self._online(package, "online (validation skipped)")
            elif self.validations.lookup(validation_key(package)):
                self._online(package, "online")
            else:
                self.status[slug] = "validating"
                pending.append(package)
        return pending

    def _online(self, package: DomainPackage, status: str) -> None:
        self.registry.add_domain(package)
        self.status[package.slug] = status

    async def _validate_and_serve(self, package: DomainPackage) -> None:
        from scaleenv_mcp.procedural.validate import validate_domain

        # stop_on_runaway: the gate needs a verdict, so the first runaway tool ends the run
        report = await validate_domain(package.path, mutation=False, workers=1, cache=self.validations,
                                       stop_on_runaway=True)
        if report.servable:
            self._online(package, "online")
            log.info("domain %s passed validation and is online", package.slug)
            return
        if report.runaway:
            self.status[package.slug] = f"rejected: {report.runaway}"
        else:
            reasons = [f.reason for f in report.findings] + [f.name for f in report.failures]
            self.status[package.slug] = f"failed validation: {'; '.join(reasons[:3])}"
        log.warning("not serving domain %s: %s", package.slug, self.status[package.slug])

    @property
    def load_errors(self) -> dict[str, str]:
        """Domains not served, with the reason (broken or failed validation)."""
        return {slug: status for slug, status in self.status.items() if not status.startswith(("online", "validating"))}

    @classmethod
    @contextlib.asynccontextmanager
    async def running(cls, settings: HostSettings | None = None, domain_dirs: list[Path] | None = None,
                      domains: list[str] | None = None, *, wait: bool = True) -> AsyncIterator[Host]:
        """Start a host. Domains not yet validated at their current contents are validated
        first; with ``wait=False`` (``scaleenv serve``) the host is usable at once and each
        such domain comes online as it passes."""
        host = cls(settings, domain_dirs, domains)
        pending = host.load_domains()
        host.pool.start()
        host._reaper = asyncio.create_task(host._reap_forever())
        validations = [asyncio.create_task(host._validate_and_serve(p)) for p in pending]
        try:
            if wait and validations:
                await asyncio.gather(*validations)
            yield host
        finally:
            for task in validations:
                task.cancel()
            host._reaper.cancel()
            await asyncio.gather(host._reaper, *validations, return_exceptions=True)
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
