"""``tasks synth --ray``: each round's candidates built and verified inside the host actors (``ClusterBuilds``).

Every host actor opens a ``building.CandidateBuilder`` once per run, as a job of its own in-process
host (``HostActor.open_job``), and keeps it across rounds. Per round the driver deals the indices
out to the actors (interleaved, so each gets a like mix), awaits them together and merges the
outcomes by index; the determinism gate and the quotas stay with the caller. A draft is staged only
on the actor that builds it, and no episode operation crosses the network: one Ray call per actor
per round.

Faults: an actor that dies (its process killed, its node gone) fails the round's call to it; the run
then ends with an ``EnvironmentFaultError`` naming the actor, before anything is written. The actors
are started with no restarts: a restarted actor would have lost the run's builder anyway.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
from collections.abc import AsyncIterator, Sequence
from typing import Any

from scaleenv_mcp.cluster.hosts import RayHosts, RaySlot, ray_cause
from scaleenv_mcp.cluster.requirement import import_ray
from scaleenv_mcp.domain.loader import DomainPackage
from scaleenv_mcp.errors import EnvironmentFaultError
from scaleenv_mcp.gathering import gather_all
from scaleenv_mcp.generator.synthesis.building import BuilderSummary, BuildRound, RoundResult, StartBuilder
from scaleenv_mcp.settings import HostSettings

__all__ = ["ClusterBuilds"]

log = logging.getLogger("scaleenv.synthesis")


class ClusterBuilds:
    """A synthesis run's builders, one in each host actor of a ``RayHosts``."""

    def __init__(self, cluster: RayHosts, key: str, summary: BuilderSummary) -> None:
        self.cluster = cluster
        self.key = key
        self._kinds = set(summary.kinds)

    @property
    def kinds(self) -> set[str]:
        return set(self._kinds)

    @classmethod
    @contextlib.asynccontextmanager
    async def running(cls, settings: HostSettings, package: DomainPackage, seed: int, in_flight: int, *,
                      address: str, hosts: int | None) -> AsyncIterator[ClusterBuilds]:
        """``hosts`` host actors serving ``package`` on the cluster at ``address``, each with a builder of
        this run started, for the block.

        Raises:
            UsageError: more hosts than the cluster has CPUs for.
            EnvironmentFaultError: Ray missing or unreachable; an actor that does not serve the package,
                serves another version of it, or died.
        """
        key = f"synth:{package.slug}:{seed}:{secrets.token_hex(4)}"
        async with RayHosts.running(settings, domains=[str(package.path)], hosts=hosts, address=address,
                                    max_restarts=0) as cluster:
            opener = StartBuilder(package.slug, seed, in_flight)
            try:  # from the first open: an open that fails, or a version that differs, closes the others' jobs
                summaries = await gather_all(_on(slot, "open_job", key, opener) for slot in cluster.slots)
                for slot, summary in zip(cluster.slots, summaries):
                    if summary.package_hash != package.content_hash:
                        raise EnvironmentFaultError(f"{slot.name} serves another version of {package.slug} "
                                                    f"({summary.package_hash[:12]}, here {package.content_hash[:12]})")
                yield cls(cluster, key, summaries[0])
            finally:
                with contextlib.suppress(Exception):  # the actors stop next anyway; a dead one has nothing to close
                    await gather_all(slot.actor.close_job.remote(key) for slot in cluster.slots)

    async def build(self, indices: Sequence[int], full: set[str]) -> RoundResult:
        """Candidates ``indices`` built and verified inside the actors, ``indices[a::actors]`` on actor a.

        Raises:
            EnvironmentFaultError: an actor died (named); the run must stop and write nothing.
        """
        slots = self.cluster.slots
        work = [(slot, tuple(indices[a::len(slots)])) for a, slot in enumerate(slots) if indices[a::len(slots)]]
        log.info("%d candidates sent to %d host actors", len(indices), len(work))
        results = await gather_all(_on(slot, "in_job", self.key, BuildRound(share, frozenset(full)))
                                   for slot, share in work)
        merged = RoundResult([])
        for (slot, share), result in zip(work, results):
            # the pid the builder ran in, as it reported it (tests check it is a host actor's process)
            log.info("%d candidates built in host actor %d (node %s, pid %d)", len(share), slot.index,
                     slot.address.node, result.pid)
            merged.add(result)
        return merged


async def _on(slot: RaySlot, method: str, *args: Any) -> Any:
    """``method`` of ``slot``'s actor; a death or a failure there as an ``EnvironmentFaultError`` naming it."""
    ray = import_ray()
    try:
        return await getattr(slot.actor, method).remote(*args)
    except ray.exceptions.RayTaskError as error:
        cause = ray_cause(error)
        if cause is not error and not isinstance(cause, ray.exceptions.RayError):
            raise cause from None  # what the actor's code raised (a project error, or a bug), as a local run raises it
        raise EnvironmentFaultError(f"{method} on {slot.name} failed: {type(cause).__name__}: "
                                    f"{str(cause).strip().splitlines()[0] if str(cause).strip() else ''}") from None
    except ray.exceptions.RayError as error:  # the actor died: its process, or its node, is gone
        raise EnvironmentFaultError(f"{slot.name} was lost ({type(error).__name__}: the Ray actor died): the "
                                    "candidates it was building went with it; the synthesis stops and writes "
                                    "nothing: run it again (the same seed gives the same tasks)") from None
