"""On-disk cache of LLM responses, so a rerun of an eval replays the exact same dialogues.

The key is the SHA-256 of the canonical JSON of everything that decides a response (model,
messages, tools, seed, sampling parameters); never the endpoint or the API key, so a cache
can be shared between machines. One file per entry, written to a temporary name and
renamed, so concurrent episodes and a killed run never leave a torn entry. It must not
decide what is worth caching: the LLM client stores only successful responses.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["ResponseCache", "request_key"]


def request_key(request: dict[str, Any]) -> str:
    """Stable key of one chat request (key order and whitespace do not matter)."""
    canonical = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


class ResponseCache:
    """A folder of ``ab/abcdef....json`` entries."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        try:
            return json.loads(self._path(key).read_text())
        except (OSError, ValueError):
            return None  # missing or unreadable: ask the model again

    def put(self, key: str, value: dict[str, Any]) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        with os.fdopen(fd, "w") as handle:
            json.dump(value, handle, ensure_ascii=False, sort_keys=True)
        os.replace(tmp, path)
