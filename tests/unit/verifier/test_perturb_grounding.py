"""Wrong variants of the reference actions and the grounding check, on hand-made tasks (no host)."""

from __future__ import annotations

from pathlib import Path

from scaleenv_mcp.domain.loader import load_domain
from scaleenv_mcp.domain.task import Task
from scaleenv_mcp.state.model import RowOp
from scaleenv_mcp.verifier.grounding import check_grounding, label_is_ambiguous
from scaleenv_mcp.verifier.paths import get_path, leaf_values, list_levels, parent_list, selector_field
from scaleenv_mcp.verifier.perturb import argument_variants, changed_value, distractor_variants
from scaleenv_mcp.verifier.replay import ActionResult

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "domains" / "tiny_library"
MANIFEST = load_domain(FIXTURE).manifest
SHELF = {"items": [{"book_id": "BK-00001", "title": "Dune"}, {"book_id": "BK-00003", "title": "Dune Messiah"}]}


def _task(**changes) -> Task:
    data = {
        "id": "t", "domain": "tiny_library", "difficulty": "easy",
        "user": {"opening": "Hi", "instruction": "borrow Dune", "known": {"member_id": "MEM-00001", "book_title": "Dune"}},
        "actions": [{"tool": "find_books", "arguments": {"text": "Dune"}},
                    {"tool": "borrow_book", "arguments": {"member_id": "MEM-00001", "book_id": "BK-00001"}}],
        "meta": {"grounding": [
            {"action": 0, "argument": "text", "source": "user", "fact": "book_title"},
            {"action": 1, "argument": "member_id", "source": "user", "fact": "member_id", "table": "members"},
            {"action": 1, "argument": "book_id", "source": "call", "call": 0, "field": "items[0].book_id",
             "select_by": {"title": "book_title"}, "table": "books"}]},
    }
    data.update(changes)
    return Task.model_validate(data)


def test_paths():
    assert get_path(SHELF, "items[1].book_id") == "BK-00003"
    assert parent_list("a.items[2].book_id") == ("a.items", 2, "book_id")
    assert parent_list("loan_id") is None
    assert ("items[0].title", "title", "Dune") in leaf_values(SHELF)


def test_changed_values_differ_and_keep_their_kind():
    assert changed_value("MEM-00001", {}) == "MEM-00002"
    assert changed_value("2026-03-10", {}) == "2026-03-11"
    assert changed_value("2026-03-10T09:00:00", {}) == "2026-03-10T10:00:00"
    assert changed_value(5, {"maximum": 5}) == 4
    assert changed_value(True, {}) is False
    assert changed_value("active", {"enum": ["active", "suspended"]}) == "suspended"
    assert changed_value("a note", {}) != "a note"


def test_argument_variants_change_one_argument_of_each_writing_action():
    variants = argument_variants(_task(), MANIFEST)
    assert [v.description.split(":")[0] for v in variants] == ["action 1 borrow_book.book_id", "action 1 borrow_book.member_id"]
    assert variants[0].actions[0].arguments == {"text": "Dune"}  # reads are left alone


def test_distractor_variants_swap_the_look_alike_everywhere():
    clone = {"member_id": "MEM-00004", "name": "Ada Byron II", "email": "x@example.org", "status": "active", "max_loans": 2}
    task = _task(setup=[RowOp(op="insert", table="members", row=clone, distractor=True)])
    (variant,) = distractor_variants(task, MANIFEST)
    assert variant.actions[1].arguments["member_id"] == "MEM-00004"
    assert variant.actions[1].arguments["book_id"] == "BK-00001"


def test_grounding_accepts_facts_and_selected_results():
    results = [ActionResult(tool="find_books", ok=True, result=SHELF), ActionResult(tool="borrow_book", ok=True, result={})]
    assert check_grounding(_task(), results) == []


def test_grounding_rejects_missing_facts_wrong_fields_and_ambiguous_picks():
    results = [ActionResult(tool="find_books", ok=True, result=SHELF), ActionResult(tool="borrow_book", ok=True, result={})]
    no_fact = _task(user={"opening": "Hi", "instruction": "x", "known": {"book_title": "Dune"}})
    assert "fact 'member_id' is not among" in check_grounding(no_fact, results)[0]
    task = _task()
    task.meta.grounding[2]["field"] = "items[1].book_id"
    assert "holds 'BK-00003'" in check_grounding(task, results)[0]
    ambiguous = _task()
    del ambiguous.meta.grounding[2]["select_by"]
    assert "nothing to tell them apart" in check_grounding(ambiguous, results)[0]
    twins = {"items": [{"book_id": "BK-00001", "title": "Dune"}, {"book_id": "BK-00009", "title": "Dune"}]}
    problems = check_grounding(_task(), [ActionResult(tool="find_books", ok=True, result=twins), results[1]])
    assert "matches elements [0, 1]" in problems[0]
    missing = _task()
    missing.meta.grounding.pop(1)
    assert check_grounding(missing, results) == ["action 1 borrow_book.member_id: no grounding record"]


BRANCHES = {"items": [{"name": "Central", "books": [{"book_id": "BK-00001", "title": "Dune"}, {"book_id": "BK-00003", "title": "Emma"}]},
                      {"name": "Harbour", "books": [{"book_id": "BK-00007", "title": "Dune"}]}]}


def test_grounding_needs_a_selector_for_every_list_the_value_is_in():
    """A book out of one branch's shelf is the user's only when they also say which branch: the
    title alone is unique on that shelf but not across the branches (express-0361's addresses)."""
    results = [ActionResult(tool="find_books", ok=True, result=BRANCHES), ActionResult(tool="borrow_book", ok=True, result={})]
    task = _task()
    task.meta.grounding[2]["field"] = "items[0].books[0].book_id"
    assert "2 elements of items of call 0 with nothing" in check_grounding(task, results)[0]
    task.user.known["branch_name"] = "Central"
    task.meta.grounding[2]["select_by"] = {"title": "book_title", "items[].name": "branch_name"}
    assert check_grounding(task, results) == []
    task.user.known["branch_name"] = "Harbour"
    assert "matches elements [1] of items" in check_grounding(task, results)[0]
    task.meta.grounding[2]["select_by"] = {"title": "book_title", "shelves[].name": "branch_name"}
    assert "names the list 'shelves'" in check_grounding(task, results)[0]


def test_grounding_checks_that_a_named_row_is_called_what_the_user_says():
    """"Borrow the copy called Dune" must point at the row titled Dune in the start state (a
    setup row counts; a row the gold adds too), whatever the result the id came from."""
    results = [ActionResult(tool="find_books", ok=True, result=SHELF), ActionResult(tool="borrow_book", ok=True, result={})]
    rows = {"books": [{"book_id": "BK-00001", "title": "Dune"}, {"book_id": "BK-00003", "title": "Dune Messiah"}]}
    task = _task()
    task.meta.grounding[2]["names"] = {"title": "book_title"}
    assert check_grounding(task, results, MANIFEST, rows) == []
    task.user.known["book_title"] = "Dune Messiah"
    task.meta.grounding[0]["fact"] = "book_title"
    task.actions[0].arguments["text"] = "Dune Messiah"
    task.meta.grounding[2]["select_by"] = {}
    one = {"items": [SHELF["items"][0]]}
    problems = check_grounding(task, [ActionResult(tool="find_books", ok=True, result=one), results[1]], MANIFEST, rows)
    assert problems == ["action 1 borrow_book.book_id: the books row 'BK-00001' is not called 'Dune Messiah' (title)"]
    assert check_grounding(task, [ActionResult(tool="find_books", ok=True, result=one), results[1]]) == []  # no start state: not checked
    task.meta.grounding[2]["names"] = {"title": "shelf_label"}
    assert "names fact 'shelf_label' is not something" in check_grounding(
        task, [ActionResult(tool="find_books", ok=True, result=one), results[1]], MANIFEST, rows)[0]


def test_a_label_names_a_row_only_among_the_rows_the_user_could_mean():
    """A customer's "Home" among their own addresses, yes; someone else's "Home" among 28 of them, no
    (express_logistics-1-0378 sent a quote to another customer's Home the user could not name)."""
    express = load_domain(FIXTURE.parents[3] / "domains" / "express_logistics").manifest
    addresses = [{"address_id": "ADR-1", "customer_id": "CUS-1", "label": "Home"},
                 {"address_id": "ADR-2", "customer_id": "CUS-2", "label": "Home"},
                 {"address_id": "ADR-3", "customer_id": "CUS-2", "label": "Studio"}]
    me = ("customer", "CUS-1")
    assert label_is_ambiguous(express, addresses, "addresses", addresses[0], ["label"], me) is None
    assert label_is_ambiguous(express, addresses, "addresses", addresses[1], ["label"], me) == (
        "2 addresses rows in all are called 'Home' (label)")
    assert label_is_ambiguous(express, addresses, "addresses", addresses[2], ["label"], me) is None  # the one Studio
    # staff name a customer's address among that customer's addresses
    assert label_is_ambiguous(express, addresses, "addresses", addresses[1], ["label"], ("staff_member", "STF-1")) is None

    # the same title twice in all is told apart by one more thing the user sees
    other = ("customer", "CUS-9")
    assert label_is_ambiguous(express, addresses[:2], "addresses", addresses[1], ["label"], other) is not None
    with_city = [{**addresses[0], "city": "Lyon"}, {**addresses[1], "city": "London"}]
    assert label_is_ambiguous(express, with_city, "addresses", with_city[1], ["label", "city"], other) is None

    results = [ActionResult(tool="find_books", ok=True, result=SHELF), ActionResult(tool="borrow_book", ok=True, result={})]
    rows = {"books": [{"book_id": "BK-00001", "title": "Dune"}, {"book_id": "BK-00007", "title": "Dune"}]}
    task = _task()
    task.meta.grounding[2]["names"] = {"title": "book_title"}
    assert check_grounding(task, results, MANIFEST, rows) == [
        "action 1 borrow_book.book_id: the books row 'BK-00001' is not told apart by what the user calls it: "
        "2 books rows in all are called 'Dune' (title)"]


def test_paths_list_every_level():
    assert list_levels("items[0].books[1].title") == [("items", 0), ("items[0].books", 1)]
    assert selector_field("items[].name", "items[0].books[1].title") == ("items", "name")
    assert selector_field("title", "items[0].books[1].title") == ("items[0].books", "title")
