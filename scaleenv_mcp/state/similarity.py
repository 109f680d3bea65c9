"""Normalised-text similarity for ``semantic`` reward columns.

Pinned behaviour (tests/unit/state/test_reward.py): a paraphrase of the gold text passes;
keyword stuffing does not. The measure is the F1 of the two bags of normalised tokens
(lower case, punctuation dropped, number words as digits, stop words dropped, a crude
suffix stemmer), so adding every gold word to a long text raises recall but sinks
precision. Texts longer than three times the gold (in tokens) fail outright.
"""

from __future__ import annotations

import re
from collections import Counter

__all__ = ["SEMANTIC_THRESHOLD", "is_semantic_match", "text_similarity"]

SEMANTIC_THRESHOLD = 0.5
_STOP = frozenset("a an the and or but of to in on at for with by from as is are was were be been has have had it "
                  "its this that these those there their they he she his her we our you your i my me please".split())
_NUMBERS = {w: str(i) for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())}
_SUFFIXES = ("ing", "edly", "ed", "es", "s", "ly")


def _stem(token: str) -> str:
    for suffix in _SUFFIXES:
        if len(token) > len(suffix) + 2 and token.endswith(suffix):
            return token[: -len(suffix)]
    return token


def _tokens(text: str) -> list[str]:
    words = re.findall(r"[a-z0-9]+", text.lower())
    return [_stem(_NUMBERS.get(w, w)) for w in words if w not in _STOP]


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
    if len(_tokens(actual_text)) > 3 * max(1, len(_tokens(expected_text))):
        return False
    return text_similarity(expected_text, actual_text) >= SEMANTIC_THRESHOLD
