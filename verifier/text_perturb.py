"""Wrong versions of a free-text argument that still read like the original: negated, one number changed.

An unrelated phrase only proves that a ``semantic`` column is compared at all; an agent that
writes "no further action needed" for "further action needed", or "2 tablets" for "1 tablet",
keeps almost every word. These two edits are the mistakes the semantic comparison
(``scaleenv_mcp.state.similarity``) must catch, so the argument gate replays them too. Both are
deterministic: the first negation or number in reading order is edited, nothing is random.

Negations and numbers are found the way the comparison finds them (its negation pattern, its
number words), so an edit here is always a change of the hard facts it checks.
"""

from __future__ import annotations

import re

from scaleenv_mcp.state.similarity import negation_spans, number_word

__all__ = ["negated", "number_changed"]

# A negation removed: the word that says the opposite, or "" to drop it ("not needed" -> "needed").
_UNNEGATED = {"no": "", "not": "", "never": "", "none": "all", "nothing": "something", "nobody": "somebody",
              "nowhere": "somewhere", "without": "with", "neither": "either", "nor": "or", "cannot": "can"}
_CONTRACTED = {"ca": "can", "wo": "will", "sha": "shall"}  # can't, won't, shan't: the stem alone is no word
# A negation added: "not" after the first of these auxiliaries ("is" -> "is not"), else "with" -> "without",
# else "Not " before the text.
_AUXILIARY = re.compile(r"\b(?:is|are|was|were|will|would|can|could|should|must|do|does|did)\b", re.IGNORECASE)
_WITH = re.compile(r"\bwith\b", re.IGNORECASE)
# Number words change within their family, so the text still reads as a count ("once" -> "twice").
_FAMILIES = ("zero one two three four five six seven eight nine ten eleven twelve".split(), ["once", "twice", "thrice"])
_NUMBER_TOKEN = re.compile(r"\d+|[A-Za-z]+")


def _cased(word: str, like: str) -> str:
    """``word`` with the first letter upper case when ``like`` starts upper case."""
    return word[:1].upper() + word[1:] if like[:1].isupper() and word else word


def _tidy(text: str) -> str:
    """Spaces left by a dropped word: no double space, none before punctuation, none at either end."""
    return re.sub(r"\s+([,.;:!?])", r"\1", re.sub(r"\s{2,}", " ", text)).strip()


def _remove_negation(text: str, start: int, end: int) -> str:
    """The text with its negation at [start, end) undone."""
    word = text[start:end]
    if word.lower().replace("’", "'") == "n't":
        stem_start = start - len(re.search(r"[A-Za-z]*$", text[:start]).group())  # type: ignore[union-attr]
        stem = text[stem_start:start]
        return text[:stem_start] + _cased(_CONTRACTED.get(stem.lower(), stem), stem) + text[end:]
    replacement = _UNNEGATED.get(word.lower(), "")
    if replacement:
        return text[:start] + _cased(replacement, word) + text[end:]
    rest = text[end:].lstrip()
    if not text[:start].strip() or text[:start].rstrip().endswith((".", "!", "?")):
        rest = rest[:1].upper() + rest[1:]  # "Sealed. No box, well wrapped" -> "Sealed. Box, well wrapped"
    return _tidy(text[:start] + rest)


def negated(text: str) -> str | None:
    """The text with one negation removed (the first) or, when it has none, one added; None for blank text.

    "Further action needed" -> "Not Further action needed", "Bell is broken" -> "Bell is not
    broken", "with food" -> "without food", "No box" -> "Box", "couldn't" -> "could".
    """
    if not text.strip():
        return None
    spans = negation_spans(text)
    if spans:
        return _remove_negation(text, *spans[0])
    if match := _AUXILIARY.search(text):
        return text[:match.end()] + " not" + text[match.end():]
    if match := _WITH.search(text):
        return text[:match.end()] + "out" + text[match.end():]
    return "Not " + text.lstrip()  # the case is left alone: the first word may be a name ("Not Welcome Home")


def _next_word(word: str) -> str | None:
    """The next number word of the same family ("one" -> "two", "twice" -> "thrice"), the one before at the end."""
    lower = word.lower()
    for family in _FAMILIES:
        if lower in family:
            at = family.index(lower)
            return _cased(family[at + 1] if at + 1 < len(family) else family[at - 1], word)
    return None


def number_changed(text: str) -> str | None:
    """The text with its first number changed by one (digits or a number word); None when it holds none.

    "Take 1 tablet twice daily" -> "Take 2 tablet twice daily"; "two boxes" -> "three boxes";
    "Sprint 09" -> "Sprint 10" (digits keep their width).
    """
    for match in _NUMBER_TOKEN.finditer(text):
        token = match.group()
        if token.isdigit():
            new = str(int(token) + 1).zfill(len(token))
        elif number_word(token.lower()) is not None:
            new = _next_word(token)
            if new is None:
                continue
        else:
            continue
        return text[:match.start()] + new + text[match.end():]
    return None
