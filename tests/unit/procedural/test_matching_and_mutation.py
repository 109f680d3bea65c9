from pathlib import Path

from scaleenv_mcp.domain.cases import ToolCase
from scaleenv_mcp.domain.loader import load_domain
from scaleenv_mcp.procedural.matching import match_changes, match_result
from scaleenv_mcp.procedural.mutation import build_mutants
from scaleenv_mcp.procedural.validate import check_coverage, helper_callers
from scaleenv_mcp.state.diff import RowChange, StateDiff, TableDiff

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "domains" / "tiny_library"


def test_result_is_a_recursive_subset_and_numbers_compare_canonically():
    actual = {"items": [{"id": "A", "n": 1.0, "extra": True}], "total": 1}
    assert match_result({"items": [{"id": "A", "n": 1}]}, actual) == []
    assert match_result({"items": []}, actual) == ["result.items: expected a list of 0, got 1"]
    assert match_result({"total": 2}, actual) == ["result.total: expected 2, got 1"]


def test_changes_match_exact_keys_and_columns_but_added_rows_by_subset():
    actual = StateDiff(tables={
        "loans": TableDiff(added=[{"loan_id": "LN-00008", "book_id": "BK-1"}]),
        "books": TableDiff(changed=[RowChange(key={"book_id": "BK-1"}, before={"n": 2}, after={"n": 1})]),
    })
    expected = StateDiff(tables={
        "loans": TableDiff(added=[{"book_id": "BK-1"}]),
        "books": TableDiff(changed=[RowChange(key={"book_id": "BK-1"}, after={"n": 1})]),
    })
    assert match_changes(expected, actual) == []
    wrong = StateDiff(tables={"loans": TableDiff(added=[{"book_id": "BK-2"}])})
    problems = match_changes(wrong, actual)
    assert any("no added row matches" in p for p in problems) and any("books: unexpected change" in p for p in problems)
    assert match_changes(None, StateDiff()) == []


def test_mutants_are_deterministic_and_actually_differ():
    source = (FIXTURE / "tools.py").read_text()
    first, second = build_mutants(source, "borrow_book"), build_mutants(source, "borrow_book")
    assert [m.source for m in first] == [m.source for m in second]
    assert 5 <= len(first) <= 10
    assert all(m.source != source for m in first)
    assert any("flip" in m.description for m in first) and any("drop" in m.description for m in first)


def test_helpers_are_attributed_to_the_tools_that_call_them():
    source = "def check(ctx, x):\n    return x\n\ndef a(ctx, x):\n    return check(ctx, x)\n\ndef b(ctx):\n    return {}\n"
    assert helper_callers(source, ["a", "b"]) == {"check": ["a"]}


def test_coverage_names_what_is_missing():
    package = load_domain(FIXTURE)
    only_one = [ToolCase.model_validate({"name": "x", "tool": "borrow_book", "arguments": {},
                                         "expect": {"outcome": "rejection", "error": "not_found"}})]
    reasons = [f.reason for f in check_coverage(package.manifest, only_one) if f.tool == "borrow_book"]
    assert "has 1 cases, needs at least 3" in reasons
    assert "has no success case" in reasons
    assert any("not_permitted" in r for r in reasons)
