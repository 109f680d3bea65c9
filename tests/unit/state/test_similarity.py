"""Semantic text comparison: short correct paraphrases pass; negations, changed numbers and stuffing fail.

Each false positive and false negative found in review of the shipped tasks is a case here.
"""

from __future__ import annotations

import pytest

from scaleenv_mcp.state.similarity import has_same_hard_facts, is_semantic_match, negation_spans

GOLD_SIG = "Take 1 tablet by mouth twice daily with food."


@pytest.mark.parametrize(("gold", "answer"), [
    (GOLD_SIG, "Take 2 tablets by mouth once daily without food."),   # was a false positive
    (GOLD_SIG, "Take 2 tablets by mouth twice daily with food."),     # one number changed
    (GOLD_SIG, "Take 1 tablet by mouth twice daily without food."),   # negation added
    (GOLD_SIG, "Take 2 tablet by mouth once daily with food."),        # numbers swapped
    ("No further action needed after this.", "Further action needed."),  # was a false positive
    ("Refund approved for 3 items", "Refund not approved for 3 items"),
    ("Customer was not home", "Customer was home"),
    ("Parcel left at door 14", "Parcel left at door 41"),
    ("Payment of 1,250 received", "Payment of 125 received"),
    ("Upheld: the listing breaks the rules.", "dismissed"),
    ("Please deliver to the side entrance", "deliver side entrance " * 10),  # stuffing
])
def test_changed_facts_and_stuffing_do_not_match(gold: str, answer: str):
    assert not is_semantic_match(gold, answer)


@pytest.mark.parametrize(("gold", "answer"), [
    ("Upheld: the listing breaks the rules.", "Upheld."),             # was a false negative
    (GOLD_SIG, "Take one tablet by mouth twice a day with food"),
    (GOLD_SIG, GOLD_SIG.upper()),
    ("Customer could not be reached", "The customer couldn't be reached"),
    ("Leave the parcel with the neighbour at number 12", "Leave it with the neighbour at no. 12"),
    ("Refund of 12.50 approved", "Refund of 12.5 approved"),
    ("Payment 1,200 received", "payment 1200 received"),
    ("Deliver to the back door, the bell is broken", "Bell broken; deliver to back door"),
])
def test_short_correct_paraphrases_match(gold: str, answer: str):
    assert is_semantic_match(gold, answer)


def test_hard_facts_are_numbers_in_order_and_negation_count():
    assert has_same_hard_facts("two boxes, then 3 bags", "2 boxes then three bags")
    assert not has_same_hard_facts("two boxes, then 3 bags", "3 boxes then two bags")
    assert not has_same_hard_facts("never on weekends", "on weekends")


def test_null_matches_only_null():
    assert is_semantic_match(None, None)
    assert not is_semantic_match("", None) and not is_semantic_match(None, "text")


def test_negation_spans_are_what_the_negation_count_counts():
    text = "No box. I can’t say it was NOT used, but never at no. 5"
    assert [text[a:b] for a, b in negation_spans(text)] == ["No", "n’t", "NOT", "never"]  # "no. 5" is a number
