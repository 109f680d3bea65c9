"""``ctx`` and ``ctx.db``: everything tool code receives, and nothing more.

The facade exposes literal-SQL execution and row fetching. It never hands out the sqlite3
connection, so tool code cannot commit, attach, change pragmas or lift limits; the static
policy forbids underscore attributes, which keeps the private slots below out of reach
(tests/unit/domain/test_policy.py tries).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from scaleenv_mcp.state.containment import ConnectionGuard
from scaleenv_mcp.state.ids import mint_id

__all__ = ["DatabaseFacade", "ToolContext"]

Params = Sequence[Any] | dict[str, Any]


class DatabaseFacade:
    """Narrow access to one episode database for tool code."""

    __slots__ = ("__conn",)

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.__conn = conn

    def execute(self, sql: str, params: Params = ()) -> int:
        """Run one INSERT, UPDATE or DELETE; returns the number of rows it changed."""
        cursor = self.__conn.execute(sql, params)
        return cursor.rowcount

    def fetch_all(self, sql: str, params: Params = ()) -> list[dict[str, Any]]:
        """Run one SELECT; returns every row as a dict keyed by column name."""
        cursor = self.__conn.execute(sql, params)
        names = [d[0] for d in cursor.description or ()]
        return [dict(zip(names, row)) for row in cursor.fetchall()]

    def fetch_one(self, sql: str, params: Params = ()) -> dict[str, Any] | None:
        """Run one SELECT; returns its first row as a dict, or None when there is none."""
        cursor = self.__conn.execute(sql, params)
        row = cursor.fetchone()
        if row is None:
            return None
        return dict(zip([d[0] for d in cursor.description], row))


class ToolContext:
    """The single argument every tool receives first: ``ctx.db``, ``ctx.now``, ``ctx.today``, ``ctx.new_id``."""

    __slots__ = ("db", "now", "today", "__conn", "__guard")

    def __init__(self, conn: sqlite3.Connection, guard: ConnectionGuard, now: str) -> None:
        self.db = DatabaseFacade(conn)
        self.now = now
        self.today = now[:10]
        self.__conn = conn
        self.__guard = guard

    def new_id(self, prefix: str) -> str:
        """Mint the next id for ``prefix`` (2-10 upper-case letters), e.g. ``ORD-00042``."""
        self.__guard.trusted = True
        try:
            return mint_id(self.__conn, prefix)
        finally:
            self.__guard.trusted = False
