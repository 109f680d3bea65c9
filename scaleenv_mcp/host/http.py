"""The agent listener: MCP streamable HTTP on ``/mcp/episodes/{id}``, ``/mcp/{domain}`` and ``/mcp/{domain}/s/{key}``.

One session manager per (domain, endpoint kind), entered once in the app lifespan
(docs/architecture.md, "Two MCP protocol eras"). Both protocol eras work on ``/mcp/episodes/{id}`` because the
episode is in the URL. On ``/mcp/{domain}`` a handshake-era session gets a fresh episode of
its own; any request may name an episode with the ``X-ScaleEnv-Episode`` header or
``_meta["scaleenv/episode"]``; a stateless request with neither gets an error that says
how to get one. ``/mcp/{domain}/s/{key}`` serves the key's episode (made on first use) to every
session and request that names the key, for clients that open a session per call
(episodes/keyed.py); it shares the episode endpoint's session manager.

Every POST body is screened before the SDK sees it (``_screened``): over the size limit by
its declared length, 413 with nothing read; a JSON-RPC request whose ``id`` is neither a
string nor an integer (an object, an array, a float, a boolean), -32600 invalid request.
The SDK took such a request for a notification and answered 202 with no answer at all
(issue #29, failure 4).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import anyio
import anyio.abc
from mcp.server.context import ServerRequestContext
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp_types import INVALID_REQUEST
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from scaleenv_mcp.episodes.keyed import KeyedEpisodes
from scaleenv_mcp.episodes.registry import EpisodeOrigin, EpisodeRegistry
from scaleenv_mcp.errors import EpisodeNotFoundError, ScaleEnvError, UsageError
from scaleenv_mcp.host.errors import error_status, to_mcp_error
from scaleenv_mcp.host.security import transport_security
from scaleenv_mcp.host.server import EPISODE_META_KEY, build_domain_server, meta_value
from scaleenv_mcp.settings import HostSettings

__all__ = ["EPISODE_HEADER", "build_agent_app"]

EPISODE_HEADER = "x-scaleenv-episode"


def _jsonrpc_error(status: int, code: int, message: str, data: Any = None) -> JSONResponse:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return JSONResponse({"jsonrpc": "2.0", "id": None, "error": error}, status_code=status)


def _refused(error: ScaleEnvError) -> JSONResponse:
    """A request refused before MCP: the JSON-RPC error ``host/errors.py`` gives, with a fitting status."""
    mapped = to_mcp_error(error)
    return _jsonrpc_error(error_status(error)[0], mapped.code, mapped.message, mapped.data)


def _bad_id(message: Any) -> bool:
    if not isinstance(message, dict) or "method" not in message or "id" not in message:
        return False
    request_id = message["id"]
    return isinstance(request_id, bool) or not isinstance(request_id, (str, int))


def _too_large(limit: int) -> JSONResponse:
    """Built only when sent: a JSONResponse costs ~6 us, and every POST paid for one when it was built up front."""
    return _jsonrpc_error(413, INVALID_REQUEST, f"request body too large: over the {limit}-byte limit")


async def _screened(scope: Scope, receive: Receive, send: Send, limit: int) -> Receive | None:
    """A ``receive`` replaying the checked body, or None when this function already answered."""
    if scope["method"] != "POST":
        return receive
    declared = Request(scope).headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > limit):
        await _too_large(limit)(scope, receive, send)
        return None
    body = bytearray()
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None  # the client went away
        body += message.get("body", b"")
        if len(body) > limit:
            await _too_large(limit)(scope, receive, send)
            return None
        if not message.get("more_body", False):
            break
    try:
        parsed = json.loads(body)
    except ValueError:
        parsed = None  # the SDK answers the parse error
    if any(_bad_id(m) for m in (parsed if isinstance(parsed, list) else [parsed])):
        await _jsonrpc_error(400, INVALID_REQUEST, "invalid request: a JSON-RPC id must be a string or an integer")(
            scope, receive, send)
        return None
    pending = [{"type": "http.request", "body": bytes(body), "more_body": False}]

    async def replay() -> Any:
        return pending.pop() if pending else await receive()

    return replay


def _named_episode(ctx: ServerRequestContext[Any]) -> str | None:
    named = meta_value(ctx, EPISODE_META_KEY)
    if named is not None:
        return named
    request = ctx.request
    if isinstance(request, Request):
        return request.headers.get(EPISODE_HEADER)
    return None


class _DomainEndpoints:
    """The two session managers of one domain and their episode resolvers."""

    def __init__(self, slug: str, registry: EpisodeRegistry, settings: HostSettings) -> None:
        self.slug = slug
        self.registry = registry
        self.sessions: dict[str, str] = {}  # handshake session id -> episode id
        runtime = registry.domain(slug)
        security = transport_security(settings.host, settings.allowed_origins)
        common: dict[str, Any] = dict(json_response=True, security_settings=security, max_request_body_size=settings.max_request_bytes,
                      session_idle_timeout=settings.idle_timeout)
        # Handshake sessions on /mcp/episodes/{id} serve harness-created episodes too, so the
        # interactive cap must not bound them (tests/integration/test_control_api.py).
        self.episode_manager = StreamableHTTPSessionManager(
            app=build_domain_server(runtime, registry, self._from_path, interactive=False),
            max_sessions=settings.max_harness_episodes + settings.max_interactive_episodes, **common)
        self.interactive_manager = StreamableHTTPSessionManager(
            app=build_domain_server(runtime, registry, self._interactive, interactive=True, pin_handshake=True),
            max_sessions=settings.max_interactive_episodes, **common)

    async def end_session(self, session_id: str | None) -> None:
        """The client ended its session (DELETE): its episode ends with it. Sessions that just
        vanish (no DELETE) are reaped by the registry's idle expiry."""
        episode_id = self.sessions.pop(session_id, None) if session_id else None
        if episode_id is not None and episode_id in self.registry.episodes:
            await self.registry.close(episode_id)

    async def _from_path(self, ctx: ServerRequestContext[Any]) -> str:
        request = ctx.request
        if not isinstance(request, Request):
            raise EpisodeNotFoundError("no episode in the request")
        return str(request.path_params["episode_id"])

    async def _interactive(self, ctx: ServerRequestContext[Any]) -> str:
        named = _named_episode(ctx)
        if named:
            if self.registry.get(named).domain.slug != self.slug:
                raise EpisodeNotFoundError("that episode belongs to another domain")
            return named
        request = ctx.request
        session_id = request.headers.get("mcp-session-id") if isinstance(request, Request) else None
        if session_id is None:
            raise UsageError(
                "this stateless request names no episode: create one through the control API "
                f"(POST /episodes with domain {self.slug!r}) and connect to /mcp/episodes/{{id}}, or send the "
                "X-ScaleEnv-Episode header or _meta['scaleenv/episode'], or connect with a handshake-era session"
            )
        episode_id = self.sessions.get(session_id)
        if episode_id is None:
            episode = await self.registry.create(self.slug, origin=EpisodeOrigin.interactive)
            self.sessions[session_id] = episode_id = episode.id
        return episode_id


class _EndpointSet:
    """Per-domain endpoints, created when a domain comes online (possibly after the app started).

    A session manager's ``run()`` must be entered and exited in one task, so each domain gets
    a task of its own in the lifespan's task group that holds its two managers open.
    """

    def __init__(self, registry: EpisodeRegistry, settings: HostSettings) -> None:
        self.registry = registry
        self.settings = settings
        self.ready: dict[str, tuple[_DomainEndpoints, anyio.Event]] = {}
        self.group: anyio.abc.TaskGroup | None = None
        self.stop = anyio.Event()

    async def get(self, slug: str) -> _DomainEndpoints | None:
        if slug not in self.registry.domains or self.group is None:
            return None
        if slug not in self.ready:
            endpoints, started = _DomainEndpoints(slug, self.registry, self.settings), anyio.Event()
            self.ready[slug] = (endpoints, started)
            self.group.start_soon(self._hold, endpoints, started)
        endpoints, started = self.ready[slug]
        await started.wait()
        return endpoints

    async def _hold(self, endpoints: _DomainEndpoints, started: anyio.Event) -> None:
        async with endpoints.episode_manager.run(), endpoints.interactive_manager.run():
            started.set()
            await self.stop.wait()


def build_agent_app(registry: EpisodeRegistry, settings: HostSettings, keyed: KeyedEpisodes | None = None) -> Starlette:
    """The Starlette app of the agent listener for every domain the registry serves (now or later)."""
    endpoints = _EndpointSet(registry, settings)
    keyed = keyed or KeyedEpisodes(registry, settings)

    async def episode_route(scope: Scope, receive: Receive, send: Send) -> None:
        try:  # unknown, closed, or lost with its worker or a previous host: the registry says which
            episode = registry.get(scope["path_params"]["episode_id"])
        except ScaleEnvError as error:
            await _refused(error)(scope, receive, send)
            return
        served = await endpoints.get(episode.domain.slug)
        if served is None:
            await _jsonrpc_error(404, -32004, "unknown, expired or closed episode; create a new one")(scope, receive, send)
            return
        if (screened := await _screened(scope, receive, send, settings.max_request_bytes)) is not None:
            await served.episode_manager.handle_request(scope, screened, send)

    async def domain_route(scope: Scope, receive: Receive, send: Send) -> None:
        domain = scope["path_params"]["domain"]
        served = await endpoints.get(domain)
        if served is None:
            await _jsonrpc_error(404, -32004, f"domain {domain!r} is not served (unknown, or not validated yet)")(
                scope, receive, send)
            return
        headers = Request(scope).headers
        cap = settings.max_interactive_episodes
        if (scope["method"] == "POST" and "mcp-session-id" not in headers
                and registry.counts[EpisodeOrigin.interactive] >= cap):
            # a new handshake session would get an episode: refuse it up front, with the reason
            await _jsonrpc_error(429, -32005, f"interactive episode cap of {cap} reached; close sessions or wait "
                                 "for idle expiry (harness episodes have their own cap)")(scope, receive, send)
            return
        if (screened := await _screened(scope, receive, send, settings.max_request_bytes)) is None:
            return
        await served.interactive_manager.handle_request(scope, screened, send)
        if scope["method"] == "DELETE":
            await served.end_session(Request(scope).headers.get("mcp-session-id"))

    async def keyed_route(scope: Scope, receive: Receive, send: Send) -> None:
        """/mcp/{domain}/s/{key}: the key's episode for every session and request (episodes/keyed.py);
        a DELETE without a session closes it."""
        domain, key = scope["path_params"]["domain"], scope["path_params"]["key"]
        served = await endpoints.get(domain)
        if served is None:
            await _jsonrpc_error(404, -32004, f"domain {domain!r} is not served (unknown, or not validated yet)")(
                scope, receive, send)
            return
        request = Request(scope)
        try:
            if scope["method"] == "DELETE" and "mcp-session-id" not in request.headers:
                await keyed.close(domain, key)
                await Response(status_code=204)(scope, receive, send)
                return
            episode_id = await keyed.resolve(domain, key, request.query_params.get("task") or None)
        except ScaleEnvError as error:
            await _refused(error)(scope, receive, send)
            return
        if (screened := await _screened(scope, receive, send, settings.max_request_bytes)) is not None:
            scope = {**scope, "path_params": {**scope["path_params"], "episode_id": episode_id}}
            await served.episode_manager.handle_request(scope, screened, send)

    async def index(request: Request) -> JSONResponse:
        return JSONResponse({"domains": sorted(registry.domains),
                             "endpoints": ["/mcp/{domain}", "/mcp/{domain}/s/{key}", "/mcp/episodes/{id}"]})

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with anyio.create_task_group() as group:
            endpoints.group = group
            yield
            endpoints.stop.set()

    return Starlette(
        routes=[
            Route("/", index, methods=["GET"]),
            Route("/mcp/episodes/{episode_id}", _AsgiEndpoint(episode_route)),
            Route("/mcp/{domain}/s/{key}", _AsgiEndpoint(keyed_route)),
            Route("/mcp/{domain}", _AsgiEndpoint(domain_route)),
        ],
        lifespan=lifespan,
    )


class _AsgiEndpoint:
    """Marks a plain ASGI callable as an app for Starlette's Route (so every method reaches it)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app(scope, receive, send)
