"""Run the agent listener (and the control listener) with uvicorn: forever, or for a block of code.

``serving(host)`` is what ``scaleenv serve`` runs and what the verifier, the eval runner and
the integration tests use to get real HTTP listeners on loopback (port 0 picks free ports).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import uvicorn

from scaleenv_mcp.host.host import Host
from scaleenv_mcp.host.http import build_agent_app
from scaleenv_mcp.settings import HostSettings

__all__ = ["Listeners", "serve_http", "serving"]


@dataclass(frozen=True)
class Listeners:
    agent_url: str  # e.g. http://127.0.0.1:8765
    control_url: str | None
    token_path: Path | None
    token: str | None


def _bind(host: str, port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # accepted sockets inherit it: no 40 ms Nagle stalls
    sock.bind((host, port))
    sock.listen(2048)
    sock.setblocking(False)
    return sock


def _server(app: object) -> uvicorn.Server:
    config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False, timeout_graceful_shutdown=2,
                            limit_concurrency=None, timeout_keep_alive=120)
    return uvicorn.Server(config)


@contextlib.asynccontextmanager
async def serving(host: Host, settings: HostSettings | None = None) -> AsyncIterator[Listeners]:
    """Start the listeners of a running host; stop them when the block ends."""
    settings = settings or host.settings
    apps: list[tuple[object, socket.socket]] = []
    agent_sock = _bind(settings.host, settings.port)
    apps.append((build_agent_app(host.registry, settings), agent_sock))
    control_url = token_path = token = None
    agent_url = f"http://{_display(settings.host)}:{agent_sock.getsockname()[1]}"
    if settings.control_port is not None:
        from scaleenv_mcp.host.control import build_control_app

        control_app, token, token_path = build_control_app(host, settings, agent_url)
        control_sock = _bind(settings.host, settings.control_port)
        apps.append((control_app, control_sock))
        control_url = f"http://{_display(settings.host)}:{control_sock.getsockname()[1]}"
    servers = [_server(app) for app, _ in apps]
    tasks = [asyncio.create_task(server.serve(sockets=[sock])) for server, (_, sock) in zip(servers, apps)]
    try:
        while not all(s.started for s in servers):
            if any(t.done() for t in tasks):
                for t in tasks:
                    if t.done() and t.exception():
                        raise t.exception()  # type: ignore[misc]
                raise RuntimeError("a listener stopped while starting")
            await asyncio.sleep(0.01)
        yield Listeners(agent_url, control_url, token_path, token)
    finally:
        for server in servers:
            server.should_exit = True
        await asyncio.gather(*tasks, return_exceptions=True)
        for _, sock in apps:
            sock.close()


def _display(host: str) -> str:
    return f"[{host}]" if ":" in host else host


async def serve_http(settings: HostSettings, domain_dirs: list[Path] | None = None,
                     domains: list[str] | None = None) -> None:
    """``scaleenv serve``: bind at once, bring each domain online as it passes validation, run until interrupted."""
    async with Host.running(settings, domain_dirs, domains, wait=False) as host, serving(host, settings) as listeners:
        control = (f"control: {listeners.control_url} (bearer token in {listeners.token_path})"
                   if listeners.control_url else "control API disabled")
        print(f"scaleenv: agents on {listeners.agent_url}/mcp/{{domain}} and {listeners.agent_url}/mcp/episodes/{{id}}\n"
              f"  {control}", file=sys.stderr, flush=True)
        reported: dict[str, str] = {}
        while True:
            for slug, status in sorted(host.status.items()):
                if reported.get(slug) != status:
                    print(f"  {slug}: {status}", file=sys.stderr, flush=True)
                    reported[slug] = status
            if not host.status:
                print("  no domains found", file=sys.stderr, flush=True)
                host.status["(none)"] = "no domains found"
            await asyncio.sleep(0.5)
