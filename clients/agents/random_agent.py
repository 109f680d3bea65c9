"""A seeded random baseline: a few schema-valid tool calls, then it says it is done.

It is the floor an agent must beat with the same tools: arguments are drawn from each
tool's input JSON Schema, and strings prefer values seen in earlier results (ids, names), so
its calls reach the tools' logic instead of bouncing off validation. Same seed, same calls.
"""

from __future__ import annotations

import random
from typing import Any

from clients.agents.base import AgentView
from clients.models import Action, MessageAction, Observation, TokenUsage, ToolCallAction

__all__ = ["RandomAgent", "sample_value"]

_WORDS = ("alpha", "bravo", "delta", "echo", "kilo", "lima", "oscar", "tango")


def _strings(value: Any, into: list[str]) -> None:
    if isinstance(value, str) and 0 < len(value) <= 80:
        into.append(value)
    elif isinstance(value, dict):
        for item in value.values():
            _strings(item, into)
    elif isinstance(value, list):
        for item in value[:20]:
            _strings(item, into)


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


class RandomAgent:
    def __init__(self, view: AgentView, max_calls: int = 5) -> None:
        self.rng = random.Random(view.seed)
        self.tools = view.tools
        self.remaining = self.rng.randint(1, max_calls) if self.tools else 0
        self.seen: list[str] = []
        self.usage = TokenUsage()

    async def act(self, observation: Observation) -> Action:
        _strings(observation.structured, self.seen)
        if observation.kind == "user_message":
            self.seen += [w.strip(".,!?") for w in observation.text.split() if any(c.isdigit() for c in w)]
        if self.remaining <= 0:
            return MessageAction(text="Done.")
        self.remaining -= 1
        tool = self.rng.choice(self.tools)
        arguments = sample_value(tool.input_schema, self.rng, self.seen)
        return ToolCallAction(name=tool.name, arguments=arguments if isinstance(arguments, dict) else {},
                              call_id=f"random_{self.remaining}")
