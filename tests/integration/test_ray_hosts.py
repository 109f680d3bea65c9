"""Host actors on a real local Ray cluster (started here: 2 CPUs, no dashboard, a 200 MB object store),
behind one control API served over loopback HTTP and driven with ``ControlClient``, agents on each
episode's ``agent_url`` with the MCP Python SDK (issue #22); the actors' jobs (``HostActor.open_job`` /
``in_job`` / ``close_job``, what ``tasks synth --ray`` builds candidates in) called through Ray with
openers and work defined here (they travel by value); eval's Ray job raising what the local player
raises. The tests share one cluster of two host actors and run in file order: the last one kills an actor.

Skipped where Ray is not installed (the ``[ray]`` extra; CI installs it through the ``test`` extra).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlsplit

import anyio
import httpx
import mcp
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from scaleenv_mcp.clients.episode import EpisodePlayer, unplayed
from scaleenv_mcp.clients.hosting import HostConnection
from scaleenv_mcp.clients.models import InfraKind
from scaleenv_mcp.clients.on_ray import EpisodeJob
from scaleenv_mcp.clients.results import EvalConfig
from scaleenv_mcp.clients.specs import AGENT_KINDS, USER_KINDS, parse_role
from scaleenv_mcp.cluster.hosts import RayHosts  # imports no Ray until it starts actors
from scaleenv_mcp.cluster.ray_tasks import run_as_ray_tasks
from scaleenv_mcp.control_client import ControlClient
from scaleenv_mcp.domain.task import Task, UserSpec
from scaleenv_mcp.errors import EpisodeLostError, EpisodeNotFoundError, UnknownToolError, UsageError
from scaleenv_mcp.generator.synthesis.cluster_building import _on as on_actor
from scaleenv_mcp.host.control_models import EpisodeInfo
from scaleenv_mcp.host.host import Host
from scaleenv_mcp.host.server import EPISODE_META_KEY
from scaleenv_mcp.settings import HostSettings
from tests.integration.test_node_clients import _assert_one_episode_run, _missing_node_tooling, _ts_client, node_env  # noqa: F401
from tests.support_mcp import call_tool as _call  # the Python SDK, straight to the owning actor
from tests.support_mcp import refusal
from tests.support_ray import ray_cluster  # noqa: F401 - the module's Ray cluster

ray = pytest.importorskip("ray")
ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])  # a job's opener and work travel by value

STATELESS = "2026-07-28"  # the MCP protocol era without sessions: every request stands alone

pytestmark = [pytest.mark.anyio, pytest.mark.slow, pytest.mark.xdist_group("ray")]  # one Ray cluster at a time

FIXTURE_DOMAINS = Path(__file__).parent.parent / "fixtures" / "domains"


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def cluster(ray_cluster: None, tmp_path_factory: pytest.TempPathFactory
                  ) -> AsyncIterator[tuple[RayHosts, ControlClient]]:
    """Two host actors, the router over them, and the one control API in front (as ``serve --ray``)."""
    settings = HostSettings(workers=1, call_timeout=3.0, token_file=tmp_path_factory.mktemp("ray") / "token")
    async with (RayHosts.running(settings, [FIXTURE_DOMAINS], hosts=2) as hosts,
                hosts.control_api(settings) as (url, token_file), ControlClient(url, token_file=token_file) as control):
        yield hosts, control


@pytest.fixture(scope="module")
async def public(cluster: tuple[RayHosts, ControlClient]) -> AsyncIterator[str]:
    """The one public agent address, proxied to the actors (as ``serve --ray`` serves it)."""
    async with cluster[0].agent_proxy(HostSettings()) as url:
        yield url


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _host_of(episode: EpisodeInfo) -> str:
    return urlsplit(episode.agent_url).netloc


def _slot_of(hosts: RayHosts, episode: EpisodeInfo) -> int:
    [slot] = [s.index for s in hosts.slots if s.address.agent_url == episode.agent_url.split("/mcp/")[0]]
    return slot


async def test_episodes_spread_over_the_actors_and_agents_reach_each_one(cluster: tuple[RayHosts, ControlClient]):
    hosts, control = cluster
    agent_listeners = {slot.address.agent_url for slot in hosts.slots}
    assert len(agent_listeners) == 2 and len({slot.address.pid for slot in hosts.slots}) == 2

    episodes = await control.create_episodes("tiny_library", count=4)
    assert sorted(_host_of(e) for e in episodes).count(_host_of(episodes[0])) == 2  # two on each actor
    assert {e.agent_url.split("/mcp/")[0] for e in episodes} == agent_listeners
    pair = await control.create_episodes("tiny_library", count=2)  # k episodes of one start: k actors
    assert _host_of(pair[0]) != _host_of(pair[1])

    for episode in episodes:  # a Python SDK client on each agent URL, no proxy between
        assert (await _call(episode.agent_url, "get_member", member_id="MEM-00001"))["member_id"] == "MEM-00001"
    assert [(await control.get_episode(e.id)).calls for e in episodes] == [1, 1, 1, 1]
    listed = {e.id for e in await control.list_episodes()}
    assert {e.id for e in episodes + pair} <= listed


async def test_control_operations_reach_the_owning_actor(cluster: tuple[RayHosts, ControlClient]):
    hosts, control = cluster
    first, second = await control.create_episodes("tiny_library", count=2)
    mine, other = _slot_of(hosts, first), _slot_of(hosts, second)
    assert mine != other
    # the episode exists on its owner only
    assert (await hosts.slots[mine].client.get_episode(first.id)).id == first.id
    with pytest.raises(EpisodeNotFoundError):
        await hosts.slots[other].client.get_episode(first.id)

    start = await control.fingerprint(first.id)
    loan = await _call(first.agent_url, "borrow_book", member_id="MEM-00001", book_id="BK-00001")
    assert [r.tool for r in await control.trace(first.id)] == ["borrow_book"]
    assert await control.trace(second.id) == []
    assert {r["loan_id"] for r in (await control.diff(first.id)).tables["loans"].added} == {loan["loan_id"]}
    assert (await control.diff(second.id)).tables == {}

    snapshot_id = await control.snapshot(first.id)
    after_borrow = await control.fingerprint(first.id)
    await _call(first.agent_url, "return_book", loan_id=loan["loan_id"])
    assert (await control.restore(first.id, snapshot_id)).id == first.id
    assert await control.fingerprint(first.id) == after_borrow
    assert (await control.diff(first.id, against=snapshot_id)).tables == {}
    assert (await control.export_snapshot(snapshot_id))[:2] == b"PK"
    with pytest.raises(UsageError, match="both must be on one host"):
        await control.restore(second.id, snapshot_id)  # a snapshot of another actor's episode
    await control.delete_snapshot(snapshot_id)

    batch = await control.rewards([first.id, second.id, "no-such-episode"])
    assert batch.errors["no-such-episode"].code == "episode_not_found"
    assert set(batch.rewards) == {first.id, second.id, "no-such-episode"}

    reset = await control.reset(first.id)
    assert reset.calls == 0 and await control.fingerprint(first.id) == start
    await control.close(first.id)
    with pytest.raises(EpisodeNotFoundError):
        await hosts.slots[mine].client.get_episode(first.id)
    with pytest.raises(EpisodeNotFoundError):
        await control.get_episode(first.id)
    assert (await control.get_episode(second.id)).id == second.id


async def test_a_fork_onto_another_actor_keeps_the_fingerprint_and_trace(cluster: tuple[RayHosts, ControlClient]):
    hosts, control = cluster
    [parent] = await control.create_episodes("tiny_library")
    loads = hosts.router.loads()
    while loads[_slot_of(hosts, parent)] <= min(loads):  # make the parent's actor the busier one
        [parent] = await control.create_episodes("tiny_library")
        loads = hosts.router.loads()
    await _call(parent.agent_url, "borrow_book", member_id="MEM-00001", book_id="BK-00001")
    child = await control.fork(parent.id)  # least-loaded placement: the other actor
    assert _slot_of(hosts, child) != _slot_of(hosts, parent)
    assert await control.fingerprint(child.id) == await control.fingerprint(parent.id)
    assert [r.tool for r in await control.trace(child.id)] == ["borrow_book"] and child.calls == 1
    # the copy is independent and answers on its own actor's agent listener
    await _call(child.agent_url, "get_member", member_id="MEM-00002")
    assert (await control.get_episode(child.id)).calls == 2 and (await control.get_episode(parent.id)).calls == 1
    with pytest.raises(UsageError, match="both must be on one host"):
        await control.diff(child.id, against=parent.id)
    same = await hosts.router.fork_onto(parent.id, _slot_of(hosts, parent))  # a local fork stays put
    assert _slot_of(hosts, same) == _slot_of(hosts, parent)
    assert await control.fingerprint(same.id) == await control.fingerprint(parent.id)


async def test_the_public_address_keeps_a_session_on_one_actor_and_reaches_any_episode(
        cluster: tuple[RayHosts, ControlClient], public: str):
    hosts, control = cluster
    borrow = {"member_id": "MEM-00002", "book_id": "BK-00001"}
    async with mcp.Client(f"{public}/mcp/tiny_library") as first, mcp.Client(f"{public}/mcp/tiny_library") as second:
        for client in (first, second):  # each session is an episode of its own, on one actor throughout
            loans = [(await client.call_tool("borrow_book", borrow)).structured_content["loan_id"] for _ in range(2)]
            assert loans == ["LN-00008", "LN-00009"]
        interactive = [e for slot in hosts.slots for e in await slot.client.list_episodes() if e.origin == "interactive"]
        assert len(interactive) == 2 and all(e.calls == 2 for e in interactive)
    on: dict[int, EpisodeInfo] = {}
    while len(on) < 2:
        [episode] = await control.create_episodes("tiny_library")
        on.setdefault(_slot_of(hosts, episode), episode)
    for episode in on.values():  # /mcp/episodes/{id} from the public address reaches its owner
        assert (await _call(f"{public}/mcp/episodes/{episode.id}", "get_member", member_id="MEM-00001"))["member_id"]
        assert (await control.get_episode(episode.id)).calls == 1
    with pytest.raises(Exception) as refused:
        await _call(f"{public}/mcp/episodes/no-such-episode", "get_member", member_id="MEM-00001")
    assert "unknown, expired or closed episode" in repr(refused.value)


async def test_a_stateless_call_naming_its_episode_in_meta_reaches_the_owner_from_the_public_address(
        cluster: tuple[RayHosts, ControlClient], public: str):
    hosts, control = cluster
    on: dict[int, EpisodeInfo] = {}
    while len(on) < 2:
        [episode] = await control.create_episodes("tiny_library")
        on.setdefault(_slot_of(hosts, episode), episode)
    def naming(episode_id: str) -> types.RequestParamsMeta:
        return cast(types.RequestParamsMeta, {EPISODE_META_KEY: episode_id})  # an open map (extra_items)

    async with mcp.Client(f"{public}/mcp/tiny_library", mode=STATELESS) as client:  # no session, no header
        for episode in on.values():
            result = await client.call_tool("borrow_book", {"member_id": "MEM-00002", "book_id": "BK-00001"},
                                            meta=naming(episode.id))
            assert not result.is_error
            assert result.structured_content is not None
            assert result.structured_content["loan_id"] == "LN-00008"  # the episode's own first loan
            assert (await control.get_episode(episode.id)).calls == 1  # counted on its owner, each actor once
        with pytest.raises(MCPError, match="unknown") as refused:
            await client.call_tool("get_member", {"member_id": "MEM-00001"}, meta=naming("no-such-episode"))
        assert isinstance(refused.value.error.data, dict)
        assert refused.value.error.data["code"] == EpisodeNotFoundError.code


async def _key_slot(hosts: RayHosts, key: str) -> int:
    """The actor holding a key's episode (each actor knows only its own keys)."""
    held = []
    for slot in hosts.slots:
        with contextlib.suppress(EpisodeNotFoundError):
            await slot.client.keyed_episode("tiny_library", key)
            held.append(slot.index)
    [index] = held
    return index


async def _key_slots(hosts: RayHosts, public: str, prefix: str) -> dict[int, int]:
    """Keys ``prefix-0``, ``prefix-1``... used once each on the public address until both actors hold one
    (least-loaded placement fills the emptier actor first, so a few do); key index -> its actor."""
    placed: dict[int, int] = {}
    while set(placed.values()) != {0, 1}:
        assert len(placed) < 20, placed  # placement never reached the other actor
        key = f"{prefix}-{len(placed)}"
        await _call(f"{public}/mcp/tiny_library/s/{key}", "get_member", member_id="MEM-00001")
        placed[len(placed)] = await _key_slot(hosts, key)
    return placed


async def test_a_keyed_url_on_the_public_address_keeps_its_episode_on_one_actor(
        cluster: tuple[RayHosts, ControlClient], public: str):
    hosts, control = cluster
    borrow = {"member_id": "MEM-00002", "book_id": "BK-00001"}
    keyed = f"{public}/mcp/tiny_library/s/public-a"
    loans = [(await _call(keyed, "borrow_book", **borrow))["loan_id"] for _ in range(2)]  # a session per call
    assert loans == ["LN-00008", "LN-00009"]  # one episode throughout
    assert (await _call(f"{public}/mcp/tiny_library/s/public-b", "borrow_book", **borrow))["loan_id"] == "LN-00008"
    assert (await control.keyed_episode("tiny_library", "public-a")).calls == 2
    await _key_slots(hosts, public, "spread")  # new keys reach both actors (it fails if 20 keys do not)
    async with httpx.AsyncClient() as http:  # a DELETE closes the key on its actor, as on one host
        assert (await http.delete(keyed)).status_code == 204
    assert "key 'public-a' on tiny_library was closed" in (await refusal(keyed, "auto")).message


@pytest.mark.node
async def test_the_typescript_sdk_works_on_each_actors_agent_url(cluster: tuple[RayHosts, ControlClient],
                                                                 node_env: dict[str, str]):
    if (missing := _missing_node_tooling()) is not None:
        if os.environ.get("CI"):
            pytest.fail(f"the Node client tests must run under CI (CI is set) but {missing}", pytrace=False)
        pytest.skip(f"Node client tests skipped: {missing}")
    hosts, control = cluster
    on: dict[int, EpisodeInfo] = {}
    while len(on) < 2:  # least-loaded placement fills the emptier actor first: one on each, soon
        [episode] = await control.create_episodes("tiny_library")
        on.setdefault(_slot_of(hosts, episode), episode)
    for episode in on.values():  # tools, two borrows that see each other, a tool error: tests/node/ts_client.mjs
        _assert_one_episode_run(await _ts_client(["--url", episode.agent_url], node_env))
        assert (await control.get_episode(episode.id)).calls == 3


@dataclass
class _Borrowing:
    """A job's state in a host actor: an episode of its host that the job's work calls tools on."""

    host: Host
    episode_id: str

    def summary(self) -> dict[str, Any]:
        return {"episode": self.episode_id, "pid": os.getpid()}

    async def aclose(self) -> None:
        await self.host.close(self.episode_id)


@dataclass(frozen=True)
class _OpenBorrowing:
    """An opener: a tiny_library episode on the actor's host, after ``pause`` seconds; with ``fails``, a
    ``UsageError`` instead, with ``bug`` a ``ValueError``."""

    pause: float = 0.0
    fails: bool = False
    bug: bool = False  # a ValueError instead: what a bug of ours would raise

    async def __call__(self, host: Host) -> _Borrowing:
        await asyncio.sleep(self.pause)
        if self.fails:
            raise UsageError("the opener refused")
        if self.bug:
            raise ValueError("a bug in the opener")
        return _Borrowing(host, (await host.create_episode("tiny_library")).id)


@dataclass(frozen=True)
class _Call:
    """Work: one call of ``tool`` on the job's episode; its result, the episode's call count and the pid."""

    tool: str = "tally"

    async def __call__(self, state: _Borrowing) -> tuple[Any, int, int]:
        outcome = await state.host.call(state.episode_id, self.tool, {"upto": 4})
        return outcome.result, (await state.host.get_episode(state.episode_id)).calls, os.getpid()


async def _raised(ref: Any) -> BaseException:
    """The exception a host actor's method raised (Ray's RayTaskError carries it as its cause)."""
    with pytest.raises(ray.exceptions.RayTaskError) as caught:
        await ref
    cause = caught.value.cause
    assert isinstance(cause, BaseException)
    return cause


async def test_a_job_keeps_its_state_in_one_actor_across_work_until_it_is_closed(
        cluster: tuple[RayHosts, ControlClient]):
    hosts, _ = cluster
    actor, other, slot = hosts.actors[0], hosts.actors[1], hosts.slots[0]
    key = f"test:{secrets.token_hex(4)}"
    summary = await actor.open_job.remote(key, _OpenBorrowing())
    assert summary["pid"] == slot.address.pid  # the opener ran in the actor, on its own host
    assert (await slot.client.get_episode(summary["episode"])).calls == 0
    assert await actor.in_job.remote(key, _Call()) == ({"total": 6}, 1, slot.address.pid)
    assert await actor.in_job.remote(key, _Call()) == ({"total": 6}, 2, slot.address.pid)  # the same state
    missing = await _raised(other.in_job.remote(key, _Call()))  # a job lives in the actor that opened it
    assert type(missing) is KeyError and f"no job {key!r} on this host actor" in missing.args[0]

    assert await actor.close_job.remote(key) is None
    with pytest.raises(EpisodeNotFoundError):  # closing the job awaited its state's aclose()
        await slot.client.get_episode(summary["episode"])
    closed = await _raised(actor.in_job.remote(key, _Call()))
    assert type(closed) is KeyError and f"no job {key!r}" in closed.args[0]
    assert await actor.close_job.remote(key) is None  # an unknown key is no error
    assert await actor.open_job.remote(key, _OpenBorrowing()) is not None  # the key is free again
    await actor.close_job.remote(key)


async def test_a_second_open_of_an_open_key_is_refused_and_runs_no_opener(cluster: tuple[RayHosts, ControlClient]):
    hosts, _ = cluster
    actor = hosts.actors[1]
    key = f"test:{secrets.token_hex(4)}"
    before = await actor.live_episodes.remote()
    # two opens at once (the actor is async: both are in its event loop together): one job, one refusal
    together = await asyncio.gather(actor.open_job.remote(key, _OpenBorrowing(pause=0.3)),
                                    actor.open_job.remote(key, _OpenBorrowing(pause=0.3)), return_exceptions=True)
    refused = [e.cause for e in together if isinstance(e, ray.exceptions.RayTaskError)]
    assert len(refused) == 1 and type(refused[0]) is RuntimeError, together
    assert [s for s in together if isinstance(s, dict)], together  # the other one opened
    assert str(refused[0]) == f"job {key!r} is open already"
    again = await _raised(actor.open_job.remote(key, _OpenBorrowing()))
    assert type(again) is RuntimeError and str(again) == f"job {key!r} is open already"
    assert await actor.live_episodes.remote() == before + 1  # only the first opener ran
    assert (await actor.in_job.remote(key, _Call()))[1] == 1  # the first job is untouched
    await actor.close_job.remote(key)
    assert await actor.live_episodes.remote() == before  # nothing of the refused opens was left behind


async def test_an_opener_or_work_that_raises_reaches_the_caller_and_the_job_is_as_before(
        cluster: tuple[RayHosts, ControlClient]):
    hosts, _ = cluster
    actor = hosts.actors[0]
    key = f"test:{secrets.token_hex(4)}"
    refused = await _raised(actor.open_job.remote(key, _OpenBorrowing(fails=True)))
    assert type(refused) is UsageError and str(refused) == "the opener refused"
    nothing = await _raised(actor.in_job.remote(key, _Call()))  # a failed open keeps nothing
    assert type(nothing) is KeyError
    await actor.open_job.remote(key, _OpenBorrowing())  # and leaves the key free
    broken = await _raised(actor.in_job.remote(key, _Call(tool="no_such_tool")))
    assert type(broken) is UnknownToolError and "no_such_tool" in str(broken)
    assert (await actor.in_job.remote(key, _Call()))[:2] == ({"total": 6}, 1)  # the job still works
    await actor.close_job.remote(key)
    # synthesis on Ray calls the actors through cluster_building's _on: what the actor's code raised reaches
    # the run as itself, as in a local run (a bug as the bug, not an environment fault); only Ray's own
    # failures (an actor or node lost) become one
    with pytest.raises(ValueError, match="^a bug in the opener$"):
        await on_actor(hosts.slots[0], "open_job", key, _OpenBorrowing(bug=True))
    with pytest.raises(UsageError, match="^the opener refused$"):
        await on_actor(hosts.slots[0], "open_job", key, _OpenBorrowing(fails=True))


async def test_an_episode_that_raises_on_ray_stops_the_run_with_what_it_raises_locally(
        cluster: tuple[RayHosts, ControlClient], tmp_path: Path):
    # eval's Ray job (clients.on_ray.EpisodeJob, as play_on_ray runs it) and the local player against this
    # control API: an episode of a task the host does not know is a usage error, not an infrastructure failure
    hosts, control = cluster
    config = EvalConfig(domains=["tiny_library"], agent="oracle", out=tmp_path / "out")
    agent, user = parse_role("oracle", AGENT_KINDS, "--agent"), parse_role("scripted", USER_KINDS, "--user")
    unknown = Task(id="no-such-task", domain="tiny_library", difficulty="easy", actions=[],
                   user=UserSpec(opening="Hello.", instruction="Ask for nothing."))
    with pytest.raises(UsageError) as local:
        await EpisodePlayer(config, HostConnection(control, "local", None), None, agent, user).play(unknown, 0)
    job = EpisodeJob(config, agent, user, control.base_url, hosts.token, "local")
    with anyio.fail_after(60), pytest.raises(UsageError) as on_ray:
        await run_as_ray_tasks(job, [(unknown, 0)], chunks=1, concurrency=1, reach=control.base_url,
                               failed=lambda item, reason: unplayed(config, *item, InfraKind.transport, reason))
    assert (type(on_ray.value), str(on_ray.value)) == (type(local.value), str(local.value))
    assert "no-such-task" in str(local.value)


async def test_a_killed_actor_loses_only_its_episodes_and_new_ones_keep_working(
        cluster: tuple[RayHosts, ControlClient], public: str):
    hosts, control = cluster
    episodes = await control.create_episodes("tiny_library", count=4)
    victim = _slot_of(hosts, episodes[0])
    lost = [e for e in episodes if _slot_of(hosts, e) == victim]
    kept = [e for e in episodes if _slot_of(hosts, e) != victim]
    assert lost and kept  # least-loaded placement evens out what earlier tests left
    await _call(kept[0].agent_url, "get_member", member_id="MEM-00001")
    key_on = {f"{public}/mcp/tiny_library/s/before-kill-{i}": slot
              for i, slot in (await _key_slots(hosts, public, "before-kill")).items()}

    old_pid = hosts.slots[victim].address.pid
    ray.kill(hosts.actors[victim], no_restart=False)  # Ray restarts it: a new, empty host
    with anyio.fail_after(60):  # ray.kill only asks: wait until the process is gone
        while _running(hosts.slots[victim].address.pid):
            await anyio.sleep(0.1)
    with anyio.fail_after(60):  # a clear answer, never a hang
        for episode in lost:
            with pytest.raises(EpisodeLostError, match="episode lost with its host"):
                await control.reset(episode.id)
            with pytest.raises(EpisodeLostError):  # and it keeps saying so
                await control.fingerprint(episode.id)
        batch = await control.rewards([e.id for e in episodes])
    assert {e.id for e in lost} == {i for i, error in batch.errors.items() if error.code == "episode_lost"}
    assert all(batch.errors[e.id].code != "episode_lost" for e in kept)

    for episode in kept:  # the other actor's episodes are untouched
        assert (await control.get_episode(episode.id)).id == episode.id
    assert (await control.get_episode(kept[0].id)).calls == 1
    fresh = await control.create_episodes("tiny_library", count=2)  # placed on a live actor: the other one,
    # or the victim's new incarnation when Ray restarted it meanwhile (quick on an idle machine)
    assert all(_slot_of(hosts, e) != victim or victim not in hosts.router.dead for e in fresh)
    for episode in fresh:
        assert (await _call(episode.agent_url, "get_member", member_id="MEM-00002"))["member_id"] == "MEM-00002"

    with anyio.fail_after(180):  # Ray restarts the actor; the router takes its new incarnation
        while victim in hosts.router.dead:
            await anyio.sleep(0.5)
    assert hosts.slots[victim].address.agent_url not in {e.agent_url.split("/mcp/")[0] for e in lost}
    spread = await control.create_episodes("tiny_library", count=4)
    assert victim in {_slot_of(hosts, e) for e in spread}
    back = next(e for e in spread if _slot_of(hosts, e) == victim)
    assert (await _call(back.agent_url, "get_member", member_id="MEM-00001"))["member_id"] == "MEM-00001"
    # the restart did not bring the old episodes back, and they name the process they lived in
    assert hosts.slots[victim].address.pid != old_pid
    with pytest.raises(EpisodeLostError, match=rf"lived on host actor {victim} \(node [^,]+, pid {old_pid}\)"):
        await control.get_episode(lost[0].id)
    for url, slot in key_on.items():  # a key of the dead actor says so, even on its new incarnation
        if slot == victim:
            assert "was lost with its host" in (await refusal(url, "auto")).message
        else:
            assert (await _call(url, "get_member", member_id="MEM-00001"))["member_id"] == "MEM-00001"
