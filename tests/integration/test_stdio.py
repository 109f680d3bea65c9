"""``scaleenv serve --stdio``: one episode for a client that spawns the process."""

from __future__ import annotations

import sys
from pathlib import Path

import mcp
import pytest

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_stdio_serves_one_episode_that_keeps_state(fixture_domains: Path, mode: str, tmp_path: Path):
    params = mcp.StdioServerParameters(
        command=sys.executable,
        args=["-m", "scaleenv_mcp", "serve", "--stdio", str(fixture_domains / "tiny_library")],
        env={"SCALEENV_STATE_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    async with mcp.Client(params, mode=mode) as client:
        assert "lending library" in (client.instructions or "")
        tools = {t.name for t in (await client.list_tools()).tools}
        first = await client.call_tool("borrow_book", {"member_id": "MEM-00002", "book_id": "BK-00001"})
        second = await client.call_tool("borrow_book", {"member_id": "MEM-00002", "book_id": "BK-00003"})
        bad = await client.call_tool("borrow_book", {"member_id": "MEM-00002"})
    assert {"borrow_book", "return_book"} <= tools
    assert (first.structured_content["loan_id"], second.structured_content["loan_id"]) == ("LN-00008", "LN-00009")
    assert bad.is_error and "book_id" in bad.content[0].text
