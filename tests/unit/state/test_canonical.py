import sqlite3
import subprocess
import sys

from scaleenv_mcp.state.canonical import canonical_value, dump_state
from scaleenv_mcp.state.diff import diff_states
from scaleenv_mcp.state.fingerprint import fingerprint_state


def _db(rows: list[tuple]) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (id TEXT PRIMARY KEY, n REAL, s TEXT)")
    conn.executemany("INSERT INTO t VALUES (?, ?, ?)", rows)
    conn.execute("CREATE TABLE _scaleenv_ids (prefix TEXT PRIMARY KEY, last INTEGER)")
    conn.execute("INSERT INTO _scaleenv_ids VALUES ('X', 5)")
    return conn


def test_numbers_compare_as_numbers_and_reals_round_to_six_places():
    assert canonical_value(1.0) == canonical_value(1) == 1
    assert canonical_value(0.1 + 0.2) == 0.3
    assert canonical_value(True) == 1
    assert canonical_value(None) is None and canonical_value("") == ""


def test_fingerprint_ignores_row_order_and_internal_tables():
    a = _db([("a", 1.0, "x"), ("b", 2.5, None)])
    b = _db([("b", 2.5, None), ("a", 1, "x")])
    b.execute("UPDATE _scaleenv_ids SET last = 99")
    assert fingerprint_state(a) == fingerprint_state(b)


def test_null_differs_from_empty_string():
    assert fingerprint_state(_db([("a", 1, None)])) != fingerprint_state(_db([("a", 1, "")]))


def test_diff_names_added_removed_and_changed_columns():
    before = dump_state(_db([("a", 1, "x"), ("b", 2, "y")]))
    after = dump_state(_db([("a", 1, "z"), ("c", 3, "w")]))
    diff = diff_states(before, after).tables["t"]
    assert [r["id"] for r in diff.added] == ["c"]
    assert [r["id"] for r in diff.removed] == ["b"]
    assert diff.changed[0].key == {"id": "a"} and diff.changed[0].after == {"s": "z"} and diff.changed[0].before == {"s": "x"}


def test_fingerprint_is_the_same_under_another_hash_seed():
    code = ("import sqlite3; from scaleenv_mcp.state.fingerprint import fingerprint_state;"
            "c=sqlite3.connect(':memory:'); c.execute('CREATE TABLE t (id TEXT PRIMARY KEY, v TEXT)');"
            "c.executemany('INSERT INTO t VALUES (?, ?)', [(str(i), 'v'+str(i)) for i in range(50)]);"
            "print(fingerprint_state(c))")
    outputs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                              env={"PYTHONHASHSEED": seed, "PATH": ""}).stdout for seed in ("1", "977")}
    assert len(outputs) == 1 and len(outputs.pop().strip()) == 64
