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


def test_a_start_state_built_on_another_counts_only_its_changed_rows_and_gets_the_same_counters():
    """``extend_start_state`` reads only the rows the change table names (every other row was
    counted when the base got its counters): its counters equal a build from scratch, for rows
    inserted by the setup and for a key an update raised."""
    from scaleenv_mcp.state.model import RowOp
    from scaleenv_mcp.state.start_states import build_start_state, extend_start_state

    schema = ("CREATE TABLE pets (pet_id TEXT PRIMARY KEY, name TEXT);"
              "CREATE TABLE owners (owner_id TEXT PRIMARY KEY, email TEXT);")
    seed = {"pets": [{"pet_id": "PET-00003", "name": "Rex"}], "owners": [{"owner_id": "OWN-00010", "email": "a@b.c"}]}
    ops = [RowOp(op="insert", table="pets", row={"pet_id": "PET-00042", "name": "Tom"}),
           RowOp(op="update", table="owners", key={"owner_id": "OWN-00010"}, values={"owner_id": "OWN-00077"})]

    def counters(image: bytes) -> list[tuple[str, int]]:
        db = sqlite3.connect(":memory:")
        db.deserialize(image)
        return db.execute("SELECT prefix, last FROM _scaleenv_ids ORDER BY prefix").fetchall()

    extended = extend_start_state(build_start_state(schema, seed), ops)
    assert counters(extended) == counters(build_start_state(schema, seed, ops)) == [("OWN", 77), ("PET", 42)]
