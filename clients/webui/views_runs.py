"""Pages of eval runs: the runs found under the results folders, one run (avg@k, pass@k and
pass^k with their intervals, overall and per domain, and a grid of tasks by trial), one trial
(its conversation beside its reward reasons and, when a host serves its domain, the diff its
calls leave, replayed on a fresh episode), and two runs side by side. A folder that is missing,
partial or from another version is a page saying so (``webui.runs``). This module must not
write into a run folder.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from scaleenv_mcp.clients.models import EpisodeTrace
from scaleenv_mcp.clients.webui.context import PageNotFoundError, Ui
from scaleenv_mcp.clients.webui.diff_view import diff_tables
from scaleenv_mcp.clients.webui.render import paginate
from scaleenv_mcp.clients.webui.runs import RunFolder, RunView, compare_runs, find_runs, load_run
from scaleenv_mcp.errors import ScaleEnvError
from scaleenv_mcp.host.control_models import EpisodeInfo

__all__ = ["ROUTES"]


def _folder(ui: Ui, name: str) -> RunFolder:
    folders, _ = find_runs(ui.results)
    for folder in folders:
        if folder.name == name:
            return folder
    raise PageNotFoundError(f"no eval run {name!r} under {', '.join(str(r) for r in ui.results) or 'no results folder'}")


async def runs(ui: Ui, request: Request) -> Response:
    folders, problems = find_runs(ui.results)
    page = paginate(folders, request.query_params.get("page"))
    views = [load_run(f) for f in page.items]  # only the page's runs are read
    if not ui.results:
        problems.append("no results folder given: start `scaleenv serve --results DIR` or `scaleenv ui --results DIR`")
    elif not folders and not problems:
        problems.append(f"no eval run folder (run.json, results.json or episodes.jsonl) under "
                        f"{', '.join(str(r) for r in ui.results)}")
    return ui.page(request, "runs.html", "runs", title="Eval runs", runs=views, problems=problems,
                   names=[f.name for f in folders], page=page, keep="")


async def run(ui: Ui, request: Request) -> Response:
    view = load_run(_folder(ui, request.query_params.get("name", "")))
    page = paginate(view.grid(), request.query_params.get("page"))
    return ui.page(request, "run.html", "runs", title=f"Run {view.folder.name}", run=view, page=page)


async def _replay(ui: Ui, trace: EpisodeTrace) -> EpisodeInfo:
    """A fresh episode of the trial's task with the calls that reached the environment replayed
    in order (tools are deterministic: the end state is the one the agent left)."""
    host = ui.require_host()
    episode = await host.create_episode(trace.domain, trace.task_id)
    try:
        for tool, arguments in trace.executed_calls():
            await host.call(episode.id, tool, arguments)
    except BaseException:
        await host.close(episode.id)
        raise
    return episode


def _trial(ui: Ui, request: Request) -> tuple[RunView, str, EpisodeTrace | None]:
    view = load_run(_folder(ui, request.query_params.get("run", "")))
    key = request.query_params.get("key", "")
    if key not in view.records:
        raise PageNotFoundError(f"run {view.folder.name!r} has no finished trial {key!r}")
    return view, key, view.trace(key)


async def trial(ui: Ui, request: Request) -> Response:
    view, key, trace = _trial(ui, request)
    diff = reward = None
    note = None
    if trace is None:
        note = "traces.jsonl has no trace of this trial"
    elif ui.host is None:
        note = "the state diff is replayed on a live host: open this run in the web view of `scaleenv serve --results`"
    else:
        try:
            episode = await _replay(ui, trace)
            try:
                diff = diff_tables(await ui.host.diff(episode.id))
                reward = await ui.host.reward(episode.id, trace.told())
            finally:
                await ui.host.close(episode.id)
        except ScaleEnvError as error:
            note = f"could not replay this trial here: {error.message}"
    return ui.page(request, "trial.html", "runs", title=key, run=view, key=key, record=view.records[key], trace=trace,
                   diff=diff, reward=reward, note=note)


async def replay(ui: Ui, request: Request, form: dict[str, str]) -> Response:
    _, _, trace = _trial(ui, request)
    if trace is None:
        raise PageNotFoundError("traces.jsonl has no trace of this trial")
    episode = await _replay(ui, trace)
    return RedirectResponse(f"/ui/episodes/{episode.id}", status_code=303)


async def compare(ui: Ui, request: Request) -> Response:
    a = load_run(_folder(ui, request.query_params.get("a", "")))
    b = load_run(_folder(ui, request.query_params.get("b", "")))
    rows = compare_runs(a, b)
    return ui.page(request, "compare.html", "runs", title="Compare runs", a=a, b=b, rows=rows,
                   flipped=sum(r.flipped for r in rows))


ROUTES: list[tuple[str, Any, bool]] = [
    ("/runs", runs, False),
    ("/run", run, False),
    ("/trial", trial, False),
    ("/trial/replay", replay, True),
    ("/compare", compare, False),
]
