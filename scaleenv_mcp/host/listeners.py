"""Run the agent listener (and the control listener) with uvicorn: forever, or for a block of code.

``serving(host)`` is what ``scaleenv serve`` runs and what the verifier, the eval runner and
the integration tests use to get real HTTP listeners on loopback (port 0 picks free ports).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import socket
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import uvicorn

from scaleenv_mcp.host.bind import BoundSockets, display_host
from scaleenv_mcp.host.heap import settle_heap
from scaleenv_mcp.host.host import Host
from scaleenv_mcp.host.http import build_agent_app
from scaleenv_mcp.settings import HostSettings

if TYPE_CHECKING:
    from scaleenv_mcp.host.control import MountFactory

__all__ = ["Listeners", "serve_http", "serving", "serving_apps"]


@dataclass(frozen=True)
class Listeners:
    agent_url: str  # e.g. http://127.0.0.1:8765
    control_url: str | None
    token_path: Path | None
    token: str | None
    ui_login_url: str | None = None  # a one-time link into the web view, when one is mounted


class _Server(uvicorn.Server):
    """A uvicorn server that leaves signals to its caller. uvicorn's own handlers close the
    listeners on SIGINT/SIGTERM, then restore the handler found before and raise the signal
    again: a `scaleenv serve` started with SIGINT ignored (a background job of a script)
    closed its listeners and lived on; in-process hosts lost their listeners to a Ctrl-C
    meant for the caller. ``serve_http`` stops on both signals itself."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def _server(app: Any, http_parser: str = "auto") -> uvicorn.Server:
    config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False, timeout_graceful_shutdown=2,
                            limit_concurrency=None, timeout_keep_alive=120, http=http_parser)
    return _Server(config)


@contextlib.asynccontextmanager
async def serving(host: Host, settings: HostSettings | None = None, bound: BoundSockets | None = None,
                  mounts: list[MountFactory] | None = None) -> AsyncIterator[Listeners]:
    """Start the listeners of a running host (on ``bound`` sockets, or bound now); stop them when the
    block ends. ``mounts`` are served on the control listener (``scaleenv serve`` mounts the web view)."""
    settings = settings or host.settings
    bound = bound or BoundSockets.bind(settings)
    apps: list[tuple[object, socket.socket]] = [(build_agent_app(host.registry, settings, host.keyed), bound.agent)]
    control_url = token_path = token = ui_login_url = None
    agent_url = f"http://{display_host(settings.host)}:{bound.agent.getsockname()[1]}"
    host.agent_url = agent_url  # the episodes' agent_url in the Host API's EpisodeInfo
    if bound.control is not None:
        from scaleenv_mcp.host.control import build_control_app

        control_app, token, token_path, built = build_control_app(host, settings, agent_url, mounts)
        apps.append((control_app, bound.control))
        control_url = f"http://{display_host(settings.host)}:{bound.control.getsockname()[1]}"
        ui_login_url = next((url for mount in built if (url := mount.login_url(control_url))), None)
    async with serving_apps(apps, settings.http_parser):
        yield Listeners(agent_url, control_url, token_path, token, ui_login_url)


@contextlib.asynccontextmanager
async def serving_apps(apps: list[tuple[object, socket.socket]], http_parser: str = "auto") -> AsyncIterator[None]:
    """Serve each ASGI app on its bound socket (uvicorn, this event loop) from when all have started
    until the block ends; then stop them and close the sockets. Shared by ``serving`` and the
    control listener of Ray host actors (``scaleenv_mcp.cluster``)."""
    servers = [_server(app, http_parser) for app, _ in apps]
    tasks = [asyncio.create_task(server.serve(sockets=[sock])) for server, (_, sock) in zip(servers, apps)]
    try:
        while not all(s.started for s in servers):
            if any(t.done() for t in tasks):
                for t in tasks:
                    if t.done() and t.exception():
                        raise t.exception()  # type: ignore[misc]
                raise RuntimeError("a listener stopped while starting")
            await asyncio.sleep(0.01)
        yield
    finally:
        for server in servers:
            server.should_exit = True
        await asyncio.gather(*tasks, return_exceptions=True)
        for _, sock in apps:
            sock.close()


def _on_signal(name: str, caught: list[str], stop: asyncio.Event) -> None:
    caught.append(name)
    stop.set()


async def serve_http(settings: HostSettings, domain_dirs: list[Path] | None = None,
                     domains: list[str] | None = None, bound: BoundSockets | None = None,
                     mounts: list[MountFactory] | None = None) -> None:
    """``scaleenv serve``: listeners first, then each domain comes online (or fails) with a
    display of its progress, then one banner; runs until SIGINT or SIGTERM (even one the
    process was started ignoring), then closes the listeners and the host and returns."""
    from scaleenv_mcp.host.startup_display import StartupDisplay

    stop = asyncio.Event()
    caught: list[str] = []
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, _on_signal, signal.Signals(signum).name, caught, stop)
    try:
        async with Host.running(settings, domain_dirs, domains, load=False) as host, \
                serving(host, settings, bound, mounts) as listeners:
            stopping = asyncio.create_task(stop.wait())
            with StartupDisplay(host) as display:
                starting = asyncio.create_task(host.come_online())
                await asyncio.wait([starting, stopping], return_when=asyncio.FIRST_COMPLETED)
            if starting.done():
                starting.result()
                settle_heap()  # start-up is over: what it made lives as long as the process
                display.banner(listeners)
                await stopping
            else:  # stopped while domains were still loading or validating
                starting.cancel()
                await asyncio.gather(starting, return_exceptions=True)
            print(f"scaleenv: {caught[0]}: stopping", file=sys.stderr, flush=True)
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)
