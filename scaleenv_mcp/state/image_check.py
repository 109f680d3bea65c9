"""Validation of an untrusted SQLite image before it is served as an episode's state (issue #29, item 4).

An imported episode file's ``state.sqlite`` may come from anyone. It is checked in the worker that
would hold it (never in the host process), against the domain's own seed state:

1. it is an SQLite database that passes ``PRAGMA integrity_check`` and ``PRAGMA foreign_key_check``;
2. its schema, every row of ``sqlite_schema`` (type, name, table, SQL), equals the seed state's
   exactly: the domain's tables and indexes plus the change table and triggers our own tracking
   installs (``state.tracking``), and nothing else: no extra table, view or trigger, no altered one;
3. its change set tells the truth: the fingerprint computed from it equals the full-scan reference,
   so fingerprints, diffs and rewards read from the change set are those of the rows really there.

Reading it is done with ``trusted_schema`` off, so nothing in the image's schema runs as a function
of ours while it is checked; after the checks it is opened like any snapshot being restored, behind
the tool-code authorizer.
"""

from __future__ import annotations

import sqlite3

from scaleenv_mcp.state.canonical import dump_state
from scaleenv_mcp.state.fingerprint import fingerprint_dump
from scaleenv_mcp.state.tracking import BaseState, read_overlay

__all__ = ["image_problem"]

_SCHEMA = "SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_schema ORDER BY type, name"


def _schema(conn: sqlite3.Connection) -> set[tuple[str, str, str, str]]:
    return {(str(a), str(b), str(c), str(d)) for a, b, c, d in conn.execute(_SCHEMA)}


def _open(data: bytes) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute("PRAGMA trusted_schema = OFF")
    conn.deserialize(data)
    conn.execute("PRAGMA trusted_schema = OFF")
    conn.execute("PRAGMA query_only = ON")
    return conn


def image_problem(data: bytes, seed_state: bytes, base: BaseState | None, max_bytes: int) -> str | None:
    """Why ``data`` may not be served as a state of the domain whose seed state is ``seed_state``; None when it may."""
    if len(data) > max_bytes:
        return f"the SQLite image is {len(data)} bytes, over this host's {max_bytes}-byte database limit"
    reference = _open(seed_state)
    try:
        expected = _schema(reference)
    finally:
        reference.close()
    try:
        conn = _open(data)
    except sqlite3.Error as exc:
        return f"the state is not an SQLite database: {exc}"
    try:
        checked = [str(row[0]) for row in conn.execute("PRAGMA integrity_check(20)")]
        if checked != ["ok"]:
            lines = [line for row in checked for line in row.splitlines() if not line.startswith("***")]
            return f"the SQLite image fails integrity_check: {'; '.join(lines[:3])}"
        schema = _schema(conn)
        if schema != expected:
            extra = sorted(f"{kind} {name}" for kind, name, _, _ in schema - expected)
            missing = sorted(f"{kind} {name}" for kind, name, _, _ in expected - schema)
            return ("the SQLite image's schema is not this domain's: "
                    + "; ".join(part for part in (f"not in the domain (or altered): {', '.join(extra[:5])}" if extra else "",
                                                  f"missing (or altered): {', '.join(missing[:5])}" if missing else "")
                                if part))
        broken = conn.execute("PRAGMA foreign_key_check").fetchmany(3)
        if broken:
            return f"the SQLite image breaks foreign keys: {', '.join(f'{row[0]} rowid {row[1]}' for row in broken)}"
        if base is not None:
            overlay = read_overlay(base, conn)
            if overlay is None or base.fingerprint(overlay) != fingerprint_dump(dump_state(conn)):
                return "the SQLite image's change-tracking table does not match its rows"
    except (sqlite3.Error, KeyError, ValueError, TypeError) as exc:
        return f"the SQLite image cannot be read as this domain's state: {type(exc).__name__}: {exc}"
    finally:
        conn.close()
    return None
