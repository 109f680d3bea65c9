"""The control API over real loopback HTTP, driven by ``ControlClient`` (and raw httpx where the
point is the wire): fork, snapshot/restore, reset, auth, isolation from agents, scale, caps,
per-episode limits, idle expiry, batched rewards and the OpenAPI document."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import stat
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import mcp
import pytest
from mcp.shared.exceptions import MCPError

from scaleenv_mcp.control_client import ControlClient
from scaleenv_mcp.domain.task import GoldSpec, Task, TaskAction, UserSpec
from scaleenv_mcp.episodes.registry import EpisodeOrigin
from scaleenv_mcp.errors import (
    CapacityError,
    ControlAuthError,
    EnvironmentFaultError,
    EpisodeNotFoundError,
    LimitExceededError,
    UsageError,
)
from scaleenv_mcp.host.host import Host
from scaleenv_mcp.host.listeners import Listeners, serving
from scaleenv_mcp.settings import HostSettings
from scaleenv_mcp.state.model import RowOp
from tests.support_mcp import call_tool as _call
from tests.support_mcp import refusal

pytestmark = pytest.mark.anyio

FIXTURE_DOMAINS = Path(__file__).parent.parent / "fixtures" / "domains"
TOOLS = ["find_books", "get_member", "borrow_book", "return_book", "tally", "repeat_text"]
LEGACY_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
OPERATIONS = {  # every operation issue 3 asks for, as (method, path)
    ("POST", "/episodes"), ("GET", "/episodes"), ("GET", "/episodes/{id}"), ("DELETE", "/episodes/{id}"),
    ("POST", "/episodes/{id}/reset"), ("POST", "/episodes/{id}/snapshot"), ("POST", "/episodes/{id}/restore"),
    ("POST", "/episodes/{id}/fork"), ("GET", "/episodes/{id}/fingerprint"), ("GET", "/episodes/{id}/tables"),
    ("GET", "/episodes/{id}/diff"), ("GET", "/episodes/{id}/reward"), ("POST", "/episodes/{id}/reward"), ("POST", "/rewards"),
    ("GET", "/episodes/{id}/trace"), ("GET", "/domains"), ("DELETE", "/snapshots/{id}"),
    ("GET", "/domains/{slug}/tasks"), ("GET", "/keys/{slug}/{key}"),  # issue 23: adapters' datasets, keyed URLs
    ("GET", "/episodes/{id}/export"), ("GET", "/snapshots/{id}/export"), ("POST", "/episodes/import"),  # #29 item 4
}


def _settings(tmp_path: Path, **overrides: Any) -> HostSettings:
    values: dict[str, Any] = dict(workers=1, call_timeout=3.0, port=0, control_port=0, token_file=tmp_path / "token")
    return HostSettings(**{**values, **overrides})


@contextlib.asynccontextmanager
async def _running(settings: HostSettings, domain_dirs: list[Path] | None = None
                   ) -> AsyncIterator[tuple[Host, Listeners, ControlClient]]:
    async with (Host.running(settings, domain_dirs or [FIXTURE_DOMAINS]) as host, serving(host) as urls,
                ControlClient(urls.control_url, token_file=urls.token_path) as control):
        yield host, urls, control


@pytest.fixture
async def control(listeners: Listeners) -> AsyncIterator[ControlClient]:
    async with ControlClient(listeners.control_url, token_file=listeners.token_path) as client:
        yield client


async def _legacy_session(http: httpx.AsyncClient, url: str) -> dict[str, str]:
    init = await http.post(url, headers=LEGACY_HEADERS, json={
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    assert init.status_code == 200, init.text
    headers = {**LEGACY_HEADERS, "mcp-session-id": init.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
    assert (await http.post(url, headers=headers, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
            ).status_code == 202
    return headers


# -- fork, snapshot/restore, reset ------------------------------------------------------------
async def test_fork_diverges_independently_of_its_parent(control: ControlClient):
    [parent] = await control.create_episodes("tiny_library")
    assert (await _call(parent.agent_url, "borrow_book", member_id="MEM-00001", book_id="BK-00001"))["loan_id"] == "LN-00008"
    before = await control.fingerprint(parent.id)

    child = await control.fork(parent.id)
    assert child.id != parent.id and child.agent_url.endswith(child.id) and child.calls == 1
    assert await control.fingerprint(child.id) == before
    assert (await control.diff(child.id, against=parent.id)).tables == {}
    assert [r.tool for r in await control.trace(child.id)] == ["borrow_book"]

    # each side acts; the id counter travels with the fork and then goes its own way
    await _call(parent.agent_url, "return_book", loan_id="LN-00008")
    assert (await _call(child.agent_url, "borrow_book", member_id="MEM-00001", book_id="BK-00003"))["loan_id"] == "LN-00009"
    assert (await _call(parent.agent_url, "borrow_book", member_id="MEM-00002", book_id="BK-00003"))["loan_id"] == "LN-00009"

    parent_fp, child_fp = await control.fingerprint(parent.id), await control.fingerprint(child.id)
    assert len({before, parent_fp, child_fp}) == 3
    parent_diff, child_diff = await control.diff(parent.id), await control.diff(child.id)
    assert {(r["loan_id"], r["member_id"], r["book_id"], r["returned_on"]) for r in parent_diff.tables["loans"].added} == {
        ("LN-00008", "MEM-00001", "BK-00001", "2026-03-10"), ("LN-00009", "MEM-00002", "BK-00003", None)}
    assert {(r["loan_id"], r["member_id"], r["book_id"], r["returned_on"]) for r in child_diff.tables["loans"].added} == {
        ("LN-00008", "MEM-00001", "BK-00001", None), ("LN-00009", "MEM-00001", "BK-00003", None)}
    assert {c.key["book_id"]: c.after["copies_available"] for c in child_diff.tables["books"].changed} == {
        "BK-00001": 1, "BK-00003": 0}
    assert {c.key["book_id"]: c.after["copies_available"] for c in parent_diff.tables["books"].changed} == {"BK-00003": 0}
    assert [r.tool for r in await control.trace(parent.id)] == ["borrow_book", "return_book", "borrow_book"]
    assert [r.tool for r in await control.trace(child.id)] == ["borrow_book", "borrow_book"]
    between = await control.diff(child.id, against=parent.id)
    assert {c.key["loan_id"] for c in between.tables["loans"].changed} == {"LN-00008", "LN-00009"}

    # closing the child leaves the parent exactly as it was
    await control.close(child.id)
    with pytest.raises(EpisodeNotFoundError):
        await control.fingerprint(child.id)
    assert await control.fingerprint(parent.id) == parent_fp


async def test_restore_returns_exactly_the_snapshot_state(control: ControlClient):
    [episode, other] = await control.create_episodes("tiny_library", count=2)
    await _call(episode.agent_url, "borrow_book", member_id="MEM-00001", book_id="BK-00001")
    snapshot_id = await control.snapshot(episode.id)
    at_snapshot = await control.fingerprint(episode.id)

    await _call(episode.agent_url, "borrow_book", member_id="MEM-00001", book_id="BK-00003")
    assert await control.fingerprint(episode.id) != at_snapshot
    assert (await control.diff(episode.id, against=snapshot_id)).tables["loans"].added[0]["loan_id"] == "LN-00009"

    await control.restore(episode.id, snapshot_id)
    assert await control.fingerprint(episode.id) == at_snapshot
    assert (await control.diff(episode.id, against=snapshot_id)).tables == {}
    # a snapshot restores into any episode of the domain, id counters included
    await control.restore(other.id, snapshot_id)
    assert await control.fingerprint(other.id) == at_snapshot
    assert (await _call(other.agent_url, "borrow_book", member_id="MEM-00001", book_id="BK-00003"))["loan_id"] == "LN-00009"
    with pytest.raises(UsageError, match="unknown snapshot"):
        await control.restore(episode.id, "snap-0000")


async def test_reset_returns_the_start_state_and_clears_the_trace(control: ControlClient):
    [fresh, episode] = await control.create_episodes("tiny_library", count=2)
    start = await control.fingerprint(fresh.id)
    await _call(episode.agent_url, "borrow_book", member_id="MEM-00001", book_id="BK-00001")
    assert len(await control.trace(episode.id)) == 1

    info = await control.reset(episode.id)
    assert info.id == episode.id and info.calls == 0
    assert await control.fingerprint(episode.id) == start
    assert await control.trace(episode.id) == []
    assert (await control.diff(episode.id)).tables == {}
    # the episode is usable again and mints ids from the start
    assert (await _call(episode.agent_url, "borrow_book", member_id="MEM-00001", book_id="BK-00001"))["loan_id"] == "LN-00008"


# -- who may use the control API ----------------------------------------------------------------
async def test_control_api_refuses_missing_or_wrong_token_and_foreign_host_or_origin(listeners: Listeners):
    assert stat.S_IMODE(listeners.token_path.stat().st_mode) == 0o600
    good = {"Authorization": f"Bearer {listeners.token}"}
    async with httpx.AsyncClient(base_url=listeners.control_url) as http:
        assert (await http.get("/episodes", headers=good)).status_code == 200
        doc = (await http.get("/openapi.json")).json()
        for path, operations in doc["paths"].items():
            for method in operations:
                url = path.replace("{id}", "0" * 32)
                for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": listeners.token},
                                {"Authorization": f"Basic {listeners.token}"}):
                    response = await http.request(method.upper(), url, headers=headers)
                    assert response.status_code == 401, (method, path, headers)
                    assert response.json()["error"]["code"] == "unauthorized"
        for refused in ({"Origin": "http://evil.example"}, {"Origin": "null"}, {"Host": "evil.example"},
                        {"Host": "evil.example:8766"}):
            for path in ("/episodes", "/domains", "/openapi.json"):
                response = await http.get(path, headers={**good, **refused})
                assert response.status_code == 403, (path, refused)
                assert response.json()["error"]["code"] == "forbidden"
        # a loopback browser origin is fine
        assert (await http.get("/episodes", headers={**good, "Origin": "http://localhost:3000"})).status_code == 200
    async with ControlClient(listeners.control_url, "wrong") as wrong:
        with pytest.raises(ControlAuthError, match="401"):
            await wrong.list_episodes()


async def test_agent_endpoints_cannot_reach_any_control_operation(listeners: Listeners, control: ControlClient):
    [episode] = await control.create_episodes("tiny_library")
    for url in (episode.agent_url, f"{listeners.agent_url}/mcp/tiny_library"):
        for mode in ("auto", "legacy"):
            async with mcp.Client(url, mode=mode) as client:
                assert [t.name for t in (await client.list_tools()).tools] == TOOLS, (url, mode)
    control_methods = ["episodes/create", "episodes/reset", "episodes/snapshot", "episodes/restore", "episodes/fork",
                       "episodes/close", "episodes/list", "env/reward", "env/reset", "env/diff", "env/fingerprint",
                       "control/trace", "scaleenv/reward", "rewards"]
    async with httpx.AsyncClient() as http:
        for url in (episode.agent_url, f"{listeners.agent_url}/mcp/tiny_library"):
            headers = await _legacy_session(http, url)
            for number, method in enumerate(control_methods, start=10):
                response = await http.post(url, headers=headers, json={
                    "jsonrpc": "2.0", "id": number, "method": method, "params": {"episode_id": episode.id}})
                assert response.json()["error"]["code"] == -32601, (url, method, response.text)
        # the control paths are not served on the agent port, token or not
        doc = (await http.get(f"{listeners.control_url}/openapi.json")).json()
        auth = {"Authorization": f"Bearer {listeners.token}"}
        for path, operations in doc["paths"].items():
            for method in operations:
                concrete = path.replace("{id}", episode.id)
                for where in {concrete, f"/mcp{concrete}", f"/mcp/episodes/{episode.id}{path.removeprefix('/episodes/{id}')}"}:
                    if where == f"/mcp/episodes/{episode.id}":
                        continue  # that is the episode's own MCP endpoint
                    response = await http.request(method.upper(), listeners.agent_url + where, headers=auth)
                    assert response.status_code == 404, (method, where, response.status_code)
        assert (await http.get(f"{listeners.agent_url}/openapi.json")).status_code == 404
    assert (await control.get_episode(episode.id)).calls == 0  # nothing above touched the episode


# -- scale --------------------------------------------------------------------------------------
async def test_a_thousand_harness_episodes_live_at_once(tmp_path: Path):
    async with _running(_settings(tmp_path, workers=2)) as (host, _, control):
        started = time.perf_counter()
        created = []
        for _ in range(4):
            created += await control.create_episodes("tiny_library", count=250)
        created_in = time.perf_counter() - started
        listed = await control.list_episodes()
        assert len(listed) == 1000 and {e.id for e in listed} == {e.id for e in created}
        assert {e.origin for e in listed} == {"harness"}
        assert sorted(len(w.episodes) for w in host.pool.workers) == [500, 500]  # both cores in use
        last, first = created[-1], created[0]
        assert (await _call(last.agent_url, "borrow_book", member_id="MEM-00001", book_id="BK-00001"))["loan_id"] == "LN-00008"
        assert (await _call(first.agent_url, "borrow_book", member_id="MEM-00001", book_id="BK-00001"))["loan_id"] == "LN-00008"
        assert await control.fingerprint(last.id) == await control.fingerprint(first.id)
        assert await control.fingerprint(last.id) != await control.fingerprint(created[500].id)
        await asyncio.gather(*(control.close(e.id) for e in created))
        assert await control.list_episodes() == []
        print(f"\n1000 episodes: created in {created_in:.2f} s, whole cycle {time.perf_counter() - started:.2f} s")


# -- caps ---------------------------------------------------------------------------------------
async def test_harness_cap_is_a_429_with_a_reason_and_evicts_nobody(tmp_path: Path):
    async with _running(_settings(tmp_path, max_harness_episodes=5, max_interactive_episodes=2)) as (_, urls, control):
        alive = await control.create_episodes("tiny_library", count=5)
        async with httpx.AsyncClient(headers={"Authorization": f"Bearer {urls.token}"}) as http:
            response = await http.post(f"{urls.control_url}/episodes", json={"domain": "tiny_library"})
        assert response.status_code == 429
        assert response.json()["error"] == {
            "code": "capacity",
            "message": "harness episode cap of 5 reached; close episodes or wait for idle expiry"}
        with pytest.raises(CapacityError, match="cap of 5"):
            await control.fork(alive[0].id)
        assert {e.id for e in await control.list_episodes()} == {e.id for e in alive}
        for episode in alive:
            await _call(episode.agent_url, "get_member", member_id="MEM-00001")
        # a batch past the cap is all or nothing
        await control.close(alive[0].id)
        await control.close(alive[1].id)
        with pytest.raises(CapacityError):
            await control.create_many([{"domain": "tiny_library"}] * 3)
        assert {e.id for e in await control.list_episodes()} == {e.id for e in alive[2:]}
        assert len(await control.create_many([{"domain": "tiny_library"}] * 2)) == 2
        # concurrent requests cannot slip past the cap together
        await control.close(alive[2].id)
        await control.close(alive[3].id)
        outcomes = await asyncio.gather(*(control.fork(alive[4].id) for _ in range(4)),
                                        *(control.create_episodes("tiny_library") for _ in range(4)),
                                        return_exceptions=True)
        assert sum(not isinstance(o, BaseException) for o in outcomes) == 2
        assert all(isinstance(o, CapacityError) for o in outcomes if isinstance(o, BaseException))
        assert len(await control.list_episodes()) == 5


async def test_interactive_connections_cannot_use_up_the_harness_cap(tmp_path: Path):
    settings = _settings(tmp_path, max_harness_episodes=5, max_interactive_episodes=2)
    async with _running(settings) as (host, urls, control):
        url = f"{urls.agent_url}/mcp/tiny_library"
        async with mcp.Client(url, mode="legacy") as a, mcp.Client(url, mode="legacy") as b:
            for client in (a, b):  # each session gets an episode of its own
                assert (await client.call_tool("borrow_book", {"member_id": "MEM-00001", "book_id": "BK-00003"})
                        ).structured_content["loan_id"] == "LN-00008"
            # a third interactive connection is refused up front with HTTP 429 and the reason
            # (the registry holds the same cap again behind it)...
            assert "interactive episode cap of 2 reached" in (await refusal(url, "legacy")).error.message
            async with httpx.AsyncClient() as http:
                refused = await http.post(url, headers={"Accept": "application/json, text/event-stream"}, json={
                    "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
            assert refused.status_code == 429 and "cap of 2" in refused.json()["error"]["message"]
            with pytest.raises(CapacityError, match="interactive episode cap of 2 reached"):
                await host.create_episode("tiny_library", origin=EpisodeOrigin.interactive)
            # ...while the harness still gets every one of its episodes
            harness = await control.create_episodes("tiny_library", count=5)
            listed = await control.list_episodes()
            assert sorted(e.origin for e in listed) == ["harness"] * 5 + ["interactive"] * 2
            # and more agents than the interactive cap can hold sessions on harness episodes
            async with contextlib.AsyncExitStack() as stack:
                clients = [await stack.enter_async_context(mcp.Client(e.agent_url, mode="legacy")) for e in harness]
                for client in clients:
                    await client.call_tool("get_member", {"member_id": "MEM-00001"})
        # the interactive sessions ended (DELETE) and took their episodes with them; the
        # harness's episodes are untouched and a new interactive session gets an episode again
        assert [e.origin for e in await control.list_episodes()] == ["harness"] * 5
        async with mcp.Client(url, mode="legacy") as again:
            await again.call_tool("get_member", {"member_id": "MEM-00001"})
            assert sorted(e.origin for e in await control.list_episodes()) == ["harness"] * 5 + ["interactive"]


# -- per-episode limits and expiry ----------------------------------------------------------------
async def test_call_limit_is_a_clear_error_and_breaks_nothing_else(tmp_path: Path):
    async with _running(_settings(tmp_path, max_calls=3)) as (_, _, control):
        [episode, other] = await control.create_episodes("tiny_library", count=2)
        async with mcp.Client(episode.agent_url) as client:
            for _ in range(3):
                await client.call_tool("get_member", {"member_id": "MEM-00001"})
            with pytest.raises(MCPError) as limited:
                await client.call_tool("get_member", {"member_id": "MEM-00001"})
        assert limited.value.error.code == -32005
        assert limited.value.error.message == "episode reached its limit of 3 calls"
        assert (await control.get_episode(episode.id)).calls == 3
        assert len(await control.trace(episode.id)) == 3
        assert (await control.diff(episode.id)).tables == {}
        await _call(other.agent_url, "get_member", member_id="MEM-00001")
        await control.reset(episode.id)
        await _call(episode.agent_url, "get_member", member_id="MEM-00001")


async def test_database_size_limit_is_a_clear_error_and_survives_restore(tmp_path: Path):
    # max_db_mb=1 is 256 pages of 4 KiB. No fixture tool writes much at once, so an episode
    # fills up the honest way: borrow with a 500-character note and return, over and over.
    note = "n" * 500
    async with _running(_settings(tmp_path, max_db_mb=1)) as (host, _, control):
        [episode, other] = await control.create_episodes("tiny_library", count=2)
        borrowed = 0
        with pytest.raises(LimitExceededError, match="database limit reached"):
            for _ in range(5000):
                loan = await host.registry.call(episode.id, "borrow_book",
                                                {"member_id": "MEM-00002", "book_id": "BK-00001", "note": note})
                borrowed += 1
                await host.registry.call(episode.id, "return_book", {"loan_id": loan.result["loan_id"]})
        assert 1000 < borrowed < 2500  # about 1 MiB of loans, not a limit hit at once
        full = await control.fingerprint(episode.id)
        async with mcp.Client(episode.agent_url) as client:
            with pytest.raises(MCPError) as limited:
                await client.call_tool("borrow_book", {"member_id": "MEM-00002", "book_id": "BK-00001", "note": note})
            assert limited.value.error.code == -32005 and "database limit reached" in limited.value.error.message
            # the failed call was rolled back; reading still works
            assert (await client.call_tool("find_books", {"text": "Dune"})).structured_content["items"][0]["copies_available"] == 2
        assert await control.fingerprint(episode.id) == full
        await _call(other.agent_url, "borrow_book", member_id="MEM-00002", book_id="BK-00001", note=note)
        # a snapshot of the full state restored elsewhere keeps the limit
        snapshot_id = await control.snapshot(episode.id)
        await control.restore(other.id, snapshot_id)
        with pytest.raises(LimitExceededError):
            await host.registry.call(other.id, "borrow_book", {"member_id": "MEM-00002", "book_id": "BK-00001", "note": note})
        fork = await control.fork(episode.id)
        with pytest.raises(LimitExceededError):
            await host.registry.call(fork.id, "borrow_book", {"member_id": "MEM-00002", "book_id": "BK-00001", "note": note})


async def test_idle_episodes_expire_and_free_their_slot(tmp_path: Path):
    settings = _settings(tmp_path, idle_timeout=120.0, max_harness_episodes=2)
    async with _running(settings) as (host, urls, control):
        [idle] = await control.create_episodes("tiny_library")
        await control.fingerprint(idle.id)
        await asyncio.sleep(0.01)
        boundary = time.monotonic()
        await asyncio.sleep(0.01)
        [busy] = await control.create_episodes("tiny_library")
        assert await host.registry.close_idle(now=boundary + settings.idle_timeout) == [idle.id]
        with pytest.raises(EpisodeNotFoundError):
            await control.get_episode(idle.id)
        async with httpx.AsyncClient(headers={"Authorization": f"Bearer {urls.token}"}) as http:
            response = await http.get(f"{urls.control_url}/episodes/{idle.id}/fingerprint")
        assert response.status_code == 404 and response.json()["error"]["code"] == "episode_not_found"
        for mode in ("auto", "legacy"):
            expired = await refusal(idle.agent_url, mode)
            assert expired.error.code == -32004 and "expired" in expired.error.message
        await _call(busy.agent_url, "get_member", member_id="MEM-00001")
        # the expired episode's slot is free again
        assert len(await control.create_episodes("tiny_library")) == 1


# -- rewards --------------------------------------------------------------------------------------
def _library_with_task(root: Path, gold: GoldSpec | None, communicate: list[str] | None = None) -> Path:
    domains = root / "domains"
    if not domains.exists():
        shutil.copytree(FIXTURE_DOMAINS / "tiny_library", domains / "tiny_library")
    task = Task(
        id="lend-grace", domain="tiny_library", difficulty="easy",
        user=UserSpec(opening="I'd like to borrow Dune, please.", instruction="You are Grace (MEM-00004); borrow Dune.",
                      known={"member_id": "MEM-00004"}),
        setup=[RowOp(op="insert", table="members", row={"member_id": "MEM-00004", "name": "Grace Hopper",
                                                         "email": "grace@example.org", "status": "active",
                                                         "max_loans": 1})],
        actions=[TaskAction(tool="borrow_book", arguments={"member_id": "MEM-00004", "book_id": "BK-00001"})],
        gold=gold, communicate=communicate or [])
    (domains / "tiny_library" / "tasks.jsonl").write_text(task.to_line() + "\n")
    return domains


async def test_batched_rewards_score_each_episode_and_report_errors_per_episode(tmp_path: Path):
    domains = _library_with_task(tmp_path, gold=None)
    async with Host.running(_settings(tmp_path), [domains]) as host:  # run the reference solution once
        episode = await host.create_episode("tiny_library", "lend-grace")
        for action in host.registry.domains["tiny_library"].package.tasks["lend-grace"].actions:
            await host.registry.call(episode.id, action.tool, action.arguments)
        gold = GoldSpec(diff=await host.registry.diff(episode.id), fingerprint=await host.registry.fingerprint(episode.id))
    _library_with_task(tmp_path, gold=gold)

    async with _running(_settings(tmp_path), [domains]) as (_, _, control):
        assert [(d.slug, d.tasks) for d in await control.domains()] == [("tiny_library", 1)]
        [card] = await control.tasks("tiny_library")
        assert (card.id, card.opening, card.known, card.actions) == (
            "lend-grace", "I'd like to borrow Dune, please.", {"member_id": "MEM-00004"},
            [{"tool": "borrow_book", "arguments": {"member_id": "MEM-00004", "book_id": "BK-00001"}}])
        assert await control.tasks("tiny_library", split="test") == []
        with pytest.raises(UsageError, match="not served here"):
            await control.tasks("no_such_domain")
        solved, idle, wrong = await control.create_episodes("tiny_library", "lend-grace", count=3)
        [seed] = await control.create_episodes("tiny_library")
        await _call(solved.agent_url, "borrow_book", member_id="MEM-00004", book_id="BK-00001")
        await _call(wrong.agent_url, "borrow_book", member_id="MEM-00004", book_id="BK-00003")
        assert await control.fingerprint(solved.id) == gold.fingerprint

        batch = await control.rewards([solved.id, idle.id, wrong.id, seed.id, "f" * 32])
        assert batch.rewards[solved.id].reward == 1.0 and batch.rewards[solved.id].mismatches == []
        assert batch.rewards[idle.id].reward == 0.0 and batch.rewards[idle.id].mismatches
        assert batch.rewards[wrong.id].reward == 0.0
        assert any(m.table == "loans" for m in batch.rewards[wrong.id].mismatches)
        assert batch.rewards[seed.id] is None and batch.rewards["f" * 32] is None
        assert batch.errors[seed.id].code == "usage" and "no gold" in batch.errors[seed.id].message
        assert batch.errors["f" * 32].code == "episode_not_found"
        assert set(batch.errors) == {seed.id, "f" * 32}
        assert await control.reward(solved.id) == batch.rewards[solved.id]
        with pytest.raises(UsageError, match="no gold"):
            await control.reward(seed.id)


async def test_communicate_facts_are_scored_on_the_messages_posted_with_the_reward(tmp_path: Path):
    domains = _library_with_task(tmp_path, gold=None)
    async with Host.running(_settings(tmp_path), [domains]) as host:
        episode = await host.create_episode("tiny_library", "lend-grace")
        await host.registry.call(episode.id, "borrow_book", {"member_id": "MEM-00004", "book_id": "BK-00001"})
        gold = GoldSpec(diff=await host.registry.diff(episode.id), fingerprint=await host.registry.fingerprint(episode.id))
    _library_with_task(tmp_path, gold=gold, communicate=["2026-03-24"])  # the due date the agent must tell

    async with _running(_settings(tmp_path), [domains]) as (_, _, control):
        [told] = await control.create_episodes("tiny_library", "lend-grace")
        await _call(told.agent_url, "borrow_book", member_id="MEM-00004", book_id="BK-00001")
        report = await control.reward(told.id, ["Done! Please bring it back by March 24th."])
        assert report.reward == 1.0 and report.communication.found == ["2026-03-24"]
        wrong = await control.reward(told.id, ["Done! Please bring it back by March 25th."])
        assert wrong.reward == 0.0 and [(m.table, m.expected) for m in wrong.mismatches] == [("(communicate)", "2026-03-24")]
        silent = await control.reward(told.id)  # no messages: nothing was told
        assert silent.reward == 0.0 and silent.communication.missing == ["2026-03-24"]


async def test_seed_episodes_have_no_gold_in_a_batch_without_failing_it(control: ControlClient):
    episodes = await control.create_episodes("tiny_library", count=3)
    batch = await control.rewards([e.id for e in episodes])
    assert batch.rewards == {e.id: None for e in episodes}
    assert {e.code for e in batch.errors.values()} == {"usage"} and len(batch.errors) == 3


# -- the rest of the surface ----------------------------------------------------------------------
async def test_tables_trace_list_and_usage_errors(listeners: Listeners, control: ControlClient):
    [episode] = await control.create_episodes("tiny_library")
    await _call(episode.agent_url, "borrow_book", member_id="MEM-00001", book_id="BK-00001")
    tables = await control.tables(episode.id)
    assert set(tables) == {"members", "books", "loans"}
    only = await control.tables(episode.id, ["books"])
    assert set(only) == {"books"} and only["books"] == tables["books"]
    [record] = await control.trace(episode.id)
    assert (record.tool, record.outcome.value, record.result["loan_id"]) == ("borrow_book", "success", "LN-00008")
    assert (await control.get_episode(episode.id)).calls == 1
    with pytest.raises(UsageError, match="not served here"):
        await control.create_episodes("no_such_domain")
    with pytest.raises(UsageError, match="has no task"):
        await control.create_episodes("tiny_library", task_id="nope")
    with pytest.raises(UsageError, match="count"):
        await control.create_episodes("tiny_library", count=1001)
    async with httpx.AsyncClient(base_url=listeners.control_url,
                                 headers={"Authorization": f"Bearer {listeners.token}"}) as http:
        for body in (b'{"domain": "tiny_library", "count": 1001}', b"{not json", b"{}", b'{"episodes": "x"}'):
            response = await http.post("/episodes", content=body)
            assert response.status_code == 400 and response.json()["error"]["code"] in ("invalid_request", "usage"), body
        too_big = await http.post("/rewards", content=b'{"episode_ids": ["' + b"a" * (1024 * 1024) + b'"]}')
        assert too_big.status_code == 413 and "too large" in too_big.json()["error"]["message"]
    assert await control.list_episodes() == [(await control.get_episode(episode.id))]
    with pytest.raises(EpisodeNotFoundError):
        await control.reset("0" * 32)
    with pytest.raises(EpisodeNotFoundError):
        await control.diff(episode.id, against="0" * 32)


async def test_control_client_reports_an_unreachable_host_and_a_wrong_base_url(listeners: Listeners):
    async with ControlClient(listeners.agent_url, listeners.token) as wrong_port:
        with pytest.raises(UsageError, match="control listener"):
            await wrong_port.list_episodes()
    with pytest.raises(UsageError, match="token"):
        ControlClient(listeners.control_url, token_file=listeners.token_path.parent / "missing")
    async with ControlClient("http://127.0.0.1:9", "x") as nowhere:
        with pytest.raises(EnvironmentFaultError, match="unreachable"):
            await nowhere.list_episodes()


async def test_openapi_document_is_valid_and_complete(listeners: Listeners):
    async with httpx.AsyncClient() as http:
        doc = (await http.get(f"{listeners.control_url}/openapi.json")).json()
    assert doc["openapi"].startswith("3.1.") and doc["info"]["title"] and doc["info"]["version"]
    assert doc["components"]["securitySchemes"]["bearer"] == {"type": "http", "scheme": "bearer"}
    served = {(method.upper(), path) for path, ops in doc["paths"].items() for method in ops}
    assert served == OPERATIONS
    operation_ids = [op["operationId"] for ops in doc["paths"].values() for op in ops.values()]
    assert len(operation_ids) == len(set(operation_ids))
    for path, ops in doc["paths"].items():
        for method, op in ops.items():
            assert op["security"] == [{"bearer": []}] and op["summary"]
            assert any(code.startswith("2") for code in op["responses"]), (method, path)
            assert all("description" in r for r in op["responses"].values())
            declared = [p["name"] for p in op.get("parameters", []) if p["in"] == "path"]
            assert declared == [n for n in ("id", "slug", "key") if f"{{{n}}}" in path], (method, path)
            if method in ("post",) and path in ("/episodes", "/rewards", "/episodes/{id}/restore", "/episodes/{id}/reward"):
                assert "requestBody" in op, path
    schemas = doc["components"]["schemas"]
    for schema in schemas.values():
        jsonschema.Draft202012Validator.check_schema(schema)  # OpenAPI 3.1 schemas are JSON Schema 2020-12

    refs = _refs_in(doc)
    assert refs and all(r.startswith("#/components/schemas/") for r in refs)
    assert {r.rsplit("/", 1)[1] for r in refs} <= set(schemas)  # every reference resolves
    reachable: set[str] = set()
    pending = [r.rsplit("/", 1)[1] for r in _refs_in(doc["paths"])]
    while pending:
        name = pending.pop()
        if name not in reachable:
            reachable.add(name)
            pending += [r.rsplit("/", 1)[1] for r in _refs_in(schemas[name])]
    assert reachable == set(schemas)  # and every schema is reachable from an operation
    for name in ("CreateEpisodes", "EpisodeList", "EpisodeInfo", "RestoreBody", "SnapshotBody", "FingerprintBody",
                 "TablesBody", "StateDiff", "RewardReport", "RewardBatchRequest", "RewardBatch", "TraceBody",
                 "DomainList", "Error"):
        assert name in schemas, name


def _refs_in(node: Any) -> list[str]:
    if isinstance(node, dict):
        own = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return own + [r for value in node.values() for r in _refs_in(value)]
    if isinstance(node, list):
        return [r for value in node for r in _refs_in(value)]
    return []
