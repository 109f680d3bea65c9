"""The in-process host: domains, worker pool and episode registry, started and stopped together.

This is the Python API for tests, synthesis, verification and RL code (``async with
Host.running(...) as host``), and what ``scaleenv serve`` runs behind its listeners. Its
episode methods are the control API's operations with the same models (``EpisodeControl``;
``ControlClient`` is their HTTP twin), plus ``call`` and task staging, which only an
in-process host offers. It never imports the generator or openai, and imports the MCP SDK only when
an MCP server or client of an episode is asked for (``episode_server``, ``client``): ``scaleenv call``
and every Python-API user that drives episodes directly skip its second of start-up.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scaleenv_mcp.domain.catalog import find_domains
from scaleenv_mcp.domain.loader import DomainPackage, load_domain
from scaleenv_mcp.domain.task import Task
from scaleenv_mcp.episodes import durable
from scaleenv_mcp.episodes.keyed import KeyedEpisodes
from scaleenv_mcp.episodes.registry import Episode, EpisodeOrigin, EpisodeRegistry
from scaleenv_mcp.episodes.trace import CallOutcome, TraceRecord
from scaleenv_mcp.errors import DomainError, ScaleEnvError
from scaleenv_mcp.host.control_models import DomainInfo, EpisodeInfo, EpisodeSpec, ErrorInfo, RewardBatch, TaskCard
from scaleenv_mcp.procedural.cache import ValidationCache, validation_key
from scaleenv_mcp.settings import HostSettings
from scaleenv_mcp.state.diff import StateDiff
from scaleenv_mcp.state.reward import RewardReport
from scaleenv_mcp.workers.pool import WorkerPool

__all__ = ["Host"]

log = logging.getLogger("scaleenv.host")


def _load_or_error(path: Path) -> DomainPackage | DomainError:
    try:
        return load_domain(path)
    except DomainError as error:
        return error


class Host:
    """Serve domain packages: load them, run their tools in workers, keep episodes apart."""

    def __init__(self, settings: HostSettings | None = None, domain_dirs: list[Path] | None = None,
                 domains: list[str] | None = None, *, worker_env: dict[str, str] | None = None) -> None:
        """``worker_env``: variables the worker processes start with on top of this process's (the
        determinism gate runs the tools under another PYTHONHASHSEED this way)."""
        self.settings = settings or HostSettings()
        self.domain_dirs = domain_dirs
        self.only = set(domains) if domains else None
        self.pool = WorkerPool(self.settings.workers, self.settings.worker_memory_mb * 1024 * 1024,
                               max_pages=self.settings.max_db_mb * 1024 * 1024 // 4096,
                               max_result_bytes=self.settings.max_result_bytes,
                               check_outputs=self.settings.check_outputs, stall_after=self.settings.stall_after,
                               env=worker_env)
        self.registry = EpisodeRegistry(self.pool, self.settings)  # internal: callers use the methods below
        self.keyed = KeyedEpisodes(self.registry, self.settings)  # internal: /mcp/{domain}/s/{key} (host/http.py)
        self.agent_url: str | None = None  # the agent listener, while one serves this host (EpisodeInfo.agent_url)
        self.status: dict[str, str] = {}  # slug -> online | validating | broken: ... | failed validation: ... | rejected: ...
        self.validations = ValidationCache(self.settings.state_dir)
        self._reaper: asyncio.Task[None] | None = None
        self._validations: list[asyncio.Task[None]] = []
        # observers for `scaleenv serve`'s display: a domain's status changed; validation progressed
        self.on_status: Callable[[str, str], None] | None = None
        self.on_progress: Callable[[str, int, int], None] | None = None

    def packages(self) -> dict[str, Path]:
        """Slug -> folder of every package this host serves (or tried to)."""
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
        for slug, path in sorted(self.packages().items()):
            if (package := self._admit(slug, path, _load_or_error(path))) is not None:
                pending.append(package)
        return pending

    async def come_online(self) -> None:
        """Load (in a thread, so the listeners answer meanwhile) and validate every package;
        return once each domain is online or has failed. What ``scaleenv serve`` waits on."""
        packages = sorted(self.packages().items())
        for slug, _ in packages:
            self._set_status(slug, "loading")
        pending = []
        for slug, path in packages:
            if (package := self._admit(slug, path, await asyncio.to_thread(_load_or_error, path))) is not None:
                pending.append(package)
        self.pool.start()  # after loading: booting workers would compete with it for the CPU
        tasks = [asyncio.create_task(self._validate_and_serve(p)) for p in pending]
        self._validations += tasks
        for package, result in zip(pending, await asyncio.gather(*tasks, return_exceptions=True)):
            if isinstance(result, Exception):  # a bug of the gate must not leave a domain 'validating' for ever
                self._set_status(package.slug, f"failed validation: {type(result).__name__}: {result}")

    def _admit(self, slug: str, path: Path, loaded: DomainPackage | DomainError) -> DomainPackage | None:
        """Bring a loaded package online, or mark it broken; return it when it needs validation."""
        if isinstance(loaded, DomainError):
            self._set_status(slug, f"broken: {loaded.message}")
            log.warning("not serving domain %s: %s", slug, loaded.message)
            return None
        if self.settings.skip_validation:
            log.warning("SERVING %s WITHOUT VALIDATION (--skip-validation is for development only)", slug)
            self._online(loaded, "online (validation skipped)")
        elif self.validations.lookup(validation_key(loaded)):
            self._online(loaded, "online")
        else:
            self._set_status(slug, "validating")
            return loaded
        return None

    def _set_status(self, slug: str, status: str) -> None:
        self.status[slug] = status
        if self.on_status is not None:
            self.on_status(slug, status)

    def _online(self, package: DomainPackage, status: str) -> None:
        self.registry.add_domain(package)
        self._set_status(package.slug, status)

    async def _validate_and_serve(self, package: DomainPackage) -> None:
        from scaleenv_mcp.procedural.validate import validate_domain

        # stop_on_runaway: the gate needs a verdict, so the first runaway tool ends the run
        def progress(stage: str, done: int, total: int) -> None:
            if self.on_progress is not None:
                self.on_progress(package.slug, done, total)

        report = await validate_domain(package.path, mutation=False, workers=1, cache=self.validations,
                                       stop_on_runaway=True, progress=progress)
        if report.servable:
            self._online(package, "online")
            log.info("domain %s passed validation and is online", package.slug)
            return
        if report.runaway:
            self._set_status(package.slug, f"rejected: {report.runaway}")
        else:
            reasons = [f.reason for f in report.findings] + [f.name for f in report.failures]
            self._set_status(package.slug, f"failed validation: {'; '.join(reasons[:3])}")
        log.warning("not serving domain %s: %s", package.slug, self.status[package.slug])

    @property
    def load_errors(self) -> dict[str, str]:
        """Domains not served, with the reason (broken or failed validation)."""
        return {slug: status for slug, status in self.status.items()
                if not status.startswith(("online", "validating", "loading"))}

    @classmethod
    @contextlib.asynccontextmanager
    async def running(cls, settings: HostSettings | None = None, domain_dirs: list[Path] | None = None,
                      domains: list[str] | None = None, *, wait: bool = True, load: bool = True,
                      worker_env: dict[str, str] | None = None) -> AsyncIterator[Host]:
        """Start a host. Domains not yet validated at their current contents are validated
        first; with ``wait=False`` the host is usable at once and each such domain comes
        online as it passes. With ``load=False`` nothing is loaded: the caller awaits
        ``come_online()`` (``scaleenv serve``, which binds its listeners first)."""
        host = cls(settings, domain_dirs, domains, worker_env=worker_env)
        host.registry.lost.open()  # episodes a stopped host on this state directory left open are lost
        pending = host.load_domains() if load else []
        if load:
            host.pool.start()
        host._reaper = asyncio.create_task(host._reap_forever())
        host._validations = [asyncio.create_task(host._validate_and_serve(p)) for p in pending]
        try:
            if wait and host._validations:
                await asyncio.gather(*host._validations)
            yield host
        finally:
            for task in host._validations:
                task.cancel()
            host._reaper.cancel()
            await asyncio.gather(host._reaper, *host._validations, return_exceptions=True)
            host.pool.stop()
            host.registry.lost.close(episodes_open=bool(host.registry.episodes))

    async def _reap_forever(self) -> None:
        interval = max(1.0, min(60.0, min(self.settings.idle_timeout, self.settings.key_idle_timeout) / 4))
        while True:
            await asyncio.sleep(interval)
            closed = await self.registry.close_idle()
            if closed:
                log.info("closed %d idle episodes", len(closed))

    # -- the public episode API (EpisodeControl, plus what only an in-process host can do) ----
    # Every package above the core drives episodes through these methods, never through the
    # registry or the pool (tests/contract/test_layers_and_api.py fails on a reach-in).
    def _info(self, episode: Episode) -> EpisodeInfo:
        url = f"{self.agent_url}/mcp/episodes/{episode.id}" if self.agent_url else ""
        return EpisodeInfo(**episode.summary(), agent_url=url)

    async def domains(self) -> list[DomainInfo]:
        return [DomainInfo(slug=r.slug, title=r.manifest.title, tools=len(r.manifest.tools), tasks=len(r.package.tasks))
                for r in self.registry.domains.values()]

    async def create_episode(self, domain: str, task_id: str | None = None,
                             origin: EpisodeOrigin = EpisodeOrigin.harness) -> EpisodeInfo:
        """One fresh episode of ``domain``, from its seed or from the task ``task_id``."""
        return self._info(await self.registry.create(domain, task_id, origin))

    async def create_episodes(self, domain: str, task_id: str | None = None, count: int = 1) -> list[EpisodeInfo]:
        """``count`` fresh episodes of one domain, from its seed or from a task; all or nothing."""
        return await self.create_many([EpisodeSpec(domain=domain, task_id=task_id)] * count)

    async def create_many(self, specs: Iterable[EpisodeSpec | dict[str, Any]]) -> list[EpisodeInfo]:
        """One episode per spec (``{"domain", "task_id"}``); all or nothing: a batch past the cap leaves nothing.

        The creates run together (#25 item 3): each is placed on its worker before its first await,
        so the batch spreads over the workers, and its open requests are all in flight at once
        (a worker reads the ones queued for it in one go) instead of one round trip after another."""
        items = [spec if isinstance(spec, EpisodeSpec) else EpisodeSpec.model_validate(spec) for spec in specs]
        outcomes = await asyncio.gather(*(self.registry.create(i.domain, i.task_id) for i in items),
                                        return_exceptions=True)
        created = [o for o in outcomes if isinstance(o, Episode)]
        failure = next((o for o in outcomes if isinstance(o, BaseException)), None)
        if failure is not None:
            for episode in created:
                await self.registry.close(episode.id)
            raise failure
        return [self._info(e) for e in created]

    async def list_episodes(self) -> list[EpisodeInfo]:
        """The live episodes, in the order they were created."""
        return [self._info(e) for e in self.registry.episodes.values() if not e.closed]

    async def get_episode(self, episode_id: str) -> EpisodeInfo:
        return self._info(self.registry.get(episode_id))

    async def keyed_episode(self, domain: str, key: str) -> EpisodeInfo:
        """The episode a key of ``/mcp/{domain}/s/{key}`` holds, without creating one.

        Raises:
            EpisodeExpiredError: its episode expired or was closed. EpisodeNotFoundError: never used.
        """
        return self._info(self.registry.get(self.keyed.lookup(domain, key)))

    async def tasks(self, domain: str, split: str | None = None) -> list[TaskCard]:
        """A domain's tasks as a harness runs them (the user's side and the reference actions), by id."""
        return [TaskCard(id=t.id, domain=t.domain, split=t.split, difficulty=t.difficulty, kind=t.kind,
                         opening=t.user.opening, instruction=t.user.instruction, known=t.user.known,
                         withheld=t.user.withheld, actions=[a.model_dump(mode="json") for a in t.actions],
                         communicate=t.communicate)
                for t in sorted(self.registry.domain(domain).package.tasks.values(), key=lambda t: t.id)
                if split in (None, t.split)]

    async def call(self, episode_id: str, tool: str, arguments: dict[str, Any] | None = None) -> CallOutcome:
        """Run one tool call on the episode, without MCP (what synthesis and the determinism gate do).

        Raises:
            UnknownToolError, EpisodeNotFoundError, LimitExceededError, EnvironmentFaultError.
        """
        return await self.registry.call(episode_id, tool, arguments)

    async def close(self, episode_id: str) -> None:
        await self.registry.close(episode_id)

    async def reset(self, episode_id: str) -> EpisodeInfo:
        """Back to the start state; the trace and the call count are cleared."""
        await self.registry.reset(episode_id)
        return self._info(self.registry.get(episode_id))

    async def snapshot(self, episode_id: str, pinned: bool = False) -> str:
        return await self.registry.snapshot(episode_id, pinned=pinned)

    async def delete_snapshot(self, snapshot_id: str) -> None:
        self.registry.delete_snapshot(snapshot_id)

    def snapshots(self, episode_id: str) -> list[str]:
        """Ids of the snapshots taken of the episode that are still kept, sorted."""
        return sorted(k for k, s in self.registry.snapshots.items() if s.owner == episode_id)

    async def restore(self, episode_id: str, snapshot_id: str) -> EpisodeInfo:
        await self.registry.restore(episode_id, snapshot_id)
        return self._info(self.registry.get(episode_id))

    async def fork(self, episode_id: str) -> EpisodeInfo:
        """A new, independent episode with a copy of this one's state and trace."""
        return self._info(await self.registry.fork(episode_id))

    async def export_episode(self, episode_id: str) -> bytes:
        """The episode as one file (state, trace, call count, domain, package hash, task): episodes/episode_file.py."""
        return await durable.export_episode(self.registry, episode_id)

    async def export_snapshot(self, snapshot_id: str) -> bytes:
        """A snapshot as one file, in the format ``export_episode`` writes (with an empty trace)."""
        return durable.export_snapshot(self.registry, snapshot_id)

    async def import_episode(self, data: bytes, allow_other_version: bool = False) -> EpisodeInfo:
        """A new episode from an exported file, made on this host or another; the file is validated first.

        Raises:
            EpisodeFileError: another format version, corrupted, a domain or task not served, an SQLite
                image that fails validation; DomainVersionError (a subclass) when the domain package's hash
                differs and ``allow_other_version`` is not given. Nothing is created on any error.
            CapacityError: the harness episode cap is reached.
        """
        return self._info(await durable.import_episode(self.registry, data, allow_other_version))

    async def fingerprint(self, episode_id: str, full: bool = False) -> str:
        """The state's fingerprint; ``full`` recomputes it from every row (the reference the determinism gate uses)."""
        return await self.registry.fingerprint(episode_id, full=full)

    async def tables(self, episode_id: str, names: Sequence[str] | None = None) -> dict[str, Any]:
        return await self.registry.dump(episode_id, list(names) if names is not None else None)

    async def diff(self, episode_id: str, against: str | None = None) -> StateDiff:
        return await self.registry.diff(episode_id, against)

    async def reward(self, episode_id: str, messages: Sequence[str] | None = None) -> RewardReport:
        return await self.registry.reward(episode_id, list(messages) if messages is not None else None)

    async def rewards(self, episode_ids: Sequence[str]) -> RewardBatch:
        results = await asyncio.gather(*(self.registry.reward(e) for e in episode_ids), return_exceptions=True)
        rewards: dict[str, RewardReport | None] = {}
        errors: dict[str, ErrorInfo] = {}
        for episode_id, result in zip(episode_ids, results):
            if isinstance(result, RewardReport):
                rewards[episode_id] = result
                continue
            rewards[episode_id] = None
            errors[episode_id] = (ErrorInfo(code=result.code, message=result.message) if isinstance(result, ScaleEnvError)
                                  else ErrorInfo(code="internal", message="internal error"))
        return RewardBatch(rewards=rewards, errors=errors)

    async def trace(self, episode_id: str) -> list[TraceRecord]:
        return list(self.registry.get(episode_id).trace)

    def package(self, domain: str) -> DomainPackage | None:
        """The package served as ``domain`` (its manifest, seed and tasks, read only), or None when it is not online."""
        runtime = self.registry.domains.get(domain)
        return runtime.package if runtime is not None else None

    async def stage_tasks(self, domain: str, tasks: Iterable[Task]) -> None:
        """Make ``tasks`` creatable on this host, replacing same-id tasks of the served package.

        Tasks from a file other than the package's tasks.jsonl, or drafts during synthesis, are
        put into the served package's task table here (episodes are created from a task id)."""
        table = self.registry.domain(domain).package.tasks
        for task in tasks:
            table[task.id] = task

    async def unstage_tasks(self, domain: str, task_ids: Iterable[str]) -> None:
        table = self.registry.domain(domain).package.tasks
        for task_id in task_ids:
            table.pop(task_id, None)

    @property
    def worker_count(self) -> int:
        """Worker processes this host runs (episodes spread over them)."""
        return self.pool.size

    def worker_pids(self) -> list[int]:
        """Process ids of the live workers (for memory measurements)."""
        return [worker.pid for worker in self.pool.workers if worker.pid is not None]

    def episode_server(self, episode_id: str) -> Any:
        """A low-level MCP server bound to one episode (for stdio and in-memory clients)."""
        from scaleenv_mcp.host.server import build_domain_server

        episode = self.registry.get(episode_id)

        async def fixed(ctx: Any) -> str:
            return episode_id

        return build_domain_server(episode.domain, self.registry, fixed, interactive=episode.origin is EpisodeOrigin.interactive)

    def client(self, episode_id: str, **kwargs: Any) -> mcp.Client:
        """An in-memory MCP client bound to one episode: ``async with host.client(eid) as c``."""
        import mcp

        return mcp.Client(self.episode_server(episode_id), **kwargs)


if TYPE_CHECKING:
    import mcp

    from scaleenv_mcp.host.episode_control import EpisodeControl

    def _offers_episode_control(host: Host) -> EpisodeControl:  # the type checker holds Host to the Protocol
        return host
