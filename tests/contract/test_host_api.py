"""Host (in process), ControlClient (over HTTP) and HostRouter (over many hosts: scaleenv_mcp.cluster, which
imports no Ray itself) offer the same episode operations: EpisodeControl.

The signatures are compared here so that a parameter added to one and not the other fails at
once; the type checker (tests/contract/test_types.py) also checks both classes against the
Protocol, and tests/integration/test_control_api.py runs the operations over HTTP.
"""

from __future__ import annotations

import inspect

import pytest

from scaleenv_mcp import ControlClient, EpisodeControl, Host
from scaleenv_mcp.cluster.router import HostRouter
from scaleenv_mcp.host.episode_control import EpisodeControl as Declared
from tests.support_protocols import assert_offers, operations, shape

OPERATIONS = operations(Declared)


def test_the_protocol_names_every_control_operation():
    assert OPERATIONS == ["close", "create_episodes", "create_many", "delete_snapshot", "diff", "domains",
                          "export_episode", "export_snapshot", "fingerprint", "fork", "get_episode", "import_episode", "keyed_episode", "list_episodes", "reset", "restore", "reward", "rewards",
                          "snapshot", "tables", "tasks", "trace"]
    assert EpisodeControl is Declared


@pytest.mark.parametrize("implementation", [Host, ControlClient, HostRouter], ids=lambda c: c.__name__)
@pytest.mark.parametrize("operation", OPERATIONS)
def test_both_implementations_take_the_protocols_parameters(implementation: type, operation: str):
    assert_offers(implementation, Declared, operation)  # optional extras allowed, e.g. Host.fingerprint(full=False)


def test_a_differing_signature_would_fail():
    class Drifted:
        async def fork(self, episode_id: str, origin: str) -> str: ...

    declared = shape(Declared.fork)
    drifted = shape(Drifted.fork)
    assert drifted[:len(declared)] == declared
    assert not all(default is not inspect.Parameter.empty for _, default in drifted[len(declared):])


@pytest.mark.anyio
async def test_host_drives_an_episode_through_its_public_methods(host: Host):
    created = await host.create_episodes("tiny_library", count=2)
    assert [e.domain for e in created] == ["tiny_library"] * 2 and created[0].agent_url == ""
    first = created[0].id
    outcome = await host.call(first, "borrow_book", {"member_id": "MEM-00002", "book_id": "BK-00001"})
    assert outcome.kind.value == "success"
    snapshot = await host.snapshot(first)
    fork = await host.fork(first)
    assert fork.calls == 1 and await host.fingerprint(fork.id) == await host.fingerprint(first)
    assert (await host.diff(first)).row_count() > 0 and [r.tool for r in await host.trace(first)] == ["borrow_book"]
    assert (await host.reset(first)).calls == 0 and (await host.diff(first)).is_empty
    await host.restore(first, snapshot)
    assert (await host.diff(first, against=fork.id)).is_empty
    assert {e.id for e in await host.list_episodes()} == {created[0].id, created[1].id, fork.id}
    batch = await host.rewards([first])
    assert batch.rewards == {first: None} and batch.errors[first].code == "usage"  # a seed episode has no gold
    for episode in (*created, fork):
        await host.close(episode.id)
    assert await host.list_episodes() == []
