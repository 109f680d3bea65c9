"""Canonical form of a database state: the one representation hashing, diffing and reward use.

Pinned rules (docs/architecture.md, "Episode state"): integers and reals compare as
numbers (1 == 1.0, reals rounded to 6 decimals), NULL is not "", booleans are 0/1, row order
never matters, internal ``_scaleenv_*`` tables are left out. Guarded by
tests/unit/state/test_canonical.py.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from scaleenv_mcp.state.model import INTERNAL_TABLE_PREFIX

__all__ = ["CanonicalTable", "canonical_row", "canonical_value", "dump_state", "list_tables", "table_shape"]

Scalar = int | float | str | None


def canonical_value(value: Any) -> Scalar:
    """Map a SQLite or JSON value to its canonical scalar."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        rounded = round(value, 6)
        if rounded == int(rounded) and abs(rounded) < 2**53:
            return int(rounded)
        return rounded
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).hex()
    return str(value)


class CanonicalTable:
    """One table's columns, primary key and canonical rows, keyed by primary key."""

    __slots__ = ("name", "columns", "primary_key", "rows")

    def __init__(self, name: str, columns: list[str], primary_key: list[str], rows: dict[tuple[Any, ...], dict[str, Scalar]]) -> None:
        self.name = name
        self.columns = columns
        self.primary_key = primary_key
        self.rows = rows

    def to_json(self) -> dict[str, Any]:
        ordered = sorted(self.rows.items(), key=lambda item: _sort_key(item[0]))
        return {"columns": self.columns, "rows": [[row[c] for c in self.columns] for _, row in ordered]}


def _sort_key(key: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple((0, "", v) if isinstance(v, int | float) else (1, str(v), 0) if v is not None else (2, "", 0) for v in key)


def list_tables(conn: sqlite3.Connection) -> list[str]:
    """User tables in name order, internal tables excluded."""
    names = conn.execute("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").fetchall()
    return [n for (n,) in names if not n.startswith(INTERNAL_TABLE_PREFIX) and not n.startswith("sqlite_")]


def table_shape(conn: sqlite3.Connection, table: str) -> tuple[list[str], list[str]]:
    """Columns in schema order and primary-key columns (all columns when there is no primary key)."""
    info = conn.execute(f'PRAGMA table_info("{table}")').fetchall()
    columns = [row[1] for row in info]
    pk = [row[1] for row in sorted((r for r in info if r[5]), key=lambda r: r[5])]
    return columns, pk or columns


def canonical_row(columns: list[str], raw: tuple[Any, ...]) -> dict[str, Scalar]:
    """One row as read from SQLite, in canonical form, keyed by column name."""
    return {c: canonical_value(v) for c, v in zip(columns, raw)}


def dump_state(conn: sqlite3.Connection, tables: list[str] | None = None) -> dict[str, CanonicalTable]:
    """Read every user table (or the named ones) into canonical form."""
    result: dict[str, CanonicalTable] = {}
    for table in tables if tables is not None else list_tables(conn):
        columns, pk = table_shape(conn, table)
        rows: dict[tuple[Any, ...], dict[str, Scalar]] = {}
        for raw in conn.execute(f'SELECT * FROM "{table}"'):
            row = canonical_row(columns, raw)
            rows[tuple(row[k] for k in pk)] = row
        result[table] = CanonicalTable(table, columns, pk, rows)
    return result
