"""A one-line description of a domain package: size, tasks, validation status (``scaleenv domains``)."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from scaleenv_mcp.domain.loader import load_domain
from scaleenv_mcp.errors import DomainError

__all__ = ["DomainSummary", "describe_domain"]


class DomainSummary(BaseModel):
    slug: str
    title: str = ""
    path: str
    provenance: str = ""
    tools: int = 0
    writing_tools: int = 0
    tables: int = 0
    rows: int = 0
    tasks: int = 0
    status: str
    error: str | None = None


def describe_domain(path: Path) -> DomainSummary:
    try:
        package = load_domain(path)
    except DomainError as error:
        return DomainSummary(slug=path.name, path=str(path), status="broken", error=error.message)
    manifest = package.manifest
    from scaleenv_mcp.procedural.cache import validation_status

    return DomainSummary(
        slug=package.slug, title=manifest.title, path=str(path), provenance=manifest.provenance.kind,
        tools=len(manifest.tools), writing_tools=sum(1 for t in manifest.tools if t.writes),
        tables=len(manifest.tables), rows=package.row_count(), tasks=len(package.tasks),
        status=validation_status(package),
    )
