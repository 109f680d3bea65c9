"""The never-lose-work store: every LLM response and every stage output, keyed by its inputs.

A generation run costs hundreds of thousands of tokens, and a run may be killed at any
moment (kill -9, a closed laptop, a spot instance). So the moment a response arrives it is
written here, keyed by a hash of everything that determined the request (role, model,
messages, schema, mode, limits), before anything else looks at it; a restarted run finds it
and sends nothing. Stage outputs (the card, the tool schemas, a tool's validated code...)
are stored the same way so a restart also skips finished work that was not an LLM call.

Writes are atomic and durable: a temporary file in the same folder, fsync, ``os.replace``,
then fsync of the folder, so a reader sees either nothing or the whole record, never half
(tests/unit/generator/test_llm_store.py kills a writer mid-way). ``fresh`` makes the store
read nothing (every lookup misses) while still writing, which is what ``--fresh`` means.

This module must not import the LLM client or know what a stage is: it stores JSON.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["ResponseStore", "atomic_write_bytes", "atomic_write_text", "content_key"]


def content_key(*parts: Any) -> str:
    """SHA-256 of the canonical JSON of ``parts``: the same inputs give the same key in any process."""
    text = json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # some filesystems do not open folders; the rename is still atomic
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` at ``path`` so that a crash leaves the old file or the new one, never a mix."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode())


class ResponseStore:
    """JSON records under ``root/<kind>/<key[:2]>/<key>.json``.

    Args:
        root: the run's store folder (inside the workdir).
        fresh: ignore what is already stored (lookups miss) but keep writing, so a run
            started with ``--fresh`` and then killed resumes from its own fresh work.
    """

    def __init__(self, root: Path, *, fresh: bool = False) -> None:
        self.root = Path(root)
        self.fresh = fresh
        self._written: set[tuple[str, str]] = set()  # what this run wrote: readable even when fresh
        self.root.mkdir(parents=True, exist_ok=True)

    def _path(self, kind: str, key: str) -> Path:
        return self.root / kind / key[:2] / f"{key}.json"

    def get(self, kind: str, key: str) -> Any | None:
        """The stored record, or None when absent (or when fresh and not written by this run)."""
        if self.fresh and (kind, key) not in self._written:
            return None
        path = self._path(kind, key)
        try:
            return json.loads(path.read_text())
        except FileNotFoundError:
            return None
        except (json.JSONDecodeError, UnicodeDecodeError):
            # Cannot happen with atomic writes; a damaged file (disk trouble, a hand edit)
            # is treated as absent so the work is redone rather than trusted.
            return None

    def put(self, kind: str, key: str, record: Any) -> None:
        """Store ``record`` durably before returning (synchronous on purpose: no await in between
        receiving a response and storing it, so no other task's request can slip in)."""
        # Key order is kept as given (not sorted): a stage output read back must equal the one
        # computed, down to dict order, or a resumed run would write different bytes.
        data = json.dumps(record, ensure_ascii=False, indent=1).encode()
        atomic_write_bytes(self._path(kind, key), data)
        self._written.add((kind, key))

    def count(self, kind: str) -> int:
        folder = self.root / kind
        return sum(1 for _ in folder.rglob("*.json")) if folder.is_dir() else 0
