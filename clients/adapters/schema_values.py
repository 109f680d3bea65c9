"""Values drawn from a tool's input JSON Schema, for random baselines here and in the adapters.

Standard library only: the framework adapters (clients/adapters/) run where this project is not
installed and import it from the source tree. Same seed, same values.
"""

from __future__ import annotations

import random
from typing import Any

__all__ = ["collect_strings", "sample_value"]

_WORDS = ("alpha", "bravo", "delta", "echo", "kilo", "lima", "oscar", "tango")


def collect_strings(value: Any, into: list[str]) -> None:
    """Short strings found anywhere in ``value`` (ids, names), appended to ``into`` for later arguments."""
    if isinstance(value, str) and 0 < len(value) <= 80:
        into.append(value)
    elif isinstance(value, dict):
        for item in value.values():
            collect_strings(item, into)
    elif isinstance(value, list):
        for item in value[:20]:
            collect_strings(item, into)


def sample_value(schema: dict[str, Any], rng: random.Random, seen: list[str], depth: int = 0) -> Any:
    """A value valid under ``schema`` (the subset tool schemas use: type, enum, bounds, items, properties)."""
    if "enum" in schema and schema["enum"]:
        return rng.choice(schema["enum"])
    if "const" in schema:
        return schema["const"]
    kind = schema.get("type", "string")
    if isinstance(kind, list):
        kind = rng.choice([k for k in kind if k != "null"] or ["null"])
    if kind == "null":
        return None
    if kind == "boolean":
        return rng.random() < 0.5
    if kind in ("integer", "number"):
        # A bound of the served schema's int64 range says nothing about sensible values: small ones.
        low = schema.get("minimum", schema.get("exclusiveMinimum", -1) + 1)
        low = low if abs(low) <= 10**6 else 0
        high = schema.get("maximum", schema.get("exclusiveMaximum", low + 11) - 1)
        high = high if abs(high) <= 10**6 else low + 10
        value = rng.randint(int(low), max(int(low), int(high)))
        return value if kind == "integer" else float(value)
    if kind == "array":
        count = rng.randint(schema.get("minItems", 0), max(schema.get("minItems", 0), min(schema.get("maxItems", 2), 2)))
        return [sample_value(schema.get("items", {}), rng, seen, depth + 1) for _ in range(count)]
    if kind == "object":
        properties = schema.get("properties", {})
        required = set(schema.get("required", []))
        chosen = [n for n in properties if n in required or (depth < 2 and rng.random() < 0.3)]
        return {n: sample_value(properties[n], rng, seen, depth + 1) for n in chosen}
    low, high = schema.get("minLength", 1), schema.get("maxLength", 40)
    fitting = [s for s in seen if low <= len(s) <= high]
    if schema.get("format") == "date":
        return f"2026-0{rng.randint(1, 9)}-{rng.randint(10, 28)}"
    text = rng.choice(fitting) if fitting and rng.random() < 0.7 else rng.choice(_WORDS)
    return (text * (low // len(text) + 1))[:max(low, min(len(text), high))]
