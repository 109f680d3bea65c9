"""Which episodes a host had open, kept on disk so that the next host can say they were lost.

An episode lives in its host's memory and its workers: when the host stops, however it stops
(SIGKILL, a crash, a clean shutdown), its episodes are gone. Without a record, a harness that asks
the next host about one gets ``episode_not_found``, the answer for an id it mistyped. Each host
appends ``+id`` and ``-id`` lines to a file of its own under ``state_dir/episodes/``, holding an
exclusive ``flock`` on it while it runs. A starting host reads every such file whose lock it can
take (its host is gone; the kernel dropped the lock with the process, even after SIGKILL), takes
the ids still open there as lost, and deletes the file. Files of hosts still running on the same
state directory stay locked and are left alone.

No fsync: a process killed outright still leaves what it wrote in the page cache; only a machine
crash can lose the last lines, and then the ids answer ``episode_not_found`` as before.
"""

from __future__ import annotations

import fcntl
import os
import secrets
from collections import OrderedDict
from pathlib import Path

__all__ = ["EpisodeJournal", "LOST_REMEMBERED"]

LOST_REMEMBERED = 100_000  # lost ids kept (oldest dropped first): about 10 MB at most


class EpisodeJournal:
    """One host's record of its open episodes, and the episodes its dead predecessors left open."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._fd: int | None = None
        self.path: Path | None = None
        self.lines = 0  # written to this host's file since it was last compacted

    def open(self) -> list[str]:
        """Start this host's file; return the ids left open by hosts that are gone (their files are removed)."""
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        lost: OrderedDict[str, None] = OrderedDict()
        for path in sorted(self.directory.glob("*.open")):
            for episode_id in self._claim(path):
                lost[episode_id] = None
                if len(lost) > LOST_REMEMBERED:
                    lost.popitem(last=False)
        self.path = self.directory / f"{os.getpid()}-{secrets.token_hex(4)}.open"
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        self._fd = fd
        return list(lost)

    @staticmethod
    def _claim(path: Path) -> list[str]:
        """The ids still open in a dead host's file, which is then deleted; [] while its host runs."""
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            return []
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return []  # its host is alive
            with os.fdopen(os.dup(fd), "rb") as handle:
                lines = handle.read().decode("ascii", "replace").splitlines()
            path.unlink(missing_ok=True)
        finally:
            os.close(fd)
        still: dict[str, None] = {}
        for line in lines:
            if line.startswith("+"):
                still[line[1:]] = None
            elif line.startswith("-"):
                still.pop(line[1:], None)
        return list(still)

    def _write(self, line: str) -> None:
        if self._fd is not None:
            os.write(self._fd, line.encode("ascii"))
            self.lines += 1

    def compact(self, open_ids: list[str]) -> None:
        """Rewrite the file with only the open ids (a long-running host would otherwise grow it for ever):
        a new file, locked, then renamed over the old one, so no moment leaves the ids unrecorded."""
        if self._fd is None or self.path is None:
            return
        fresh = self.path.with_suffix(".new")
        fd = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.write(fd, "".join(f"+{i}\n" for i in open_ids).encode("ascii"))
        os.replace(fresh, self.path)
        os.close(self._fd)
        self._fd, self.lines = fd, len(open_ids)

    def opened(self, episode_id: str) -> None:
        self._write(f"+{episode_id}\n")

    def ended(self, episode_id: str) -> None:
        """Closed, expired or lost while this host runs: not to be reported lost by the next one."""
        self._write(f"-{episode_id}\n")

    def close(self, episodes_open: bool) -> None:
        """Stop writing. With ``episodes_open`` the file stays: they die with this host, and the next one
        says so; else it is deleted."""
        if self._fd is not None:
            if not episodes_open and self.path is not None:
                self.path.unlink(missing_ok=True)
            os.close(self._fd)  # drops the lock
            self._fd = None
