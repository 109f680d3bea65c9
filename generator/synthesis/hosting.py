"""Where task synthesis runs its episodes: an in-process ``Host``, or host actors on a Ray cluster (``--ray``).

``SynthesisHost`` is every operation synthesis performs on episodes (candidate.py, task_state.py,
refusals.py, questions.py...): the in-process ``Host`` offers them as they are, and so does
``scaleenv_mcp.cluster.episodes.ClusterEpisodes`` over host actors (control through the router,
tool calls over MCP to each episode's actor). One code path drives both; a candidate acts only on
episodes of its own, so which host holds them never changes what it builds, and the same seed writes
the same file either way (tests/integration/test_ray_synth.py).

``synthesis_hosting`` starts one or the other with what else a run needs: the transport the
verifier's gates replay each candidate on, and ``check``, which a run calls after every round and
before it writes: on the cluster it fails the run when an actor was lost (docs/cluster.md).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from scaleenv_mcp.domain.loader import DomainPackage
from scaleenv_mcp.domain.task import Task
from scaleenv_mcp.episodes.trace import CallOutcome
from scaleenv_mcp.errors import EnvironmentFaultError
from scaleenv_mcp.host.control_models import EpisodeInfo
from scaleenv_mcp.state.diff import StateDiff
from scaleenv_mcp.verifier.replay import Transport

if TYPE_CHECKING:  # imported only when a run uses Ray
    from scaleenv_mcp.cluster.episodes import ClusterEpisodes

__all__ = ["SynthesisHost", "SynthesisHosting", "synthesis_hosting"]


class SynthesisHost(Protocol):
    """The episode operations of task synthesis (``Host`` and ``ClusterEpisodes`` offer them)."""

    @property
    def worker_count(self) -> int:
        """Worker processes serving the episodes (synthesis keeps one seed episode per worker)."""
        ...

    async def create_episode(self, domain: str, task_id: str | None = None) -> EpisodeInfo:
        """A fresh episode, from the seed or from a staged task."""
        ...

    async def call(self, episode_id: str, tool: str, arguments: dict[str, Any] | None = None) -> CallOutcome:
        """One tool call; a refusal is an outcome, a harness failure a ``HarnessError``."""
        ...

    async def fork(self, episode_id: str) -> EpisodeInfo:
        """A copy of the episode (state, trace and call count)."""
        ...

    async def close(self, episode_id: str) -> None: ...

    async def diff(self, episode_id: str, against: str | None = None) -> StateDiff: ...

    async def fingerprint(self, episode_id: str) -> str: ...

    async def stage_tasks(self, domain: str, tasks: Iterable[Task]) -> None:
        """Make draft tasks creatable (their setup rows are a candidate's start state)."""
        ...

    async def unstage_tasks(self, domain: str, task_ids: Iterable[str]) -> None: ...


async def _always_whole() -> None:
    """An in-process host cannot lose part of itself: a fault there ends the run by itself."""


async def _require_hosts(episodes: ClusterEpisodes) -> None:
    """Every host actor still the one the run began on; else the run ends here, saying what to do."""
    try:
        await episodes.require_hosts()
    except EnvironmentFaultError as error:
        raise EnvironmentFaultError(f"{error.message}; the synthesis stops and writes nothing: run it again (the "
                                    "same seed gives the same tasks)") from None


@dataclass(frozen=True)
class SynthesisHosting:
    """The host of one synthesis run, and what goes with it."""

    host: SynthesisHost
    transport: Transport  # where the verifier's gates replay each candidate
    in_flight: int  # candidates built at once (how many never changes what is built)
    check: Callable[[], Awaitable[None]] = _always_whole  # raises EnvironmentFaultError when a host was lost


@contextlib.asynccontextmanager
async def synthesis_hosting(package: DomainPackage, workers: int | None, ray: str | None = None,
                            hosts: int | None = None) -> AsyncIterator[SynthesisHosting]:
    """An in-process host serving ``package`` with ``workers`` workers, or with ``ray`` (an address:
    local, auto or host:port) ``hosts`` host actors of that cluster with ``workers`` workers each.

    Raises:
        UsageError: ``hosts`` without ``ray``; more hosts than the cluster has CPUs for.
        EnvironmentFaultError: the package is not served (broken, failed validation); Ray missing or
            unreachable.
    """
    from scaleenv_mcp.cluster.options import require_ray_for_hosts
    from scaleenv_mcp.settings import HostSettings
    from scaleenv_mcp.verifier.replay import HttpTransport, MemoryTransport

    require_ray_for_hosts(ray, hosts)
    settings = HostSettings.for_proving(workers=workers, port=0, control_port=None, max_harness_episodes=100000)
    in_flight = max(2, 3 * (workers or 2))  # per host
    if ray is None:
        from scaleenv_mcp.host.host import Host

        async with Host.running(settings, domains=[str(package.path)]) as host:
            status = host.status.get(package.slug, "not found")
            if not status.startswith("online"):
                raise EnvironmentFaultError(f"cannot synthesise for {package.slug}: {status}")
            yield SynthesisHosting(host, MemoryTransport(host, package.slug), in_flight)
        return
    from scaleenv_mcp.cluster.episodes import ClusterEpisodes
    from scaleenv_mcp.cluster.hosts import cluster_control

    async with (cluster_control(settings, domains=[str(package.path)], address=ray, hosts=hosts,
                                staged={package.slug: []}) as served,  # staging nothing: checks every actor serves it
                ClusterEpisodes.opened(served.cluster, package.slug) as episodes):
        transport = HttpTransport(package.slug, served.url, token_file=served.token_file)
        try:
            # Every operation is a network round trip here: four times the candidates in flight keep the actors
            # busy while each waits (20 smart_home tasks on two actors of a 2-core machine: 120 s -> 73 s).
            yield SynthesisHosting(episodes, transport, 4 * in_flight * len(served.cluster.slots),
                                   lambda: _require_hosts(episodes))
        finally:
            await transport.aclose()
