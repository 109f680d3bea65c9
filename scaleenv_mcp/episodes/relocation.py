"""Episodes moved off a worker whose running request stalls (issue #29 item 5).

A worker runs one request at a time, in order, and holds many episodes. A tool call that runs
away kept every request queued behind it, other episodes' reads included, waiting for its whole
wall-time budget (10.2 s measured, with the default 10 s budget). Now, once the running request
has run ``stall_after`` seconds (``HostSettings.stall_after``; the pool's watchdog notices), the
episodes whose requests wait behind it move to a healthy worker: each is opened there the way
recovery rebuilds one (its base, then its replay: tools are deterministic, so the copy equals
the original), and its waiting requests follow in their order. The stalled request's own
episode stays and gets its budget as before.

Ordering: the requests moved were queued behind the running one, so none of them started.
They are already written to the stalled worker's socket; the pool leaves a place-holder for
each, whose reply it drops, and a ``close`` of the episode is queued there behind them. If the
stalled call ends within its budget, the stalled worker runs those stale copies' requests on a
copy nobody reads and then closes it; if it is killed at its budget, they never run. Either way
each request counts once, on the episode's new worker.

Not moved: an episode with a waiting request that is not about it alone (open, close, reset,
fork, a diff against another episode; those keep their order with the episode where it is), the
stalled request's own episode, and anything while no other worker is healthy (one worker only,
or every other worker stalled or being recovered): those wait as before.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from scaleenv_mcp.workers.pool import WorkerHandle
from scaleenv_mcp.workers.protocol import OK

if TYPE_CHECKING:
    from scaleenv_mcp.episodes.registry import Episode, EpisodeRegistry

__all__ = ["Relocator"]

# Requests about one episode (message[1]) that may run on any worker holding an exact copy of it.
_MOVABLE = frozenset({"call", "fingerprint", "dump", "episode_stats", "snapshot", "restore", "size"})


def _movable_episode(message: tuple[Any, ...]) -> str | None:
    """The episode a request is about when it may move with it, else None."""
    if not message:
        return None
    if message[0] in _MOVABLE or (message[0] == "diff" and message[3] is None):
        return str(message[1])
    return None


class Relocator:
    """The pool's ``on_stall``: move the episodes waiting behind a stalled request to a healthy worker."""

    def __init__(self, registry: EpisodeRegistry) -> None:
        self.registry = registry
        self.moved = 0  # episodes moved so far (tests and benchmarks read it)

    def __call__(self, worker: WorkerHandle) -> None:
        queued = worker.queued()
        targets = [w for w in self.registry.pool.workers if w is not worker and w.healthy]
        if not queued or not targets:
            return
        pinned = {a for a in worker.running if isinstance(a, str)}  # the stalled request's episode stays
        waiting: dict[str, list[Any]] = {}
        for request in queued:
            episode_id = _movable_episode(request.message)
            if episode_id is None:
                pinned.update(a for a in request.message if isinstance(a, str))
            else:
                waiting.setdefault(episode_id, []).append(request)
        for episode_id, requests in waiting.items():
            episode = self.registry.episodes.get(episode_id)
            if episode_id in pinned or episode is None or episode.closed or episode.worker is not worker:
                continue
            self._move(episode, requests, worker, min(targets, key=lambda w: (len(w.queued()), len(w.episodes), w.index)))

    def _move(self, episode: Episode, requests: list[Any], source: WorkerHandle, target: WorkerHandle) -> None:
        """Open ``episode`` on ``target`` and queue its waiting ``requests`` there behind the opening, now
        (no await: nothing can slip in between); its copy on ``source`` is closed behind them."""
        timeout = self.registry.settings.call_timeout
        target.load(episode.domain.bundle, timeout * 6)
        opening = target.send_ahead(episode.opening(), timeout * (6 + len(episode.replay)))
        opening.add_done_callback(lambda done: self._opened(episode, target, target.generation, done))
        source.hand_over(requests, target)
        source.episodes.discard(episode.id)
        target.episodes.add(episode.id)
        episode.worker = target
        source.submit(("close", episode.id), timeout).add_done_callback(_ignore)
        self.moved += 1

    def _opened(self, episode: Episode, target: WorkerHandle, generation: int, done: asyncio.Future[Any]) -> None:
        if done.cancelled() or done.exception() is not None:
            return  # the target was lost: its own recovery rebuilds the episode (it is on its list)
        status, payload = done.result()
        if status == OK:
            if target.generation == generation:
                episode.opened_on = generation
        elif not episode.closed:  # its requests queued behind the opening then answer episode_lost
            self.registry._drop(episode, "lost")
            self.registry.lost.remember(episode.id, "it was moved off a stalled worker and could not be rebuilt "
                                        f"by replay ({str(payload).splitlines()[0][:200]})")


def _ignore(done: asyncio.Future[Any]) -> None:
    if not done.cancelled():
        done.exception()  # retrieved: a lost worker's close needs nobody
