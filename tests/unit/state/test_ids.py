"""Id minting: counters start above the start state's highest id of each prefix and roll back with their call."""

from __future__ import annotations

import sqlite3

import pytest

from scaleenv_mcp.state.ids import install_id_counters, mint_id


@pytest.fixture()
def conn() -> sqlite3.Connection:
    db = sqlite3.connect(":memory:", isolation_level=None)
    db.execute("CREATE TABLE orders (order_id TEXT PRIMARY KEY, note TEXT)")
    db.executemany("INSERT INTO orders VALUES (?, ?)", [("ORD-00007", "ORD-00900 in a note"), ("ORD-00041", "")])
    install_id_counters(db)
    return db


def test_counters_start_above_the_highest_key_of_each_prefix(conn: sqlite3.Connection):
    assert mint_id(conn, "ORD") == "ORD-00042"  # keys only: an id quoted in free text does not count
    assert mint_id(conn, "ORD") == "ORD-00043"
    assert mint_id(conn, "NEW") == "NEW-00001"


def test_a_failed_call_gives_its_ids_back(conn: sqlite3.Connection):
    conn.execute("SAVEPOINT call")
    assert mint_id(conn, "ORD") == "ORD-00042"
    conn.execute("ROLLBACK TO call")
    conn.execute("RELEASE call")
    assert mint_id(conn, "ORD") == "ORD-00042"


def test_a_bad_prefix_is_refused(conn: sqlite3.Connection):
    for prefix in ("ord", "O", "TOOLONGPREFIX", "OR-D"):
        with pytest.raises(ValueError, match="prefix"):
            mint_id(conn, prefix)
