"""``scaleenv serve``: the agent listener (and the control listener), or one episode on stdio."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from scaleenv_mcp.cli.options import DomainsDirOption, HostsOption, RayOption

if TYPE_CHECKING:
    from scaleenv_mcp.host.bind import BoundSockets
    from scaleenv_mcp.host.control import MountFactory
    from scaleenv_mcp.settings import HostSettings

__all__ = ["serve"]


class CheckOutputs(str, Enum):
    """``--check-outputs``: how often results are checked against their output schemas (settings.check_outputs)."""

    always = "always"
    sampled = "sampled"
    off = "off"


def serve(
    host: Annotated[str, typer.Option(help="Bind address. Loopback by default: episodes hold no secrets, but the "
                                      "control API drives them, so expose it only on purpose.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Agent listener port (MCP streamable HTTP).")] = 8765,
    control_port: Annotated[int, typer.Option(help="Control listener port (HTTP JSON, bearer token); 0 picks a free port.")] = 8766,
    no_control: Annotated[bool, typer.Option("--no-control", help="Do not start the control listener.")] = False,
    token_file: Annotated[Path | None, typer.Option(help="Where to write the control token (mode 0600); a token "
                                                "already there is kept across restarts.")] = None,
    rotate_token: Annotated[bool, typer.Option("--rotate-token", help="Write a new control token even if the token "
                                               "file holds one (harnesses must read it again).")] = False,
    domains_dir: DomainsDirOption = None,
    domain: Annotated[list[str] | None, typer.Option("--domain", help="Serve only these domains (repeatable).")] = None,
    workers: Annotated[int | None, typer.Option(help="Worker processes for tool code (default: one per core).")] = None,
    stdio: Annotated[str | None, typer.Option("--stdio", metavar="DOMAIN",
                                              help="Serve one episode of DOMAIN on stdin/stdout instead.")] = None,
    task: Annotated[str | None, typer.Option("--task", help="With --stdio: start from this task's state.")] = None,
    skip_validation: Annotated[bool, typer.Option("--skip-validation",
                                                  help="DEVELOPMENT ONLY: serve domains without validating them.")] = False,
    check_outputs: Annotated[CheckOutputs | None, typer.Option(
        "--check-outputs", case_sensitive=False,
        help="Check tool results against their output schemas: always (default; a result that drifts from its "
             "schema is refused as an environment fault), sampled (each tool's first result per worker, then 1 in "
             "16), off. Also SCALEENV_CHECK_OUTPUTS.")] = None,
    results: Annotated[list[Path] | None, typer.Option("--results", metavar="DIR", help="Eval run folders (or a "
                                                       "folder of them) the web view shows (repeatable).")] = None,
    no_ui: Annotated[bool, typer.Option("--no-ui", help="Do not serve the web view on the control listener.")] = False,
    ray: RayOption = None,
    hosts: HostsOption = None,
) -> None:
    """Serve the domains over MCP: /mcp/{domain} for interactive use, /mcp/episodes/{id} per episode.

    Examples:
      scaleenv serve                         # every shipped domain on 127.0.0.1:8765
      scaleenv serve --stdio smart_home      # one episode for a client that spawns this process
      scaleenv serve --ray auto --hosts 8    # 8 hosts as Ray actors behind one control API
    """
    import anyio

    from scaleenv_mcp.console import fail
    from scaleenv_mcp.errors import ScaleEnvError
    from scaleenv_mcp.settings import HostSettings

    settings = HostSettings.from_env(host=host, port=port, token_file=token_file, workers=workers,
                                     skip_validation=skip_validation or None, rotate_token=rotate_token or None,
                                     check_outputs=check_outputs.value if check_outputs else None)
    settings = settings.model_copy(update={"control_port": None if no_control else control_port})
    try:
        _check_domains(stdio, domain, domains_dir)
        if ray is not None or hosts is not None:
            _serve_on_ray(settings, ray, hosts, stdio, domains_dir, domain)
            return
        if stdio is not None:
            from scaleenv_mcp.host.stdio import serve_stdio

            anyio.run(serve_stdio, stdio, task, settings, domains_dir)
            return
        bound = _bind_and_say_where(settings)  # before the MCP stack is imported: the port is ours at once
        from scaleenv_mcp.host.listeners import serve_http

        mounts: list[MountFactory] | None = None
        if not no_ui and settings.control_port is not None:
            from scaleenv_mcp.clients.webui import ui_mount  # the web view: the top layer, reached only from here

            mounts = [ui_mount([p.resolve() for p in results or []])]
        anyio.run(serve_http, settings, domains_dir, domain, bound, mounts)
    except ScaleEnvError as error:
        fail(error)
    except KeyboardInterrupt:
        pass


def _serve_on_ray(settings: HostSettings, address: str | None, hosts: int | None, stdio: str | None,
                  domains_dir: list[Path] | None, domains: list[str] | None) -> None:
    """``--ray``: refuse what does not fit it, check Ray is installed (exit 3 with how to install it),
    bind the control port, then run the host actors and the control API over them."""
    import anyio

    from scaleenv_mcp.cluster.options import require_ray_for_hosts
    from scaleenv_mcp.errors import UsageError

    require_ray_for_hosts(address, hosts)
    if stdio is not None or settings.control_port is None:
        raise UsageError("--ray serves through its control API: it does not go with --stdio or --no-control")
    from scaleenv_mcp.cluster.requirement import import_ray
    from scaleenv_mcp.host.bind import BoundSockets

    import_ray()
    bound = BoundSockets.bind(settings)  # the public agent address (proxied) and the control API
    from scaleenv_mcp.cluster.hosts import serve_cluster

    anyio.run(lambda: serve_cluster(settings, bound, domains_dir, domains, address=address, hosts=hosts))


def _check_domains(stdio: str | None, domains: list[str] | None, domains_dir: list[Path] | None) -> None:
    """Refuse, before binding anything, a --stdio or --domain that names no installed domain
    (a usage error listing what is installed), and a serve with no domain at all."""
    from scaleenv_mcp.domain.catalog import find_domains, resolve_domain_path
    from scaleenv_mcp.errors import UsageError

    for name in [stdio] if stdio is not None else domains or []:
        resolve_domain_path(name, domains_dir)
    if stdio is None and not domains and not find_domains(domains_dir):
        raise UsageError("no domains found to serve: pass --domains-dir DIR (or set SCALEENV_DOMAINS_DIR) "
                         "to a folder of domain packages")


def _bind_and_say_where(settings: HostSettings) -> BoundSockets:
    """Bind the agent (and control) sockets and print the one 'listening' line."""
    from scaleenv_mcp.host.bind import BoundSockets, display_host

    bound = BoundSockets.bind(settings)
    where = display_host(settings.host)
    control = (f"control: http://{where}:{bound.control.getsockname()[1]}" if bound.control is not None
               else "control API disabled")
    print(f"scaleenv: listening on http://{where}:{bound.agent.getsockname()[1]} "
          f"(agents: /mcp/{{domain}}, /mcp/episodes/{{id}}; {control}); loading domains...",
          file=sys.stderr, flush=True)
    return bound
