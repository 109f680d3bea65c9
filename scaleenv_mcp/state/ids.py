"""Deterministic id minting: ``ctx.new_id("ORD")`` gives ``ORD-00042``.

Counters live in the episode database (``_scaleenv_ids``) so they roll back with a failed
call and travel with snapshots and forks; they start above the highest id of the prefix in
the start state (tests/unit/state/test_ids.py).
"""

from __future__ import annotations

import re
import sqlite3

from scaleenv_mcp.state.canonical import list_tables
from scaleenv_mcp.state.containment import CHANGES_TABLE

__all__ = ["ID_TABLE", "format_id", "install_id_counters", "mint_id"]

ID_TABLE = "_scaleenv_ids"
_ID_RE = re.compile(r"^([A-Z][A-Z0-9]{1,9})-(\d+)$")
_PREFIX_RE = re.compile(r"^[A-Z][A-Z0-9]{1,9}$")


def format_id(prefix: str, number: int) -> str:
    return f"{prefix}-{number:05d}"


def install_id_counters(conn: sqlite3.Connection) -> None:
    """Create the counter table, seeded from the highest id of every prefix in text key columns.

    A state that has counters already and tracks its changes (every state ``start_states``
    builds: counters are installed after tracking) only needs the rows its change table names:
    every other row was there, unchanged, when its counters were installed. That makes a task's
    start state and a test case's fixture cost their own rows, not the whole seed's.
    """
    changed_only = _has_table(conn, ID_TABLE) and _has_table(conn, CHANGES_TABLE)
    # The text key columns of every user table in one statement, and with a change table only those of
    # the tables it names: a fixture's connection caches no statements (access recording), so each
    # statement per table was parsed again for every validation case.
    keys = conn.execute("SELECT m.name, p.name FROM sqlite_schema AS m JOIN pragma_table_info(m.name) AS p "
                        "WHERE m.type = 'table' AND p.pk > 0 AND upper(p.type) = 'TEXT'").fetchall()
    user = set(list_tables(conn))
    touched = {t for (t,) in conn.execute(f"SELECT DISTINCT tbl FROM {CHANGES_TABLE}")} if changed_only else user
    highest: dict[str, int] = {}
    for table, column in keys:
        if table in user and table in touched:
            rows = conn.execute(f'SELECT "{column}" FROM "{table}" WHERE rowid IN '
                                f"(SELECT rid FROM {CHANGES_TABLE} WHERE tbl = ?)", (table,)) if changed_only \
                else conn.execute(f'SELECT "{column}" FROM "{table}"')
            for (value,) in rows:
                match = _ID_RE.match(value or "")
                if match:
                    prefix, number = match.group(1), int(match.group(2))
                    highest[prefix] = max(highest.get(prefix, 0), number)
    conn.execute(f"CREATE TABLE IF NOT EXISTS {ID_TABLE} (prefix TEXT PRIMARY KEY, last INTEGER NOT NULL) STRICT")
    conn.executemany(
        f"INSERT INTO {ID_TABLE}(prefix, last) VALUES (?, ?) ON CONFLICT(prefix) DO UPDATE SET last = max(last, excluded.last)",
        sorted(highest.items()),
    )


def _has_table(conn: sqlite3.Connection, name: str) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?", (name,)).fetchone() is not None


def mint_id(conn: sqlite3.Connection, prefix: str) -> str:
    if not isinstance(prefix, str) or not _PREFIX_RE.match(prefix):
        raise ValueError(f"id prefix must be 2-10 upper-case letters or digits, got {prefix!r}")
    row = conn.execute(
        f"INSERT INTO {ID_TABLE}(prefix, last) VALUES (?, 1) ON CONFLICT(prefix) DO UPDATE SET last = last + 1 "
        "RETURNING last",
        (prefix,),
    ).fetchone()
    return format_id(prefix, row[0])
