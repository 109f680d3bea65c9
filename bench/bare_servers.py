"""Baselines for the call benchmark: bare MCP servers that run the same tool code inline.

``python bench/bare_servers.py lowlevel|fastmcp|isolated DOMAIN_DIR PORT`` serves every tool of the
domain from one SQLite copy of the seed, with no validation of arguments and no trace. ``lowlevel``
and ``fastmcp`` run the tool code inline: the floor our host is measured against. ``isolated`` is
the low-level server with the tool code moved out of its process, into our worker processes (an
episode per MCP session, sessions dealt to the workers in turn): the floor of any server that keeps tool code
out of the serving process as ours must (docs/threat-model.md), so a ratio against ``lowlevel``
splits into what isolation costs and what the rest of our host adds.

Each runs with the garbage-collector settings our serving process uses (``host.heap.settle_heap``,
applied once the app is built): measured, they take 18% off the bare server's CPU per call at 64
connections, so a bare server without them would credit our host with a setting any server can apply.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any

import mcp_types as types
import uvicorn

from scaleenv_mcp.domain.loader import load_domain
from scaleenv_mcp.domain.tool_loader import load_tool_functions
from scaleenv_mcp.errors import ToolError
from scaleenv_mcp.host.heap import settle_heap
from scaleenv_mcp.state.containment import open_connection
from scaleenv_mcp.state.facade import ToolContext
from scaleenv_mcp.state.start_states import build_start_state


def _inline_tools(domain_dir: Path) -> tuple[Any, dict[str, Any], ToolContext, sqlite3.Connection]:
    package = load_domain(domain_dir)
    conn, guard = open_connection(package.manifest.clock, serialized=build_start_state(package.schema_sql, package.seed))
    functions = load_tool_functions(package.tools_source, "tools.py", [t.name for t in package.manifest.tools])
    return package.manifest, functions, ToolContext(conn, guard, package.manifest.clock), conn


def _tool_list(manifest: Any) -> list[types.Tool]:
    return [types.Tool(name=t.name, description=t.description, input_schema=t.input_schema,
                       output_schema=t.output_schema) for t in manifest.tools]


def lowlevel_server(domain_dir: Path):
    from mcp.server import Server

    manifest, functions, ctx, conn = _inline_tools(domain_dir)
    tools = _tool_list(manifest)

    async def list_tools(context, params):
        return types.ListToolsResult(tools=tools)

    async def call_tool(context, params):
        try:
            result = functions[params.name](ctx, **(params.arguments or {}))
        except ToolError as error:
            return types.CallToolResult(content=[types.TextContent(type="text", text=error.message)], is_error=True)
        return types.CallToolResult(content=[types.TextContent(type="text", text=json.dumps(result))],
                                    structured_content=result)

    return Server("bare-lowlevel", on_list_tools=list_tools, on_call_tool=call_tool)


def isolated_server(domain_dir: Path):
    """The low-level server calling our worker processes: only the worker hop added to ``lowlevel``.

    Like our host, each MCP session gets an episode of its own (a database of its own, on the workers in
    turn), so the floor pays what per-session state costs a worker (its caches) and not what our host adds."""
    from mcp.server import Server

    from scaleenv_mcp.episodes.domain_runtime import DomainRuntime
    from scaleenv_mcp.workers.pool import WorkerPool
    from scaleenv_mcp.workers.protocol import OK, TOOL_ERROR, CallReply

    package = load_domain(domain_dir)
    tools = _tool_list(package.manifest)
    bundle = DomainRuntime(package).bundle  # what our host's workers load the domain from
    pool = WorkerPool()  # one worker per core, as the host's default
    sessions: dict[str | None, tuple[Any, str]] = {}  # MCP session id -> (worker, episode id)

    async def episode_of(context: Any) -> tuple[Any, str]:
        request = getattr(context, "request", None)
        session = request.headers.get("mcp-session-id") if request is not None else None
        if session not in sessions:
            if not pool.workers:
                pool.start()
                for worker in pool.workers:  # queued now, ahead of anything sent to the worker later
                    worker.submit(("domain", bundle), 60)
            worker, episode_id = pool.workers[len(sessions) % len(pool.workers)], f"e{len(sessions)}"
            sessions[session] = (worker, episode_id)
            status, payload = await worker.request(("open", episode_id, package.content_hash, "", [], None, []), 60)
            assert status == OK, payload
        return sessions[session]

    async def list_tools(context, params):
        return types.ListToolsResult(tools=tools)

    async def call_tool(context, params):
        worker, episode_id = await episode_of(context)
        status, payload = await worker.request(("call", episode_id, params.name, params.arguments or {}), 30.0)
        reply = CallReply(*payload) if status == OK else CallReply(status, message=str(payload))
        if reply.status != OK:
            text = reply.message if reply.status == TOOL_ERROR else f"fault: {reply.message}"
            return types.CallToolResult(content=[types.TextContent(type="text", text=text or "")], is_error=True)
        return types.CallToolResult(content=[types.TextContent(type="text", text=reply.result_json or "")],
                                    structured_content=json.loads(reply.result_json or "{}"))

    return Server("bare-isolated", on_list_tools=list_tools, on_call_tool=call_tool)


def lowlevel_app(domain_dir: Path):
    return lowlevel_server(domain_dir).streamable_http_app(json_response=True)


async def lowlevel_stdio(domain_dir: Path) -> None:
    import mcp.server.stdio

    server = lowlevel_server(domain_dir)
    async with mcp.server.stdio.stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def fastmcp_app(domain_dir: Path):
    from fastmcp import FastMCP
    from fastmcp.tools.base import Tool, ToolResult

    manifest, functions, ctx, conn = _inline_tools(domain_dir)
    server = FastMCP("bare-fastmcp")

    class InlineTool(Tool):
        async def run(self, arguments: dict[str, Any]) -> ToolResult:
            result = functions[self.name](ctx, **arguments)
            return ToolResult(content=[types.TextContent(type="text", text=json.dumps(result))],
                              structured_content=result)

    for spec in manifest.tools:
        server.add_tool(InlineTool(name=spec.name, description=spec.description, parameters=spec.input_schema,
                                   output_schema=spec.output_schema))
    return server.http_app(path="/mcp", json_response=True)


if __name__ == "__main__":
    kind, domain = sys.argv[1], Path(sys.argv[2])
    if kind == "stdio":
        import anyio

        anyio.run(lowlevel_stdio, domain)
    else:
        app = {"lowlevel": lowlevel_app, "fastmcp": fastmcp_app,
               "isolated": lambda d: isolated_server(d).streamable_http_app(json_response=True)}[kind](domain)
        settle_heap()  # like for like: our serving process does the same once it serves
        uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[3]), log_level="warning", access_log=False,
                    timeout_keep_alive=120, http=os.environ.get("SCALEENV_HTTP_PARSER", "auto"))  # as our host reads it
