"""``scaleenv serve``: the agent listener (and the control listener), or one episode on stdio."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from scaleenv_mcp.cli.options import DomainsDirOption

__all__ = ["serve"]


def serve(
    host: Annotated[str, typer.Option(help="Bind address. Loopback by default: episodes hold no secrets, but the "
                                      "control API drives them, so expose it only on purpose.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Agent listener port (MCP streamable HTTP).")] = 8765,
    control_port: Annotated[int, typer.Option(help="Control listener port (HTTP JSON, bearer token); 0 picks a free port.")] = 8766,
    no_control: Annotated[bool, typer.Option("--no-control", help="Do not start the control listener.")] = False,
    token_file: Annotated[Path | None, typer.Option(help="Where to write the control token (mode 0600).")] = None,
    domains_dir: DomainsDirOption = None,
    domain: Annotated[list[str] | None, typer.Option("--domain", help="Serve only these domains (repeatable).")] = None,
    workers: Annotated[int | None, typer.Option(help="Worker processes for tool code (default: one per core).")] = None,
    stdio: Annotated[str | None, typer.Option("--stdio", metavar="DOMAIN",
                                              help="Serve one episode of DOMAIN on stdin/stdout instead.")] = None,
    task: Annotated[str | None, typer.Option("--task", help="With --stdio: start from this task's state.")] = None,
    skip_validation: Annotated[bool, typer.Option("--skip-validation",
                                                  help="DEVELOPMENT ONLY: serve domains without validating them.")] = False,
) -> None:
    """Serve the domains over MCP: /mcp/{domain} for interactive use, /mcp/episodes/{id} per episode.

    Examples:
      scaleenv serve                         # every shipped domain on 127.0.0.1:8765
      scaleenv serve --stdio smart_home      # one episode for a client that spawns this process
    """
    import anyio

    from scaleenv_mcp.cli.output import fail
    from scaleenv_mcp.errors import ScaleEnvError
    from scaleenv_mcp.settings import HostSettings

    settings = HostSettings.from_env(host=host, port=port, token_file=token_file, workers=workers,
                                     skip_validation=skip_validation or None)
    settings = settings.model_copy(update={"control_port": None if no_control else control_port})
    try:
        if stdio is not None:
            from scaleenv_mcp.host.stdio import serve_stdio

            anyio.run(serve_stdio, stdio, task, settings, domains_dir)
            return
        from scaleenv_mcp.host.listeners import serve_http

        anyio.run(serve_http, settings, domains_dir, domain)
    except ScaleEnvError as error:
        fail(error)
    except KeyboardInterrupt:
        pass
