"""``scaleenv domains``, ``scaleenv tools DOMAIN`` and ``scaleenv mcp-config DOMAIN``: look before you serve."""

from __future__ import annotations

from typing import Annotated

import typer

from scaleenv_mcp.cli.options import DomainsDirOption, JsonOption

__all__ = ["domains", "mcp_config", "tools"]


def domains(json_output: JsonOption = False, domains_dir: DomainsDirOption = None) -> None:
    """List the installed domains with their size, tasks and validation status."""
    from scaleenv_mcp.cli.output import print_json, table
    from scaleenv_mcp.domain.catalog import find_domains
    from scaleenv_mcp.domain.inventory import describe_domain

    entries = [describe_domain(path) for path in find_domains(domains_dir).values()]
    if json_output:
        print_json([e.model_dump(mode="json") for e in entries])
        return
    table("domains", ["slug", "title", "tools", "writing", "tables", "rows", "tasks", "status"],
          [[e.slug, e.title, e.tools, e.writing_tools, e.tables, e.rows, e.tasks, e.status] for e in entries])


def tools(domain: Annotated[str, typer.Argument(help="Domain slug or path.")], json_output: JsonOption = False,
          domains_dir: DomainsDirOption = None) -> None:
    """List a domain's tools: name, what it writes, and the first line of its description."""
    from scaleenv_mcp.cli.output import fail, print_json, table
    from scaleenv_mcp.domain.catalog import resolve_domain_path
    from scaleenv_mcp.domain.loader import load_domain
    from scaleenv_mcp.errors import ScaleEnvError

    try:
        package = load_domain(resolve_domain_path(domain, domains_dir))
    except ScaleEnvError as error:
        fail(error)
    if json_output:
        print_json([t.model_dump(mode="json") for t in package.manifest.tools])
        return
    table(f"{package.slug}: {len(package.manifest.tools)} tools", ["tool", "writes", "description"],
          [[t.name, ", ".join(t.writes) or "-", t.description.split(". ")[0][:90]] for t in package.manifest.tools])


def mcp_config(
    domain: Annotated[str, typer.Argument(help="Domain slug or path.")],
    http: Annotated[bool, typer.Option("--http", help="Point at a running `scaleenv serve` instead of stdio.")] = False,
    port: Annotated[int, typer.Option(help="Agent port of the running host (with --http).")] = 8765,
    domains_dir: DomainsDirOption = None,
) -> None:
    """Print the JSON block desktop MCP clients paste (absolute paths; never a token)."""
    import sys

    from scaleenv_mcp.cli.output import fail, print_json
    from scaleenv_mcp.domain.catalog import resolve_domain_path
    from scaleenv_mcp.errors import ScaleEnvError

    try:
        path = resolve_domain_path(domain, domains_dir)
    except ScaleEnvError as error:
        fail(error)
    name = f"scaleenv-{path.name}"
    if http:
        entry: dict[str, object] = {"type": "http", "url": f"http://127.0.0.1:{port}/mcp/{path.name}"}
    else:
        entry = {"command": sys.executable, "args": ["-m", "scaleenv_mcp", "serve", "--stdio", str(path)]}
    print_json({"mcpServers": {name: entry}})
