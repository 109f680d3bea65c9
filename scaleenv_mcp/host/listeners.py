"""Run the agent listener (and the control listener) with uvicorn until interrupted."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import uvicorn

from scaleenv_mcp.host.host import Host
from scaleenv_mcp.host.http import build_agent_app
from scaleenv_mcp.settings import HostSettings

__all__ = ["serve_http"]


def _uvicorn(app: object, host: str, port: int) -> uvicorn.Server:
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on", access_log=False,
                            timeout_graceful_shutdown=2)
    return uvicorn.Server(config)


async def serve_http(settings: HostSettings, domain_dirs: list[Path] | None = None,
                     domains: list[str] | None = None) -> None:
    async with Host.running(settings, domain_dirs, domains) as host:
        servers = [_uvicorn(build_agent_app(host.registry, settings), settings.host, settings.port)]
        control_note = "control API disabled"
        if settings.control_port:
            from scaleenv_mcp.host.control import build_control_app

            control_app, token_path = build_control_app(host, settings)
            servers.append(_uvicorn(control_app, settings.host, settings.control_port))
            control_note = f"control API on http://{settings.host}:{settings.control_port} (token in {token_path})"
        served = ", ".join(sorted(host.registry.domains)) or "none"
        print(f"scaleenv: serving {len(host.registry.domains)} domains ({served})\n"
              f"  agents: http://{settings.host}:{settings.port}/mcp/{{domain}} and /mcp/episodes/{{id}}\n"
              f"  {control_note}", file=sys.stderr, flush=True)
        for slug, reason in sorted(host.load_errors.items()):
            print(f"  not serving {slug}: {reason}", file=sys.stderr, flush=True)
        await asyncio.gather(*(server.serve() for server in servers))
