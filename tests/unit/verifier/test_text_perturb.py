"""The argument gate's free-text variants: negated and number-changed texts, and that the reward rejects them."""

from __future__ import annotations

from pathlib import Path

import pytest

from scaleenv_mcp.domain.loader import load_domain
from scaleenv_mcp.domain.task import Task
from scaleenv_mcp.state.diff import StateDiff, TableDiff
from scaleenv_mcp.state.reward import compute_reward
from scaleenv_mcp.state.similarity import is_semantic_match
from scaleenv_mcp.verifier.perturb import argument_variants, is_free_text
from scaleenv_mcp.verifier.text_perturb import negated, number_changed
from scaleenv_mcp.verifier.verify import verify_domain

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "domains" / "tiny_library"
MANIFEST = load_domain(FIXTURE).manifest
NOTE = "Needed for 2 weeks of class, not for home reading"


@pytest.mark.parametrize(("text", "expected"), [
    ("Further action needed.", "Not Further action needed."),                # none: "Not " before the text
    ("No further action needed after this.", "Further action needed after this."),  # the first negation removed
    ("Take 1 tablet by mouth twice daily with food.", "Take 1 tablet by mouth twice daily without food."),
    ("Bell is broken", "Bell is not broken"),                                 # "not" after the first auxiliary
    ("The customer couldn't be reached", "The customer could be reached"),
    ("I can’t make it", "I can make it"),
    ("won't ship", "will ship"),
    ("Nothing was damaged", "Something was damaged"),
    ("Sealed, receipt available. No box, well wrapped", "Sealed, receipt available. Box, well wrapped"),
    ("Parcel left at door no. 14", "Not Parcel left at door no. 14"),       # "no. 14" is a number, no negation
    ("   ", None),
])
def test_negated(text: str, expected: str | None):
    assert negated(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("Take 1 tablet by mouth twice daily.", "Take 2 tablet by mouth twice daily."),  # the first number only
    ("Sinus pressure for ten days", "Sinus pressure for eleven days"),
    ("I booked it twice by mistake", "I booked it thrice by mistake"),           # a number word stays in its family
    ("Twelve boxes", "Eleven boxes"),                                            # the last of a family steps back
    ("Sprint 09", "Sprint 10"),                                                  # digits keep their width
    ("Payment of 1,250 received", "Payment of 2,250 received"),
    ("Red wine bottles", None),
])
def test_number_changed(text: str, expected: str | None):
    assert number_changed(text) == expected


@pytest.mark.parametrize("text", [
    "Take 1 tablet by mouth twice daily with food.", "No further action needed after this.", "Upheld.",
    "Designer with 9 years of Figma prototyping and moderated UX research studies.",
    "Half of the contact form is done, the rest should be ready by Tuesday.",
    "Photos are the seller's own; nothing to act on.", "Home readings this week: 138/86, 142/88.",
])
def test_every_variant_fails_the_semantic_comparison(text: str):
    for variant in (negated(text), number_changed(text)):
        assert variant is None or not is_semantic_match(text, variant), variant


def _borrow(note: str | None) -> Task:
    arguments = {"member_id": "MEM-00001", "book_id": "BK-00001", **({"note": note} if note is not None else {})}
    return Task.model_validate({
        "id": "t", "domain": "tiny_library", "difficulty": "easy",
        "user": {"opening": "Hi", "instruction": "borrow Dune", "known": {"member_id": "MEM-00001"}},
        "actions": [{"tool": "borrow_book", "arguments": arguments}]})


def test_free_text_is_prose_not_an_exact_value():
    assert is_free_text("borrow_book", "note", NOTE, MANIFEST)
    assert not is_free_text("borrow_book", "member_id", "MEM-00001", MANIFEST)      # an id
    assert not is_free_text("borrow_book", "note", "ada@example.org", MANIFEST)      # an e-mail address
    assert not is_free_text("borrow_book", "note", "2026-03-10", MANIFEST)           # a date
    assert not is_free_text("borrow_book", "note", " ", MANIFEST)


def test_a_free_text_argument_gets_an_unrelated_a_negated_and_a_number_changed_variant():
    descriptions = [v.description for v in argument_variants(_borrow(NOTE), MANIFEST)]
    notes = [d for d in descriptions if ".note:" in d]
    assert notes == [
        f"action 0 borrow_book.note: {NOTE!r} -> 'zz unrelated replacement text about the weather in Lisbon'",
        f"action 0 borrow_book.note: negated: {NOTE!r} -> 'Needed for 2 weeks of class, for home reading'",
        f"action 0 borrow_book.note: number changed: {NOTE!r} -> 'Needed for 3 weeks of class, not for home reading'"]
    assert len(argument_variants(_borrow(None), MANIFEST)) == 2  # no text, no text variants


def _loan(note: str) -> StateDiff:
    return StateDiff(tables={"loans": TableDiff(added=[{
        "loan_id": "LN-00010", "member_id": "MEM-00001", "book_id": "BK-00001", "borrowed_on": "2026-03-10",
        "due_on": "2026-03-24", "returned_on": None, "note": note}])})


def test_the_gold_scores_below_one_under_each_text_variant():
    """The real reward, on the loan each variant would write: only the gold's own note scores 1."""
    assert compute_reward(MANIFEST, _loan(NOTE), _loan(NOTE)).reward == 1.0
    texts = [v.actions[0].arguments["note"] for v in argument_variants(_borrow(NOTE), MANIFEST)
             if "note" in v.actions[0].arguments and v.actions[0].arguments["note"] != NOTE]
    assert len(texts) == 3
    for text in texts:
        assert compute_reward(MANIFEST, _loan(NOTE), _loan(text)).reward < 1.0, text


@pytest.mark.anyio
async def test_the_argument_gate_replays_the_text_variants_and_rejects_them(synthesized, tmp_path: Path):
    """Over the real in-memory transport: a task whose gold writes a note passes the argument gate, with 3 more variants."""
    package, tasks = synthesized
    base = next(t for t in tasks if any(a.tool == "borrow_book" for a in t.actions))
    task = base.model_copy(deep=True, update={"id": "noted"})
    index = next(i for i, a in enumerate(task.actions) if a.tool == "borrow_book")
    task.actions[index].arguments["note"] = NOTE
    task.user.known["note"] = NOTE
    task.meta.grounding.append({"action": index, "argument": "note", "source": "user", "fact": "note"})
    assert task.gold is not None
    for row in task.gold.diff.tables["loans"].added:
        row["note"] = NOTE
    tasks_file = tmp_path / "t.jsonl"
    tasks_file.write_text(task.to_line() + "\n")
    first = await verify_domain(package, tasks_file, workers=1, determinism=False)
    task.gold.fingerprint = first.verdicts[0].fingerprint or ""
    tasks_file.write_text(task.to_line() + "\n")
    verdict = (await verify_domain(package, tasks_file, workers=1, determinism=False)).verdicts[0]
    assert verdict.passed, [(g.gate, g.detail) for g in verdict.gates if not g.passed]
    variants = argument_variants(task, MANIFEST)
    assert sum(".note: " in v.description for v in variants) == 3
    assert next(g.detail for g in verdict.gates if g.gate == "argument") == f"{len(variants)} variants rejected"
