"""``scaleenv serve --stdio DOMAIN``: one episode for a client that spawns this process.

Nothing but MCP goes to stdout: logs go to stderr.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import mcp.server.stdio

from scaleenv_mcp.episodes.registry import EpisodeOrigin
from scaleenv_mcp.host.host import Host
from scaleenv_mcp.settings import HostSettings

__all__ = ["serve_stdio"]


async def serve_stdio(domain: str, task_id: str | None, settings: HostSettings,
                      domain_dirs: list[Path] | None = None) -> None:
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    settings = settings.model_copy(update={"workers": settings.workers or 1})
    async with Host.running(settings, domain_dirs, [domain]) as host:
        slug = Path(domain).name if Path(domain).is_dir() else domain
        episode = await host.create_episode(slug, task_id, origin=EpisodeOrigin.interactive)
        server = host.episode_server(episode.id)
        async with mcp.server.stdio.stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
