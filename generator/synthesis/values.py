"""Argument values a user could plausibly say, read off a parameter's JSON Schema.

Used when no earlier result and no neighbouring row supplies a value: enums, numbers inside
their bounds, dates a few days around the domain's clock, the schema's own ``examples`` (an
author's realistic free text), else short texts from a fixed phrase bank. Every choice goes through the caller's ``random.Random`` so a synthesis seed fixes it.
"""

from __future__ import annotations

import random
import re
from datetime import date, datetime, time, timedelta
from typing import Any

__all__ = ["is_date_param", "is_datetime_param", "is_free_text", "is_label_column", "schema_values", "singular",
           "time_format"]

_PHRASES = [
    "Please handle this before the weekend.", "Requested by the customer over the phone.",
    "Following up on last week's conversation.", "Customer prefers email updates.",
    "Urgent: please prioritise.", "No further action needed after this.", "Confirmed with the team lead.",
    "Routine change, nothing unusual.", "Please keep me posted on the outcome.", "Agreed during the planning call.",
]
_NAMES = ["Morning routine", "North wing", "Spring review", "Blue plan", "Quarterly check", "Evening set",
          "Alpha batch", "Harbor line", "Garden view", "Summit prep", "Cedar option", "Maple track"]
_SEARCH = {"text", "query", "q", "search", "keyword", "keywords", "term", "name_contains", "title_contains"}
_LABEL_HINTS = ("name", "title", "label", "subject", "email", "code", "number", "phone", "city")
_NOTE_HINTS = ("note", "reason", "comment", "description", "message", "body", "resolution", "summary", "details",
               "instructions", "content")


def singular(table: str) -> str:
    if table.endswith("ies"):
        return table[:-3] + "y"
    if table.endswith("sses") or table.endswith("ches") or table.endswith("shes"):
        return table[:-2]
    return table[:-1] if table.endswith("s") else table


def is_search_param(name: str) -> bool:
    return name in _SEARCH or name.endswith("_text") or name.endswith("_query")


def is_label_column(name: str) -> bool:
    return any(hint in name for hint in _LABEL_HINTS) and not name.endswith("_id")


def is_free_text(name: str) -> bool:
    return any(hint in name for hint in _NOTE_HINTS)


def _described(schema: dict[str, Any]) -> str:
    return f"{schema.get('description', '')} {schema.get('pattern', '')} {schema.get('format', '')}"


def time_format(name: str, schema: dict[str, Any]) -> str | None:
    """The strftime format a date or time parameter wants, read off its description; None if neither."""
    text = _described(schema)
    if schema.get("format") == "date-time" or "HH:MM:SS" in text:
        return "%Y-%m-%dT%H:%M:%S"
    if "YYYY-MM-DDTHH:MM" in text:
        return "%Y-%m-%dT%H:%M"
    if "YYYY-MM-DD HH:MM" in text:
        return "%Y-%m-%d %H:%M"
    if "HH:MM" in text:
        return "%H:%M"
    if name.endswith("_at"):
        return "%Y-%m-%dT%H:%M:%S"
    if (schema.get("format") == "date" or "YYYY-MM-DD" in text or r"\d{4}-\d{2}-\d{2}" in text
            or name.endswith(("_on", "_date", "_until", "_for", "_from", "_to", "date", "_day"))):
        return "%Y-%m-%d"
    return None


def is_datetime_param(name: str, schema: dict[str, Any]) -> bool:
    fmt = time_format(name, schema)
    return fmt is not None and "%H" in fmt


def is_date_param(name: str, schema: dict[str, Any]) -> bool:
    return time_format(name, schema) == "%Y-%m-%d"


def _types(schema: dict[str, Any]) -> list[str]:
    declared = schema.get("type", "string")
    return [declared] if isinstance(declared, str) else [t for t in declared if t != "null"] or ["null"]


def _pattern_value(pattern: str, rng: random.Random) -> str | None:
    match = re.fullmatch(r"\^?(?:\\d|\[0-9\])\{(\d+)(?:,(\d+))?\}\$?", pattern)
    if match:
        return "".join(str(rng.randrange(10)) for _ in range(int(match.group(1))))
    return None


def schema_values(name: str, schema: dict[str, Any], clock: str, rng: random.Random, count: int = 4) -> list[Any]:
    """Up to ``count`` distinct plausible values for one parameter, most plausible first."""
    if "enum" in schema:
        values = [v for v in schema["enum"] if v is not None]
        rng.shuffle(values)
        return values[:count]
    examples = [v for v in schema.get("examples") or [] if v is not None]
    if examples:  # the author's own words ("The strap broke after a week"), not the generic phrase bank
        rng.shuffle(examples)
        return examples[:count]
    kind = _types(schema)[0]
    today = date.fromisoformat(clock[:10])
    if kind == "boolean":
        return [True, False] if rng.random() < 0.5 else [False, True]
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", 0) + (1 if "exclusiveMinimum" in schema else 0))
        high = schema.get("maximum", schema.get("exclusiveMaximum", low + 20) - (1 if "exclusiveMaximum" in schema else 0))
        low, high = int(low if low is not None else 1), int(high)
        if high < low:
            high = low
        picks = sorted({rng.randint(low, high) for _ in range(count * 2)})
        rng.shuffle(picks)
        values: list[Any] = picks[:count]
        return [float(v) for v in values] if kind == "number" else values
    if kind == "array":
        items = schema.get("items") or {}
        if "enum" in items:
            return [[rng.choice(items["enum"])]]
        return [[]]
    if kind == "object":
        return [{}]
    fmt = time_format(name, schema)
    if fmt is not None:
        past = any(h in name for h in ("from", "start", "since"))
        offsets = [-d if past else d for d in rng.sample(range(1, 21), count)]
        hours = [rng.choice([9, 10, 11, 14, 15, 16]) for _ in range(count)]
        moments = [datetime.combine(today + timedelta(days=o), time(h)) for o, h in zip(offsets, hours)]
        return [m.strftime(fmt) for m in moments]
    if schema.get("pattern"):
        value = _pattern_value(schema["pattern"], rng)
        return [value] if value is not None else []
    limit = int(schema.get("maxLength", 200))
    if is_free_text(name):
        picks = rng.sample(_PHRASES, count)
    else:
        picks = [f"{n} {rng.randint(2, 99)}" for n in rng.sample(_NAMES, count)]
    return [p[:limit] for p in picks if len(p) >= int(schema.get("minLength", 0))]
