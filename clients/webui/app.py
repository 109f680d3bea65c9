"""The web view as a Starlette app: its routes, the one guard every route passes, the login.

Served at ``/ui`` on the control listener by ``scaleenv serve`` (``ui_mount``), or alone by
``scaleenv ui --results DIR`` (``build_ui_app`` with no host). Every route but ``/login``
needs the control token or a session (401 otherwise: pages and assets alike); ``/login``
spends a one-time key; state-changing routes are POSTs that also pass ``UiAuth.may_change``
(CSRF). Errors are pages with the control API's status mapping (``error_status``), never a
traceback. This module must not know what a page shows.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from scaleenv_mcp.clients.webui import views_episodes, views_hosted, views_runs
from scaleenv_mcp.clients.webui.auth import COOKIE, SESSION_SECONDS, UiAuth
from scaleenv_mcp.clients.webui.context import PageNotFoundError, Ui
from scaleenv_mcp.errors import RequestTooLargeError, ScaleEnvError
from scaleenv_mcp.host.control import error_status
from scaleenv_mcp.host.host import Host
from scaleenv_mcp.settings import HostSettings

__all__ = ["UiMount", "build_ui_app", "ui_mount"]

log = logging.getLogger("scaleenv.ui")

PREFIX = "/ui"
_FORM_LIMIT = 16 * 1024
_STATIC = Path(__file__).parent / "static"
_TYPES = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}
_UNAUTHORISED = ("<!doctype html><title>401 Unauthorized</title><h1>Not logged in</h1><p>Open the one-time login "
                 "link that <code>scaleenv serve</code> printed, or run <code>scaleenv ui</code> for a fresh one.</p>")

Handler = Callable[..., Awaitable[Response]]


async def _form(request: Request) -> dict[str, str]:
    """A urlencoded form body, read only up to a small limit."""
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > _FORM_LIMIT:
            raise RequestTooLargeError("form too large")
    return {k: v[0] for k, v in parse_qs(body.decode(errors="replace")).items()}


def _guarded(ui: Ui, handler: Handler, *, changes: bool = False) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        if ui.auth.is_foreign(request):
            return HTMLResponse("<!doctype html><title>403</title><h1>Host or Origin not allowed</h1>", 403)
        if not (ui.auth.has_bearer(request) or ui.auth.session(request)):
            return HTMLResponse(_UNAUTHORISED, 401, headers={"WWW-Authenticate": "Bearer"})
        try:
            if changes:
                form = await _form(request)
                if not ui.auth.may_change(request, form.get("csrf")):
                    return ui.page(request, "error.html", "", http_status=403, title="Refused",
                                   message="this change needs a same-origin form with its CSRF token: reload the "
                                           "page and try again")
                return await handler(ui, request, form)
            return await handler(ui, request)
        except PageNotFoundError as error:
            return ui.page(request, "error.html", "", http_status=404, title="Not found", message=error.message)
        except (ScaleEnvError, ValidationError) as error:
            status, code, message = error_status(error)
            return ui.page(request, "error.html", "", http_status=status, title=code.replace("_", " "), message=message)
        except Exception:  # a bug of ours: a page saying so, never a traceback
            log.exception("web view %s failed", request.url.path)
            return ui.page(request, "error.html", "", http_status=500, title="Internal error",
                           message="internal error (the host's log has the details)")

    return endpoint


async def _login(ui: Ui, request: Request) -> Response:
    if ui.auth.is_foreign(request):
        return HTMLResponse("<!doctype html><title>403</title><h1>Host or Origin not allowed</h1>", 403)
    session = ui.auth.login(request.query_params.get("key", ""))
    if session is None:
        return HTMLResponse("<!doctype html><title>401 Unauthorized</title><h1>This login link is used or expired"
                            "</h1><p>Login links work once. Run <code>scaleenv ui</code> for a fresh one.</p>", 401)
    response = RedirectResponse(f"{PREFIX}/", status_code=303)
    response.set_cookie(COOKIE, session.id, max_age=SESSION_SECONDS, path=PREFIX, httponly=True, samesite="lax")
    return response


async def _login_link(ui: Ui, request: Request) -> Response:
    """POST with the bearer token: a fresh one-time login link (``scaleenv ui``)."""
    if ui.auth.is_foreign(request) or not ui.auth.has_bearer(request):
        return JSONResponse({"error": {"code": "unauthorized", "message": "missing or wrong bearer token"}}, 401)
    base = f"{request.url.scheme}://{request.headers.get('host')}"
    return JSONResponse({"url": f"{base}{PREFIX}/login?key={ui.auth.mint_login_key()}"}, status_code=201)


def _static_files() -> dict[str, tuple[bytes, str]]:
    return {p.name: (p.read_bytes(), _TYPES[p.suffix]) for p in sorted(_STATIC.iterdir()) if p.suffix in _TYPES}


def build_ui_app(auth: UiAuth, host: Host | None = None, results: list[Path] | None = None) -> Starlette:
    """The web view's app; its routes start at ``/ui`` (mounted there, or served alone)."""
    ui = Ui(auth=auth, host=host, results=list(results or []))
    files = _static_files()

    async def static(ui: Ui, request: Request) -> Response:
        found = files.get(request.path_params["name"])
        if found is None:
            raise PageNotFoundError("no such asset")
        return Response(found[0], media_type=found[1], headers={"Cache-Control": "no-cache"})

    async def home(ui: Ui, request: Request) -> Response:
        if ui.host is None:
            return RedirectResponse(f"{PREFIX}/runs", status_code=303)
        return await views_hosted.domains(ui, request)

    pages: list[tuple[str, Handler, bool]] = [
        ("/", home, False), ("/static/{name}", static, False),
        *views_hosted.ROUTES, *views_episodes.ROUTES, *views_runs.ROUTES,
    ]
    async def login(request: Request) -> Response:
        return await _login(ui, request)

    async def login_link(request: Request) -> Response:
        return await _login_link(ui, request)

    routes = [Route(PREFIX + "/login", login, methods=["GET"]),
              Route(PREFIX + "/login-link", login_link, methods=["POST"])]
    routes += [Route(PREFIX + path, _guarded(ui, handler, changes=changes), methods=["POST" if changes else "GET"])
               for path, handler, changes in pages]
    app = Starlette(routes=routes)
    app.state.ui = ui
    return app


@dataclass
class UiMount:
    """The web view mounted on the control listener (``scaleenv_mcp.host.control.ControlMount``)."""

    app: Any
    auth: UiAuth
    path: str = ""

    def login_url(self, base_url: str) -> str | None:
        return f"{base_url}{PREFIX}/login?key={self.auth.mint_login_key()}"


def ui_mount(results: list[Path] | None = None) -> Callable[[Host, HostSettings, str], UiMount]:
    """The factory ``scaleenv serve`` hands the control listener (``MountFactory``)."""

    def build(host: Host, settings: HostSettings, token: str) -> UiMount:
        auth = UiAuth(token, settings.host, list(settings.allowed_origins))
        return UiMount(app=build_ui_app(auth, host, results), auth=auth)

    return build
