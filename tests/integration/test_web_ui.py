"""The web view over real loopback HTTP (no browser: tests/e2e/test_web_ui_browser.py drives one):
who may see it, CSRF on every change, escaping of agent values, each page's content, and eval
run folders that are missing, partial or from another version shown as a page, never a traceback."""

from __future__ import annotations

import contextlib
import json
import re
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from scaleenv_mcp.clients.webui import ui_mount
from scaleenv_mcp.host.host import Host
from scaleenv_mcp.host.listeners import Listeners, serving
from scaleenv_mcp.settings import HostSettings
from tests.unit.clients.library_tasks import library, library_master  # noqa: F401 - fixtures

pytestmark = pytest.mark.anyio

SCRIPT = "<script>window.__pwned = 1</script>"


@contextlib.asynccontextmanager
async def _web(library: Path, tmp_path: Path) -> AsyncIterator[tuple[Host, Listeners, Path]]:
    runs = tmp_path / "runs"
    runs.mkdir()
    settings = HostSettings(workers=1, call_timeout=3.0, port=0, control_port=0, token_file=tmp_path / "token",
                            skip_validation=True)
    async with Host.running(settings, [library]) as host, serving(host, mounts=[ui_mount([runs])]) as listeners:
        yield host, listeners, runs


@pytest.fixture
async def web(library: Path, tmp_path: Path) -> AsyncIterator[tuple[Host, Listeners, Path]]:
    async with _web(library, tmp_path) as served:
        yield served


async def _logged_in(listeners: Listeners) -> httpx.AsyncClient:
    client = httpx.AsyncClient(base_url=listeners.control_url, follow_redirects=True)
    assert listeners.ui_login_url is not None
    reply = await client.get(listeners.ui_login_url)
    assert reply.status_code == 200 and "Domains" in reply.text
    return client


def _csrf(html: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', html).group(1)


async def test_without_the_token_or_a_session_every_page_and_asset_is_401_and_agents_get_none(web):
    host, listeners, _ = web
    episode = await host.create_episode("tiny_library")
    paths = ["/ui/", "/ui/static/ui.css", "/ui/static/ui.js", "/ui/domains/tiny_library", "/ui/tasks",
             "/ui/tasks/tiny_library/lend-ada-dune", "/ui/episodes", f"/ui/episodes/{episode.id}", "/ui/runs",
             "/ui/run?name=x", "/ui/compare?a=x&b=y", "/ui/static/nothing.css"]
    async with httpx.AsyncClient(base_url=listeners.control_url, cookies={"scaleenv_ui": "forged"}) as anonymous:
        for path in paths:
            reply = await anonymous.get(path)
            assert reply.status_code == 401, path
            assert "tiny_library" not in reply.text and "stylesheet" not in reply.text
        for path in (f"/ui/episodes/{episode.id}/fork", "/ui/tasks/tiny_library/lend-ada-dune/episode"):
            assert (await anonymous.post(path, data={"csrf": "x"})).status_code == 401
        assert (await anonymous.post("/ui/login-link")).status_code == 401
        assert len(host.registry.episodes) == 1  # nothing was created or forked
        token = listeners.token_path.read_text().strip()
        with_token = await anonymous.get("/ui/static/ui.css", headers={"Authorization": f"Bearer {token}"})
        assert with_token.status_code == 200 and with_token.headers["content-type"].startswith("text/css")
    async with httpx.AsyncClient(base_url=listeners.agent_url) as agent_side:
        for path in ("/ui/", "/ui/static/ui.css", "/ui/login"):
            assert (await agent_side.get(path)).status_code == 404, path


async def test_a_login_link_works_once_and_scaleenv_ui_style_links_need_the_token(web):
    _, listeners, _ = web
    client = await _logged_in(listeners)
    async with httpx.AsyncClient(base_url=listeners.control_url) as other:
        again = await other.get(listeners.ui_login_url)
        assert again.status_code == 401 and "used or expired" in again.text
        token = listeners.token_path.read_text().strip()
        minted = await other.post("/ui/login-link", headers={"Authorization": f"Bearer {token}"})
        assert minted.status_code == 201
        fresh = await other.get(minted.json()["url"], follow_redirects=True)
        assert fresh.status_code == 200 and "tiny_library" in fresh.text
    await client.aclose()


async def test_changes_need_a_same_origin_post_with_the_session_csrf_token(web):
    host, listeners, _ = web
    client = await _logged_in(listeners)
    episode = await host.create_episode("tiny_library")
    page = await client.get(f"/ui/episodes/{episode.id}")
    csrf = _csrf(page.text)
    fork = f"/ui/episodes/{episode.id}/fork"
    assert (await client.post(fork, data={})).status_code == 403
    assert (await client.post(fork, data={"csrf": "wrong"})).status_code == 403
    assert (await client.post(fork, data={"csrf": csrf}, headers={"Origin": "http://127.0.0.1:1"})).status_code == 403
    assert (await client.post(fork, data={"csrf": csrf}, headers={"Origin": "http://evil.example"})).status_code == 403
    assert (await client.get(fork)).status_code == 405  # a link or an <img> cannot change anything
    assert len(host.registry.episodes) == 1
    done = await client.post(fork, data={"csrf": csrf}, headers={"Origin": listeners.control_url})
    assert done.status_code == 200 and len(host.registry.episodes) == 2
    forked = done.url.path.rsplit("/", 1)[1]
    assert forked != episode.id and forked in host.registry.episodes
    await client.aclose()


async def test_a_script_in_a_tool_result_and_in_arguments_is_shown_as_text(web):
    host, listeners, _ = web
    client = await _logged_in(listeners)
    episode = await host.create_episode("tiny_library", "lend-ada-dune")
    await host.registry.call(episode.id, "get_member", {"member_id": SCRIPT})  # its error result names it
    await host.registry.call(episode.id, "borrow_book", {"member_id": "MEM-00001", "book_id": "BK-00001", "note": SCRIPT})
    page = (await client.get(f"/ui/episodes/{episode.id}")).text
    assert SCRIPT not in page
    assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt;" in page  # in the trace's arguments and the diff's row
    assert "no member &lt;script&gt;window.__pwned = 1&lt;/script&gt;" in page  # the result's message
    assert page.count("&lt;script&gt;") >= 4  # get_member's argument and result, borrow_book's note, the diff's row
    await client.aclose()


async def test_domain_task_and_episode_pages_show_what_they_promise(web):
    host, listeners, _ = web
    client = await _logged_in(listeners)
    domain = (await client.get("/ui/domains/tiny_library")).text
    assert "<svg" in domain and 'data-tool="borrow_book"' in domain and "Tool dependency graph" in domain
    assert "borrow_book" in domain and "copies_available" in domain and "seed row(s)" in domain
    assert 'data-table="loans"' in domain and "loans.member_id -&gt; members(member_id)" in domain  # the ER diagram
    tasks = (await client.get("/ui/tasks", params={"difficulty": "easy", "tool": "return_book"})).text
    assert "return-solaris" in tasks and "swap-solaris" in tasks and "lend-ada-dune" not in tasks
    assert "lend-grace" in (await client.get("/ui/tasks", params={"q": "messiah"})).text
    task = await client.get("/ui/tasks/tiny_library/lend-ada-dune")
    assert "Hi, I&#39;d like to borrow Dune." in task.text and "Gold diff" in task.text and "loans" in task.text
    opened = await client.post("/ui/tasks/tiny_library/lend-ada-dune/episode", data={"csrf": _csrf(task.text)})
    episode_id = opened.url.path.rsplit("/", 1)[1]
    assert host.registry.episodes[episode_id].task_id == "lend-ada-dune"
    assert "reward 0.0" in opened.text and "No call yet." in opened.text
    await host.registry.call(episode_id, "borrow_book", {"member_id": "MEM-00001", "book_id": "BK-00001"})
    page = (await client.get(f"/ui/episodes/{episode_id}")).text
    assert "reward 1.0" in page and "borrow_book" in page and "LN-" in page and "copies_available" in page
    csrf = _csrf(page)
    await client.post(f"/ui/episodes/{episode_id}/snapshot", data={"csrf": csrf})
    reset = await client.post(f"/ui/episodes/{episode_id}/reset", data={"csrf": csrf})
    assert "No call yet." in reset.text and "Restore " in reset.text
    closed = await client.post(f"/ui/episodes/{episode_id}/close", data={"csrf": csrf})
    assert closed.url.path == "/ui/episodes" and episode_id not in closed.text
    gone = await client.get(f"/ui/episodes/{episode_id}")
    assert gone.status_code == 404 and "Traceback" not in gone.text
    assert (await client.get("/ui/tasks/tiny_library/nope")).status_code == 404
    assert (await client.get("/ui/domains/nope")).status_code == 404
    await client.aclose()


async def test_the_episode_list_paginates(web):
    host, listeners, _ = web
    client = await _logged_in(listeners)
    for _ in range(55):
        await host.create_episode("tiny_library")
    first = (await client.get("/ui/episodes")).text
    second = (await client.get("/ui/episodes", params={"page": 2})).text
    assert "1–50 of 55" in first and "51–55 of 55" in second
    assert first.count('<tr><td><a href="/ui/episodes/') == 50 and second.count('<tr><td><a href="/ui/episodes/') == 5
    await client.aclose()


def _write_run(folder: Path, **overrides: Any) -> None:
    shutil.copytree(Path(__file__).parent.parent / "fixtures" / "web_run", folder)
    for name, text in overrides.items():
        path = folder / name.replace("_", ".")
        path.unlink() if text is None else path.write_text(text)


async def test_missing_partial_and_older_results_are_pages_saying_what_is_wrong(web):
    _, listeners, runs = web
    client = await _logged_in(listeners)
    _write_run(runs / "complete")
    _write_run(runs / "partial", results_json=None)
    _write_run(runs / "older", results_json=json.dumps({"k": 1, "avg@k": 1.0, "stamp": {"host_version": "0.0.1"}}))
    _write_run(runs / "torn")
    with (runs / "torn" / "episodes.jsonl").open("a") as handle:
        handle.write('{"key": "tiny_library/x#0", "dom')
    listing = await client.get("/ui/runs")
    assert listing.status_code == 200
    for name in ("complete", "partial", "older", "torn"):
        assert f"name={name}" in listing.text
    complete = (await client.get("/ui/run", params={"name": "complete"})).text
    assert "pass^1" in complete and "problem" not in complete.split("<main>")[1].split("Summary")[0]
    partial = await client.get("/ui/run", params={"name": "partial"})
    assert partial.status_code == 200 and "partial run: no results.json yet" in partial.text and "pass^1" in partial.text
    older = await client.get("/ui/run", params={"name": "older"})
    assert older.status_code == 200 and "does not fit this version" in older.text and "0.0.1" in older.text
    torn = await client.get("/ui/run", params={"name": "torn"})
    assert torn.status_code == 200 and "1 line(s) not readable" in torn.text
    missing = await client.get("/ui/run", params={"name": "nope"})
    assert missing.status_code == 404 and "no eval run" in missing.text
    for reply in (partial, older, torn, missing):
        assert "Traceback" not in reply.text
    await client.aclose()


async def test_a_trial_is_replayed_for_its_diff_and_can_be_kept_as_a_live_episode(web):
    host, listeners, runs = web
    client = await _logged_in(listeners)
    _write_run(runs / "oracle")
    key = "tiny_library/lend-ada-dune#0"
    page = await client.get("/ui/trial", params={"run": "oracle", "key": key})
    assert page.status_code == 200 and "Conversation" in page.text and "Hi, I&#39;d like to borrow Dune." in page.text
    assert "replayed on a fresh episode" in page.text and "LN-" in page.text and "copies_available" in page.text
    assert len(host.registry.episodes) == 0  # the replay's episode was closed
    kept = await client.post("/ui/trial/replay", params={"run": "oracle", "key": key}, data={"csrf": _csrf(page.text)})
    (episode,) = host.registry.episodes.values()
    assert kept.url.path == f"/ui/episodes/{episode.id}" and episode.calls == 2 and "reward 1.0" in kept.text
    assert (await client.get("/ui/trial", params={"run": "oracle", "key": "nope#0"})).status_code == 404
    await client.aclose()


async def test_a_trial_of_a_task_that_asks_to_be_told_is_scored_on_what_the_agent_said(library: Path, tmp_path: Path):
    tasks = library / "tiny_library" / "tasks.jsonl"
    lines = [json.loads(line) for line in tasks.read_text().splitlines()]
    for line in lines:  # the oracle's closing message says it borrowed Dune; "Herbert" it never said
        if line["id"] == "lend-ada-dune":
            line["communicate"] = ["borrow Dune"]
        if line["id"] == "swap-solaris":
            line["communicate"] = ["Herbert"]
    tasks.write_text("".join(json.dumps(line) + "\n" for line in lines))
    async with _web(library, tmp_path) as (_, listeners, runs):
        client = await _logged_in(listeners)
        _write_run(runs / "oracle")
        told = (await client.get("/ui/trial", params={"run": "oracle", "key": "tiny_library/lend-ada-dune#0"})).text
        assert "replayed on a fresh episode" in told and "Scored" not in told  # 1.0 then, 1.0 now
        untold = (await client.get("/ui/trial", params={"run": "oracle", "key": "tiny_library/swap-solaris#0"})).text
        assert "Scored 0.0 now" in untold  # the fact was never said: the page must say the score moved
        await client.aclose()


def test_scaleenv_ui_says_in_one_line_when_no_host_answers_or_the_token_file_is_missing(tmp_path: Path):
    import subprocess
    import sys

    token = tmp_path / "token"
    token.write_text("x" * 40 + "\n")
    base = [sys.executable, "-m", "scaleenv_mcp", "ui", "--no-open"]
    down = subprocess.run([*base, "--control-url", "http://127.0.0.1:1", "--token-file", str(token)],
                          capture_output=True, text=True, timeout=60)
    assert down.returncode == 3 and down.stderr.strip().startswith("error: no scaleenv serve answers at http://127.0.0.1:1")
    missing = subprocess.run([*base, "--token-file", str(tmp_path / "nope")], capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and "cannot read the control token file" in missing.stderr
