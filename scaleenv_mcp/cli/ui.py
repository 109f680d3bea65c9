"""``scaleenv ui``: a fresh one-time login link into the web view of a running ``scaleenv serve``
(opened in a browser when there is one), or ``--results DIR``: the web view of eval runs alone,
with no host."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

__all__ = ["ui"]


def ui(
    control_url: Annotated[str, typer.Option(help="Control listener of the running scaleenv serve.")] = "http://127.0.0.1:8766",
    token_file: Annotated[Path | None, typer.Option(help="Its control token file (default: the one serve writes, "
                                                    "~/.scaleenv/control-token).")] = None,
    results: Annotated[list[Path] | None, typer.Option("--results", metavar="DIR", help="Browse these eval run "
                                                       "folders (or folders of runs) without a host (repeatable).")] = None,
    host: Annotated[str, typer.Option(help="With --results: bind address.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="With --results: port (0 picks a free one).")] = 8767,
    open_browser: Annotated[bool, typer.Option("--open/--no-open", help="Open the link in a browser.")] = True,
) -> None:
    """Open the web view: domains, tasks, live episodes and eval runs as pages.

    Examples:
      scaleenv ui                          # a login link into the running `scaleenv serve`
      scaleenv ui --results runs/          # eval runs only, no host needed
    """
    from scaleenv_mcp.console import fail
    from scaleenv_mcp.errors import ScaleEnvError

    try:
        if results:
            _serve_results(results, host, port, open_browser)
            return
        url = _login_link(control_url, token_file)
    except ScaleEnvError as error:
        fail(error)
    print(url, flush=True)
    if open_browser:
        _open(url)


def _open(url: str) -> None:
    import webbrowser

    try:
        webbrowser.open(url)
    except Exception:  # no browser here: the printed link is the way in
        pass


def _login_link(control_url: str, token_file: Path | None) -> str:
    import httpx

    from scaleenv_mcp.errors import ControlAuthError, EnvironmentFaultError, UsageError
    from scaleenv_mcp.settings import HostSettings

    path = token_file or HostSettings.from_env().state_dir / "control-token"
    try:
        token = path.read_text().strip()
    except OSError as exc:
        raise UsageError(f"cannot read the control token file {path}: {exc.strerror} (is scaleenv serve running? "
                         "pass --token-file)") from None
    try:
        reply = httpx.post(f"{control_url.rstrip('/')}/ui/login-link", headers={"Authorization": f"Bearer {token}"},
                           timeout=10)
    except httpx.HTTPError as error:
        raise EnvironmentFaultError(f"no scaleenv serve answers at {control_url} ({type(error).__name__}): start it, "
                                    "or pass --control-url") from None
    if reply.status_code == 401:
        raise ControlAuthError(f"the control listener at {control_url} refused the token in {path} (401): pass "
                               "--token-file with the file that serve wrote")
    if reply.status_code != 201:
        raise EnvironmentFaultError(f"{control_url} did not give a login link ({reply.status_code}): is its web view "
                                    "on (not serve --no-ui)?")
    return str(reply.json()["url"])


def _serve_results(results: list[Path], host: str, port: int, open_browser: bool) -> None:
    import secrets

    import uvicorn

    from scaleenv_mcp.clients.webui import UiAuth, build_ui_app
    from scaleenv_mcp.host.bind import bind_socket, display_host

    auth = UiAuth(secrets.token_urlsafe(32), host)
    app = build_ui_app(auth, None, [p.resolve() for p in results])
    sock = bind_socket(host, port, "web view", "--port")
    url = f"http://{display_host(host)}:{sock.getsockname()[1]}/ui/login?key={auth.mint_login_key()}"
    print(f"scaleenv: web view of {', '.join(str(p) for p in results)} at {url} (one-time login link; Ctrl-C stops)",
          file=sys.stderr, flush=True)
    if open_browser:
        _open(url)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off"))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
