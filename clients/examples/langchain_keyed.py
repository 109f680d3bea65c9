"""Example: langchain-mcp-adapters' default ``get_tools()`` on a keyed URL keeps one episode.

    python -m scaleenv_mcp.clients.examples.langchain_keyed --endpoint http://127.0.0.1:8765/mcp/smart_home/s/my-run

``MultiServerMCPClient.get_tools()`` opens a new MCP session for every tool call. On
``/mcp/{domain}`` each session is a fresh episode, so a write is lost by the next call; on
``/mcp/{domain}/s/{key}`` every session with the key gets the same episode (docs/integrations.md).
Prints one JSON line: the home's alarm mode before, the write's answer, and the mode after.
Needs only langchain-mcp-adapters (whose mcp<2 pin conflicts with ours: the integration test
runs this in a virtual environment of its own).
"""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any

from scaleenv_mcp.clients.examples.adapter_cli import require_no_host_import

__all__ = ["alarm_round_trip"]

HOME = {"acting_user_id": "USR-00024", "home_id": "HOME-00027"}


def _payload(content: Any) -> dict[str, Any]:
    """The tool's JSON answer from langchain's content blocks (or plain text)."""
    if isinstance(content, list):
        content = "".join(block.get("text", "") if isinstance(block, dict) else str(block) for block in content)
    return json.loads(content)


async def alarm_round_trip(endpoint: str, mode: str = "away") -> dict[str, Any]:
    """get_home, set_alarm_mode, get_home: three calls, three MCP sessions."""
    from langchain_mcp_adapters.client import MultiServerMCPClient

    client = MultiServerMCPClient({"smart_home": {"transport": "streamable_http", "url": endpoint}})
    tools = {tool.name: tool for tool in await client.get_tools()}
    before = _payload(await tools["get_home"].ainvoke(HOME))
    written = _payload(await tools["set_alarm_mode"].ainvoke({**HOME, "alarm_mode": mode}))
    after = _payload(await tools["get_home"].ainvoke(HOME))
    return {"endpoint": endpoint, "before": before["alarm_mode"], "written": written["alarm_mode"],
            "after": after["alarm_mode"]}


if __name__ == "__main__":
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    arguments.add_argument("--endpoint", required=True, help="an MCP URL of smart_home")
    arguments.add_argument("--mode", default="away", choices=["disarmed", "home", "away", "night"])
    options = arguments.parse_args()
    print(json.dumps(asyncio.run(alarm_round_trip(options.endpoint, options.mode))))
    require_no_host_import()
