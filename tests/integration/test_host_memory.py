"""The host through a real in-memory MCP client: isolation, rollback, bad input, closed episodes."""

from __future__ import annotations

import json

import mcp
import pytest
from mcp.shared.exceptions import MCPError

from scaleenv_mcp.host.host import Host

pytestmark = pytest.mark.anyio

BORROW = {"member_id": "MEM-00002", "book_id": "BK-00001"}


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_two_episodes_of_one_domain_stay_isolated(host: Host, mode: str):
    first, second = await host.create_episode("tiny_library"), await host.create_episode("tiny_library")
    async with host.client(first.id, mode=mode) as a, host.client(second.id, mode=mode) as b:
        assert (await a.call_tool("borrow_book", BORROW)).structured_content["loan_id"] == "LN-00008"
        assert (await a.call_tool("borrow_book", {**BORROW, "book_id": "BK-00003"})).structured_content["loan_id"] == "LN-00009"
        # the second episode saw none of it: same first id, full shelf
        assert (await b.call_tool("borrow_book", BORROW)).structured_content["loan_id"] == "LN-00008"
        shelf = (await b.call_tool("find_books", {"text": "Dune Messiah"})).structured_content["items"]
        assert shelf[0]["copies_available"] == 1
    assert await host.registry.fingerprint(first.id) != await host.registry.fingerprint(second.id)


async def test_instructions_carry_description_policy_and_date(host: Host):
    episode = await host.create_episode("tiny_library")
    async with host.client(episode.id) as client:
        assert "small lending library" in client.instructions
        assert "Suspended members may not borrow" in client.instructions
        assert "2026-03-10" in client.instructions


async def test_failing_tool_rolls_back_writes_and_ids(host: Host):
    episode = await host.create_episode("tiny_library")
    before = await host.registry.fingerprint(episode.id)
    async with host.client(episode.id) as client:
        # borrow_book inserts the loan (minting LN-00008) before it finds no copy left: all undone
        refused = await client.call_tool("borrow_book", {"member_id": "MEM-00001", "book_id": "BK-00002"})
        assert refused.is_error and "conflict" in refused.content[0].text
        assert await host.registry.fingerprint(episode.id) == before
        assert (await client.call_tool("borrow_book", BORROW)).structured_content["loan_id"] == "LN-00008"


@pytest.mark.parametrize(("arguments", "named"), [
    ({"member_id": "MEM-00002"}, "book_id"),                                   # missing
    ({"member_id": 17, "book_id": "BK-00001"}, "member_id"),                   # mistyped
    ({**BORROW, "colour": "red"}, "colour"),                                   # extra
    ({**BORROW, "note": "x" * 600}, "note"),                                   # over the schema's maxLength
    ({**BORROW, "note": "y" * 70_000}, "note"),                                # over the host's argument size limit
])
async def test_bad_arguments_are_is_error_results_naming_the_parameter(host: Host, arguments: dict, named: str):
    episode = await host.create_episode("tiny_library")
    before = await host.registry.fingerprint(episode.id)
    async with host.client(episode.id) as client:
        result = await client.call_tool("borrow_book", arguments)
    assert result.is_error
    assert named in result.content[0].text and result.content[0].text.startswith("invalid_argument")
    assert await host.registry.fingerprint(episode.id) == before


async def test_unknown_tool_is_a_protocol_error_without_internals(host: Host):
    episode = await host.create_episode("tiny_library")
    async with host.client(episode.id) as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("drop_all_tables", {})
    assert "unknown tool" in caught.value.message
    assert "Traceback" not in caught.value.message and "/" not in caught.value.message


async def test_tool_crash_is_an_environment_fault_and_leaks_nothing(host: Host):
    episode = await host.create_episode("tiny_library")
    async with host.client(episode.id) as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("repeat_text", {"text": "x", "times": 10**10})  # MemoryError in the worker
    assert caught.value.error.data == {"code": "environment_fault"}
    assert "tools.py" not in caught.value.message and "Traceback" not in caught.value.message
    assert (await host.trace(episode.id))[-1].outcome.value == "fault"


async def test_closed_episode_gives_a_clear_error(host: Host):
    episode = await host.create_episode("tiny_library")
    client = host.client(episode.id)
    async with client:
        await host.registry.close(episode.id)
        with pytest.raises(MCPError) as caught:
            await client.call_tool("find_books", {"text": "Dune"})
    assert "closed" in caught.value.message


async def test_trace_records_every_call_with_outcome_and_duration(host: Host):
    episode = await host.create_episode("tiny_library")
    async with host.client(episode.id) as client:
        await client.call_tool("find_books", {"text": "Dune"})
        await client.call_tool("get_member", {"member_id": "MEM-09999"})
    trace = await host.trace(episode.id)
    assert [(r.tool, r.outcome.value, r.error_code) for r in trace] == [
        ("find_books", "success", None), ("get_member", "tool_error", "not_found")]
    assert all(r.duration_ms > 0 for r in trace)
    assert json.dumps(trace[0].arguments) == '{"text": "Dune"}'


async def test_interactive_server_lists_schema_and_openings_resources(host: Host):
    from scaleenv_mcp.episodes.registry import EpisodeOrigin

    episode = await host.create_episode("tiny_library", origin=EpisodeOrigin.interactive)
    async with host.client(episode.id) as client:
        uris = [str(r.uri) for r in (await client.list_resources()).resources]
        schema = await client.read_resource("scaleenv://tiny_library/schema")
    assert uris == ["scaleenv://tiny_library/schema", "scaleenv://tiny_library/openings"]
    assert "CREATE TABLE loans" in schema.contents[0].text


async def test_harness_episode_exposes_no_resources(host: Host):
    episode = await host.create_episode("tiny_library")
    async with mcp.Client(host.episode_server(episode.id)) as client:
        with pytest.raises(MCPError):
            await client.list_resources()
