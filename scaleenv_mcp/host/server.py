"""The MCP server of one domain: list its tools, route each call to the right episode.

One low-level ``mcp.server.Server`` per domain serves every episode of that domain; which
episode a request belongs to is decided per request by an ``EpisodeResolver`` (the URL on
``/mcp/episodes/{id}``, a header, ``_meta``, the handshake session, or a fixed episode on
stdio and in memory). Nothing per connection is trusted to hold state, because in the
stateless protocol era every request is a fresh connection (docs/architecture.md, "Two MCP protocol eras").

Agents see tools, and in interactive mode the table schema and the tasks' opening
requests. Never actions, gold, simulator instructions or withheld facts.
"""

from __future__ import annotations

import json
import logging
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from scaleenv_mcp.episodes.call_ids import CALL_ID_META_KEY
from scaleenv_mcp.episodes.domain_runtime import DomainRuntime
from scaleenv_mcp.episodes.registry import EpisodeRegistry
from scaleenv_mcp.episodes.trace import OutcomeKind
from scaleenv_mcp.errors import EnvironmentFaultError, ScaleEnvError
from scaleenv_mcp.host.errors import to_mcp_error
from scaleenv_mcp.host.tool_metadata import portable_schema, tool_annotations, tool_title

__all__ = ["EpisodeResolver", "build_domain_server", "build_instructions", "meta_value", "tool_list"]

EpisodeResolver = Callable[[ServerRequestContext[Any]], Awaitable[str]]
EPISODE_META_KEY = "scaleenv/episode"
log = logging.getLogger("scaleenv.host")


def meta_value(ctx: ServerRequestContext[Any], key: str) -> str | None:
    """A string entry of the request's ``_meta`` (``scaleenv/episode``, ``scaleenv/call_id``), or None."""
    if ctx.meta is None:
        return None
    extra = (getattr(ctx.meta, "model_extra", None) or {}) if hasattr(ctx.meta, "model_extra") else dict(ctx.meta)
    value = extra.get(key)
    return value if isinstance(value, str) else None


def build_instructions(runtime: DomainRuntime) -> str:
    manifest = runtime.manifest
    date, time_of_day = manifest.clock.split("T")
    return (
        f"{manifest.title}: {manifest.description}\n\n"
        f"Today is {date} and the time is {time_of_day}; resolve relative dates (tomorrow, next week) from it.\n\n"
        f"Policy you must follow:\n{manifest.agent_policy}"
    )


def tool_list(runtime: DomainRuntime) -> list[types.Tool]:
    """Title, annotations and portable schemas (host/tool_metadata.py), inputs with the bounds arguments
    are checked against (domain/schema_limits.py). Built once per domain runtime and shared by its
    servers: an in-memory or stdio client gets a server of its own per episode, and rebuilding the
    portable schemas took most of the time such a client took to open."""
    tools = _TOOLS.get(runtime)
    if tools is None:
        tools = _TOOLS[runtime] = [
            types.Tool(name=t.name, title=tool_title(t.name), description=t.description,
                       input_schema=portable_schema(runtime.input_schemas[t.name]),
                       output_schema=portable_schema(t.output_schema),
                       annotations=tool_annotations(t))
            for t in runtime.manifest.tools
        ]
    return tools


_TOOLS: weakref.WeakKeyDictionary[DomainRuntime, list[types.Tool]] = weakref.WeakKeyDictionary()


def _interactive_resources(runtime: DomainRuntime) -> dict[str, tuple[str, str, str]]:
    """uri -> (name, mime type, text) for interactive endpoints only."""
    slug = runtime.slug
    openings = sorted({t.user.opening for t in runtime.package.tasks.values()})
    return {
        f"scaleenv://{slug}/schema": ("schema", "application/sql", runtime.package.schema_sql),
        f"scaleenv://{slug}/openings": ("openings", "application/json", json.dumps(openings, indent=1)),
    }


def build_domain_server(runtime: DomainRuntime, registry: EpisodeRegistry, resolve: EpisodeResolver, *,
                        interactive: bool, pin_handshake: bool = False) -> Server[Any]:
    """The MCP server for one domain, resolving each request's episode with ``resolve``.

    ``pin_handshake`` (the HTTP ``/mcp/{domain}`` endpoint) steers auto-mode clients to the
    handshake era, whose session is what gives a plain connection an episode of its own.
    """
    tools = tool_list(runtime)
    input_schemas = {tool.name: tool.input_schema for tool in tools}
    resources = _interactive_resources(runtime) if interactive else {}

    async def list_tools(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            episode_id = await resolve(ctx)
            outcome = await registry.call(episode_id, params.name, params.arguments, meta_value(ctx, CALL_ID_META_KEY))
        except ScaleEnvError as error:
            raise to_mcp_error(error) from None
        except Exception:  # a bug of ours: logged here, never a traceback or path to the agent
            log.exception("tools/call %s failed inside the host", params.name)
            raise to_mcp_error(EnvironmentFaultError("internal error of the environment")) from None
        if outcome.kind is OutcomeKind.success:
            text = outcome.result_json if outcome.result_json is not None else json.dumps(outcome.result, ensure_ascii=False)
            return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                        structured_content=outcome.result)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=f"{outcome.error_code}: {outcome.message}")], is_error=True
        )

    async def list_resources(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[
            types.Resource(uri=uri, name=name, mime_type=mime) for uri, (name, mime, _) in resources.items()
        ])

    async def read_resource(ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        entry = resources.get(str(params.uri))
        if entry is None:
            raise to_mcp_error(ScaleEnvError(f"unknown resource {params.uri}"))
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=params.uri, mime_type=entry[1], text=entry[2])]
        )

    handlers: dict[str, Any] = {"on_list_tools": list_tools, "on_call_tool": call_tool}
    if interactive:
        handlers.update(on_list_resources=list_resources, on_read_resource=read_resource)
    server: Server[Any] = Server(
        runtime.slug,
        version=runtime.manifest.version,
        title=runtime.manifest.title,
        instructions=build_instructions(runtime),
        # the 2026-07-28 era checks a call's Mcp-Param-* headers against the tool's input schema; without
        # this lookup the SDK runs and serializes the whole tools/list for every call (a third of a verify's CPU)
        get_tool_input_schema=input_schemas.get,
        **handlers,
    )
    if pin_handshake:
        async def discover(ctx: ServerRequestContext[Any], params: types.RequestParams | None) -> types.DiscoverResult:
            # Advertising only handshake-era versions makes auto-mode clients fall back to
            # initialize, so a plain interactive connection gets a session, hence an episode.
            return types.DiscoverResult(supported_versions=list(HANDSHAKE_PROTOCOL_VERSIONS),
                                        capabilities=server.get_capabilities(protocol_version=ctx.protocol_version),
                                        instructions=server.instructions)

        server.add_request_handler("server/discover", types.RequestParams, discover)
    return server
