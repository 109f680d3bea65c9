"""Host-side record of which package contents passed validation.

Keyed by a hash of every package file plus the policy and validator versions, and kept in
the host's state directory (never in the package), so a package cannot ship its own pass
and any edit, or a stricter policy, sends it back through validation.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path

import aiosqlite

from scaleenv_mcp.domain.loader import PACKAGE_FILES, DomainPackage
from scaleenv_mcp.domain.policy import POLICY_VERSION

__all__ = ["ValidationCache", "validation_key", "validation_status"]

VALIDATOR_VERSION = "3"
_SCHEMA = "CREATE TABLE IF NOT EXISTS validations (key TEXT PRIMARY KEY, domain TEXT NOT NULL, passed INTEGER NOT NULL, summary TEXT NOT NULL)"


def default_state_dir() -> Path:
    return Path(os.environ.get("SCALEENV_STATE_DIR") or Path.home() / ".scaleenv")


def validation_key(package: DomainPackage) -> str:
    digest = hashlib.sha256(f"policy={POLICY_VERSION};validator={VALIDATOR_VERSION}".encode())
    for name in PACKAGE_FILES:
        file = package.path / name
        if file.exists():
            digest.update(name.encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()


class ValidationCache:
    def __init__(self, state_dir: Path | None = None) -> None:
        self.path = Path(state_dir or default_state_dir()) / "validation.sqlite"

    def _ensure_dir(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)

    def _select(self, column: str, key: str) -> object | None:
        if not self.path.exists():
            return None
        with sqlite3.connect(self.path) as conn:
            conn.execute(_SCHEMA)
            row = conn.execute(f"SELECT {column} FROM validations WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def lookup(self, key: str) -> bool | None:
        passed = self._select("passed", key)
        return None if passed is None else bool(passed)

    def summary(self, key: str) -> str | None:
        """The summary recorded with a validation of these exact contents (the web view shows it)."""
        summary = self._select("summary", key)
        return None if summary is None else str(summary)

    def record(self, key: str, domain: str, passed: bool, summary: str) -> None:
        self._ensure_dir()
        with sqlite3.connect(self.path) as conn:
            conn.execute(_SCHEMA)
            conn.execute("INSERT OR REPLACE INTO validations VALUES (?, ?, ?, ?)", (key, domain, int(passed), summary))

    async def lookup_async(self, key: str) -> bool | None:
        """Event-loop form for the host (aiosqlite keeps the loop free while the file is read)."""
        if not self.path.exists():
            return None
        async with aiosqlite.connect(self.path) as conn:
            await conn.execute(_SCHEMA)
            async with conn.execute("SELECT passed FROM validations WHERE key = ?", (key,)) as cursor:
                row = await cursor.fetchone()
        return None if row is None else bool(row[0])

    async def record_async(self, key: str, domain: str, passed: bool, summary: str) -> None:
        self._ensure_dir()
        async with aiosqlite.connect(self.path) as conn:
            await conn.execute(_SCHEMA)
            await conn.execute("INSERT OR REPLACE INTO validations VALUES (?, ?, ?, ?)", (key, domain, int(passed), summary))
            await conn.commit()


def validation_status(package: DomainPackage, cache: ValidationCache | None = None) -> str:
    """'validated', 'failed validation' or 'not validated' for the package's current contents."""
    result = (cache or ValidationCache()).lookup(validation_key(package))
    return {True: "validated", False: "failed validation", None: "not validated"}[result]
