"""Normalised-text similarity for ``semantic`` reward columns.

Pinned behaviour (tests/unit/state/test_similarity.py): a paraphrase of the gold text passes;
keyword stuffing, a negation and a changed number do not. Two hard checks come first, because
a dose, a count or a "not" inside free text is a fact, not a word:

- the numbers (digits, number words, "once"/"twice"/"thrice", "a dozen") must be the same, in
  the same order: "1 tablet twice daily" is not "2 tablets once daily";
- the number of negations (no, not, never, without, n't...) must be the same: "further action
  needed" is not "no further action needed", "with food" is not "without food".

Then the measure is the F1 of the two bags of normalised tokens (lower case, punctuation
dropped, stop words dropped, a crude suffix stemmer), so adding every gold word to a long text
raises recall but sinks precision. Texts longer than three times the gold (in tokens) fail
outright. A terse answer passes when every content word of it is in the gold and it covers at
least a quarter of the gold ("Upheld." for "Upheld: the listing breaks the rules").
"""

from __future__ import annotations

import re
from collections import Counter

__all__ = ["SEMANTIC_THRESHOLD", "has_same_hard_facts", "is_semantic_match", "negation_spans", "number_word",
           "text_similarity"]

SEMANTIC_THRESHOLD = 0.5
_STOP = frozenset("a an the and or but of to in on at for with by from as is are was were be been has have had it "
                  "its this that these those there their they he she his her we our you your i my me please".split())
_NUMBERS = {w: str(i) for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())} | {
    "once": "1", "twice": "2", "thrice": "3", "dozen": "12", "single": "1", "half": "0.5"}
_NEGATION = re.compile(r"\bno\b(?!\.?\s*\d)|\b(?:not|never|none|nothing|nobody|nowhere|without|neither|nor|cannot)\b|n't\b",
                       re.IGNORECASE)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
TERSE_RECALL = 0.25
_SUFFIXES = ("ing", "edly", "ed", "es", "s", "ly")


def number_word(word: str) -> str | None:
    """"twelve" -> "12", "twice" -> "2"; None for a word that is no number."""
    return _NUMBERS.get(word)


def _stem(token: str) -> str:
    for suffix in _SUFFIXES:
        if len(token) > len(suffix) + 2 and token.endswith(suffix):
            return token[: -len(suffix)]
    return token


def _tokens(text: str) -> list[str]:
    words = re.findall(r"[a-z0-9]+", text.lower())
    return [_stem(_NUMBERS.get(w, w)) for w in words if w not in _STOP]


def _numbers(text: str) -> list[str]:
    """Numeric facts in reading order: digits (thousands separators dropped) and number words."""
    found = []
    for word in re.findall(r"\d+(?:[.,]\d+)*|[a-z]+", text.lower().replace("’", "'")):
        if _NUMBER.fullmatch(word):
            value = word.replace(",", "")
            found.append(value.rstrip("0").rstrip(".") if "." in value else str(int(value)))
        elif word in _NUMBERS:
            found.append(_NUMBERS[word])
    return found


def negation_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each negation in ``text``, in reading order: what the negation count counts.

    The argument gate (``scaleenv_mcp.verifier.text_perturb``) edits these spans, so its negated variants are
    exactly the changes this comparison treats as a changed fact.
    """
    return [m.span() for m in _NEGATION.finditer(text.replace("’", "'"))]


def _negations(text: str) -> int:
    return len(negation_spans(text))


def has_same_hard_facts(expected: str, actual: str) -> bool:
    """Same numbers in the same order and as many negations: what no paraphrase may change."""
    return _numbers(expected) == _numbers(actual) and _negations(expected) == _negations(actual)


def text_similarity(expected: str, actual: str) -> float:
    """F1 of normalised token bags, in [0, 1]."""
    want, got = Counter(_tokens(expected)), Counter(_tokens(actual))
    if not want and not got:
        return 1.0
    overlap = sum((want & got).values())
    if overlap == 0:
        return 0.0
    precision, recall = overlap / sum(got.values()), overlap / sum(want.values())
    return 2 * precision * recall / (precision + recall)


def is_semantic_match(expected: object, actual: object) -> bool:
    if expected is None or actual is None:
        return expected is None and actual is None
    expected_text, actual_text = str(expected), str(actual)
    if expected_text.strip().lower() == actual_text.strip().lower():
        return True
    if not has_same_hard_facts(expected_text, actual_text):
        return False
    want, got = _tokens(expected_text), _tokens(actual_text)
    if len(got) > 3 * max(1, len(want)):
        return False
    if got and not Counter(got) - Counter(want) and len(got) >= TERSE_RECALL * len(want):
        return True  # terse: nothing added, enough of the gold said
    return text_similarity(expected_text, actual_text) >= SEMANTIC_THRESHOLD
