"""SHA-256 fingerprint of a canonical state: equal states, equal fingerprints, on any machine.

The value is built so that one changed row costs O(1) to fold in (issue #32): every row is
hashed on its own (sha256 of its canonical JSON with its table name), a table's rows are
combined by a sum modulo 2^256 (order-independent, and a row leaves the sum by subtraction),
each table's digest is sha256 of its name, columns and that sum, and the fingerprint is
sha256 over the tables' digests in name order. ``fingerprint_dump`` is the reference: it
recomputes everything from a full dump; ``scaleenv_mcp.state.tracking`` folds changes into
a cached start state's sums and must reach the same value bit for bit (property tests in
tests/unit/state/test_tracking.py). Nothing here depends on dict order, hash seeds or float
formatting beyond ``json.dumps`` of canonical scalars (tests run it under two PYTHONHASHSEED values).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable

from scaleenv_mcp.state.canonical import CanonicalTable, Scalar, dump_state

__all__ = ["ROW_HASH_MODULUS", "combine_tables", "fingerprint_dump", "fingerprint_state", "row_hash", "table_sum"]

ROW_HASH_MODULUS = 2**256
# One encoder for every row: json.dumps with non-default options builds a new encoder per call.
_encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def row_hash(table: str, values: Iterable[Scalar]) -> int:
    """The row's hash as an integer: sha256 of ``[table, [values in column order]]`` as compact JSON."""
    return int.from_bytes(hashlib.sha256(_encode([table, list(values)]).encode("utf-8")).digest(), "big")


def table_sum(table: CanonicalTable) -> int:
    """Order-independent combination of every row's hash (sum modulo 2^256)."""
    columns = table.columns
    return sum(row_hash(table.name, [row[c] for c in columns]) for row in table.rows.values()) % ROW_HASH_MODULUS


def combine_tables(tables: Iterable[tuple[str, list[str], int]]) -> str:
    """The fingerprint from each table's (name, columns, row-hash sum): sha256 over per-table digests in name order."""
    outer = hashlib.sha256()
    for name, columns, total in sorted(tables, key=lambda t: t[0]):
        outer.update(hashlib.sha256(_encode([name, columns, f"{total:064x}"]).encode("utf-8")).digest())
    return outer.hexdigest()


def fingerprint_dump(dump: dict[str, CanonicalTable]) -> str:
    """The reference: the fingerprint recomputed from every row of a full canonical dump."""
    return combine_tables((name, table.columns, table_sum(table)) for name, table in dump.items())


def fingerprint_state(conn: sqlite3.Connection) -> str:
    return fingerprint_dump(dump_state(conn))
