"""What a host knows of episodes it lost, and the errors it answers for them and for a lost worker (#29).

An episode is lost when its worker died and it could not be rebuilt by replay, or when the host
that held it stopped: the next host on the same state directory reads the ids its predecessor
left open from the journal (``journal.py``). A lost id answers ``episode_lost`` (HTTP 410) for as
long as it is remembered (the newest ``LOST_REMEMBERED``), never ``episode_not_found``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Collection
from pathlib import Path

from scaleenv_mcp.episodes.journal import LOST_REMEMBERED, EpisodeJournal
from scaleenv_mcp.errors import EnvironmentFaultError, EpisodeLostError, WorkerLostFaultError
from scaleenv_mcp.workers.pool import WorkerLostError

__all__ = ["HOST_STOPPED", "LostEpisodes", "worker_fault"]

HOST_STOPPED = "the host that held it stopped (killed, crashed or restarted)"


class LostEpisodes:
    """Lost episode ids with the reason, and this host's journal of the ids it has open."""

    def __init__(self, state_dir: Path) -> None:
        self.reasons: OrderedDict[str, str] = OrderedDict()
        self.journal = EpisodeJournal(state_dir / "episodes")

    def open(self) -> None:
        """Start the journal; the ids a stopped host on this state directory left open are lost."""
        for episode_id in self.journal.open():
            self.remember(episode_id, HOST_STOPPED)

    def close(self, episodes_open: bool) -> None:
        self.journal.close(episodes_open)

    def remember(self, episode_id: str, reason: str) -> None:
        self.reasons[episode_id] = reason
        while len(self.reasons) > LOST_REMEMBERED:
            self.reasons.popitem(last=False)

    def opened(self, episode_id: str, open_ids: Collection[str]) -> None:
        """Journal a new episode (``open_ids``: every open one, to compact the journal now and then)."""
        self.journal.opened(episode_id)
        if self.journal.lines > 2 * len(open_ids) + 10_000:
            self.journal.compact(list(open_ids))

    def ended(self, episode_id: str) -> None:
        self.journal.ended(episode_id)

    def error(self, episode_id: str) -> EpisodeLostError | None:
        """The error a lost episode answers, or None when ``episode_id`` is not known as lost."""
        reason = self.reasons.get(episode_id)
        if reason is None:
            return None
        return EpisodeLostError(f"episode lost: {reason}; its state cannot be recovered (export episodes to keep "
                                "them); create a new one")


def worker_fault(lost: WorkerLostError, what: str) -> EnvironmentFaultError:
    """A request's worker was lost: past the request's own budget an environment fault, else
    ``worker_lost`` (the worker died under it; a retry is safe once the episode is rebuilt)."""
    if lost.budget:
        return EnvironmentFaultError(f"the environment stopped this {what}: {lost.reason}")
    return WorkerLostFaultError(f"the worker running this {what} died ({lost.reason}); nothing of it was kept "
                                "and the episode is rebuilt by replay: retry it")
