import sqlite3

import pytest

from scaleenv_mcp.state.containment import open_connection
from scaleenv_mcp.state.facade import ToolContext
from scaleenv_mcp.state.ids import install_id_counters


@pytest.fixture
def guarded():
    conn, guard = open_connection("2026-03-10T09:00:00")
    guard.trusted = True
    conn.execute("CREATE TABLE orders (order_id TEXT PRIMARY KEY, day TEXT) STRICT")
    conn.execute("INSERT INTO orders VALUES ('ORD-00041', '2026-03-01')")
    install_id_counters(conn)
    guard.trusted = False
    return conn, guard


@pytest.mark.parametrize("sql", [
    "ATTACH DATABASE ':memory:' AS other",
    "PRAGMA foreign_keys = OFF",
    "SELECT random()",
    "SELECT randomblob(4)",
    "SELECT * FROM _scaleenv_ids",
    "UPDATE _scaleenv_ids SET last = 0",
    "BEGIN",
])
def test_tool_sql_is_refused(guarded, sql):
    conn, guard = guarded
    with pytest.raises(sqlite3.DatabaseError):
        conn.execute(sql)
    assert guard.denied, "refused by the authorizer, not by accident"


def test_now_is_the_episode_clock(guarded):
    conn, _ = guarded
    row = conn.execute("SELECT date('now'), datetime('now', '+1 day'), CURRENT_DATE, CURRENT_TIMESTAMP, "
                       "strftime('%Y', 'now'), julianday('2026-03-11') - julianday('now')").fetchone()
    assert row[:5] == ("2026-03-10", "2026-03-11 09:00:00", "2026-03-10", "2026-03-10 09:00:00", "2026")
    assert row[5] == pytest.approx(1 - 9 / 24)


def test_new_id_continues_above_the_start_state_and_rolls_back(guarded):
    conn, guard = guarded
    ctx = ToolContext(conn, guard, "2026-03-10T09:00:00")
    guard.trusted = True
    conn.execute("SAVEPOINT call")
    guard.trusted = False
    assert ctx.new_id("ORD") == "ORD-00042"
    assert ctx.new_id("PAY") == "PAY-00001"
    guard.trusted = True
    conn.execute("ROLLBACK TO call")
    conn.execute("RELEASE call")
    guard.trusted = False
    assert ctx.new_id("ORD") == "ORD-00042"


def test_facade_hides_the_connection(guarded):
    conn, guard = guarded
    ctx = ToolContext(conn, guard, "2026-03-10T09:00:00")
    public = [name for name in dir(ctx.db) if not name.startswith("_")]
    assert sorted(public) == ["execute", "fetch_all", "fetch_one"]
    assert ctx.db.fetch_one("SELECT order_id FROM orders") == {"order_id": "ORD-00041"}


def test_string_length_limit(guarded):
    conn, _ = guarded
    with pytest.raises(sqlite3.DataError):
        conn.execute("SELECT zeroblob(100000000)").fetchone()


def test_json_each_in_list_idiom_works(guarded):
    conn, _ = guarded
    rows = conn.execute("SELECT order_id FROM orders WHERE order_id IN (SELECT value FROM json_each(?))",
                        ('["ORD-00041", "ORD-99999"]',)).fetchall()
    assert rows == [("ORD-00041",)]


def test_schema_tables_are_readable_but_never_writable(guarded):
    conn, _ = guarded
    assert conn.execute("SELECT count(*) FROM sqlite_schema").fetchone()[0] >= 1
    with pytest.raises(sqlite3.DatabaseError, match="may not be modified"):
        conn.execute("DELETE FROM sqlite_schema")
