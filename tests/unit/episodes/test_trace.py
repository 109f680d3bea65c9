"""An episode's trace as the host keeps it (scaleenv_mcp/episodes/trace.py): rows with the worker's JSON
text, records built when read. Through the real Host and its worker (tiny_library)."""

from __future__ import annotations

import pytest

from scaleenv_mcp.episodes.trace import OutcomeKind
from scaleenv_mcp.host.host import Host

pytestmark = pytest.mark.anyio


async def test_the_trace_reads_back_every_call_in_order_with_its_result_or_error(host: Host):
    episode = await host.create_episode("tiny_library")
    member = await host.call(episode.id, "get_member", {"member_id": "MEM-00001"})
    missing = await host.call(episode.id, "get_member", {"member_id": "MEM-99999"})
    borrowed = await host.call(episode.id, "borrow_book", {"member_id": "MEM-00002", "book_id": "BK-00001"})

    trace = await host.trace(episode.id)
    assert [(r.index, r.tool, r.outcome) for r in trace] == [
        (0, "get_member", OutcomeKind.success), (1, "get_member", OutcomeKind.tool_error),
        (2, "borrow_book", OutcomeKind.success)]
    assert trace[0].result == member.result and trace[2].result == borrowed.result
    assert trace[0].arguments == {"member_id": "MEM-00001"}
    assert (trace[1].result, trace[1].error_code, trace[1].message) == (None, missing.error_code, missing.message)
    assert all(r.duration_ms > 0 for r in trace)
    assert await host.trace(episode.id) == trace  # read twice, the same


async def test_changing_what_a_caller_got_or_read_leaves_the_trace_as_it_was(host: Host):
    episode = await host.create_episode("tiny_library")
    arguments = {"member_id": "MEM-00001"}
    outcome = await host.call(episode.id, "get_member", arguments)
    assert outcome.result is not None
    kept = outcome.result["member_id"]
    outcome.result["member_id"] = "changed by the caller"
    arguments["member_id"] = "changed too"
    [record] = await host.trace(episode.id)
    assert record.result is not None and record.arguments is not None
    record.result["member_id"], record.arguments["member_id"] = "changed by a reader", "and here"
    [again] = await host.trace(episode.id)
    assert again.result is not None and again.result["member_id"] == kept
    assert again.arguments == {"member_id": "MEM-00001"}


async def test_a_fork_starts_with_the_parents_trace_and_each_goes_on_alone(host: Host):
    parent = await host.create_episode("tiny_library")
    await host.call(parent.id, "get_member", {"member_id": "MEM-00001"})
    child = await host.fork(parent.id)
    await host.call(child.id, "borrow_book", {"member_id": "MEM-00002", "book_id": "BK-00001"})
    await host.call(parent.id, "get_member", {"member_id": "MEM-00002"})
    assert [r.tool for r in await host.trace(child.id)] == ["get_member", "borrow_book"]
    assert [r.tool for r in await host.trace(parent.id)] == ["get_member", "get_member"]
    assert [r.index for r in await host.trace(child.id)] == [0, 1]
