"""One episode's host-side record and the snapshots taken of it (the registry in ``registry.py`` keeps them)."""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from enum import Enum
from typing import Any

from scaleenv_mcp.episodes.call_ids import CallLedger
from scaleenv_mcp.episodes.domain_runtime import DomainRuntime
from scaleenv_mcp.episodes.trace import Trace
from scaleenv_mcp.errors import SnapshotNotFoundError
from scaleenv_mcp.workers.pool import WorkerHandle

__all__ = ["Episode", "EpisodeOrigin", "Snapshot", "new_episode_id", "unknown_snapshot"]


class EpisodeOrigin(str, Enum):
    interactive = "interactive"  # opened by a plain MCP session on /mcp/{domain}
    harness = "harness"  # created through the control API or the Python API


class Episode:
    """Host-side record of one episode; the database itself is in ``worker``."""

    def __init__(self, episode_id: str, domain: DomainRuntime, task_id: str | None, origin: EpisodeOrigin,
                 worker: WorkerHandle) -> None:
        self.id = episode_id
        self.domain = domain
        self.task_id = task_id
        self.origin = origin
        self.worker = worker
        self.created = time.time()
        self.last_used = time.monotonic()
        self.calls = 0
        self.trace = Trace()
        self.base: bytes | None = None  # None: the start state
        self.replay: list[tuple[str, dict[str, Any]]] = []
        self.closed = False
        self.idle_timeout: float | None = None  # None: the host's idle_timeout
        self.call_ids = CallLedger()
        self.opened_on = 0  # the worker process (its generation) the episode was last opened or rebuilt on

    @property
    def setup(self) -> list[dict[str, Any]]:
        if self.task_id is None:
            return []
        return [op.model_dump(mode="json") for op in self.domain.package.tasks[self.task_id].setup]

    def opening(self) -> tuple[Any, ...]:
        """The worker request that opens this episode as it is now: its base, then its replay."""
        return ("open", self.id, self.domain.bundle.content_hash, self.task_id or "", self.setup, self.base, self.replay)

    def summary(self) -> dict[str, Any]:
        return {"id": self.id, "domain": self.domain.slug, "task_id": self.task_id, "origin": self.origin.value,
                "calls": self.calls, "created": self.created}


@dataclass(frozen=True)
class Snapshot:
    """The bytes of an episode's database at one moment, and who keeps them alive."""

    domain_hash: str
    data: bytes
    owner: str  # the episode it was taken from: closing it deletes the snapshot unless pinned
    pinned: bool = False
    domain: str = ""  # the slug and task of the episode it was taken from (what an export records)
    task_id: str | None = None


def unknown_snapshot(snapshot_id: str) -> SnapshotNotFoundError:
    return SnapshotNotFoundError(f"unknown snapshot {snapshot_id!r} (never taken, deleted, or closed with its episode)")


def new_episode_id() -> str:
    """128 random bits: episode ids appear in agents' URLs, so they must not be guessable."""
    return secrets.token_hex(16)
