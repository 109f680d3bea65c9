"""The one public agent address of ``scaleenv serve --ray``: ``/mcp/{domain}`` and ``/mcp/episodes/{id}``
proxied to the host actor that owns the session or episode.

Harness-created episodes need no proxy (their ``agent_url`` is the owner's listener); this is for
clients that only know one address: an interactive client on ``/mcp/{domain}`` (a handshake-era
session gets a fresh episode of its own on the actor its first request is placed on, and keeps going
to that actor by its ``Mcp-Session-Id``), a stateless request naming its episode with the
``X-ScaleEnv-Episode`` header or in its ``_meta["scaleenv/episode"]`` (the body is read for it only when
a request has neither a session nor the header), ``/mcp/episodes/{id}`` from the public address, and keyed URLs
(``/mcp/{domain}/s/{key}``): a key's first request places it on the least-loaded actor and every later
one goes to that actor, which keeps the key's episode as a single host does (expiry, close, call ids).
A key whose actor died or was restarted answers "episode lost" rather than quietly starting afresh on
the new incarnation. The proxy remembers the last ``KEYS_REMEMBERED`` keys it placed; an older key's
next request is placed anew. Each request is forwarded once with its body; a JSON answer goes back
whole, an SSE stream stays open as long as the client keeps it; the cost of the hop is measured by
``scaleenv bench --only scaling``.
"""

from __future__ import annotations

import contextlib
import json
from collections import OrderedDict
from collections.abc import AsyncIterator

from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from scaleenv_mcp.cluster.router import HostRouter
from scaleenv_mcp.cluster.upstream import Upstream, UpstreamError
from scaleenv_mcp.errors import ScaleEnvError
from scaleenv_mcp.host.server import EPISODE_META_KEY

__all__ = ["KEYS_REMEMBERED", "build_agent_proxy"]

KEYS_REMEMBERED = 100_000

_SESSION = "mcp-session-id"
_EPISODE = "x-scaleenv-episode"
_HOP_BY_HOP = {"host", "content-length", "connection", "keep-alive", "transfer-encoding", "te", "upgrade",
               "proxy-authorization", "proxy-connection"}


def _jsonrpc_error(status: int, code: int, message: str, error_code: str) -> JSONResponse:
    """The error in the shape a host's agent listener gives (``host.errors``): ``data.code`` is the
    stable error code a client tells errors apart by."""
    return JSONResponse({"jsonrpc": "2.0", "id": None,
                         "error": {"code": code, "message": message, "data": {"code": error_code}}}, status_code=status)


def _meta_episode(body: bytes) -> str | None:
    """The episode a JSON-RPC request names in ``params._meta`` (the stateless era's way), if any."""
    try:
        message = json.loads(body)
    except ValueError:
        return None  # not JSON: the actor it is placed on refuses it with the SDK's own error
    if not isinstance(message, dict) or not isinstance(params := message.get("params"), dict):
        return None
    meta = params.get("_meta")
    named = meta.get(EPISODE_META_KEY) if isinstance(meta, dict) else None
    return named if isinstance(named, str) and named else None


def build_agent_proxy(router: HostRouter) -> Starlette:
    """The agent app of the public address, forwarding to the owning actors' agent listeners."""
    sessions: dict[str, int] = {}  # Mcp-Session-Id -> slot that made it
    keys: OrderedDict[tuple[str, str], tuple[int, str]] = OrderedDict()  # (domain, key) -> slot, its incarnation
    placed = [0] * len(router.slots)  # sessions and keys held per slot, kept with the two maps (placement reads it)
    upstreams: dict[int, Upstream] = {}  # slot -> keep-alive connections to its current incarnation

    def upstream(slot: int) -> Upstream:
        base = router.slots[slot].agent_base
        kept = upstreams.get(slot)
        if kept is None or kept.base != base:  # first use, or the actor was restarted elsewhere
            if kept is not None:
                kept.close()
            kept = upstreams[slot] = Upstream(base)
        return kept

    def least_loaded() -> int:
        """A slot for a new session or key: the router's episodes plus the sessions and keys placed here."""
        [slot] = router.place(1, [a + b for a, b in zip(router.loads(), placed)])
        return slot

    async def forward(request: Request, slot: int) -> Response:
        headers = [(k, v) for k, v in request.headers.items() if k.lower() not in _HOP_BY_HOP]
        body = await request.body()  # whole, so it goes on with its length (the actor screens its size)
        target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        try:
            answer = await upstream(slot).request(request.method, target, headers, body)
        except UpstreamError as error:
            return await unreachable(slot, error)
        made = next((v for k, v in answer.headers if k == _SESSION), None)
        if made is not None and request.method == "POST" and made not in sessions:
            sessions[made] = slot
            placed[slot] += 1
        if request.method == "DELETE" and (ended := sessions.pop(request.headers.get(_SESSION, ""), None)) is not None:
            placed[ended] -= 1
        kept = {k: v for k, v in answer.headers if k not in _HOP_BY_HOP}  # h11 gives names in lower case
        if kept.get("content-type", "").startswith("text/event-stream"):  # open as long as the client
            return StreamingResponse(answer.chunks(), status_code=answer.status, headers=kept,
                                     background=BackgroundTask(answer.aclose))
        try:  # a JSON answer (the actors answer in JSON): passed on whole, with its length
            whole = await answer.read()
        except UpstreamError as error:
            return await unreachable(slot, error)
        return Response(whole, status_code=answer.status, headers=kept)

    async def unreachable(slot: int, error: UpstreamError) -> Response:
        """The actor did not answer: "episode lost" when it died (the router sees it), else the error goes on."""
        if await router.check(slot):
            raise error
        return _jsonrpc_error(410, -32004, f"this session's host ({router.slots[slot].name}) died: its episode is "
                                           "lost; start a new session", "episode_lost")

    async def domain_route(request: Request) -> Response:
        session = request.headers.get(_SESSION)
        named = request.headers.get(_EPISODE)
        if session is None and not named and request.method == "POST":
            named = _meta_episode(await request.body())
        try:
            if session is not None:
                if session not in sessions:
                    return _jsonrpc_error(404, -32004, "unknown or ended session: start a new one", "episode_not_found")
                slot = sessions[session]
            elif named:
                slot = router.owner_slot(named)
            else:  # a new session: least-loaded
                slot = least_loaded()
        except ScaleEnvError as error:
            return _jsonrpc_error(404, -32004, error.message, error.code)
        return await forward(request, slot)

    async def episode_route(request: Request) -> Response:
        try:
            slot = router.owner_slot(request.path_params["episode_id"])
        except ScaleEnvError as error:
            return _jsonrpc_error(410 if error.code == "episode_lost" else 404, -32004, error.message, error.code)
        return await forward(request, slot)

    async def keyed_route(request: Request) -> Response:
        named = (request.path_params["domain"], request.path_params["key"])
        if named in keys:
            slot, incarnation = keys[named]
            keys.move_to_end(named)
            if slot in router.dead or router.slots[slot].incarnation != incarnation:
                return _jsonrpc_error(410, -32004, f"the episode of key {named[1]!r} on {named[0]} was lost with its "
                                                   f"host ({router.slots[slot].name}); use a new key for a fresh episode", "episode_lost")
        else:
            try:
                slot = least_loaded()
            except ScaleEnvError as error:
                return _jsonrpc_error(503, -32004, error.message, error.code)
            keys[named] = (slot, router.slots[slot].incarnation)
            placed[slot] += 1
            while len(keys) > KEYS_REMEMBERED:
                placed[keys.popitem(last=False)[1][0]] -= 1
        return await forward(request, slot)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            for kept in upstreams.values():
                kept.close()

    methods = ["GET", "POST", "DELETE"]
    return Starlette(routes=[Route("/mcp/episodes/{episode_id}", episode_route, methods=methods),
                             Route("/mcp/{domain}/s/{key}", keyed_route, methods=methods),
                             Route("/mcp/{domain}", domain_route, methods=methods)], lifespan=lifespan)
