"""What SQLite refuses because of an argument names that argument (workers/argument_faults.py)."""

from __future__ import annotations

import sqlite3

import pytest

from scaleenv_mcp.workers.argument_faults import argument_problem


def _raised(sql: str, params: tuple) -> BaseException:
    conn = sqlite3.connect(":memory:")
    with pytest.raises((sqlite3.Error, OverflowError)) as caught:
        conn.execute(sql, params)
    return caught.value


def test_a_too_complex_like_pattern_names_the_longest_string():
    exc = _raised("SELECT 'x' LIKE '%' || ? || '%'", ("A" * 60000,))
    problem = argument_problem(exc, {"status": "open", "text": "A" * 60000})
    assert problem is not None and "'text'" in problem


def test_an_overflowing_integer_names_the_largest_integer():
    offset = 2**63 - 1
    exc = _raised("SELECT ?", (offset + 50,))  # a tool's offset + limit
    problem = argument_problem(exc, {"limit": 50, "offset": offset, "flag": True})
    assert problem is not None and "'offset'" in problem


def test_other_errors_are_not_blamed_on_arguments():
    exc = _raised("SELECT * FROM missing_table", ())
    assert argument_problem(exc, {"text": "a"}) is None
    assert argument_problem(OverflowError("x"), {"text": "a"}) is None
