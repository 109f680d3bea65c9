"""Tool input schemas reduced to the subset every common server's grammar converter takes.

Servers that turn a tool's JSON Schema into a sampling grammar refuse keywords their
converter does not know: llama-cpp-python answers HTTP 500 "schema keyword 'pattern' is not
supported" (issue #31), and every shipped domain has hundreds of ``pattern`` keys. Eval must
still run there, so ``scaleenv_mcp.clients.llm`` retries such a refused request once with these reduced
schemas (docs/model-servers.md). Nothing is lost for scoring: the host validates every
argument against the full schema itself, so an argument that breaks a pattern still gets the
tool's clear ``invalid_argument`` error. What the dropped keywords said is kept for the model
as a short note in the description ("must match ^USR-[0-9]{5}$"), since a model that never
sees the id format would guess it.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["KEPT_KEYWORDS", "portable_tools", "reduce_schema"]

#: What every converter we know of handles (anyOf: how the host serves a nullable parameter).
KEPT_KEYWORDS = ("type", "properties", "required", "items", "enum", "const", "description", "title", "anyOf")

# How a dropped keyword is told in words, for the model.
_SAID = {"pattern": "must match {}", "format": "format {}", "minimum": "at least {}", "maximum": "at most {}",
         "exclusiveMinimum": "more than {}", "exclusiveMaximum": "less than {}", "minLength": "at least {} characters",
         "maxLength": "at most {} characters", "minItems": "at least {} items", "maxItems": "at most {} items",
         "default": "default {}"}


def _said(key: str, value: Any) -> str | None:
    template = _SAID.get(key)
    if template is None:
        return None
    return template.format(value if isinstance(value, str) else json.dumps(value))


def reduce_schema(schema: Any) -> Any:
    """``schema`` with only ``KEPT_KEYWORDS`` on each node; dropped constraints told in the description.

    Property names are data, not keywords: a parameter called ``pattern`` or ``format`` stays.
    """
    if not isinstance(schema, dict):
        return schema
    node: dict[str, Any] = {}
    notes = []
    for key, value in schema.items():
        if key == "properties" and isinstance(value, dict):
            node[key] = {name: reduce_schema(sub) for name, sub in value.items()}
        elif key == "items":
            node[key] = [reduce_schema(s) for s in value] if isinstance(value, list) else reduce_schema(value)
        elif key == "anyOf" and isinstance(value, list):
            node[key] = [reduce_schema(s) for s in value]
        elif key in KEPT_KEYWORDS:
            node[key] = value
        elif (note := _said(key, value)) is not None:
            notes.append(note)
    if notes:
        told = "; ".join(notes)
        node["description"] = f"{node['description'].rstrip()} ({told})" if node.get("description") else told
    return node


def portable_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI function definitions with every ``parameters`` schema reduced."""
    reduced = []
    for tool in tools:
        function = tool.get("function") or {}
        if "parameters" in function:
            function = {**function, "parameters": reduce_schema(function["parameters"])}
        reduced.append({**tool, "function": function})
    return reduced
