"""``verify --ray``: the per-task gates run as Ray tasks against episodes on host actors (docs/cluster.md).

The driver starts the host actors and the control API over them (``cluster.hosts.cluster_control``), then
hands the tasks to ``cluster.ray_tasks.run_as_ray_tasks``: each Ray task opens its own ``HttpTransport``
to that control API (the URL and token travel with the job) and runs ``verify_guarded`` on its tasks, as
the local run does on its own. The verdicts come back in task order, so the report is the local run's
but for the timings. The determinism gate is not run here: ``verify_domain`` runs it locally afterwards,
as without Ray. This module must not decide what a gate checks.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from scaleenv_mcp.domain.loader import DomainPackage
from scaleenv_mcp.domain.manifest import DomainManifest
from scaleenv_mcp.domain.task import Task
from scaleenv_mcp.verifier.gates import TaskVerdict, environment_verdict, verify_guarded
from scaleenv_mcp.verifier.replay import HttpTransport

__all__ = ["VerifyJob", "verify_on_ray"]


@dataclass(frozen=True)
class VerifyJob:
    """What a Ray task needs to verify its tasks: data only (it is pickled to the worker)."""

    slug: str
    control_url: str
    token: str
    manifest: DomainManifest
    package_hash: str | None
    seed: dict[str, list[dict[str, Any]]] | None

    @contextlib.asynccontextmanager
    async def open(self) -> AsyncIterator[Callable[[Task], Awaitable[TaskVerdict]]]:
        """One transport for the Ray task's tasks (its HTTP client is shared by their MCP connections)."""
        transport = HttpTransport(self.slug, self.control_url, token=self.token)

        async def one(task: Task) -> TaskVerdict:
            return await verify_guarded(task, transport, self.manifest, self.package_hash, self.seed)

        try:
            yield one
        finally:
            await transport.aclose()


async def verify_on_ray(package: DomainPackage, tasks: list[Task], *, workers: int | None, validate: bool,
                        address: str, hosts: int | None, concurrency: int,
                        progress: Callable[[int, int], None] | None = None) -> list[TaskVerdict]:
    """The per-task verdicts of ``tasks`` (no determinism gate), verified in Ray tasks, one per host actor
    (each ``concurrency`` / actors tasks at a time), against episodes on ``hosts`` host actors of the Ray
    cluster at ``address``; in task order.

    Raises:
        UsageError: more hosts than the cluster has CPUs for.
        EnvironmentFaultError: Ray missing or unreachable; an actor that failed to start.
    """
    from scaleenv_mcp.cluster.hosts import cluster_control
    from scaleenv_mcp.cluster.ray_tasks import run_as_ray_tasks
    from scaleenv_mcp.settings import HostSettings

    settings = HostSettings.for_proving(workers=workers, max_harness_episodes=100000,
                                        skip_validation=True if not validate else None)
    done = 0

    def arrived(_: int, __: TaskVerdict) -> None:
        nonlocal done
        done += 1
        if progress:
            progress(done, len(tasks))

    async with cluster_control(settings, domains=[str(package.path)], address=address, hosts=hosts,
                               staged={package.slug: tasks}) as served:
        job = VerifyJob(package.slug, served.url, served.cluster.token, package.manifest, package.content_hash,
                        package.seed)
        return await run_as_ray_tasks(job, tasks, chunks=len(served.cluster.slots), concurrency=concurrency,
                                      reach=served.url, on_result=arrived,
                                      failed=lambda task, reason: environment_verdict(task.id, reason))
