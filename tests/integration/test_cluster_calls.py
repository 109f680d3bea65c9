"""A tool call over MCP reads back as the ``CallOutcome`` (or the error) that ``Host.call`` gives in
process: what ``tasks synth --ray`` relies on for its byte-identical file (scaleenv_mcp/cluster/episodes.py).

Real loopback listeners, the official MCP client in the stateless era on ``/mcp/{domain}``, the episode
named in ``_meta``; the same calls made in process on a twin episode of the same start state.
"""

from __future__ import annotations

from typing import Any

import mcp
import pytest

from scaleenv_mcp.cluster.episodes import STATELESS, call_over_mcp
from scaleenv_mcp.episodes.trace import CallOutcome
from scaleenv_mcp.errors import EpisodeNotFoundError, ScaleEnvError, UnknownToolError
from scaleenv_mcp.host.host import Host
from scaleenv_mcp.host.listeners import Listeners

pytestmark = pytest.mark.anyio

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("borrow_book", {"member_id": "MEM-00002", "book_id": "BK-00001"}),  # a success that writes
    ("borrow_book", {"member_id": "MEM-00002", "book_id": "BK-00001"}),  # again: another copy, another loan id
    ("get_member", {"member_id": "MEM-99999"}),  # not_found
    ("get_member", {}),  # fails the input schema: invalid_argument, before any worker
    ("find_books", {"text": "Dune"}),  # a read
]


def _seen(outcome: CallOutcome) -> tuple[Any, ...]:
    """What synthesis reads of an outcome (the duration and read/write sets stay in the host's trace)."""
    return outcome.kind, outcome.result, outcome.result_json, outcome.error_code, outcome.message


async def test_a_call_over_mcp_is_the_outcome_of_a_call_in_process(host: Host, listeners: Listeners):
    here, there = (await host.create_episode("tiny_library")).id, (await host.create_episode("tiny_library")).id
    async with mcp.Client(f"{listeners.agent_url}/mcp/tiny_library", mode=STATELESS) as client:
        for tool, arguments in CALLS:
            assert _seen(await call_over_mcp(client, there, tool, arguments)) == \
                _seen(await host.call(here, tool, arguments)), (tool, arguments)
        assert {o.kind.value for o in [await host.call(here, t, a) for t, a in CALLS]} == {"success", "tool_error"}
        assert await host.fingerprint(here) == await host.fingerprint(there)


@pytest.mark.parametrize(("tool", "closed", "raised"), [("no_such_tool", False, UnknownToolError),
                                                         ("get_member", True, EpisodeNotFoundError)])
async def test_a_harness_error_over_mcp_is_the_error_raised_in_process(host: Host, listeners: Listeners, tool: str,
                                                                       closed: bool, raised: type[ScaleEnvError]):
    here, there = (await host.create_episode("tiny_library")).id, (await host.create_episode("tiny_library")).id
    if closed:
        await host.close(here)
        await host.close(there)
    async with mcp.Client(f"{listeners.agent_url}/mcp/tiny_library", mode=STATELESS) as client:
        with pytest.raises(raised) as over_mcp:
            await call_over_mcp(client, there, tool, {"member_id": "MEM-00001"})
    with pytest.raises(raised) as in_process:
        await host.call(here, tool, {"member_id": "MEM-00001"})
    assert type(over_mcp.value) is type(in_process.value)
    assert over_mcp.value.message == in_process.value.message.replace(here, there)
