"""Change tracking: the rows each write touches, recorded in the same transaction (issue #32).

Why: an episode's fingerprint and diff used to read every table, so they grew with the
database rather than with what the agent did. Here every user table of a start state gets
three SQLite triggers that record the rowid of each inserted, updated or deleted row in
``_scaleenv_changes``, inside the writing statement's own transaction. Being an ordinary
table of the episode database, the change set rolls back with a failed call, travels in
snapshots (so a restore rewinds it) and is copied by a fork (which therefore inherits it).

The change set is relative to the domain's *seed* state (triggers are installed before a
task's setup operations run), so one ``BaseState`` per domain data serves every task and
episode: a state is the base with an ``Overlay`` (changed rowid -> canonical row, or None
when deleted). Fingerprint = base sums with the overlay's rows folded in; diff between two
states = ``diff_states`` over the rows at the rowids either overlay touched (elsewhere both
equal the base). Both equal the full-scan reference (tests/unit/state/test_tracking.py).

What the triggers cannot see falls back to the full scan: a state without the change table
(a package with a WITHOUT ROWID or key-less table is never tracked). Tool code cannot get
around them: the authorizer refuses DDL, pragmas and the internal tables except to the
triggers themselves, and ``recursive_triggers`` is on so REPLACE's implicit deletes fire the
delete trigger (tests/unit/state/test_tracking_containment.py).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from scaleenv_mcp.state.canonical import CanonicalTable, Scalar, canonical_row, list_tables, table_shape
from scaleenv_mcp.state.containment import CHANGES_TABLE, TRIGGER_PREFIX
from scaleenv_mcp.state.diff import StateDiff, diff_states
from scaleenv_mcp.state.fingerprint import ROW_HASH_MODULUS, combine_tables, row_hash

__all__ = ["CHANGES_TABLE", "TRIGGER_PREFIX", "BaseState", "Overlay", "has_tracking", "install_tracking", "read_overlay"]


Row = dict[str, Scalar]
Overlay = dict[str, dict[int, Row | None]]  # table -> rowid -> row now (None: no row at that rowid)


def _record(table: str, rowid: str) -> str:
    # NOT EXISTS instead of a conflict clause: an outer INSERT OR ABORT/FAIL/ROLLBACK would
    # override the trigger's OR IGNORE and turn a second write to the same row into an error.
    return (f"INSERT INTO {CHANGES_TABLE} (tbl, rid) SELECT '{table}', {rowid} WHERE NOT EXISTS "
            f"(SELECT 1 FROM {CHANGES_TABLE} WHERE tbl = '{table}' AND rid = {rowid});")


def _trackable(conn: sqlite3.Connection, table: str) -> bool:
    """Rowid tables with a declared primary key: a rowid then names exactly one canonical row."""
    without_rowid = conn.execute("SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = ?", (table,)).fetchone()
    has_pk = any(row[5] for row in conn.execute(f'PRAGMA table_info("{table}")'))
    return bool(without_rowid is not None and not without_rowid[0] and has_pk)


def install_tracking(conn: sqlite3.Connection) -> bool:
    """Create the change table and every user table's triggers; False (nothing installed) when a table cannot be tracked."""
    tables = list_tables(conn)
    if not all(_trackable(conn, t) for t in tables):
        return False
    statements = [f"CREATE TABLE {CHANGES_TABLE} (tbl TEXT NOT NULL, rid INTEGER NOT NULL, PRIMARY KEY (tbl, rid)) "
                  "WITHOUT ROWID"]
    for table in tables:
        name = f'"{TRIGGER_PREFIX}{{}}_{table}" AFTER {{}} ON "{table}"'
        statements += [
            f"CREATE TRIGGER {name.format('ins', 'INSERT')} BEGIN {_record(table, 'NEW.rowid')} END",
            f"CREATE TRIGGER {name.format('del', 'DELETE')} BEGIN {_record(table, 'OLD.rowid')} END",
            f"CREATE TRIGGER {name.format('upd', 'UPDATE')} BEGIN {_record(table, 'OLD.rowid')} "
            f"{_record(table, 'NEW.rowid')} END",
        ]
    for statement in statements:
        conn.execute(statement)
    return True


def has_tracking(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?", (CHANGES_TABLE,)).fetchone() is not None


class _BaseTable:
    __slots__ = ("name", "columns", "primary_key", "rows", "total")

    def __init__(self, name: str, columns: list[str], primary_key: list[str], rows: dict[int, Row]) -> None:
        self.name, self.columns, self.primary_key, self.rows = name, columns, primary_key, rows
        self.total = sum(self.hash(row) for row in rows.values()) % ROW_HASH_MODULUS

    def hash(self, row: Row) -> int:
        return row_hash(self.name, [row[c] for c in self.columns])

    def canonical(self, rows: Iterable[Row]) -> CanonicalTable:
        pk = self.primary_key
        return CanonicalTable(self.name, self.columns, pk, {tuple(row[k] for k in pk): row for row in rows})


class BaseState:
    """A domain's seed state read once: rows by rowid and each table's row-hash sum."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.tables: dict[str, _BaseTable] = {}
        for table in list_tables(conn):
            columns, pk = table_shape(conn, table)
            rows = {raw[0]: canonical_row(columns, raw[1:]) for raw in conn.execute(f'SELECT rowid, * FROM "{table}"')}
            self.tables[table] = _BaseTable(table, columns, pk, rows)

    def row(self, overlay: Overlay, table: str, rowid: int) -> Row | None:
        changed = overlay.get(table)
        if changed is not None and rowid in changed:
            return changed[rowid]
        return self.tables[table].rows.get(rowid)

    def fingerprint(self, overlay: Overlay) -> str:
        """The state's fingerprint: each changed rowid's base row hashed out of its table's sum, its row now hashed in."""
        parts = []
        for name, table in self.tables.items():
            total = table.total
            for rowid, row in overlay.get(name, {}).items():
                old = table.rows.get(rowid)
                if old is not None:
                    total -= table.hash(old)
                if row is not None:
                    total += table.hash(row)
            parts.append((name, table.columns, total % ROW_HASH_MODULUS))
        return combine_tables(parts)

    def diff(self, before: Overlay, after: Overlay) -> StateDiff:
        """Diff between two states of this base, reading only the rowids either one changed."""
        old: dict[str, CanonicalTable] = {}
        new: dict[str, CanonicalTable] = {}
        for name in sorted(set(before) | set(after)):
            table = self.tables[name]
            rowids = set(before.get(name, ())) | set(after.get(name, ()))
            old[name] = table.canonical(r for r in (self.row(before, name, i) for i in rowids) if r is not None)
            new[name] = table.canonical(r for r in (self.row(after, name, i) for i in rowids) if r is not None)
        return diff_states(old, new)

    def read_overlay(self, conn: sqlite3.Connection) -> Overlay:
        """The rows now at every rowid the change table lists (one join per changed table)."""
        overlay: Overlay = {}
        for (name,) in conn.execute(f"SELECT DISTINCT tbl FROM {CHANGES_TABLE}").fetchall():
            columns = self.tables[name].columns
            overlay[name] = {
                raw[0]: canonical_row(columns, raw[2:]) if raw[1] is not None else None
                for raw in conn.execute(f'SELECT c.rid, t.rowid, t.* FROM {CHANGES_TABLE} c LEFT JOIN "{name}" t '
                                        "ON t.rowid = c.rid WHERE c.tbl = ?", (name,))
            }
        return overlay


def read_overlay(base: BaseState, conn: sqlite3.Connection) -> Overlay | None:
    """The connection's overlay over ``base``, or None when the state is not tracked (the caller scans it fully)."""
    return base.read_overlay(conn) if has_tracking(conn) else None
