"""Where an agent looks an internal id up: the read tools whose results hold it, best first.

A person names a row by what they see (a device's name, a home's city); the agent turns that
into an id with a read. Which read matters: listing the homes to find a home id reads like a
person's request, going through the scenes to find it does not. The data-flow edges of the
tool graph say which reads can supply a parameter; this module orders them the way an agent
would try them: a read of the id's own table first, one named after it next, then the one
asking least of the user.
"""

from __future__ import annotations

from scaleenv_mcp.domain.manifest import DomainManifest, ToolSpec
from scaleenv_mcp.generator.graph import ToolGraphDocument
from scaleenv_mcp.generator.synthesis.values import singular
from scaleenv_mcp.generator.synthesis.world import World

__all__ = ["is_lookup", "lookup_sources", "named_after", "reads_only"]


def lookup_sources(manifest: DomainManifest, document: ToolGraphDocument, world: World) -> dict[tuple[str, str], list[str]]:
    """(tool, parameter) -> read tools whose results hold that parameter, in the order to try them."""
    writing = {t.name for t in manifest.tools if t.is_writing}
    sources: dict[tuple[str, str], list[str]] = {}
    for edge in sorted(document.edges, key=lambda e: (e.target, e.source)):
        if edge.type.value == "data_flow" and edge.source not in writing and edge.source != edge.target:
            for mapping in edge.fields:
                sources.setdefault((edge.target, mapping.parameter), []).append(edge.source)
    for (_, param), tools in sources.items():
        table = world.key_table(param)
        tools.sort(key=lambda name: _preference(manifest.tool(name), table, manifest))
    return sources


def _preference(tool: ToolSpec, table: str | None, manifest: DomainManifest) -> tuple[int, int, int, str]:
    asks = len([p for p in tool.input_schema.get("required", [])
                if tool.acting is None or p != tool.acting.argument])
    return (not reads_only(tool, table, manifest), not named_after(tool, table), asks, tool.name)


def reads_only(tool: ToolSpec, table: str | None, manifest: DomainManifest) -> bool:
    """``tool`` reads ``table`` and nothing else but the people's tables (who may see it)."""
    people = {p.table for p in manifest.principals}
    return table is not None and set(tool.reads) - people == {table}


def named_after(tool: ToolSpec, table: str | None) -> bool:
    """``find_devices`` and ``get_device`` for ``devices``."""
    return table is not None and (table in tool.name or singular(table) in tool.name)


def is_lookup(tool: ToolSpec, table: str | None, manifest: DomainManifest) -> bool:
    """Where a person's agent looks a row of ``table`` up, not a read that merely mentions it
    (a device found through a scene's actions)."""
    return reads_only(tool, table, manifest) or named_after(tool, table)
