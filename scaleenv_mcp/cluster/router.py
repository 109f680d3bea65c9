"""One ``EpisodeControl`` over many hosts: place each new episode, route every operation to its owner.

The router is what the single control API of ``scaleenv serve --ray`` serves (``build_control_app``
takes any ``EpisodeControl``). Each host is a ``HostSlot``: a full host (its own workers, agent
listener and control listener) reached through a ``ControlClient``, which the router drives with
the same operations and models as a local host; agents talk to the owner's ``agent_url`` directly,
so tool calls never pass through here. The router holds only ids: which slot (and which
incarnation of it) owns each episode and snapshot.

Placement is least-loaded by the router's own count of live episodes per slot (ties go round the
slots in turn), so one task's k episodes for pass^k land on k different hosts while there are k.

Faults: a slot whose host died (``HostSlot.alive`` says so, asked only after an operation failed,
so the happy path costs nothing) loses its episodes and snapshots; they answer ``episode_lost``
from then on, at once, and new episodes go to the slots still alive. The slot comes back when its
owner (Ray) restarts the host: ``HostSlot.revive`` gives it a new incarnation and it takes new
episodes again. Nothing here imports Ray: the slots hide it (``scaleenv_mcp.cluster.hosts``).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from scaleenv_mcp.control_client import ControlClient
from scaleenv_mcp.episodes.trace import TraceRecord
from scaleenv_mcp.errors import (
    ControlAuthError,
    EnvironmentFaultError,
    EpisodeLostError,
    EpisodeNotFoundError,
    ScaleEnvError,
    SnapshotNotFoundError,
    UsageError,
)
from scaleenv_mcp.host.control_models import DomainInfo, EpisodeInfo, EpisodeSpec, ErrorInfo, RewardBatch, TaskCard
from scaleenv_mcp.state.diff import StateDiff
from scaleenv_mcp.state.reward import RewardReport

__all__ = ["HostRouter", "HostSlot"]

log = logging.getLogger("scaleenv.cluster")

T = TypeVar("T")

# Errors after which the router asks whether the host is still the one that owned the episode: a
# transport failure (host gone), a refused token (another process on its port) or "no such episode"
# (a restarted host on the same port). Any other error is the host's own answer and passes through.
_SUSPECT = (EnvironmentFaultError, ControlAuthError, EpisodeNotFoundError)


class HostSlot(Protocol):
    """One host the router places episodes on (a Ray actor in ``scaleenv_mcp.cluster.hosts``)."""

    client: ControlClient  # the control API of the current incarnation

    @property
    def name(self) -> str:
        """For messages: which host, on which node."""
        ...

    @property
    def incarnation(self) -> str:
        """Changes whenever the host is started again: episodes never outlive it."""
        ...

    @property
    def agent_base(self) -> str:
        """The agent listener of the current incarnation, e.g. ``http://10.0.0.3:40123``."""
        ...

    async def alive(self) -> bool:
        """Whether the incarnation the router knows still answers; never blocks for long."""
        ...

    async def revive(self) -> None:
        """Wait until the host answers again (restarted by its owner) and take its new incarnation
        and client; raise when it will not come back."""
        ...

    async def fork_onto(self, episode_id: str, target: HostSlot) -> EpisodeInfo:
        """A copy of this slot's episode, created on ``target`` (its state, trace and call count)."""
        ...


@dataclass(frozen=True)
class _Owner:
    slot: int
    incarnation: str


class HostRouter:
    """``EpisodeControl`` over several hosts: each episode lives on one, and everything about it goes there."""

    def __init__(self, slots: Sequence[HostSlot]) -> None:
        if not slots:
            raise UsageError("a router needs at least one host")
        self.slots = list(slots)
        self.dead: set[int] = set()  # slots whose host died and is not back yet
        self._names: dict[str, str] = {}  # incarnation -> its name: a lost episode names the host it lived on
        self._episodes: dict[str, _Owner] = {}
        self._snapshots: dict[str, _Owner] = {}
        self._turn = itertools.count()
        self._revivals: dict[int, asyncio.Task[None]] = {}

    # -- placement ---------------------------------------------------------------------------
    def loads(self) -> list[int]:
        """Live episodes the router placed on each slot (what placement balances)."""
        counts = [0] * len(self.slots)
        for owner in self._episodes.values():
            if self._holds(owner):
                counts[owner.slot] += 1
        return counts

    def _holds(self, owner: _Owner) -> bool:
        """Whether the owner's host is still the incarnation that made the episode."""
        return owner.slot not in self.dead and self.slots[owner.slot].incarnation == owner.incarnation

    def place(self, n: int, loads: list[int] | None = None) -> list[int]:
        """Slots for ``n`` new episodes, least-loaded first, ties taken in turn."""
        loads = list(loads if loads is not None else self.loads())
        live = [i for i in range(len(self.slots)) if i not in self.dead]
        if not live:
            raise EnvironmentFaultError("no host is alive: every Ray host actor died and none is back yet; retry "
                                        "in a moment or check the cluster (ray status)")
        chosen = []
        for _ in range(n):
            start = next(self._turn) % len(live)
            order = live[start:] + live[:start]
            slot = min(order, key=lambda i: loads[i])
            loads[slot] += 1
            chosen.append(slot)
        return chosen

    # -- owners and faults -------------------------------------------------------------------
    def _owner(self, episode_id: str, table: dict[str, _Owner] | None = None) -> _Owner:
        table = self._episodes if table is None else table
        owner = table.get(episode_id)
        if owner is None:
            kind = SnapshotNotFoundError if table is self._snapshots else EpisodeNotFoundError
            raise kind(f"unknown, expired or closed {'snapshot' if kind is SnapshotNotFoundError else 'episode'} "
                       f"{episode_id!r}")
        if not self._holds(owner):
            raise self._lost(episode_id, owner)
        return owner

    def owner_slot(self, episode_id: str) -> int:
        """The slot holding the episode (the agent proxy forwards there).

        Raises:
            EpisodeNotFoundError: unknown to the router; EpisodeLostError: its host died.
        """
        return self._owner(episode_id).slot

    def _owned_by(self, slot: int) -> _Owner:
        """The owner entry of an episode made on (or found on) ``slot`` now."""
        incarnation = self.slots[slot].incarnation
        if incarnation not in self._names:
            self._names[incarnation] = self.slots[slot].name
        return _Owner(slot, incarnation)

    def _lost(self, episode_id: str, owner: _Owner) -> EpisodeLostError:
        """The answer for an episode (or snapshot) whose host died; its entry stays, so every later
        use says the same (it goes with ``close``). It names the incarnation the episode lived on, not
        the one Ray may have started in its place since."""
        name = self._names.get(owner.incarnation, self.slots[owner.slot].name)
        return EpisodeLostError(f"episode lost with its host: {episode_id!r} lived on {name}, which "
                                "died; its state is gone. Create a new episode (new ones go to the hosts alive)")

    async def check(self, slot: int) -> bool:
        """After a failure on ``slot``: is its host still the incarnation we know? If not, forget what
        lived there and start waiting for it to come back."""
        if slot in self.dead:
            return False
        if await self.slots[slot].alive():
            return True
        self._mark_dead(slot)
        return False

    def _mark_dead(self, slot: int) -> None:
        if slot in self.dead:  # several requests found it dead at once: one warning, one revival
            return
        self.dead.add(slot)  # its episodes and snapshots answer episode_lost from now on (_holds)
        log.warning("%s died: its episodes are lost; placing new ones on the others", self.slots[slot].name)
        if slot not in self._revivals or self._revivals[slot].done():
            self._revivals[slot] = asyncio.create_task(self._revive(slot))

    async def _revive(self, slot: int) -> None:
        try:
            await self.slots[slot].revive()
        except Exception as error:  # it stays out of placement; the others carry on
            log.warning("%s did not come back: %s", self.slots[slot].name, error)
            return
        self.dead.discard(slot)
        log.info("%s is back (new incarnation): placing episodes on it again", self.slots[slot].name)

    async def _on(self, episode_id: str, operation: Callable[[ControlClient], Awaitable[T]],
                  table: dict[str, _Owner] | None = None) -> T:
        """Run ``operation`` on the owner of ``episode_id`` (or of a snapshot id, with ``table``)."""
        owner = self._owner(episode_id, table)
        slot = self.slots[owner.slot]
        try:
            return await operation(slot.client)
        except _SUSPECT as error:
            if await self.check(owner.slot):
                if isinstance(error, EpisodeNotFoundError):
                    (table if table is not None else self._episodes).pop(episode_id, None)
                raise
            raise self._lost(episode_id, owner) from None

    # -- EpisodeControl ----------------------------------------------------------------------
    async def _any(self, operation: Callable[[ControlClient], Awaitable[T]]) -> T:
        """Ask the first live host (domains and tasks are the same on every host)."""
        for index in range(len(self.slots)):
            if index in self.dead:
                continue
            try:
                return await operation(self.slots[index].client)
            except EnvironmentFaultError:
                if await self.check(index):
                    raise
        raise EnvironmentFaultError("no host is alive to answer")

    async def domains(self) -> list[DomainInfo]:
        return await self._any(lambda c: c.domains())

    async def tasks(self, domain: str, split: str | None = None) -> list[TaskCard]:
        return await self._any(lambda c: c.tasks(domain, split))

    async def create_episodes(self, domain: str, task_id: str | None = None, count: int = 1) -> list[EpisodeInfo]:
        """``count`` fresh episodes of one domain, spread over the hosts; all or nothing."""
        return await self.create_many([EpisodeSpec(domain=domain, task_id=task_id)] * count)

    async def create_many(self, specs: Iterable[EpisodeSpec | dict[str, Any]]) -> list[EpisodeInfo]:
        """One episode per spec, each on the least-loaded live host; all or nothing. A host found dead
        while creating is left out and its share placed again on the others (once)."""
        wanted = [s if isinstance(s, EpisodeSpec) else EpisodeSpec.model_validate(s) for s in specs]
        for _attempt in range(2):
            groups: dict[int, list[int]] = {}
            for position, slot in enumerate(self.place(len(wanted))):
                groups.setdefault(slot, []).append(position)
            results = await asyncio.gather(*(self.slots[slot].client.create_many([wanted[p] for p in positions])
                                             for slot, positions in groups.items()), return_exceptions=True)
            made = {slot: r for slot, r in zip(groups, results) if not isinstance(r, BaseException)}
            errors = [(slot, r) for slot, r in zip(groups, results) if isinstance(r, BaseException)]
            if not errors:
                infos: dict[int, EpisodeInfo] = {}
                for slot, positions in groups.items():
                    for position, info in zip(positions, made[slot]):
                        self._episodes[info.id] = self._owned_by(slot)
                        infos[position] = info
                return [infos[position] for position in range(len(wanted))]
            for slot, episodes in made.items():  # all or nothing: undo what the other hosts made
                await asyncio.gather(*(self.slots[slot].client.close(e.id) for e in episodes), return_exceptions=True)
            died = [slot for slot, error in errors if isinstance(error, _SUSPECT) and not await self.check(slot)]
            if not died:
                break  # a host's own refusal (capacity, an unknown task...): passed on as it is
        error = errors[0][1]
        raise error if isinstance(error, ScaleEnvError) else EnvironmentFaultError(f"creating episodes failed: {error}")

    def _live(self) -> list[int]:
        return [i for i in range(len(self.slots)) if i not in self.dead]

    async def list_episodes(self) -> list[EpisodeInfo]:
        """The live episodes of every live host, host by host."""
        found: list[EpisodeInfo] = []
        for index in self._live():
            try:
                episodes = await self.slots[index].client.list_episodes()
            except EnvironmentFaultError:
                if await self.check(index):
                    raise
                continue
            for info in episodes:  # interactive ones too: from now on the router can route them
                self._episodes.setdefault(info.id, self._owned_by(index))
            found += episodes
        return found

    async def get_episode(self, episode_id: str) -> EpisodeInfo:
        return await self._on(episode_id, lambda c: c.get_episode(episode_id))

    async def keyed_episode(self, domain: str, key: str) -> EpisodeInfo:
        """A keyed episode lives on the host whose agent listener the key was used on: ask each."""
        for index in self._live():
            try:
                info = await self.slots[index].client.keyed_episode(domain, key)
            except EpisodeNotFoundError:
                continue
            self._episodes.setdefault(info.id, self._owned_by(index))
            return info
        raise EpisodeNotFoundError(f"no host holds key {key!r} of domain {domain!r}")

    async def close(self, episode_id: str) -> None:
        """Close the episode on its host; one lost with its host is forgotten here, and says it was lost."""
        owner = self._episodes.get(episode_id)
        if owner is not None and not self._holds(owner):
            del self._episodes[episode_id]
            raise self._lost(episode_id, owner)
        await self._on(episode_id, lambda c: c.close(episode_id))
        self._episodes.pop(episode_id, None)

    async def reset(self, episode_id: str) -> EpisodeInfo:
        return await self._on(episode_id, lambda c: c.reset(episode_id))

    async def snapshot(self, episode_id: str, pinned: bool = False) -> str:
        snapshot_id = await self._on(episode_id, lambda c: c.snapshot(episode_id, pinned))
        self._snapshots[snapshot_id] = self._episodes[episode_id]
        return snapshot_id

    async def delete_snapshot(self, snapshot_id: str) -> None:
        await self._on(snapshot_id, lambda c: c.delete_snapshot(snapshot_id), self._snapshots)
        self._snapshots.pop(snapshot_id, None)

    def _same_host(self, episode_id: str, other: str, what: str) -> None:
        """Refuse an operation between an episode and a snapshot or episode held by another host."""
        mine = self._owner(episode_id)
        theirs = self._snapshots.get(other) or self._episodes.get(other)
        if theirs is not None and theirs.slot != mine.slot:
            raise UsageError(f"{what} {other!r} is on {self.slots[theirs.slot].name}, episode {episode_id!r} on "
                             f"{self.slots[mine.slot].name}: both must be on one host (export the one and import "
                             "it, or fork, which moves episodes between hosts)")

    async def restore(self, episode_id: str, snapshot_id: str) -> EpisodeInfo:
        self._same_host(episode_id, snapshot_id, "snapshot")
        return await self._on(episode_id, lambda c: c.restore(episode_id, snapshot_id))

    async def fork(self, episode_id: str) -> EpisodeInfo:
        """A copy of the episode on the least-loaded live host (its own when tied): across hosts the
        episode travels as an exported file (state, trace, call count), so the copy has the same
        fingerprint; the snapshots of the original stay where they are."""
        owner = self._owner(episode_id)
        loads = self.loads()
        target = owner.slot if loads[owner.slot] <= min(loads[i] for i in self._live()) else self.place(1)[0]
        return await self.fork_onto(episode_id, target)

    async def fork_onto(self, episode_id: str, target: int) -> EpisodeInfo:
        """A copy of the episode created on the host of slot ``target`` (which may be its own)."""
        if not 0 <= target < len(self.slots) or target in self.dead:
            raise UsageError(f"no live host {target}: hosts alive are {self._live()}")
        owner = self._owner(episode_id)
        if target == owner.slot:
            info = await self._on(episode_id, lambda c: c.fork(episode_id))
        else:
            info = await self._on(episode_id, lambda c: self.slots[owner.slot].fork_onto(episode_id, self.slots[target]))
        self._episodes[info.id] = self._owned_by(target)
        return info

    async def export_episode(self, episode_id: str) -> bytes:
        return await self._on(episode_id, lambda c: c.export_episode(episode_id))

    async def export_snapshot(self, snapshot_id: str) -> bytes:
        return await self._on(snapshot_id, lambda c: c.export_snapshot(snapshot_id), self._snapshots)

    async def import_episode(self, data: bytes, allow_other_version: bool = False) -> EpisodeInfo:
        """A new episode from a file, on the least-loaded live host."""
        [slot] = self.place(1)
        info = await self.slots[slot].client.import_episode(data, allow_other_version)
        self._episodes[info.id] = self._owned_by(slot)
        return info

    async def fingerprint(self, episode_id: str) -> str:
        return await self._on(episode_id, lambda c: c.fingerprint(episode_id))

    async def tables(self, episode_id: str, names: Sequence[str] | None = None) -> dict[str, Any]:
        return await self._on(episode_id, lambda c: c.tables(episode_id, names))

    async def diff(self, episode_id: str, against: str | None = None) -> StateDiff:
        if against is not None:
            self._same_host(episode_id, against, "diff against")
        return await self._on(episode_id, lambda c: c.diff(episode_id, against))

    async def reward(self, episode_id: str, messages: Sequence[str] | None = None) -> RewardReport:
        return await self._on(episode_id, lambda c: c.reward(episode_id, messages))

    async def rewards(self, episode_ids: Sequence[str]) -> RewardBatch:
        """One request per host for its episodes; an unknown or lost episode is an entry in ``errors``."""
        groups: dict[int, list[str]] = {}
        errors: dict[str, ErrorInfo] = {}
        for episode_id in episode_ids:
            try:
                groups.setdefault(self._owner(episode_id).slot, []).append(episode_id)
            except EpisodeNotFoundError as error:
                errors[episode_id] = ErrorInfo(code=error.code, message=error.message)

        async def batch(slot: int, ids: list[str]) -> RewardBatch:
            try:
                return await self.slots[slot].client.rewards(ids)
            except _SUSPECT as error:
                if await self.check(slot):
                    message = error.message
                    return RewardBatch(rewards={e: None for e in ids},
                                       errors={e: ErrorInfo(code=error.code, message=message) for e in ids})
                lost = {e: self._lost(e, self._episodes.get(e, _Owner(slot, ''))) for e in ids}
                return RewardBatch(rewards={e: None for e in ids},
                                   errors={e: ErrorInfo(code=x.code, message=x.message) for e, x in lost.items()})

        rewards: dict[str, RewardReport | None] = {}
        for result in await asyncio.gather(*(batch(slot, ids) for slot, ids in groups.items())):
            rewards.update(result.rewards)
            errors.update(result.errors)
        return RewardBatch(rewards={e: rewards.get(e) for e in episode_ids}, errors=errors)

    async def trace(self, episode_id: str) -> list[TraceRecord]:
        return await self._on(episode_id, lambda c: c.trace(episode_id))

    async def aclose(self) -> None:
        for task in self._revivals.values():
            task.cancel()
        await asyncio.gather(*self._revivals.values(), return_exceptions=True)


if TYPE_CHECKING:
    from scaleenv_mcp.host.episode_control import EpisodeControl

    def _offers_episode_control(router: HostRouter) -> EpisodeControl:  # the type checker holds it to the Protocol
        return router
