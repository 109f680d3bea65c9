"""Pages of live episodes: the list (paginated, newest first), one episode (its trace as a
timeline, its diff against its start, its reward with the reasons), and the buttons that reset,
snapshot, restore, fork and close it: the Host calls the control API's handlers make.
This module must not run a tool.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from scaleenv_mcp.clients.webui.context import PageNotFoundError, Ui
from scaleenv_mcp.clients.webui.diff_view import diff_tables
from scaleenv_mcp.clients.webui.render import paginate
from scaleenv_mcp.errors import ScaleEnvError
from scaleenv_mcp.host.control_models import EpisodeInfo
from scaleenv_mcp.state.reward import RewardReport

__all__ = ["ROUTES", "episode_rows"]


def episode_rows(episodes: list[EpisodeInfo], domain: str | None = None) -> list[EpisodeInfo]:
    """Live episodes (as ``Host.list_episodes`` gives them, oldest first), newest first, of one domain or all."""
    return [e for e in reversed(episodes) if not domain or e.domain == domain]


async def episodes(ui: Ui, request: Request) -> Response:
    host = ui.require_host()
    domain = request.query_params.get("domain") or None
    page = paginate(episode_rows(await host.list_episodes(), domain), request.query_params.get("page"))
    return ui.page(request, "episodes.html", "episodes", title="Episodes", page=page, domain=domain or "",
                   domains=sorted(d.slug for d in await host.domains()))


async def episode(ui: Ui, request: Request) -> Response:
    host = ui.require_host()
    found = await host.get_episode(request.path_params["id"])
    diff = await host.diff(found.id)
    reward: RewardReport | None = None
    reward_note = None
    try:
        reward = await host.reward(found.id)
    except ScaleEnvError as error:  # a seed episode, or a task without gold: say so beside the diff
        reward_note = error.message
    package = host.package(found.domain)
    task = package.tasks.get(found.task_id) if package is not None and found.task_id else None
    return ui.page(request, "episode.html", "episodes", title=f"Episode {found.id[:8]}", e=found,
                   agent_url=f"/mcp/episodes/{found.id}", trace=await host.trace(found.id), diff=diff_tables(diff),
                   reward=reward, reward_note=reward_note, snapshots=host.snapshots(found.id), task=task)


async def act(ui: Ui, request: Request, form: dict[str, str]) -> Response:
    host = ui.require_host()
    episode_id, action = request.path_params["id"], request.path_params["action"]
    await host.get_episode(episode_id)  # 404 for an unknown or closed episode, before anything changes
    target = f"/ui/episodes/{episode_id}"
    if action == "reset":
        await host.reset(episode_id)
    elif action == "snapshot":
        await host.snapshot(episode_id, pinned=form.get("pinned") == "1")
    elif action == "restore":
        await host.restore(episode_id, form.get("snapshot_id", ""))
    elif action == "fork":
        target = f"/ui/episodes/{(await host.fork(episode_id)).id}"
    elif action == "close":
        await host.close(episode_id)
        target = "/ui/episodes"
    else:
        raise PageNotFoundError(f"no action {action!r} (reset, snapshot, restore, fork, close)")
    return RedirectResponse(target, status_code=303)


ROUTES: list[tuple[str, Any, bool]] = [
    ("/episodes", episodes, False),
    ("/episodes/{id}", episode, False),
    ("/episodes/{id}/{action}", act, True),
]
