"""``scaleenv verify``: run every gate on a domain's tasks, over memory or streamable HTTP.

Without ``control_url`` it starts its own host (and, for ``http``, its own loopback
listeners) and serves exactly the tasks being verified; with ``control_url`` it drives a
running host, whose tasks are the ones in that host's package; with ``ray`` the per-task gates run
as Ray tasks (``on_ray``). Tasks run concurrently (a
semaphore bounds the episodes in flight); the determinism gate replays the batch of tasks
whose gold replay passed at once, on workers started under another PYTHONHASHSEED.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from pydantic import BaseModel, Field

from scaleenv_mcp.domain.loader import DomainPackage, load_domain
from scaleenv_mcp.domain.task import Task
from scaleenv_mcp.domain.task_file import load_tasks, rank_by_id_hash
from scaleenv_mcp.errors import EnvironmentFaultError, UsageError
from scaleenv_mcp.verifier.determinism import verify_determinism
from scaleenv_mcp.verifier.gates import TaskVerdict, verify_guarded
from scaleenv_mcp.verifier.on_ray import verify_on_ray
from scaleenv_mcp.verifier.replay import HttpTransport, MemoryTransport, Transport

__all__ = ["VerifyReport", "sample_tasks", "served_transport", "verify_domain", "verify_tasks"]

Progress = Callable[[int, int], None]


class VerifyReport(BaseModel):
    domain: str
    package_hash: str
    transport: str
    tasks: int
    passed: int
    failed: int
    environment_errors: int = Field(description="Tasks the harness could not check (exit code 3).")
    failures_by_gate: dict[str, int] = Field(default_factory=dict)
    seconds: float
    tasks_per_second: float
    verdicts: list[TaskVerdict]


def sample_tasks(tasks: list[Task], size: int | None) -> list[Task]:
    """A deterministic sample: the tasks whose id hashes lowest (stable as tasks are added)."""
    ordered = sorted(tasks, key=lambda t: t.id)
    if size is None or size >= len(ordered):
        return ordered
    ranked = rank_by_id_hash(ordered)[:size]
    return sorted(ranked, key=lambda t: t.id)


@contextlib.asynccontextmanager
async def served_transport(package: DomainPackage, tasks: list[Task], transport: str, workers: int | None,
                           url: str | None = None, control_url: str | None = None,
                           token_file: Path | None = None, validate: bool = True) -> AsyncIterator[Transport]:
    """A transport to episodes of ``tasks``: our own host (memory or loopback HTTP) or a remote host
    (``verify --ray`` runs its replays as Ray tasks instead: ``scaleenv_mcp.verifier.on_ray``).

    ``validate=False`` serves the package without the host's procedural validation (for
    checks of tasks whose domain is validated elsewhere, like the CI sample replay).
    """
    from scaleenv_mcp.host.host import Host
    from scaleenv_mcp.settings import HostSettings

    if transport not in ("memory", "http"):
        raise UsageError(f"--transport must be memory or http, not {transport!r}")
    if url is not None and control_url is None:
        raise UsageError("--url names a running host's agent listener: give its --control-url and --token-file too")
    if control_url is not None:
        if transport != "http":
            raise UsageError("--control-url needs --transport http")
        if token_file is None:
            raise UsageError("--control-url needs --token-file")
        remote = HttpTransport(package.slug, control_url, token_file=token_file, agent_url=url)
        try:
            yield remote
        finally:
            await remote.aclose()
        return
    settings = HostSettings.for_proving(workers=workers, port=0, control_port=0 if transport == "http" else None,
                                        max_harness_episodes=100000, skip_validation=True if not validate else None)
    async with Host.running(settings, domains=[str(package.path)]) as host:
        status = host.status.get(package.slug, "not found")
        if not status.startswith("online"):
            raise EnvironmentFaultError(f"the host does not serve {package.slug}: {status}")
        await host.stage_tasks(package.slug, tasks)
        if transport == "memory":
            yield MemoryTransport(host, package.slug)
            return
        from scaleenv_mcp.host.listeners import serving

        async with serving(host, settings) as listeners:
            assert listeners.control_url is not None
            remote = HttpTransport(package.slug, listeners.control_url, token=listeners.token,
                                   agent_url=listeners.agent_url)
            try:
                yield remote
            finally:
                await remote.aclose()


async def verify_tasks(package: DomainPackage, tasks: list[Task], transport: Transport, *, check_stamp: bool = True,
                       concurrency: int = 8, progress: Progress | None = None) -> list[TaskVerdict]:
    """Per-task gates for every task, ``concurrency`` at a time, in task order."""
    gate = asyncio.Semaphore(concurrency)
    done = 0

    async def one(task: Task) -> TaskVerdict:
        nonlocal done
        async with gate:
            verdict = await verify_guarded(task, transport, package.manifest,
                                           package.content_hash if check_stamp else None, package.seed)
        done += 1
        if progress:
            progress(done, len(tasks))
        return verdict

    return list(await asyncio.gather(*(one(t) for t in tasks)))


async def apply_determinism(package: DomainPackage, tasks: list[Task], verdicts: list[TaskVerdict],
                            validate: bool = True) -> None:
    """Add the determinism gate to every verdict whose gold replay passed (one batch, other hash seed);
    ``validate`` as the run's own host (False: it was told to serve the package unvalidated)."""
    by_id = {t.id: t for t in tasks}
    replayed = [v for v in verdicts if v.fingerprint is not None and "gold_replay" not in v.failed_gates]
    if not replayed:
        return
    found = await verify_determinism(package.path, [by_id[v.task_id] for v in replayed],
                                     {v.task_id: v.fingerprint or "" for v in replayed}, validate)
    for verdict in replayed:
        problem = found.get(verdict.task_id)
        verdict.add("determinism", problem is None, problem or "")


async def verify_domain(domain_path: Path, tasks_file: Path | None = None, transport: str = "memory",
                        url: str | None = None, control_url: str | None = None, token_file: Path | None = None,
                        sample: int | None = None, workers: int | None = None, determinism: bool = True,
                        progress: Progress | None = None, validate: bool = True, ray: str | None = None,
                        hosts: int | None = None) -> VerifyReport:
    """Verify a domain's tasks (its tasks.jsonl, or ``tasks_file``) and report per task and gate; with ``ray``,
    the per-task gates run as Ray tasks against episodes on ``hosts`` host actors of that Ray cluster
    (``verifier.on_ray``: the same report as a local run over http but for the timings)."""
    started = time.perf_counter()
    package = load_domain(domain_path)
    tasks = load_tasks(tasks_file) if tasks_file else list(package.tasks.values())
    if not tasks:
        raise UsageError(f"no tasks to verify for {package.slug} (synthesise them with `scaleenv tasks synth`)")
    tasks = sample_tasks(tasks, sample)
    concurrency = max(2, 4 * (workers or 2) * (hosts or 1))
    if ray is not None:
        if transport != "http" or control_url is not None or url is not None:
            raise UsageError("--ray starts its own host actors, reached over HTTP: give --transport http and no "
                             "--url or --control-url")
        verdicts = await verify_on_ray(package, tasks, workers=workers, validate=validate, address=ray, hosts=hosts,
                                       concurrency=concurrency, progress=progress)
    else:
        async with served_transport(package, tasks, transport, workers, url, control_url, token_file,
                                    validate) as served:
            verdicts = await verify_tasks(package, tasks, served, concurrency=concurrency, progress=progress)
    if determinism:
        await apply_determinism(package, tasks, verdicts, validate)
    seconds = time.perf_counter() - started
    failures: Counter[str] = Counter(g for v in verdicts for g in v.failed_gates)
    env_errors = sum(1 for v in verdicts if "environment" in v.failed_gates)
    passed = sum(1 for v in verdicts if v.passed)
    return VerifyReport(domain=package.slug, package_hash=package.content_hash, transport=transport, tasks=len(tasks),
                        passed=passed, failed=len(tasks) - passed, environment_errors=env_errors,
                        failures_by_gate=dict(sorted(failures.items())), seconds=round(seconds, 2),
                        tasks_per_second=round(len(tasks) / seconds, 2) if seconds else 0.0, verdicts=verdicts)

