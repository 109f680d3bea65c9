"""Build and verify candidates against one in-process ``Host``: ``CandidateBuilder``.

The one place a candidate goes from its index to (task or rejection, verdict): the factory builds it
on the host, its draft is staged on that host only, the verifier's gates replay it there in memory
(``MemoryTransport``), and it is unstaged. A local ``tasks synth`` runs one builder in its own process;
``tasks synth --ray`` runs one inside each host actor (``StartBuilder`` opens it there as a job of
``HostActor``, ``BuildRound`` runs a round's share of indices on it). Candidate ``i`` draws every
choice from its index and acts only on episodes of its own, so which builder builds it never changes
the outcome (tests/integration/test_ray_synth.py compares the files).

It must not decide what is accepted: the determinism gate and the kind quotas stay with the caller.
"""

from __future__ import annotations

import asyncio
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from scaleenv_mcp.domain.loader import DomainPackage
from scaleenv_mcp.domain.task import Task
from scaleenv_mcp.errors import EnvironmentFaultError
from scaleenv_mcp.gathering import gather_all
from scaleenv_mcp.generator.graph import build_graph
from scaleenv_mcp.generator.synthesis.candidate import CandidateFactory, Rejection
from scaleenv_mcp.generator.synthesis.chain_code import ChainWriter
from scaleenv_mcp.generator.synthesis.gate import ChainGate
from scaleenv_mcp.verifier.gates import TaskVerdict, verify_task
from scaleenv_mcp.verifier.replay import MemoryTransport

if TYPE_CHECKING:
    from scaleenv_mcp.host.host import Host

__all__ = ["BuildRound", "BuilderSummary", "CandidateBuilder", "Outcome", "RoundResult", "StartBuilder",
           "served_package"]

Outcome = tuple[int, Task | Rejection, TaskVerdict | None]


@dataclass
class RoundResult:
    """What a builder made of some indices: one outcome each (in index order), the factory's counters
    that grew meanwhile (they go into the run's report), and the process that built them."""

    outcomes: list[Outcome]
    chain_code: dict[str, int] = field(default_factory=dict)
    chain_code_examples: dict[str, str] = field(default_factory=dict)
    further: dict[str, int] = field(default_factory=dict)
    pid: int = 0

    def add(self, other: RoundResult) -> None:
        """Fold ``other`` in (outcomes re-sorted by index; counters summed; the first example of each kept)."""
        self.outcomes = sorted([*self.outcomes, *other.outcomes], key=lambda o: o[0])
        self.add_counters(other)

    def add_counters(self, other: RoundResult) -> None:
        """Sum ``other``'s counters into these and keep the first example of each (a run's totals)."""
        for mine, theirs in ((self.chain_code, other.chain_code), (self.further, other.further)):
            for key, count in theirs.items():
                mine[key] = mine.get(key, 0) + count
        for key, text in other.chain_code_examples.items():
            self.chain_code_examples.setdefault(key, text)


@dataclass(frozen=True)
class BuilderSummary:
    """What a started builder tells its caller: the kinds it can build and the package it builds from."""

    kinds: frozenset[str]
    package_hash: str


def _grown(after: Counter[str], before: Counter[str]) -> dict[str, int]:
    """The counts added since ``before`` (a key added with 0 stays, as it would in a single factory's counter)."""
    return {key: count - before.get(key, 0) for key, count in after.items() if key not in before or count != before[key]}


class CandidateBuilder:
    """Candidates of one run built on ``host`` and verified there, ``in_flight`` at a time."""

    def __init__(self, host: Host, package: DomainPackage, factory: CandidateFactory, in_flight: int) -> None:
        self.host, self.package, self.factory = host, package, factory
        self.transport = MemoryTransport(host, package.slug)
        self.in_flight = asyncio.Semaphore(in_flight)

    @classmethod
    async def started(cls, host: Host, package: DomainPackage, seed: int, in_flight: int,
                      gate: ChainGate | None = None, writer: ChainWriter | None = None) -> CandidateBuilder:
        """A builder with its factory started (its seed-state episodes made on ``host``)."""
        factory = CandidateFactory(host, package, build_graph(package.manifest), seed, gate, writer)
        await factory.start(host.worker_count)
        return cls(host, package, factory, in_flight)

    @property
    def kinds(self) -> set[str]:
        """The kinds of task this run can build (``hosting.CandidateBuilds``)."""
        return set(self.factory.kinds())

    def summary(self) -> BuilderSummary:
        return BuilderSummary(frozenset(self.kinds), self.package.content_hash)

    async def build(self, indices: Sequence[int], full: set[str]) -> RoundResult:
        """Build and verify candidates ``indices``; a kind in ``full`` is not built (``Rejection("kind_full")``)."""
        chain_code, further = Counter(self.factory.chain_code), Counter(self.factory.further)
        examples = set(self.factory.chain_code_examples)
        outcomes = await gather_all(self._one(index, full) for index in indices)
        return RoundResult(sorted(outcomes, key=lambda o: o[0]), _grown(self.factory.chain_code, chain_code),
                           {k: v for k, v in self.factory.chain_code_examples.items() if k not in examples},
                           _grown(self.factory.further, further), os.getpid())

    async def _one(self, index: int, full: set[str]) -> Outcome:
        factory, slug = self.factory, self.package.slug
        if factory.kind_of(index) in full:
            return index, Rejection("kind_full", factory.kind_of(index)), None
        async with self.in_flight:
            built = await factory.build(index)
            if isinstance(built, Rejection):
                return index, built, None
            await self.host.stage_tasks(slug, [built])  # on this host only: the gates replay it here
            try:
                verdict = await verify_task(built, self.transport, self.package.manifest, None, self.package.seed)
            except (EnvironmentFaultError, BaseExceptionGroup) as error:
                # A tool that crashes on a perturbed replay is a domain bug to report, not a reason to stop:
                # the candidate is rejected (deterministically) and named.
                fault = _environment_fault(error)
                if fault is None:
                    raise
                return index, Rejection("environment", f"{fault.message} [{built.id}]"), None
            finally:
                await self.host.unstage_tasks(slug, [built.id])
            return index, built, verdict


@dataclass(frozen=True)
class StartBuilder:
    """Opens a ``CandidateBuilder`` inside a host actor (``HostActor.open_job``): picklable, data only.
    Only the offline mode travels: no chain writer, the default gate (``synthesis_hosting`` refuses others)."""

    slug: str
    seed: int
    in_flight: int

    async def __call__(self, host: Host) -> CandidateBuilder:
        return await CandidateBuilder.started(host, served_package(host, self.slug), self.seed, self.in_flight)


@dataclass(frozen=True)
class BuildRound:
    """A round's share of candidates for a builder in a host actor (``HostActor.in_job``): picklable."""

    indices: tuple[int, ...]
    full: frozenset[str]

    async def __call__(self, builder: CandidateBuilder) -> RoundResult:
        return await builder.build(self.indices, set(self.full))


def served_package(host: Host, slug: str) -> DomainPackage:
    """The package ``host`` serves as ``slug``.

    Raises:
        EnvironmentFaultError: it is not online there (broken, failed validation), saying why.
    """
    package = host.package(slug)
    if package is None:
        raise EnvironmentFaultError(f"cannot synthesise for {slug}: {host.status.get(slug, 'not found')}")
    return package


def _environment_fault(error: BaseException) -> EnvironmentFaultError | None:
    """The environment fault inside ``error`` (task groups wrap it in exception groups), if any."""
    if isinstance(error, EnvironmentFaultError):
        return error
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            found = _environment_fault(inner)
            if found is not None:
                return found
    return None
