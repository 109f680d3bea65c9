"""Runtime containment of SQL issued by tool code: authorizer, limits and a fixed clock.

What it guards (tests/unit/state/test_containment.py): tool SQL cannot ATTACH or DETACH,
change pragmas, load extensions, touch the internal ``_scaleenv_*`` tables, call
``random()``/``randomblob()`` (only the change-tracking triggers write their change table),
or see the wall clock: SQLite's date and time functions are
replaced so that ``'now'`` (and CURRENT_TIMESTAMP and friends) mean the episode clock.

Caveat: Python's sqlite3 statement cache re-executes prepared statements without asking
the authorizer again. Refusals are unaffected (a refused statement is never prepared, so
never cached), but per-call *recording* of tables read and written needs the cache off;
``open_connection(record_access=True)`` does that, and only validation uses it.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from scaleenv_mcp.state.model import INTERNAL_TABLE_PREFIX

CHANGES_TABLE = "_scaleenv_changes"  # scaleenv_mcp.state.tracking's change table and trigger names
TRIGGER_PREFIX = "_scaleenv_track_"

__all__ = ["AccessLog", "ConnectionGuard", "open_connection"]

_DENIED_FUNCTIONS = frozenset({"random", "randomblob", "load_extension"})
_CLOCK_FUNCTIONS = ("date", "time", "datetime", "julianday", "strftime", "unixepoch")
_NOW_KEYWORDS = {"current_date": "date", "current_time": "time", "current_timestamp": "datetime"}
_WRITE_ACTIONS = {sqlite3.SQLITE_INSERT, sqlite3.SQLITE_UPDATE, sqlite3.SQLITE_DELETE}
_ALLOWED_ACTIONS = _WRITE_ACTIONS | {
    sqlite3.SQLITE_SELECT,
    sqlite3.SQLITE_READ,
    sqlite3.SQLITE_FUNCTION,
    sqlite3.SQLITE_RECURSIVE,
}

DEFAULT_MAX_LENGTH = 1_000_000  # bytes in one string or blob
DEFAULT_MAX_SQL_LENGTH = 100_000


@dataclass
class AccessLog:
    """Tables read and written by tool SQL since the last ``clear()``."""

    reads: set[str] = field(default_factory=set)
    writes: set[str] = field(default_factory=set)

    def clear(self) -> None:
        self.reads.clear()
        self.writes.clear()


class ConnectionGuard:
    """The authorizer of one episode connection; ``trusted`` lifts it for the host's own SQL."""

    def __init__(self, record_access: bool) -> None:
        self.trusted = False
        self.record_access = record_access
        self.log = AccessLog()
        self.denied: list[str] = []

    def __call__(self, action: int, arg1: str | None, arg2: str | None, db: str | None, trigger: str | None) -> int:
        if self.trusted:
            return sqlite3.SQLITE_OK
        if action not in _ALLOWED_ACTIONS:
            return self._deny(f"SQL action {action} is not allowed in tool code")
        if action == sqlite3.SQLITE_FUNCTION:
            if (arg2 or "").lower() in _DENIED_FUNCTIONS:
                return self._deny(f"SQL function {arg2}() is not allowed in tool code")
            return sqlite3.SQLITE_OK
        table = arg1 or ""
        if table.startswith(INTERNAL_TABLE_PREFIX):
            # Only the change-tracking triggers (installed by the host; tool code cannot create
            # triggers) may touch their change table, and that access is not the tool's own.
            if table == CHANGES_TABLE and (trigger or "").startswith(TRIGGER_PREFIX):
                return sqlite3.SQLITE_OK
            return self._deny(f"table {table} is internal")
        # sqlite_* tables pass: SQLite itself refuses writes to them without PRAGMA
        # writable_schema (refused above), and json_each()'s constructor asks for them.
        if db not in (None, "main") and trigger is None:
            return self._deny(f"database {db} is not allowed")
        if self.record_access and table:
            if action == sqlite3.SQLITE_READ:
                self.log.reads.add(table)
            elif action in _WRITE_ACTIONS:
                self.log.writes.add(table)
        return sqlite3.SQLITE_OK

    def _deny(self, reason: str) -> int:
        self.denied.append(reason)
        return sqlite3.SQLITE_DENY


_reference: sqlite3.Connection | None = None


def _reference_db() -> sqlite3.Connection:
    """One plain connection per process that evaluates SQLite's own date functions for the wrappers."""
    global _reference
    if _reference is None:
        _reference = sqlite3.connect(":memory:", check_same_thread=False)
    return _reference


def _clock_function(name: str, now_sql: str) -> Callable[..., Any]:
    reference = _reference_db()

    def fn(*args: Any) -> Any:
        fixed = [now_sql if isinstance(a, str) and a.strip().lower() == "now" else a for a in args]
        if name == "strftime" and len(fixed) == 1:
            fixed.append(now_sql)
        if not fixed and name != "strftime":
            fixed = [now_sql]
        return reference.execute(f"SELECT {name}({','.join('?' * len(fixed))})", fixed).fetchone()[0]

    return fn


@functools.lru_cache(maxsize=64)
def _clock(now: str) -> tuple[tuple[str, int, Callable[..., Any]], ...]:
    """The clock functions for the episode clock ``now``: built once per clock value (a domain has one),
    not per connection, which creating an episode opens (#25 item 5)."""
    now_sql = now.replace("T", " ")
    functions: list[tuple[str, int, Callable[..., Any]]] = [
        (name, -1, _clock_function(name, now_sql)) for name in _CLOCK_FUNCTIONS]
    for keyword, base in _NOW_KEYWORDS.items():
        value = _reference_db().execute(f"SELECT {base}(?)", (now_sql,)).fetchone()[0]
        functions.append((keyword, 0, lambda value=value: value))
    return tuple(functions)


def _install_clock(conn: sqlite3.Connection, now: str) -> None:
    """Replace SQLite's clock functions so 'now' is the episode clock, deterministically."""
    for name, arity, function in _clock(now):
        conn.create_function(name, arity, function, deterministic=True)


def open_connection(
    now: str,
    *,
    serialized: bytes | None = None,
    record_access: bool = False,
    max_pages: int | None = None,
    max_length: int = DEFAULT_MAX_LENGTH,
) -> tuple[sqlite3.Connection, ConnectionGuard]:
    """An in-memory episode connection, optionally loaded from serialized bytes, guarded.

    Args:
        now: the episode clock (ISO-8601); SQL 'now' resolves to it.
        serialized: start-state bytes from ``Connection.serialize()``.
        record_access: disable the statement cache so the guard records every table access.
        max_pages: database size cap in pages (SQLite ``max_page_count``), None for no cap.
        max_length: largest string or blob a statement may produce.
    """
    conn = sqlite3.connect(
        ":memory:", isolation_level=None, check_same_thread=False, cached_statements=0 if record_access else 128
    )
    if serialized is not None:
        conn.deserialize(serialized)
    # Before the first page is read: a page cache of its default size starts with a bulk allocation of
    # 20 pages per connection (80 KB: 1.78x a 143 KB state right after creation, 1.23x without it).
    # The pages are in memory already (memdb): reads measured no slower without the cache.
    conn.execute("PRAGMA cache_size = 0")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA recursive_triggers = ON")  # REPLACE's implicit deletes must reach the tracking triggers
    if max_pages is not None:
        conn.execute(f"PRAGMA max_page_count = {int(max_pages)}")
    conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, max_length)
    conn.setlimit(sqlite3.SQLITE_LIMIT_SQL_LENGTH, DEFAULT_MAX_SQL_LENGTH)
    conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
    _install_clock(conn, now)
    guard = ConnectionGuard(record_access)
    conn.set_authorizer(guard)
    return conn, guard
