"""Pages of what a host serves: its domains (one domain in full, with its tool graph) and the
tasks of every domain (a filtered list; one task as a person reads it, with its gold; a form
that opens an episode on it). Episodes are created through the Host, as the control API's
POST /episodes does. This module must not change a domain.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from scaleenv_mcp.clients.webui.context import PageNotFoundError, Ui
from scaleenv_mcp.clients.webui.diff_view import diff_tables
from scaleenv_mcp.clients.webui.er_diagram import render_er_svg
from scaleenv_mcp.clients.webui.render import paginate
from scaleenv_mcp.domain.loader import DomainPackage
from scaleenv_mcp.domain.task import Task
from scaleenv_mcp.procedural.cache import validation_key

__all__ = ["ROUTES", "domains"]

SAMPLE_ROWS = 5


def _package(ui: Ui, slug: str) -> DomainPackage:
    package = ui.require_host().package(slug)
    if package is None:
        status = ui.require_host().status.get(slug)
        raise PageNotFoundError(f"domain {slug!r} is not served" + (f": {status}" if status else ""))
    return package


def _graph_svg(ui: Ui, package: DomainPackage) -> str:
    """The tool dependency graph drawn by ``scaleenv_mcp.generator.graph_render`` (graph.json when it is there,
    else built from the manifest), drawn once per package content."""
    from scaleenv_mcp.generator.graph import ToolGraphDocument, build_graph
    from scaleenv_mcp.generator.graph_render import render_svg

    cache_key = f"{package.slug}:{package.content_hash}"
    if cache_key not in ui.graphs:
        saved = package.path / "graph.json"
        try:
            document = ToolGraphDocument.model_validate_json(saved.read_text()) if saved.exists() else None
        except ValueError:
            document = None
        ui.graphs[cache_key] = render_svg(document or build_graph(package.manifest))
    return ui.graphs[cache_key]


def _validation(ui: Ui, package: DomainPackage) -> tuple[str, str | None]:
    host = ui.require_host()
    return host.status.get(package.slug, "online"), host.validations.summary(validation_key(package))


async def domains(ui: Ui, request: Request) -> Response:
    host = ui.require_host()
    rows = []
    for slug, status in sorted(host.status.items()):
        package = host.package(slug)
        rows.append({"slug": slug, "status": status, "title": package.manifest.title if package else "",
                     "tools": len(package.manifest.tools) if package else None,
                     "tasks": len(package.tasks) if package else None,
                     "rows": package.row_count() if package else None})
    live = len(await host.list_episodes())
    return ui.page(request, "domains.html", "domains", title="Domains", domains=rows, live=live)


async def domain(ui: Ui, request: Request) -> Response:
    package = _package(ui, request.path_params["slug"])
    manifest = package.manifest
    tables = [{"spec": t, "count": len(package.seed.get(t.name, [])), "sample": package.seed.get(t.name, [])[:SAMPLE_ROWS]}
              for t in manifest.tables]
    status, report = _validation(ui, package)
    return ui.page(request, "domain.html", "domains", title=manifest.title, m=manifest, tables=tables, status=status,
                   report=report, svg=_graph_svg(ui, package), er=render_er_svg(manifest), tasks=len(package.tasks),
                   path=str(package.path))


async def _all_tasks(ui: Ui) -> list[Task]:
    host = ui.require_host()
    packages = [host.package(d.slug) for d in sorted(await host.domains(), key=lambda d: d.slug)]
    return [t for package in packages if package is not None for t in package.tasks.values()]


def _matches(task: Task, query: dict[str, str]) -> bool:
    text = query.get("q", "").strip().lower()
    tools = {a.tool for a in task.actions}
    return ((not query.get("domain") or task.domain == query["domain"])
            and (not query.get("difficulty") or task.difficulty == query["difficulty"])
            and (not query.get("kind") or task.kind == query["kind"])
            and (not query.get("split") or task.split == query["split"])
            and (not query.get("tool") or query["tool"] in tools)
            and (not text or text in task.id.lower() or text in task.user.opening.lower()
                 or text in task.user.instruction.lower()))


async def tasks(ui: Ui, request: Request) -> Response:
    everything = await _all_tasks(ui)
    query = {k: request.query_params.get(k, "") for k in ("q", "domain", "difficulty", "kind", "split", "tool")}
    chosen = [t for t in everything if _matches(t, query)]
    page = paginate(chosen, request.query_params.get("page"))
    options: dict[str, Any] = {
        "domain": sorted({t.domain for t in everything}), "difficulty": ["easy", "medium", "hard"],
        "kind": sorted({t.kind for t in everything}), "split": ["train", "test"],
        "tool": sorted({a.tool for t in everything for a in t.actions})}
    keep = "&".join(f"{k}={v}" for k, v in query.items() if v)
    return ui.page(request, "tasks.html", "tasks", title="Tasks", page=page, query=query, options=options, keep=keep)


def _task(ui: Ui, request: Request) -> Task:
    package = _package(ui, request.path_params["domain"])
    task = package.tasks.get(request.path_params["task_id"])
    if task is None:
        raise PageNotFoundError(f"domain {package.slug!r} has no task {request.path_params['task_id']!r}")
    return task


async def task(ui: Ui, request: Request) -> Response:
    found = _task(ui, request)
    gold = diff_tables(found.gold.diff) if found.gold is not None else None
    return ui.page(request, "task.html", "tasks", title=found.id, task=found, gold=gold)


async def open_episode(ui: Ui, request: Request, form: dict[str, str]) -> Response:
    found = _task(ui, request)
    episode = await ui.require_host().create_episode(found.domain, found.id)
    return RedirectResponse(f"/ui/episodes/{episode.id}", status_code=303)


ROUTES: list[tuple[str, Any, bool]] = [
    ("/domains/{slug}", domain, False),
    ("/tasks", tasks, False),
    ("/tasks/{domain}/{task_id}", task, False),
    ("/tasks/{domain}/{task_id}/episode", open_episode, True),
]

