"""Build start states (schema + seed + row operations) as serialized SQLite bytes, cached.

A start state is built once per (package hash, task) and kept serialized in a bounded LRU;
a new episode is ``deserialize`` of those bytes, which is what makes episode creation cheap
(bench/episodes.py measures it against a raw deserialize). No tool code runs here.
"""

from __future__ import annotations

import sqlite3
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any

from scaleenv_mcp.errors import DomainError
from scaleenv_mcp.state.ids import install_id_counters
from scaleenv_mcp.state.model import RowOp
from scaleenv_mcp.state.tracking import install_tracking

__all__ = ["StartStateCache", "apply_row_ops", "build_start_state", "extend_start_state", "insert_rows"]


def insert_rows(conn: sqlite3.Connection, table: str, rows: Iterable[dict[str, Any]]) -> None:
    rows = list(rows)
    if not rows:
        return
    columns = list(rows[0])
    sql = f'INSERT INTO "{table}" ({", ".join(f"{c!s}" for c in columns)}) VALUES ({", ".join("?" * len(columns))})'
    conn.executemany(sql, [tuple(r.get(c) for c in columns) for r in rows])


def apply_row_ops(conn: sqlite3.Connection, ops: Iterable[RowOp]) -> None:
    """Apply insert/update/delete operations in order; constraint errors propagate."""
    for op in ops:
        if op.op == "insert":
            assert op.row is not None
            insert_rows(conn, op.table, [op.row])
            continue
        assert op.key is not None
        where = " AND ".join(f'"{k}" = ?' for k in op.key)
        if op.op == "delete":
            cur = conn.execute(f'DELETE FROM "{op.table}" WHERE {where}', tuple(op.key.values()))
        else:
            assert op.values is not None
            sets = ", ".join(f'"{k}" = ?' for k in op.values)
            cur = conn.execute(
                f'UPDATE "{op.table}" SET {sets} WHERE {where}', (*op.values.values(), *op.key.values())
            )
        if cur.rowcount != 1:
            raise ValueError(f"{op.op} on {op.table} matched {cur.rowcount} rows for key {op.key}")


def build_start_state(
    schema_sql: str, seed: dict[str, list[dict[str, Any]]] | None, ops: Iterable[RowOp] = ()
) -> bytes:
    """Serialized database: schema, seed rows (unless None), change tracking, row ops, id counters."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        conn.executescript(schema_sql)
        return _load(conn, lambda: _insert_seed(conn, seed or {}), ops)
    except sqlite3.Error as exc:
        raise DomainError("seed.json", f"start state does not load: {exc}") from exc
    finally:
        conn.close()


def _insert_seed(conn: sqlite3.Connection, seed: dict[str, list[dict[str, Any]]]) -> None:
    for table, rows in seed.items():
        insert_rows(conn, table, rows)


def extend_start_state(seed_state: bytes, ops: Iterable[RowOp]) -> bytes:
    """A task's start state from its domain's serialized seed state: the same database as
    ``build_start_state(schema, seed, ops)`` (same rows, rowids and counters) without reloading the seed."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        conn.deserialize(seed_state)
        return _load(conn, None, ops)
    except sqlite3.Error as exc:
        raise DomainError("seed.json", f"start state does not load: {exc}") from exc
    finally:
        conn.close()


def _load(conn: sqlite3.Connection, insert_seed: Callable[[], object] | None, ops: Iterable[RowOp]) -> bytes:
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA recursive_triggers = ON")
    conn.execute("BEGIN")
    conn.execute("PRAGMA defer_foreign_keys = ON")
    if insert_seed is not None:
        insert_seed()
        install_tracking(conn)  # before the task's row ops: changes are tracked relative to the seed
    apply_row_ops(conn, ops)
    conn.execute("COMMIT")
    install_id_counters(conn)
    return conn.serialize()


class StartStateCache:
    """Bounded LRU of serialized start states, keyed by (package hash, task id or '')."""

    def __init__(self, max_bytes: int = 512 * 1024 * 1024) -> None:
        self.max_bytes = max_bytes
        self._items: OrderedDict[tuple[str, str], bytes] = OrderedDict()
        self._size = 0

    def get(self, key: tuple[str, str], build: Callable[[], bytes]) -> bytes:
        data = self._items.get(key)
        if data is not None:
            self._items.move_to_end(key)
            return data
        data = build()
        self._items[key] = data
        self._size += len(data)
        while self._size > self.max_bytes and len(self._items) > 1:
            _, old = self._items.popitem(last=False)
            self._size -= len(old)
        return data
