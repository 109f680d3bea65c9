"""The control listener: HTTP JSON for harnesses and RL trainers, never reachable by agents.

Own port, loopback by default, always behind a bearer token (random unless given, written
to a 0600 file and kept across restarts until ``scaleenv serve --rotate-token``), Host and
Origin checks, request size limit (a body is refused by its declared Content-Length before
any of it is read, and a body without one is read only up to the limit: 413). Every error
is shaped by one handler: ``{"error": {"code", "message"}}`` with 401 (token), 403
(Host/Origin), 404 (episode, snapshot), 413 (body too large), 429 (a cap or an episode
limit, with the reason), 400 (usage), 410 (episode lost: its host or worker died), 500 (environment;
never a traceback), 503 (the worker died under the request: retry). The statuses are
``host.errors.error_status``, the one mapping both listeners and the web view use.
"""

from __future__ import annotations

import functools
import hmac
import json
import logging
import os
import secrets
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.types import ASGIApp

from scaleenv_mcp.errors import RequestTooLargeError, ScaleEnvError, UsageError
from scaleenv_mcp.host import control_models as models
from scaleenv_mcp.host.episode_control import EpisodeControl
from scaleenv_mcp.host.errors import error_status
from scaleenv_mcp.host.host import Host
from scaleenv_mcp.host.security import is_allowed
from scaleenv_mcp.settings import HostSettings
from scaleenv_mcp.state.diff import StateDiff
from scaleenv_mcp.state.reward import RewardReport

__all__ = ["ControlMount", "MountFactory", "build_control_app", "error_response", "write_token"]

log = logging.getLogger("scaleenv.control")

def _kept_token(path: Path) -> str | None:
    """The token a previous run wrote to ``path``, if the file is still private to its owner."""
    try:
        if path.stat().st_mode & 0o077:
            return None  # readable by others: do not trust it, write a fresh one
        token = path.read_text().strip()
    except (OSError, UnicodeDecodeError):
        return None
    return token if len(token) >= 32 else None


def write_token(settings: HostSettings) -> tuple[str, Path]:
    """The control token and the 0600 file it is in: given, else the one a previous run wrote
    (harness configs keep working across restarts), else random; ``rotate_token`` forces a new one."""
    path = settings.token_file or (settings.state_dir / "control-token")
    kept = None if settings.rotate_token else _kept_token(path)
    token = settings.token or kept or secrets.token_urlsafe(32)
    if token == kept:
        return token, path
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(token + "\n")
    os.chmod(path, 0o600)
    return token, path


class ControlMount(Protocol):
    """An app served under a path of the control listener, behind its own check of the same token
    (the web view, ``scaleenv_mcp.clients.webui``, mounted at ``/ui`` by ``scaleenv serve``). The core never imports it:
    the CLI passes one in, so the layers keep pointing down."""

    path: str
    app: ASGIApp

    def login_url(self, base_url: str) -> str | None:
        """A one-time link that opens a session, for the banner (None: none needed)."""


# Builds a mount for a running host, given the settings and the control token it must check.
MountFactory = Callable[[Host, HostSettings, str], ControlMount]


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


def error_response(error: Exception) -> JSONResponse:
    """The one place control-API errors get their HTTP shape (tests/contract/test_error_shape.py)."""
    return _error(*error_status(error))


class _Routes:
    """Each endpoint is one call of the host's public episode API (``EpisodeControl``), its model as JSON:
    an in-process ``Host``, or a router over many hosts (``scaleenv_mcp.cluster``)."""

    def __init__(self, host: EpisodeControl, settings: HostSettings) -> None:
        self.host = host
        self.settings = settings

    async def raw(self, request: Request) -> bytes:
        """The body, read only up to the size limit (the declared length was checked before)."""
        limit, chunks, size = self.settings.max_request_bytes, [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise RequestTooLargeError(f"request body too large: over the {limit}-byte limit")
            chunks.append(chunk)
        return b"".join(chunks)

    async def body(self, request: Request, model: type[BaseModel]) -> Any:
        """The body as ``model``, read only up to the size limit."""
        return model.model_validate_json(await self.raw(request) or b"{}")

    @staticmethod
    def _file(data: bytes, name: str) -> Response:
        return Response(data, media_type=EPISODE_FILE_TYPE,
                        headers={"Content-Disposition": f'attachment; filename="{name}.scaleenv.zip"'})

    async def export_episode(self, request: Request) -> Response:
        episode_id = request.path_params["id"]
        return self._file(await self.host.export_episode(episode_id), episode_id)

    async def export_snapshot(self, request: Request) -> Response:
        snapshot_id = request.path_params["id"]
        return self._file(await self.host.export_snapshot(snapshot_id), snapshot_id)

    async def import_episode(self, request: Request) -> JSONResponse:
        force = request.query_params.get("allow_other_version", "false").lower() in ("1", "true", "yes")
        return self._json(await self.host.import_episode(await self.raw(request), allow_other_version=force), 201)

    @staticmethod
    def _json(model: BaseModel, status_code: int = 200) -> JSONResponse:
        return JSONResponse(model.model_dump(mode="json"), status_code=status_code)

    async def create(self, request: Request) -> JSONResponse:
        spec = await self.body(request, models.CreateEpisodes)
        wanted = spec.episodes or ([models.EpisodeSpec(domain=spec.domain, task_id=spec.task_id)] * spec.count
                                   if spec.domain else None)
        if not wanted:
            raise UsageError("give domain (and optionally task_id, count) or episodes: [...]")
        return self._json(models.EpisodeList(episodes=await self.host.create_many(wanted)), 201)

    async def list(self, request: Request) -> JSONResponse:
        return self._json(models.EpisodeList(episodes=await self.host.list_episodes()))

    async def get(self, request: Request) -> JSONResponse:
        return self._json(await self.host.get_episode(request.path_params["id"]))

    async def close(self, request: Request) -> Response:
        await self.host.close(request.path_params["id"])
        return Response(status_code=204)

    async def reset(self, request: Request) -> JSONResponse:
        return self._json(await self.host.reset(request.path_params["id"]))

    async def snapshot(self, request: Request) -> JSONResponse:
        body = await self.body(request, models.SnapshotRequest)
        snapshot_id = await self.host.snapshot(request.path_params["id"], pinned=body.pinned)
        return self._json(models.SnapshotBody(snapshot_id=snapshot_id), 201)

    async def delete_snapshot(self, request: Request) -> Response:
        await self.host.delete_snapshot(request.path_params["id"])
        return Response(status_code=204)

    async def restore(self, request: Request) -> JSONResponse:
        body = await self.body(request, models.RestoreBody)
        return self._json(await self.host.restore(request.path_params["id"], body.snapshot_id))

    async def fork(self, request: Request) -> JSONResponse:
        return self._json(await self.host.fork(request.path_params["id"]), 201)

    async def fingerprint(self, request: Request) -> JSONResponse:
        return self._json(models.FingerprintBody(fingerprint=await self.host.fingerprint(request.path_params["id"])))

    async def tables(self, request: Request) -> JSONResponse:
        names = request.query_params.getlist("table") or None
        return JSONResponse({"tables": await self.host.tables(request.path_params["id"], names)})

    async def diff(self, request: Request) -> JSONResponse:
        return self._json(await self.host.diff(request.path_params["id"], request.query_params.get("against")))

    async def reward(self, request: Request) -> JSONResponse:
        return self._json(await self.host.reward(request.path_params["id"]))

    async def reward_told(self, request: Request) -> JSONResponse:
        body = await self.body(request, models.RewardRequest)
        return self._json(await self.host.reward(request.path_params["id"], body.messages))

    async def rewards(self, request: Request) -> JSONResponse:
        body = await self.body(request, models.RewardBatchRequest)
        return self._json(await self.host.rewards(body.episode_ids))

    async def trace(self, request: Request) -> JSONResponse:
        return self._json(models.TraceBody(trace=await self.host.trace(request.path_params["id"])))

    async def keyed(self, request: Request) -> JSONResponse:
        return self._json(await self.host.keyed_episode(request.path_params["slug"], request.path_params["key"]))

    async def tasks(self, request: Request) -> JSONResponse:
        cards = await self.host.tasks(request.path_params["slug"], request.query_params.get("split"))
        return self._json(models.TaskList(tasks=cards))

    async def domains(self, request: Request) -> JSONResponse:
        return self._json(models.DomainList(domains=await self.host.domains()))


EPISODE_FILE_TYPE = "application/zip"  # episodes/episode_file.py
_FILE_OPERATIONS = ("export_episode", "export_snapshot", "import_episode")

# (method, path, handler name, summary, request model, response model, success status)
_ENDPOINTS: list[tuple[str, str, str, str, type[BaseModel] | None, type[BaseModel] | None, int]] = [
    ("GET", "/domains", "domains", "Domains served by this host", None, models.DomainList, 200),
    ("GET", "/domains/{slug}/tasks", "tasks", "A domain's tasks as harnesses run them (?split=train|test)", None,
     models.TaskList, 200),
    ("GET", "/keys/{slug}/{key}", "keyed", "The episode of a key of /mcp/{domain}/s/{key} (404 episode_expired once it ended)",
     None, models.EpisodeInfo, 200),
    ("POST", "/episodes", "create", "Create episodes from a domain's seed or a task (batched)", models.CreateEpisodes, models.EpisodeList, 201),
    ("GET", "/episodes", "list", "List live episodes", None, models.EpisodeList, 200),
    ("GET", "/episodes/{id}", "get", "One episode", None, models.EpisodeInfo, 200),
    ("DELETE", "/episodes/{id}", "close", "Close an episode", None, None, 204),
    ("POST", "/episodes/{id}/reset", "reset", "Back to the start state, trace cleared", None, models.EpisodeInfo, 200),
    ("POST", "/episodes/{id}/snapshot", "snapshot", "Snapshot the state (deleted with the episode unless pinned)",
     models.SnapshotRequest, models.SnapshotBody, 201),
    ("DELETE", "/snapshots/{id}", "delete_snapshot", "Delete a snapshot", None, None, 204),
    ("POST", "/episodes/{id}/restore", "restore", "Restore a snapshot", models.RestoreBody, models.EpisodeInfo, 200),
    ("POST", "/episodes/{id}/fork", "fork", "Copy the episode into a new, independent one", None, models.EpisodeInfo, 201),
    ("GET", "/episodes/{id}/export", "export_episode", "The episode as one file (application/zip: SQLite image, "
     "trace, metadata)", None, None, 200),
    ("GET", "/snapshots/{id}/export", "export_snapshot", "A snapshot as one file (application/zip)", None, None, 200),
    ("POST", "/episodes/import", "import_episode", "Create an episode from an exported file (body: the file; "
     "?allow_other_version=true accepts another version of its domain package)", None, models.EpisodeInfo, 201),
    ("GET", "/episodes/{id}/fingerprint", "fingerprint", "SHA-256 of the canonical state", None, models.FingerprintBody, 200),
    ("GET", "/episodes/{id}/tables", "tables", "Dump tables (?table=name, repeatable)", None, models.TablesBody, 200),
    ("GET", "/episodes/{id}/diff", "diff", "Diff from start (?against=start|snapshot id|episode id)", None, StateDiff, 200),
    ("GET", "/episodes/{id}/reward", "reward", "Reward against the task's gold", None, RewardReport, 200),
    ("POST", "/episodes/{id}/reward", "reward_told", "Reward, with the agent's messages for the task's communicate facts",
     models.RewardRequest, RewardReport, 200),
    ("POST", "/rewards", "rewards", "Rewards of many episodes in one request", models.RewardBatchRequest, models.RewardBatch, 200),
    ("GET", "/episodes/{id}/trace", "trace", "Every call of the episode", None, models.TraceBody, 200),
]


@functools.cache
def build_openapi() -> dict[str, Any]:
    """The control API's OpenAPI document, built once per process and only when asked for: about 75 ms
    of CPU (two dozen model_json_schema calls) that every control app paid at start-up. Callers must not
    change it."""
    paths: dict[str, Any] = {}
    schemas: dict[str, Any] = {"Error": models.ErrorBody.model_json_schema(ref_template="#/components/schemas/{model}")}
    for method, path, name, summary, request_model, response_model, status in _ENDPOINTS:
        operation: dict[str, Any] = {"operationId": name, "summary": summary, "security": [{"bearer": []}],
                                     "responses": {"default": {"description": "error",
                                                               "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}}}
        operation["parameters"] = [{"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
                                   for name in ("id", "slug", "key") if f"{{{name}}}" in path] or None
        if operation["parameters"] is None:
            del operation["parameters"]
        if request_model is not None:
            schemas[request_model.__name__] = request_model.model_json_schema(ref_template="#/components/schemas/{model}")
            operation["requestBody"] = {"required": True, "content": {"application/json": {
                "schema": {"$ref": f"#/components/schemas/{request_model.__name__}"}}}}
        response: dict[str, Any] = {"description": "ok"}
        if response_model is not None:
            schema = response_model.model_json_schema(ref_template="#/components/schemas/{model}")
            schemas.update(schema.pop("$defs", {}))
            schemas[response_model.__name__] = schema
            response["content"] = {"application/json": {"schema": {"$ref": f"#/components/schemas/{response_model.__name__}"}}}
        if name in _FILE_OPERATIONS:  # episode files travel as raw bytes, not JSON
            binary = {EPISODE_FILE_TYPE: {"schema": {"type": "string", "format": "binary"}}}
            if method == "GET":
                response["content"] = binary
            else:
                operation["requestBody"] = {"required": True, "content": binary}
                operation["parameters"] = [{"name": "allow_other_version", "in": "query", "required": False,
                                            "schema": {"type": "boolean"}}]
        operation["responses"][str(status)] = response
        paths.setdefault(path, {})[method.lower()] = operation
    for schema in list(schemas.values()):
        schemas.update(schema.pop("$defs", {}))
    return {"openapi": "3.1.0", "info": {"title": "ScaleEnv MCP control API", "version": "1"},
            "components": {"schemas": schemas, "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
            "paths": paths}


def build_control_app(host: EpisodeControl, settings: HostSettings, agent_base: str | None = None,
                      mounts: list[MountFactory] | None = None) -> tuple[Starlette, str, Path, list[ControlMount]]:
    """The control app, its token, the token file and the mounts built (each served under its path).

    ``host`` is one in-process ``Host`` (its episodes' agent URLs start at ``agent_base``; mounts need
    one) or any other ``EpisodeControl``, such as the router over Ray host actors, whose episodes carry
    their owners' agent URLs already."""
    token, token_path = write_token(settings)
    if isinstance(host, Host):
        host.agent_url = agent_base or f"http://{settings.host}:{settings.port}"
    elif mounts:
        raise UsageError("mounts (the web view) need an in-process Host")
    routes = _Routes(host, settings)

    def too_large(request: Request) -> bool:
        declared = request.headers.get("content-length")
        return declared is not None and (not declared.isdigit() or int(declared) > settings.max_request_bytes)

    def foreign(request: Request) -> bool:
        return not is_allowed(request.headers.get("host"), request.headers.get("origin"), settings.host,
                              settings.allowed_origins)

    def guarded(name: str) -> Callable[[Request], Awaitable[Response]]:
        handler = getattr(routes, name)

        async def endpoint(request: Request) -> Response:
            if foreign(request):
                return _error(403, "forbidden", "Host or Origin not allowed")
            supplied = request.headers.get("authorization", "")
            if not hmac.compare_digest(supplied.encode(), f"Bearer {token}".encode()):
                return _error(401, "unauthorized", "missing or wrong bearer token")
            if too_large(request):
                return error_response(RequestTooLargeError(f"request body too large: over the "
                                                           f"{settings.max_request_bytes}-byte limit (by its "
                                                           "Content-Length; nothing was read)"))
            try:
                response: Response = await handler(request)
                return response
            except (ScaleEnvError, ValidationError) as error:
                return error_response(error)
            except json.JSONDecodeError:
                return _error(400, "invalid_request", "body is not JSON")
            except Exception as error:  # a bug of ours: JSON, no traceback or path to the caller
                log.exception("control API %s failed", name)
                return error_response(error)

        return endpoint

    async def openapi_doc(request: Request) -> JSONResponse:
        # No token needed to read the document, but the DNS-rebinding defence applies here too.
        if foreign(request):
            return _error(403, "forbidden", "Host or Origin not allowed")
        return JSONResponse(build_openapi())

    app_routes: list[BaseRoute] = [Route("/openapi.json", openapi_doc, methods=["GET"])]
    app_routes += [Route(path, guarded(name), methods=[method]) for method, path, name, *_ in _ENDPOINTS]
    built = [factory(host, settings, token) for factory in mounts or [] if isinstance(host, Host)]
    app_routes += [Mount(mount.path, app=mount.app) for mount in built]
    app = Starlette(routes=app_routes)
    app.state.routes_impl = routes
    return app, token, token_path, built
