"""Live episodes: create, call, snapshot, fork, close; caps, limits and recovery by replay.

An episode's database lives in one worker. The host keeps what is needed to rebuild it
exactly: its base (the start state, or the bytes of the snapshot it was last restored
from) and the successful calls since. When a worker is lost (a call past its budget, a
crash), every episode it held is rebuilt on the fresh worker by replaying those calls;
tools are deterministic, so the rebuilt state is identical (tests/integration/test_runaway.py
checks fingerprints before and after).

Snapshots have an owner and a lifetime: each belongs to the episode it was taken from and
is deleted when that episode closes, unless it was pinned; pinned ones live until deleted
(``DELETE /snapshots/{id}``). A host holds at most ``max_snapshots`` (issue #29, failure 3:
they used to live for the host's whole life, about 213 KB each).

An episode that cannot be rebuilt, and every episode a stopped host left open, is lost (``lost.py``).
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import Callable
from typing import Any

from scaleenv_mcp.domain.loader import DomainPackage
from scaleenv_mcp.episodes.domain_runtime import DomainRuntime
from scaleenv_mcp.episodes.episode import Episode, EpisodeOrigin, Snapshot, new_episode_id, unknown_snapshot
from scaleenv_mcp.episodes.episode_file import EpisodeFile
from scaleenv_mcp.episodes.lost import LostEpisodes, worker_fault
from scaleenv_mcp.episodes.relocation import Relocator
from scaleenv_mcp.episodes.trace import CallOutcome, OutcomeKind, Trace, trace_summary
from scaleenv_mcp.errors import (
    CapacityError,
    EnvironmentFaultError,
    EpisodeFileError,
    EpisodeNotFoundError,
    LimitExceededError,
    UnknownTaskError,
    UnknownToolError,
    UsageError,
)
from scaleenv_mcp.settings import HostSettings
from scaleenv_mcp.state.diff import StateDiff
from scaleenv_mcp.state.reward import RewardReport, compute_reward
from scaleenv_mcp.workers.pool import DomainLoadError, WorkerHandle, WorkerLostError, WorkerPool
from scaleenv_mcp.workers.protocol import LIMIT, OK, TOOL_ERROR, CallReply

__all__ = ["Episode", "EpisodeOrigin", "EpisodeRegistry", "Snapshot"]


class EpisodeRegistry:
    """Every live episode of one host."""

    def __init__(self, pool: WorkerPool, settings: HostSettings) -> None:
        self.pool = pool
        pool.recover = self._rebuild
        # a request that runs past settings.stall_after: the episodes waiting behind it move (#29 item 5)
        self.relocator = pool.on_stall = Relocator(self)
        for worker in pool.workers:
            worker.recover, worker.on_stall = self._rebuild, self.relocator
        self.settings = settings
        self.domains: dict[str, DomainRuntime] = {}
        self.episodes: dict[str, Episode] = {}
        self.snapshots: dict[str, Snapshot] = {}
        self.counts = {EpisodeOrigin.interactive: 0, EpisodeOrigin.harness: 0}
        # Told of every closed episode and why ("closed", "expired" or "lost"): keyed URLs remember their keys.
        self.on_close: list[Callable[[Episode, str], None]] = []
        self.lost = LostEpisodes(settings.state_dir)  # the host opens and closes its journal

    # -- lost episodes ------------------------------------------------------------------------
    def _opened(self, episode: Episode) -> None:
        self.episodes[episode.id] = episode
        self.lost.opened(episode.id, self.episodes.keys())

    def _drop(self, episode: Episode, reason: str) -> None:
        """Forget a closed, expired or lost episode, with its unpinned snapshots and its place on its worker."""
        self.episodes.pop(episode.id, None)
        episode.closed = True
        for listener in self.on_close:
            listener(episode, reason)
        self.counts[episode.origin] -= 1
        episode.worker.episodes.discard(episode.id)
        for snapshot_id in [k for k, v in self.snapshots.items() if v.owner == episode.id and not v.pinned]:
            del self.snapshots[snapshot_id]
        self.lost.ended(episode.id)

    def _gone(self, episode_id: str | None) -> None:
        """Raise EpisodeLostError or EpisodeNotFoundError when the episode ended while a request of it waited."""
        if episode_id is not None and (episode_id not in self.episodes or self.episodes[episode_id].closed):
            self.get(episode_id)

    def _lost_unless_rebuilt(self, episode_id: str | None) -> None:
        """A worker refused a request of an episode never opened on its current process: the recovery
        gave up before rebuilding it (each fresh worker died in turn). The episode is lost."""
        episode = self.episodes.get(episode_id) if episode_id is not None else None
        if episode is not None and episode.opened_on != episode.worker.generation:
            self._drop(episode, "lost")
            self.lost.remember(episode.id, "its worker died and every fresh worker died before rebuilding it")
            self.get(episode.id)

    # -- domains --------------------------------------------------------------------------
    def add_domain(self, package: DomainPackage) -> DomainRuntime:
        runtime = DomainRuntime(package)
        self.domains[runtime.slug] = runtime
        return runtime

    def domain(self, slug: str) -> DomainRuntime:
        try:
            return self.domains[slug]
        except KeyError:
            raise UsageError(f"domain {slug!r} is not served here (served: {', '.join(sorted(self.domains))})") from None

    # -- worker plumbing --------------------------------------------------------------------
    async def _request(self, worker: WorkerHandle, message: tuple[Any, ...], *, timeout: float | None = None,
                       episode_id: str | None = None) -> Any:
        """One request to a worker, about ``episode_id`` if given. A lost worker is replaced and its
        episodes rebuilt by the pool before any request queued behind this one runs (``_rebuild``);
        a request of an episode that ended or was lost meanwhile raises what ``get`` raises."""
        try:
            status, payload = await worker.submit(message, timeout or self.settings.call_timeout * 6)
        except WorkerLostError as lost:
            self._gone(episode_id)
            raise worker_fault(lost, "call" if message[0] == "call" else "request") from None
        if status != OK:
            self._gone(episode_id)
            self._lost_unless_rebuilt(episode_id)
            raise EnvironmentFaultError(f"worker error: {str(payload).splitlines()[0]}")
        return payload

    async def _open_on(self, worker: WorkerHandle, episode: Episode, untrusted: bool = False) -> None:
        """Open the episode on ``worker`` from its base and replay; an ``untrusted`` base (an imported
        file's SQLite image) is validated there first (``state.image_check``)."""
        try:
            await worker.ensure_domain(await episode.domain.worker_bundle(), self.settings.call_timeout * 6)
        except DomainLoadError as broken:  # no traceback or path past this point
            raise EnvironmentFaultError(f"domain {episode.domain.slug!r} cannot run its tools: {broken.summary}") from None
        if untrusted:
            problem = await self._request(worker, ("check_image", episode.domain.bundle.content_hash, episode.base))
            if problem is not None:
                raise EpisodeFileError(f"episode file refused: {problem}")
        status, payload = await worker.submit(episode.opening(), self.settings.call_timeout * (6 + len(episode.replay)))
        if status != OK:
            raise EnvironmentFaultError(f"could not open episode: {str(payload).splitlines()[0]}")
        episode.opened_on = worker.generation

    async def _rebuild(self, worker: WorkerHandle) -> None:
        """The pool's ``recover`` after a worker was replaced: reopen each of its episodes by replay,
        all queued at once, before the requests held back behind the lost one. An episode that
        cannot be reopened (the fresh worker died too, or its replay failed) is lost: ``episode_lost``."""
        episodes = [self.episodes[i] for i in sorted(worker.episodes) if i in self.episodes]

        async def reopen(episode: Episode) -> None:
            try:
                await self._open_on(worker, episode)
            except (WorkerLostError, EnvironmentFaultError) as error:
                if not episode.closed:
                    why = error.reason if isinstance(error, WorkerLostError) else error.message
                    self._drop(episode, "lost")
                    self.lost.remember(episode.id, f"its worker died and it could not be rebuilt by replay ({why})")

        await asyncio.gather(*(reopen(e) for e in episodes))

    # -- lifecycle --------------------------------------------------------------------------
    async def create(self, domain: str, task_id: str | None = None,
                     origin: EpisodeOrigin = EpisodeOrigin.harness, idle_timeout: float | None = None,
                     *, restored: EpisodeFile | None = None) -> Episode:
        """A new episode from the start state, or from an imported file's state, trace and call count (``restored``)."""
        runtime = self.domain(domain)
        if task_id is not None and task_id not in runtime.package.tasks:
            raise UnknownTaskError(f"domain {domain!r} has no task {task_id!r}")
        cap = (self.settings.max_interactive_episodes if origin is EpisodeOrigin.interactive
               else self.settings.max_harness_episodes)
        if self.counts[origin] >= cap:
            raise CapacityError(f"{origin.value} episode cap of {cap} reached; close episodes or wait for idle expiry")
        worker = self.pool.least_loaded()
        episode = Episode(new_episode_id(), runtime, task_id, origin, worker)
        episode.idle_timeout = idle_timeout
        if restored is not None:
            episode.base, episode.trace, episode.calls = restored.state, Trace(restored.trace), restored.meta.calls
        # Reserved on its worker before the first await: creates that run together see each other
        # and spread over the workers instead of all landing on the one that looked least loaded.
        worker.episodes.add(episode.id)
        self.counts[origin] += 1
        try:
            try:
                await self._open_on(worker, episode, untrusted=restored is not None)
            except WorkerLostError as lost:
                raise worker_fault(lost, "new episode's opening") from None
        except BaseException:
            self.counts[origin] -= 1
            worker.episodes.discard(episode.id)
            raise
        self._opened(episode)
        return episode

    def get(self, episode_id: str) -> Episode:
        episode = self.episodes.get(episode_id)
        if episode is None or episode.closed:
            lost = self.lost.error(episode_id)
            if lost is not None:
                raise lost
            raise EpisodeNotFoundError("unknown, expired or closed episode; create a new one")
        episode.last_used = time.monotonic()
        return episode

    async def close(self, episode_id: str, reason: str = "closed") -> None:
        """Close an episode; ``reason`` ("closed" or "expired") is passed to the ``on_close`` listeners."""
        episode = self.get(episode_id)  # EpisodeLostError or EpisodeNotFoundError
        self._drop(episode, reason)
        try:
            await self._request(episode.worker, ("close", episode_id))
        except EnvironmentFaultError:
            pass

    async def close_idle(self, now: float | None = None) -> list[str]:
        """Close episodes unused for longer than the idle timeout; returns their ids."""
        now = time.monotonic() if now is None else now
        idle = [e.id for e in self.episodes.values() if self.is_idle(e, now)]
        for episode_id in idle:
            await self.close(episode_id, "expired")
        return idle

    def is_idle(self, episode: Episode, now: float | None = None) -> bool:
        """Unused for longer than its idle timeout (its own, else the host's)."""
        timeout = episode.idle_timeout if episode.idle_timeout is not None else self.settings.idle_timeout
        return (time.monotonic() if now is None else now) - episode.last_used > timeout

    async def close_all(self) -> None:
        for episode_id in list(self.episodes):
            await self.close(episode_id)

    # -- calls ------------------------------------------------------------------------------
    async def call(self, episode_id: str, tool: str, arguments: dict[str, Any] | None,
                   call_id: str | None = None) -> CallOutcome:
        """Validate, run in the episode's worker, record in the trace.

        With a ``call_id``, the call runs at most once in this episode: a repeat of the same call
        gets the first answer back and writes nothing (episodes/call_ids.py).

        Raises:
            UnknownToolError, EpisodeNotFoundError, LimitExceededError, EnvironmentFaultError,
            CallIdReusedError (the id was used for another call; nothing ran).
        """
        if call_id is not None:
            ledger = self.get(episode_id).call_ids
            return await ledger.run(call_id, tool, arguments or {}, lambda: self._call(episode_id, tool, arguments))
        return await self._call(episode_id, tool, arguments)

    async def _call(self, episode_id: str, tool: str, arguments: dict[str, Any] | None) -> CallOutcome:
        episode = self.get(episode_id)
        runtime = episode.domain
        if tool not in runtime.validators:
            raise UnknownToolError(f"unknown tool {tool!r} in domain {runtime.slug}")
        if episode.calls >= self.settings.max_calls:
            raise LimitExceededError(f"episode reached its limit of {self.settings.max_calls} calls")
        if len(episode.trace) >= self.settings.max_trace:
            raise LimitExceededError(f"episode reached its trace limit of {self.settings.max_trace} records")
        # The episode's own copy: its trace and its replay (which rebuilds it after a worker is lost) keep
        # it, and a caller of the Python API may reuse and change its dict for the next call.
        arguments = dict(arguments) if arguments else {}
        episode.calls += 1
        problem = runtime.check_arguments(tool, arguments, self.settings.max_argument_bytes)
        if problem is not None:
            outcome = CallOutcome(kind=OutcomeKind.tool_error, error_code="invalid_argument", message=problem)
            self._record(episode, tool, arguments, outcome)
            return outcome
        started = time.perf_counter()
        try:
            reply = CallReply(*await self._request(episode.worker, ("call", episode_id, tool, arguments),
                                                   timeout=self.settings.call_timeout, episode_id=episode_id))
        except EnvironmentFaultError as fault:
            outcome = CallOutcome(kind=OutcomeKind.fault, error_code=fault.code, message=fault.message,
                                  duration_ms=(time.perf_counter() - started) * 1000)
            self._record(episode, tool, arguments, outcome)
            raise
        duration = (time.perf_counter() - started) * 1000
        if reply.status == OK:
            episode.replay.append((tool, arguments))
            # Decoded once: the agent's structured content and the trace hold this one dict; the
            # text content is the worker's text itself. model_construct: the hot path builds these
            # from values it already trusts.
            result = json.loads(reply.result_json) if reply.result_json is not None else None
            outcome = CallOutcome.model_construct(kind=OutcomeKind.success, result=result, result_json=reply.result_json,
                                                  duration_ms=duration, error_code=None, message=None,
                                                  reads=list(reply.reads), writes=list(reply.writes))
            if reply.result_bytes > self.settings.trace_result_bytes:
                self._record(episode, tool, arguments, outcome, trace_summary(result, reply.result_bytes))
                return outcome
        elif reply.status == TOOL_ERROR:
            outcome = CallOutcome(kind=OutcomeKind.tool_error, error_code=reply.error_code, message=reply.message,
                                  duration_ms=duration)
        elif reply.status == LIMIT:
            outcome = CallOutcome(kind=OutcomeKind.fault, error_code="limit_exceeded", message=reply.message,
                                  duration_ms=duration)
            self._record(episode, tool, arguments, outcome)
            raise LimitExceededError(reply.message or "episode limit reached")
        else:
            outcome = CallOutcome(kind=OutcomeKind.fault, error_code="environment_fault", message=reply.message,
                                  duration_ms=duration)
            self._record(episode, tool, arguments, outcome)
            raise EnvironmentFaultError(f"tool {tool!r} failed inside the environment")
        self._record(episode, tool, arguments, outcome)
        return outcome

    @staticmethod
    def _record(episode: Episode, tool: str, arguments: dict[str, Any], outcome: CallOutcome,
                summary: dict[str, Any] | None = None) -> None:
        """Append to the trace the worker's JSON text of the result, or ``summary`` (a large one's)."""
        episode.trace.add(tool, arguments, outcome, outcome.result_json if summary is None else json.dumps(summary))

    # -- state ------------------------------------------------------------------------------
    async def fingerprint(self, episode_id: str, full: bool = False) -> str:
        """The state's fingerprint, from its change set; ``full`` recomputes it from every row (the reference)."""
        episode = self.get(episode_id)
        fingerprint: str = await self._request(episode.worker, ("fingerprint", episode_id, full), episode_id=episode_id)
        return fingerprint

    async def state_stats(self, episode_id: str) -> dict[str, int]:
        """How many of the episode's fingerprints and diffs came from its change set, and how many from a full scan."""
        episode = self.get(episode_id)
        stats: dict[str, int] = await self._request(episode.worker, ("episode_stats", episode_id), episode_id=episode_id)
        return stats

    async def dump(self, episode_id: str, tables: list[str] | None = None) -> dict[str, Any]:
        episode = self.get(episode_id)
        dump: dict[str, Any] = await self._request(episode.worker, ("dump", episode_id, tables), episode_id=episode_id)
        return dump

    async def diff(self, episode_id: str, against: str | None = None, full: bool = False) -> StateDiff:
        """Diff from the start state, or from a snapshot id, or from another episode id.

        From the two states' change sets; ``full`` compares every row instead (the reference)."""
        episode = self.get(episode_id)
        if against is None or against == "start":
            payload = await self._request(episode.worker, ("diff", episode_id, None, None, full), episode_id=episode_id)
        elif against in self.snapshots or against.startswith("snap-"):
            snapshot = self._snapshot_of(episode, against)
            payload = await self._request(episode.worker, ("diff", episode_id, snapshot.data, None, full),
                                          episode_id=episode_id)
        else:
            other = self.get(against)
            if other.domain.bundle.content_hash != episode.domain.bundle.content_hash:
                raise UsageError(f"episode {against} is of domain {other.domain.slug!r}, this one of "
                                 f"{episode.domain.slug!r}: a diff compares states of one domain")
            if other.worker is episode.worker:
                payload = await self._request(episode.worker, ("diff", episode_id, None, against, full),
                                              episode_id=episode_id)
            else:
                data = await self.state_bytes(against)
                payload = await self._request(episode.worker, ("diff", episode_id, data, None, full),
                                              episode_id=episode_id)
        return StateDiff.model_validate(payload)

    async def state_bytes(self, episode_id: str) -> bytes:
        """The episode's database as a snapshot holds it (``sqlite3.serialize``)."""
        data: bytes = await self._request(self.get(episode_id).worker, ("snapshot", episode_id), episode_id=episode_id)
        return data

    async def reward(self, episode_id: str, messages: list[str] | None = None) -> RewardReport:
        """Score the episode's current state against its task's gold (the one reward function).

        ``messages`` are what the agent told the user, for the task's ``communicate`` facts.
        """
        episode = self.get(episode_id)
        if episode.task_id is None:
            raise UsageError("this episode was created from the seed, not from a task: it has no gold to score against")
        task = episode.domain.package.tasks[episode.task_id]
        if task.gold is None:
            raise UsageError(f"task {task.id} has no gold state")
        return compute_reward(episode.domain.manifest, task.gold.diff, await self.diff(episode_id), task.communicate,
                              messages)

    async def snapshot(self, episode_id: str, pinned: bool = False) -> str:
        """Snapshot the episode's state; it is deleted with the episode unless ``pinned``."""
        episode = self.get(episode_id)
        if len(self.snapshots) >= self.settings.max_snapshots:
            raise CapacityError(f"snapshot cap of {self.settings.max_snapshots} reached; delete snapshots "
                                "(DELETE /snapshots/{id}) or close the episodes that own them")
        data = await self.state_bytes(episode_id)
        snapshot_id = "snap-" + secrets.token_hex(16)
        self.snapshots[snapshot_id] = Snapshot(episode.domain.bundle.content_hash, data, episode_id, pinned,
                                               episode.domain.slug, episode.task_id)
        return snapshot_id

    def stored_snapshot(self, snapshot_id: str) -> Snapshot:
        """A kept snapshot, whatever its domain (SnapshotNotFoundError when there is none)."""
        snapshot = self.snapshots.get(snapshot_id)
        if snapshot is None:
            raise unknown_snapshot(snapshot_id)
        return snapshot

    def delete_snapshot(self, snapshot_id: str) -> None:
        if self.snapshots.pop(snapshot_id, None) is None:
            raise unknown_snapshot(snapshot_id)

    def _snapshot_of(self, episode: Episode, snapshot_id: str) -> Snapshot:
        """The snapshot, refused unless it is of ``episode``'s domain."""
        snapshot = self.snapshots.get(snapshot_id)
        if snapshot is None:
            raise UsageError(f"unknown snapshot {snapshot_id!r} (never taken, deleted, or closed with its episode)")
        if snapshot.domain_hash != episode.domain.bundle.content_hash:
            raise UsageError(f"snapshot {snapshot_id} is of another domain than this {episode.domain.slug!r} episode")
        return snapshot

    async def restore(self, episode_id: str, snapshot_id: str) -> None:
        episode = self.get(episode_id)
        data = self._snapshot_of(episode, snapshot_id).data
        await self._request(episode.worker, ("restore", episode_id, data), episode_id=episode_id)
        episode.base, episode.replay = data, []
        episode.call_ids.clear()

    async def reset(self, episode_id: str) -> None:
        episode = self.get(episode_id)
        episode.base, episode.replay, episode.trace, episode.calls = None, [], Trace(), 0
        episode.call_ids.clear()
        worker = episode.worker
        try:
            closing = worker.submit(("close", episode_id), self.settings.call_timeout)  # queued before the open
            await self._open_on(worker, episode)
            await closing
        except WorkerLostError as lost:  # like _request: the pool rebuilds the worker's other episodes
            self._gone(episode_id)
            raise worker_fault(lost, "reset") from None

    async def fork(self, episode_id: str, origin: EpisodeOrigin = EpisodeOrigin.harness) -> Episode:
        parent = self.get(episode_id)
        cap = self.settings.max_harness_episodes if origin is EpisodeOrigin.harness else self.settings.max_interactive_episodes
        if self.counts[origin] >= cap:
            raise CapacityError(f"{origin.value} episode cap of {cap} reached; close episodes or wait for idle expiry")
        child = Episode(new_episode_id(), parent.domain, parent.task_id, origin, parent.worker)
        child.base, child.replay = parent.base, list(parent.replay)
        child.trace = parent.trace.copy()
        child.calls = parent.calls
        child.call_ids = parent.call_ids.copy()
        self.counts[origin] += 1  # before the await, as in create: concurrent forks must not pass the cap together
        try:
            await self._request(parent.worker, ("fork", episode_id, child.id), episode_id=episode_id)
        except BaseException:
            self.counts[origin] -= 1
            raise
        parent.worker.episodes.add(child.id)
        child.opened_on = parent.worker.generation
        self._opened(child)
        return child
