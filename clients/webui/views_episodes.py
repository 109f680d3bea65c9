"""Pages of live episodes: the list (paginated, newest first), one episode (its trace as a
timeline, its diff against its start, its reward with the reasons), and the buttons that reset,
snapshot, restore, fork and close it: the registry calls the control API's handlers make.
This module must not run a tool.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from clients.webui.context import PageNotFoundError, Ui
from clients.webui.diff_view import diff_tables
from clients.webui.render import paginate
from scaleenv_mcp.episodes.registry import Episode
from scaleenv_mcp.errors import ScaleEnvError
from scaleenv_mcp.state.reward import RewardReport

__all__ = ["ROUTES", "episode_rows"]


def episode_rows(episodes: list[Episode], domain: str | None = None) -> list[Episode]:
    """Live episodes, newest first, of one domain or all."""
    live = [e for e in episodes if not e.closed and (not domain or e.domain.slug == domain)]
    live.sort(key=lambda e: e.created, reverse=True)
    return live


async def episodes(ui: Ui, request: Request) -> Response:
    registry = ui.require_host().registry
    domain = request.query_params.get("domain") or None
    page = paginate(episode_rows(list(registry.episodes.values()), domain), request.query_params.get("page"))
    return ui.page(request, "episodes.html", "episodes", title="Episodes", page=page, domain=domain or "",
                   domains=sorted(registry.domains))


async def episode(ui: Ui, request: Request) -> Response:
    registry = ui.require_host().registry
    found = registry.get(request.path_params["id"])
    diff = await registry.diff(found.id)
    reward: RewardReport | None = None
    reward_note = None
    try:
        reward = await registry.reward(found.id)
    except ScaleEnvError as error:  # a seed episode, or a task without gold: say so beside the diff
        reward_note = error.message
    snapshots = sorted(k for k, s in registry.snapshots.items() if s.owner == found.id)
    task = found.domain.package.tasks.get(found.task_id) if found.task_id else None
    return ui.page(request, "episode.html", "episodes", title=f"Episode {found.id[:8]}", e=found,
                   agent_url=f"/mcp/episodes/{found.id}", trace=list(found.trace), diff=diff_tables(diff),
                   reward=reward, reward_note=reward_note, snapshots=snapshots, task=task)


async def act(ui: Ui, request: Request, form: dict[str, str]) -> Response:
    registry = ui.require_host().registry
    episode_id, action = request.path_params["id"], request.path_params["action"]
    registry.get(episode_id)  # 404 for an unknown or closed episode, before anything changes
    target = f"/ui/episodes/{episode_id}"
    if action == "reset":
        await registry.reset(episode_id)
    elif action == "snapshot":
        await registry.snapshot(episode_id, pinned=form.get("pinned") == "1")
    elif action == "restore":
        await registry.restore(episode_id, form.get("snapshot_id", ""))
    elif action == "fork":
        target = f"/ui/episodes/{(await registry.fork(episode_id)).id}"
    elif action == "close":
        await registry.close(episode_id)
        target = "/ui/episodes"
    else:
        raise PageNotFoundError(f"no action {action!r} (reset, snapshot, restore, fork, close)")
    return RedirectResponse(target, status_code=303)


ROUTES: list[tuple[str, Any, bool]] = [
    ("/episodes", episodes, False),
    ("/episodes/{id}", episode, False),
    ("/episodes/{id}/{action}", act, True),
]
