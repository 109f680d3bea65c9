"""``scaleenv domains``, ``scaleenv tools DOMAIN`` and ``scaleenv mcp-config DOMAIN``: look before you serve."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from scaleenv_mcp.cli.options import DomainsDirOption, JsonOption

__all__ = ["domains", "mcp_config", "tools"]


def domains(json_output: JsonOption = False, domains_dir: DomainsDirOption = None) -> None:
    """List the installed domains with their size, tasks and validation status."""
    from scaleenv_mcp.console import print_json, table
    from scaleenv_mcp.domain.catalog import find_domains
    from scaleenv_mcp.procedural.inventory import describe_domain

    entries = [describe_domain(path) for path in find_domains(domains_dir).values()]
    if json_output:
        print_json([e.model_dump(mode="json") for e in entries])
        return
    table("domains", ["slug", "title", "tools", "writing", "tables", "rows", "tasks", "status"],
          [[e.slug, e.title, e.tools, e.writing_tools, e.tables, e.rows, e.tasks, e.status] for e in entries])


def tools(domain: Annotated[str, typer.Argument(help="Domain slug or path.")],
          tool: Annotated[str | None, typer.Argument(help="One tool: its full description, parameters (types, "
                                                     "defaults, patterns), errors and an example call.")] = None,
          json_output: JsonOption = False, domains_dir: DomainsDirOption = None) -> None:
    """List a domain's tools (name, parameters, what it writes, description), or explain one tool.

    Examples:
      scaleenv tools smart_home
      scaleenv tools smart_home create_room
    """
    from scaleenv_mcp.console import console, fail, print_json, table
    from scaleenv_mcp.domain.catalog import resolve_domain_path
    from scaleenv_mcp.domain.loader import load_domain
    from scaleenv_mcp.domain.tool_help import example_fields, parameter_summary, tool_help
    from scaleenv_mcp.errors import ScaleEnvError, UsageError

    try:
        package = load_domain(resolve_domain_path(domain, domains_dir))
        names = [t.name for t in package.manifest.tools]
        if tool is not None and tool not in names:
            raise UsageError(f"unknown tool {tool!r} in domain {package.slug}: `scaleenv tools {domain}` lists them")
    except ScaleEnvError as error:
        fail(error)
    chosen = [t for t in package.manifest.tools if tool is None or t.name == tool]
    if json_output:
        print_json([{**t.model_dump(mode="json"), **example_fields(package, t.name)} for t in chosen])
    elif tool is not None:
        console.print(tool_help(package, tool), highlight=False, markup=False, soft_wrap=True)
    else:
        table(f"{package.slug}: {len(chosen)} tools (`scaleenv tools {package.slug} TOOL` for one in full)",
              ["tool", "parameters (* required)", "writes", "description"],
              [[t.name, parameter_summary(t) or "-", ", ".join(t.writes) or "-", t.description] for t in chosen])


def mcp_config(
    domain: Annotated[str, typer.Argument(help="Domain slug or path.")],
    http: Annotated[bool, typer.Option("--http", help="Point at a running `scaleenv serve` instead of stdio.")] = False,
    port: Annotated[int, typer.Option(help="Agent port of the running host, as given to `scaleenv serve --port` "
                                      "(with --http).")] = 8765,
    host: Annotated[str, typer.Option(help="Address of the running host, as given to `scaleenv serve --host` "
                                      "(with --http).")] = "127.0.0.1",
    install: Annotated[str | None, typer.Option(help="Write the entry into this client's config file instead of "
                                                "printing it: claude-desktop, cursor (global ~/.cursor/mcp.json) or "
                                                "vscode (this folder's .vscode/mcp.json).")] = None,
    config_file: Annotated[Path | None, typer.Option(help="With --install: the config file to write (default: "
                                                     "where that client looks).")] = None,
    domains_dir: DomainsDirOption = None,
) -> None:
    """Print the JSON block desktop MCP clients paste (absolute paths; never a token), or --install it.

    Examples:
      scaleenv mcp-config smart_home
      scaleenv mcp-config smart_home --install cursor
      scaleenv mcp-config smart_home --http --port 8765 --install vscode
    """
    import sys

    from scaleenv_mcp.console import console, fail, print_json
    from scaleenv_mcp.domain.catalog import resolve_domain_path
    from scaleenv_mcp.errors import ScaleEnvError

    try:
        path = resolve_domain_path(domain, domains_dir)
    except ScaleEnvError as error:
        fail(error)
    name = f"scaleenv-{path.name}"
    command = [sys.executable, "-m", "scaleenv_mcp", "serve", "--stdio", str(path)]
    url = None
    if http:
        from scaleenv_mcp.host.bind import display_host

        url = f"http://{display_host(host)}:{port}/mcp/{path.name}"
    if install is None:
        entry: dict[str, object] = ({"type": "http", "url": url} if url else
                                    {"command": command[0], "args": command[1:]})
        print_json({"mcpServers": {name: entry}})
        return
    from scaleenv_mcp.cli.client_config import CLIENTS, client_entry, default_config_path, install_entry
    from scaleenv_mcp.errors import UsageError

    try:
        if install not in CLIENTS:
            raise UsageError(f"unknown client {install!r}: choose one of {', '.join(CLIENTS)}")
        key, entry = client_entry(install, None if url else command, url)
        target = config_file or default_config_path(install)
        done = install_entry(target, key, name, entry)
    except (ScaleEnvError, OSError) as error:
        fail(error)
    console.print(f"{done} {name} in {target}" + ("" if done == "unchanged" else "; restart the client to load it"),
                  highlight=False)
