"""``scaleenv graph DOMAIN``: build the tool dependency graph, save graph.json, draw it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from scaleenv_mcp.cli.options import DomainsDirOption, JsonOption

__all__ = ["graph"]


def graph(
    domain: Annotated[str, typer.Argument(help="Slug of an installed domain, or a path to a domain folder.")],
    svg: Annotated[Path | None, typer.Option("--svg", help="Write an SVG drawing to this file.")] = None,
    mermaid: Annotated[Path | None, typer.Option("--mermaid", help="Write Mermaid flowchart text to this file.")] = None,
    save: Annotated[bool, typer.Option("--save/--no-save", help="Write graph.json into the domain folder (only "
                                       "from a checkout: never into an installed package; see --out).")] = True,
    out: Annotated[Path | None, typer.Option("--out", help="Write graph.json to this file instead of the domain "
                                             "folder.")] = None,
    observed: Annotated[Path | None, typer.Option("--observed", help="Tables seen in validation, added to the manifest's: "
                                                  "a `scaleenv validate --json` report, or JSON "
                                                  "{tool: {reads: [...], writes: [...]}}.")] = None,
    json_output: JsonOption = False,
    domains_dir: DomainsDirOption = None,
) -> None:
    """Build the typed tool graph (data flow, state, pre/postconditions) and print its statistics.

    graph.json is deterministic (sorted, no timestamps); rebuild it whenever the domain changes.
    """
    import json

    from scaleenv_mcp.console import console, fail, print_json, table
    from scaleenv_mcp.domain.catalog import resolve_domain_path
    from scaleenv_mcp.domain.loader import load_domain
    from scaleenv_mcp.errors import ScaleEnvError, UsageError
    from scaleenv_mcp.generator.graph import build_graph, write_graph
    from scaleenv_mcp.generator.graph_render import render_mermaid, render_svg

    try:
        package = load_domain(resolve_domain_path(domain, domains_dir))
        try:
            seen = json.loads(observed.read_text()) if observed else None
            if isinstance(seen, dict) and isinstance(seen.get("observed"), dict):
                seen = seen["observed"]  # a validation report
        except (OSError, ValueError) as exc:
            raise UsageError(f"--observed {observed}: {exc}") from None
    except ScaleEnvError as error:
        fail(error)
    from scaleenv_mcp.console import err_console
    from scaleenv_mcp.domain.catalog import is_installed

    document = build_graph(package.manifest, seen)
    target = out if out is not None else package.path / "graph.json" if save else None
    if out is None and save and is_installed(package.path):
        err_console.print(f"note: graph.json not written: {package.path} is inside an installed package; "
                          "pass --out FILE to write it elsewhere", highlight=False)
        target = None
    if target is not None:
        write_graph(document, target.parent, target.name)
    if svg:
        svg.write_text(render_svg(document))
    if mermaid:
        mermaid.write_text(render_mermaid(document))
    if json_output:
        print_json(document)
        return
    stats = document.stats
    table(f"{document.domain}: tool dependency graph",
          ["nodes", "edges", *stats.edges_by_type, "density", "components", "longest data-flow path"],
          [[stats.nodes, stats.edges, *stats.edges_by_type.values(), stats.density, stats.weak_components,
            f"{stats.longest_data_flow_length}{'' if stats.longest_path_exact else '+'}"]])
    console.print("longest path: " + " -> ".join(stats.longest_data_flow_path), highlight=False)
    written = [str(p) for p in (target, svg, mermaid) if p]
    if written:
        console.print("wrote " + ", ".join(written), highlight=False, soft_wrap=True)  # paths whole, in any width
