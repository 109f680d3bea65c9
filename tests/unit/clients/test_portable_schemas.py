"""Tool schemas reduced for servers whose grammar converter refuses keywords (issue #31, scaleenv_mcp.clients.portable_schemas)."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest

from scaleenv_mcp.clients.portable_schemas import KEPT_KEYWORDS, portable_tools, reduce_schema
from scaleenv_mcp.domain.loader import load_domain

REPO = Path(__file__).resolve().parents[3]
SHIPPED = sorted(p.name for p in (REPO / "domains").iterdir() if (p / "domain.json").is_file())


def _keywords(schema: object) -> set[str]:
    """Every keyword used in a schema (the names under ``properties`` are data, not keywords)."""
    if isinstance(schema, list):
        return set().union(*(_keywords(s) for s in schema)) if schema else set()
    if not isinstance(schema, dict):
        return set()
    found = set(schema)
    for key, value in schema.items():
        found |= set().union(*(_keywords(v) for v in value.values())) if key == "properties" and value else set()
        found |= _keywords(value) if key in ("items", "anyOf") else set()
    return found


def test_dropped_keywords_are_told_in_the_description_and_parameter_names_stay():
    schema = {"type": "object", "additionalProperties": False, "required": ["user_id"], "properties": {
        "user_id": {"type": "string", "pattern": "^USR-[0-9]{5}$", "description": "The user's id."},
        "pattern": {"anyOf": [{"type": "string", "maxLength": 40}, {"type": "null"}], "default": None},
        "limit": {"type": "integer", "minimum": 1, "maximum": 50},
        "tags": {"type": "array", "items": {"type": "string", "format": "date"}}}}
    reduced = reduce_schema(schema)
    assert reduced == {"type": "object", "required": ["user_id"], "properties": {
        "user_id": {"type": "string", "description": "The user's id. (must match ^USR-[0-9]{5}$)"},
        "pattern": {"anyOf": [{"type": "string", "description": "at most 40 characters"}, {"type": "null"}],
                    "description": "default null"},
        "limit": {"type": "integer", "description": "at least 1; at most 50"},
        "tags": {"type": "array", "items": {"type": "string", "description": "format date"}}}}
    # Every argument the served schema accepts, the reduced one accepts too (the host still checks the rest).
    assert jsonschema.Draft202012Validator(reduced).is_valid({"user_id": "nobody", "limit": 500})


@pytest.mark.parametrize("slug", SHIPPED)
def test_every_shipped_tool_reduces_to_the_kept_keywords(slug: str):
    manifest = load_domain(REPO / "domains" / slug).manifest
    tools = [{"type": "function", "function": {"name": t.name, "parameters": t.input_schema}} for t in manifest.tools]
    assert any("pattern" in _keywords(t["function"]["parameters"]) for t in tools)
    for tool in portable_tools(tools):
        assert _keywords(tool["function"]["parameters"]) <= set(KEPT_KEYWORDS), tool["function"]["name"]
