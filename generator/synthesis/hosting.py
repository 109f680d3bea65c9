"""Where task synthesis builds its candidates: in this process, or inside host actors on a Ray cluster (``--ray``).

``SynthesisHost`` is every operation synthesis performs on episodes (candidate.py, task_state.py,
refusals.py, questions.py...); the in-process ``Host`` offers them. Candidates are always built and
verified by a ``building.CandidateBuilder`` against an in-process host: here, the command's own;
with ``--ray``, each host actor's (``cluster_building``), so a round's indices are split over the
actors and every episode operation stays inside the actor that holds it. A candidate acts only on
episodes of its own, so where it is built never changes it, and the same seed writes the same file
either way (tests/integration/test_ray_synth.py).

``synthesis_hosting`` starts one or the other as a ``CandidateBuilds``: the kinds the run can build,
and ``build``, one round's outcomes in index order.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from scaleenv_mcp.domain.loader import DomainPackage
from scaleenv_mcp.domain.task import Task
from scaleenv_mcp.episodes.trace import CallOutcome
from scaleenv_mcp.errors import UsageError
from scaleenv_mcp.host.control_models import EpisodeInfo
from scaleenv_mcp.state.diff import StateDiff

if TYPE_CHECKING:
    from scaleenv_mcp.generator.synthesis.building import RoundResult
    from scaleenv_mcp.generator.synthesis.chain_code import ChainWriter
    from scaleenv_mcp.generator.synthesis.gate import ChainGate

__all__ = ["CandidateBuilds", "SynthesisHost", "synthesis_hosting"]


class SynthesisHost(Protocol):
    """The episode operations of task synthesis (the in-process ``Host`` offers them)."""

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


class CandidateBuilds(Protocol):
    """Where one synthesis run builds and verifies its candidates."""

    @property
    def kinds(self) -> set[str]:
        """The kinds of task the run can build (its quotas are set from them)."""
        ...

    async def build(self, indices: Sequence[int], full: set[str]) -> RoundResult:
        """Outcomes of candidates ``indices`` in index order (a kind in ``full`` is not built).

        Raises:
            EnvironmentFaultError: the harness failed (with ``--ray``: a host actor lost, named).
        """
        ...


@contextlib.asynccontextmanager
async def synthesis_hosting(package: DomainPackage, seed: int, workers: int | None, ray: str | None = None,
                            hosts: int | None = None, gate: ChainGate | None = None,
                            writer: ChainWriter | None = None) -> AsyncIterator[CandidateBuilds]:
    """Candidates of ``package`` and ``seed`` built on an in-process host with ``workers`` workers, or with
    ``ray`` (an address: local, auto or host:port) inside ``hosts`` host actors of that cluster with
    ``workers`` workers each.

    Raises:
        UsageError: ``hosts`` without ``ray``; more hosts than the cluster has CPUs for; ``ray`` with a
            chain ``writer`` or a ``gate`` of one's own (they stay in this process: only the offline mode
            runs on Ray).
        EnvironmentFaultError: the package is not served (broken, failed validation); Ray missing or
            unreachable.
    """
    from scaleenv_mcp.cluster.options import require_ray_for_hosts
    from scaleenv_mcp.generator.synthesis.building import CandidateBuilder, served_package
    from scaleenv_mcp.settings import HostSettings

    require_ray_for_hosts(ray, hosts)
    if ray is not None and (writer is not None or gate is not None):
        raise UsageError("tasks synth --ray runs the offline synthesis only (sampled seed chains, the rule "
                         "gate): run a chain writer or a gate of your own without --ray")
    settings = HostSettings.for_proving(workers=workers, port=0, control_port=None, max_harness_episodes=100000)
    in_flight = max(2, 3 * (workers or 2))  # per host
    if ray is None:
        from scaleenv_mcp.host.host import Host

        async with Host.running(settings, domains=[str(package.path)]) as host:
            served_package(host, package.slug)  # online, or why not
            yield await CandidateBuilder.started(host, package, seed, in_flight, gate, writer)
        return
    from scaleenv_mcp.generator.synthesis.cluster_building import ClusterBuilds

    async with ClusterBuilds.running(settings, package, seed, in_flight, address=ray, hosts=hosts) as builds:
        yield builds
