"""Needless reads leave the gold: a value an earlier call returned plainly is taken from there."""

from __future__ import annotations

from pathlib import Path

from scaleenv_mcp.domain.loader import load_domain
from scaleenv_mcp.domain.task import TaskAction
from scaleenv_mcp.generator.synthesis.arguments import Observation
from scaleenv_mcp.generator.synthesis.executor import ChainRun
from scaleenv_mcp.generator.synthesis.prune import drop_needless_reads, drop_repeated_reads

MANIFEST = load_domain(Path(__file__).resolve().parents[2] / "fixtures" / "domains" / "tiny_library").manifest


def _run() -> ChainRun:
    """get_member (the member's own id, plainly), find_books (every book: a list), get_member again,
    then borrow_book citing the second get_member for member_id and find_books for book_id."""
    run = ChainRun()
    results = [{"member_id": "MEM-00001", "name": "Ada"},
               {"items": [{"book_id": "BK-00001", "title": "Dune"}, {"book_id": "BK-00003", "title": "Emma"}]},
               {"member_id": "MEM-00001", "name": "Ada"}, {"loan_id": "LN-00009"}]
    tools = ["get_member", "find_books", "get_member", "borrow_book"]
    arguments = [{"member_id": "MEM-00001"}, {"text": "Dune"}, {"member_id": "MEM-00001"},
                 {"member_id": "MEM-00001", "book_id": "BK-00001"}]
    for index, (tool, args, result) in enumerate(zip(tools, arguments, results, strict=True)):
        run.actions.append(TaskAction(tool=tool, arguments=args))
        run.observations.append(Observation(index=index, tool=tool, result=result))
    run.facts.add("member_id", "MEM-00001")
    run.facts.add("book_title", "Dune")
    run.facts.add("unused", "x")
    run.identity_facts = frozenset({"member_id"})
    run.grounding = [
        {"action": 0, "argument": "member_id", "source": "user", "fact": "member_id"},
        {"action": 1, "argument": "text", "source": "user", "fact": "book_title"},
        {"action": 2, "argument": "member_id", "source": "call", "call": 0, "field": "member_id"},
        {"action": 3, "argument": "member_id", "source": "call", "call": 2, "field": "member_id"},
        {"action": 3, "argument": "book_id", "source": "call", "call": 1, "field": "items[0].book_id",
         "select_by": {"title": "book_title"}},
    ]
    return run


def test_a_read_that_only_passes_on_what_the_agent_had_goes():
    run = _run()
    assert drop_needless_reads(run, MANIFEST, keep=frozenset({0})) == 1
    assert [a.tool for a in run.actions] == ["get_member", "find_books", "borrow_book"]
    by_argument = {(g["action"], g["argument"]): g for g in run.grounding}
    assert by_argument[(2, "member_id")] == {"action": 2, "argument": "member_id", "source": "call", "call": 0,
                                             "field": "member_id"}  # re-pointed to the first plain answer
    assert by_argument[(2, "book_id")]["call"] == 1 and by_argument[(2, "book_id")]["select_by"] == {"title": "book_title"}
    assert [o.index for o in run.observations] == [0, 1, 2] and run.observations[2].tool == "borrow_book"
    assert set(run.facts.values) == {"member_id", "book_title"}  # the fact nothing names any more is not told


def test_kept_and_needed_reads_stay():
    run = _run()
    assert drop_needless_reads(run, MANIFEST, keep=frozenset({0, 2})) == 0
    assert len(run.actions) == 4
    assert drop_needless_reads(run, MANIFEST, keep=frozenset({0})) == 1  # a second pass finds nothing more
    assert drop_needless_reads(run, MANIFEST, keep=frozenset({0})) == 0


def test_a_read_made_again_before_any_write_is_made_once():
    """Two questions one list answers (the copay, then the member number) are one call; a read
    after a write is a new look and stays."""
    run = _run()
    run.actions.append(TaskAction(tool="find_books", arguments={"text": "Dune"}))
    run.observations.append(Observation(index=4, tool="find_books", result=run.observations[1].result))
    run.actions.append(TaskAction(tool="get_member", arguments={"member_id": "MEM-00001"}))
    run.observations.append(Observation(index=5, tool="get_member", result=run.observations[0].result))
    run.actions.append(TaskAction(tool="get_member", arguments={"member_id": "MEM-00001"}))
    run.observations.append(Observation(index=6, tool="get_member", result=run.observations[0].result))
    run.actions.append(TaskAction(tool="borrow_book", arguments={"member_id": "MEM-00001", "book_id": "BK-00003"}))
    run.observations.append(Observation(index=7, tool="borrow_book", result={"loan_id": "LN-00010"}))
    run.grounding.append({"action": 7, "argument": "member_id", "source": "call", "call": 6, "field": "member_id"})
    facts = dict(run.facts.values)
    assert drop_repeated_reads(run, MANIFEST) == 2  # get_member again at 2 (no write since 0), and at 6
    assert [a.tool for a in run.actions] == ["get_member", "find_books", "borrow_book", "find_books", "get_member",
                                             "borrow_book"]
    assert {(g["action"], g["argument"]): g["call"] for g in run.grounding if g["source"] == "call"} == {
        (2, "member_id"): 0, (2, "book_id"): 1, (5, "member_id"): 4}  # from the first of the twins, renumbered
    assert run.facts.values == facts  # the same arguments: no fact is forgotten
