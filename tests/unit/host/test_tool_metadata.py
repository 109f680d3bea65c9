"""Every shipped tool is listed with a title and MCP annotations taken from its manifest, and
schemas in the portable form (no ``type`` arrays) that accept exactly what the manifest's do."""

from __future__ import annotations

import json
from typing import Any, cast

import jsonschema
import pytest

from scaleenv_mcp.domain.catalog import find_domains
from scaleenv_mcp.domain.loader import load_domain
from scaleenv_mcp.episodes.domain_runtime import DomainRuntime
from scaleenv_mcp.host.server import build_domain_server, tool_list
from scaleenv_mcp.host.tool_metadata import portable_schema

SHIPPED = find_domains()


def _type_arrays(schema: Any) -> int:
    if isinstance(schema, dict):
        return isinstance(schema.get("type"), list) + sum(_type_arrays(v) for k, v in schema.items()
                                                           if k not in ("enum", "const", "default", "examples"))
    if isinstance(schema, list):
        return sum(_type_arrays(v) for v in schema)
    return 0


def test_every_domain_ships():
    assert len(SHIPPED) == 8


@pytest.mark.parametrize("slug", sorted(SHIPPED))
def test_every_shipped_tool_has_a_title_annotations_and_portable_schemas(slug: str):
    runtime = DomainRuntime(load_domain(SHIPPED[slug]))
    specs = {t.name: t for t in runtime.manifest.tools}
    for tool in tool_list(runtime):
        spec = specs[tool.name]
        hints = tool.annotations
        assert tool.title and hints is not None and hints.title == tool.title
        assert hints.read_only_hint is (not spec.writes), tool.name
        assert hints.open_world_hint is False
        assert isinstance(hints.destructive_hint, bool) and isinstance(hints.idempotent_hint, bool)
        if hints.read_only_hint:
            assert hints.destructive_hint is False and hints.idempotent_hint is True
        assert _type_arrays(tool.input_schema) == _type_arrays(tool.output_schema) == 0, tool.name
        jsonschema.Draft202012Validator.check_schema(tool.input_schema)


def test_a_nullable_type_becomes_single_type_branches_accepting_the_same_values():
    original = {"type": ["string", "null"], "description": "d", "default": None, "pattern": "^A", "maxLength": 3}
    portable = portable_schema(original)
    assert portable == {"description": "d", "default": None,
                        "anyOf": [{"type": "string", "pattern": "^A", "maxLength": 3}, {"type": "null"}]}
    for value in ("AB", None, "B", "ABCD", 3):
        assert jsonschema.Draft202012Validator(original).is_valid(value) == \
            jsonschema.Draft202012Validator(portable).is_valid(value), value


def test_an_enum_without_null_still_refuses_null():
    original = {"type": ["string", "null"], "enum": ["a", "b"]}
    assert not jsonschema.Draft202012Validator(portable_schema(original)).is_valid(None)
    assert json.dumps(portable_schema({"type": "object", "properties": {}})) == '{"type": "object", "properties": {}}'


@pytest.mark.anyio
async def test_an_mcp_client_sees_the_annotations(host):
    episode = await host.create_episode("tiny_library")
    async with host.client(episode.id) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
    assert listed["borrow_book"].annotations.read_only_hint is False
    assert listed["get_member"].annotations.read_only_hint is True
    assert listed["get_member"].title == "Get member"


@pytest.mark.parametrize("slug", sorted(SHIPPED))
def test_the_servers_input_schema_lookup_answers_what_tools_list_advertises(slug: str):
    # the 2026-07-28 era checks Mcp-Param-* headers against this lookup instead of listing every tool per call;
    # a lookup that disagreed with tools/list would validate calls against a schema no client was shown
    runtime = DomainRuntime(load_domain(SHIPPED[slug]))

    async def no_episode(ctx: Any) -> str:
        raise AssertionError("listing needs no episode")

    server = build_domain_server(runtime, cast(Any, None), no_episode, interactive=False)
    assert server.get_tool_input_schema is not None
    listed = {tool.name: tool.model_dump(mode="json", by_alias=True)["inputSchema"] for tool in tool_list(runtime)}
    assert {name: server.get_tool_input_schema(name) for name in listed} == listed
    assert server.get_tool_input_schema("no_such_tool") is None
