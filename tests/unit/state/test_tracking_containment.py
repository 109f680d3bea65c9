"""Tool code cannot get around change tracking, and writes it might hide are still seen (issue #32).

Each case runs SQL the way tool code does (through ``ctx.db`` on a guarded episode connection of
a tracked start state) and then checks that the state read from the change set equals the
full-scan reference: a write the triggers missed would show up as a mismatch.
"""

from __future__ import annotations

import sqlite3

import pytest

from scaleenv_mcp.domain.policy import check_policy
from scaleenv_mcp.state.canonical import dump_state
from scaleenv_mcp.state.containment import open_connection
from scaleenv_mcp.state.diff import diff_states
from scaleenv_mcp.state.facade import ToolContext
from scaleenv_mcp.state.fingerprint import fingerprint_dump
from scaleenv_mcp.state.start_states import build_start_state
from scaleenv_mcp.state.tracking import BaseState, has_tracking, read_overlay

SCHEMA = """
CREATE TABLE owners (owner_id TEXT PRIMARY KEY, email TEXT NOT NULL UNIQUE) STRICT;
CREATE TABLE pets (pet_id TEXT PRIMARY KEY, owner_id TEXT NOT NULL REFERENCES owners(owner_id) ON DELETE CASCADE,
                   name TEXT) STRICT;
CREATE TABLE visits (visit_id INTEGER PRIMARY KEY, pet_id TEXT REFERENCES pets(pet_id) ON DELETE SET NULL,
                     cost REAL) STRICT;
"""
SEED = {
    "owners": [{"owner_id": f"OWN-{i:05d}", "email": f"o{i}@example.org"} for i in range(1, 7)],  # OWN-00006: no pets
    "pets": [{"pet_id": f"PET-{i:05d}", "owner_id": f"OWN-{1 + i % 5:05d}", "name": f"pet {i}"} for i in range(1, 11)],
    "visits": [{"visit_id": i, "pet_id": f"PET-{1 + i % 10:05d}", "cost": i * 1.5} for i in range(1, 21)],
}
CLOCK = "2026-03-10T09:00:00"


@pytest.fixture
def episode():
    start = build_start_state(SCHEMA, SEED)
    with_seed = sqlite3.connect(":memory:")
    with_seed.deserialize(start)
    base = BaseState(with_seed)
    with_seed.close()
    conn, guard = open_connection(CLOCK, serialized=start)
    return conn, guard, ToolContext(conn, guard, CLOCK), base


def _assert_tracked(conn: sqlite3.Connection, guard, base: BaseState) -> None:
    guard.trusted = True
    try:
        assert has_tracking(conn)
        overlay = read_overlay(base, conn)
        full = dump_state(conn)
    finally:
        guard.trusted = False
    assert overlay is not None
    assert base.fingerprint(overlay) == fingerprint_dump(full)
    seed = {name: table.canonical(table.rows.values()) for name, table in base.tables.items()}
    assert base.diff({}, overlay) == diff_states(seed, full)


@pytest.mark.parametrize("sql", [
    "DROP TRIGGER _scaleenv_track_upd_pets",
    "CREATE TRIGGER t AFTER UPDATE ON pets BEGIN SELECT 1; END",
    "CREATE TEMP TRIGGER t AFTER UPDATE ON pets BEGIN SELECT 1; END",
    "PRAGMA recursive_triggers = OFF",
    "PRAGMA writable_schema = ON",
    "INSERT INTO _scaleenv_changes (tbl, rid) VALUES ('pets', 1)",
    "DELETE FROM _scaleenv_changes",
    "UPDATE _scaleenv_changes SET rid = 0",
    "SELECT * FROM _scaleenv_changes",
    "DROP TABLE _scaleenv_changes",
    "ALTER TABLE pets RENAME TO animals",
    "CREATE TABLE pets2 AS SELECT * FROM pets",
    "UPDATE sqlite_schema SET sql = '' WHERE name LIKE '_scaleenv_track%'",
    "ATTACH DATABASE ':memory:' AS other",
    "VACUUM",
])
def test_tool_sql_cannot_touch_the_tracking(episode, sql):
    conn, guard, ctx, base = episode
    with pytest.raises(sqlite3.DatabaseError):
        ctx.db.execute(sql)
    assert guard.denied or "sqlite_schema" in sql, "refused by the authorizer, not by accident"
    ctx.db.execute("UPDATE pets SET name = 'renamed' WHERE pet_id = 'PET-00003'")
    _assert_tracked(conn, guard, base)


def test_static_policy_refuses_tool_source_naming_internal_tables():
    source = 'def wipe(ctx) -> dict:\n    ctx.db.execute("DELETE FROM _scaleenv_changes")\n    return {}\n'
    assert not check_policy(source).ok


@pytest.mark.parametrize("sql", [
    # REPLACE deletes the conflicting row without a DELETE statement (seen only with recursive_triggers).
    "INSERT OR REPLACE INTO owners (owner_id, email) VALUES ('OWN-00002', 'new@example.org')",
    "REPLACE INTO owners (owner_id, email) VALUES ('OWN-00009', 'o3@example.org')",
    "INSERT OR REPLACE INTO visits (visit_id, pet_id, cost) VALUES (4, NULL, 9.0)",
    # Foreign-key actions write child rows no statement names.
    "DELETE FROM owners WHERE owner_id = 'OWN-00001'",
    "DELETE FROM pets WHERE pet_id IN ('PET-00002', 'PET-00005')",
    # An outer conflict clause overrides the trigger's: a second write to a row must not fail.
    "UPDATE OR ABORT pets SET name = name || '!'",
    "UPDATE OR ROLLBACK visits SET cost = cost + 1 WHERE visit_id < 5",
    "INSERT OR FAIL INTO visits (pet_id, cost) VALUES ('PET-00001', 1.0)",
    # Primary-key and rowid changes, whole-table deletes (no truncate shortcut with triggers), upserts.
    "UPDATE owners SET owner_id = 'OWN-00099' WHERE owner_id = 'OWN-00006'",
    "UPDATE visits SET visit_id = visit_id + 100 WHERE visit_id > 15",
    "UPDATE visits SET rowid = 500 WHERE visit_id = 1",
    "DELETE FROM visits",
    "INSERT INTO owners VALUES ('OWN-00001', 'x@example.org') ON CONFLICT(owner_id) DO UPDATE SET email = excluded.email",
])
def test_writes_that_no_statement_names_are_tracked(episode, sql):
    conn, guard, ctx, base = episode
    ctx.db.execute(sql)
    ctx.db.execute(sql) if sql.startswith("UPDATE OR") else None
    _assert_tracked(conn, guard, base)


def test_a_rolled_back_write_leaves_no_change(episode):
    conn, guard, ctx, base = episode
    guard.trusted = True
    conn.execute("SAVEPOINT call")
    guard.trusted = False
    ctx.db.execute("DELETE FROM owners WHERE owner_id = 'OWN-00002'")
    guard.trusted = True
    conn.execute("ROLLBACK TO call")
    conn.execute("RELEASE call")
    assert read_overlay(base, conn) == {}
    guard.trusted = False
    _assert_tracked(conn, guard, base)


def test_untrackable_tables_leave_the_state_untracked():
    start = build_start_state("CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT) WITHOUT ROWID;", {"kv": [{"k": "a", "v": "1"}]})
    conn = sqlite3.connect(":memory:")
    conn.deserialize(start)
    assert not has_tracking(conn)
    keyless = build_start_state("CREATE TABLE log (line TEXT);", {"log": [{"line": "a"}, {"line": "a"}]})
    conn.deserialize(keyless)
    assert not has_tracking(conn)
